/**
 * The event benchmark's writer: small merges (PATCH of one interface's description) on the Config
 * datastore at an offered rate, each carrying a number of its own in the value (`"evb<n>"`), so that a
 * subscriber can tell which write an event came from. It is paced, not closed-loop: the n-th write is
 * sent at n / rate seconds or, when every connection is busy, as soon as one is free; so the rate it
 * reaches is what the service sustains, up to the rate offered, and the same offer can be made with and
 * without subscribers. It reports the time of each write's 2xx answer to `onAck` (the subscribers'
 * latency starts there).
 */
import { performance } from 'node:perf_hooks';
import { benchClient } from './http-client';

export const INTERFACES = '/rests/data/ietf-interfaces:interfaces';

/** The description a write sets: the marker a subscriber finds in the event. */
export const markerOf = (n: number): string => `evb${n}`;

/** The body of write n, a merge into entry eth<k>. */
export function writeBody(k: number, description: string): string {
  return JSON.stringify({ 'ietf-interfaces:interface': [{ name: `eth${k}`, description }] });
}

export interface WriteRun {
  /** Writes the schedule asked for. */
  readonly offered: number;
  /** Writes sent (fewer than offered when the service fell behind the schedule). */
  readonly sent: number;
  /** 2xx answers. */
  readonly acked: number;
  /** Non-2xx answers and request errors. */
  readonly failed: number;
  /** 2xx answers per second, over the time from the first send to the last answer. */
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The first error's text, for the reader of a failed run. */
  readonly firstError?: string;
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

/** A writer over `connections` keep-alive connections to `baseUrl`, writing entries eth0..eth<entries-1>. */
export function pacedWriter(baseUrl: string, connections: number, entries: number) {
  const client = benchClient(baseUrl, connections);
  const send = (method: string, path: string, body: string) => client.request(method, path, body);

  /** Writes `description` into entry k; rejects unless 2xx. */
  const writeOne = async (k: number, description: string): Promise<void> => {
    const reply = await send('PATCH', `${INTERFACES}/interface=eth${k}`, writeBody(k, description));
    if (reply.status < 200 || reply.status >= 300) throw new Error(`PATCH eth${k}: ${reply.status} ${reply.text.slice(0, 300)}`);
  };

  /** Creates the entries the writes merge into (one PUT of the list). */
  const prepare = async (): Promise<void> => {
    const list = Array.from({ length: entries }, (_, k) => ({
      name: `eth${k}`,
      type: 'iana-if-type:ethernetCsmacd',
      description: 'start',
    }));
    const reply = await send('PUT', INTERFACES, JSON.stringify({ 'ietf-interfaces:interfaces': { interface: list } }));
    if (reply.status !== 201 && reply.status !== 204) throw new Error(`PUT of the interfaces: ${reply.status} ${reply.text.slice(0, 300)}`);
  };

  /**
   * Offers `rate` writes a second for `seconds`, numbered from `first`; resolves once every write sent
   * is answered. `onAck(n, at)` gets the performance.now() of write n's 2xx answer.
   */
  const run = (rate: number, seconds: number, first: number, onAck: (n: number, at: number) => void): Promise<WriteRun> =>
    new Promise((resolve) => {
      const offered = Math.round(rate * seconds);
      const times: number[] = [];
      let sent = 0;
      let acked = 0;
      let failed = 0;
      let inFlight = 0;
      let firstError: string | undefined;
      let lastAnswer = 0;
      let done = false;
      const start = performance.now();
      const finish = () => {
        clearInterval(ticker);
        if (done) return;
        done = true;
        const sorted = times.sort((a, b) => a - b);
        const elapsed = Math.max(lastAnswer - start, 1) / 1000;
        resolve({
          offered,
          sent,
          acked,
          failed,
          perSecond: acked / elapsed,
          p50Ms: percentile(sorted, 0.5),
          p99Ms: percentile(sorted, 0.99),
          ...(firstError === undefined ? {} : { firstError }),
        });
      };
      const scheduleOver = () => performance.now() - start >= seconds * 1000 || sent >= offered;
      const pump = () => {
        const due = Math.min(offered, Math.floor(((performance.now() - start) / 1000) * rate) + 1);
        while (sent < due && inFlight < connections && !scheduleOver()) {
          const n = first + sent;
          sent += 1;
          inFlight += 1;
          const at = performance.now();
          writeOne(n % entries, markerOf(n))
            .then(
              () => {
                const now = performance.now();
                acked += 1;
                times.push(now - at);
                onAck(n, now);
              },
              (e: unknown) => {
                failed += 1;
                firstError ??= (e as Error).message;
              },
            )
            .finally(() => {
              inFlight -= 1;
              lastAnswer = performance.now();
              if (inFlight === 0 && scheduleOver()) finish();
              else pump();
            });
        }
      };
      // A 1 ms tick keeps the pace between answers; an answer also sends the next write at once.
      const ticker = setInterval(() => {
        if (scheduleOver()) {
          clearInterval(ticker);
          if (inFlight === 0) finish();
        } else pump();
      }, 1);
      pump();
    });

  return { prepare, writeOne, run, close: () => client.close() };
}

export type PacedWriter = ReturnType<typeof pacedWriter>;
