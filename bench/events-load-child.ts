/**
 * The event benchmark's client, a process of its own (forked with IPC, the service's URL as argument),
 * so that its work is not the service's: it holds the writer and every subscriber, so that the time a
 * write is answered and the time its event arrives come from one clock. The parent drives it with one
 * command at a time and gets one answer each (`{ error }` when it failed):
 * - `{ cmd: 'prepare', entries, connections }`: creates the entries the writes merge into.
 * - `{ cmd: 'write', rate, seconds }`: offers writes with no one subscribed; answers the WriteRun.
 * - `{ cmd: 'subscribe', count, path, timeoutMs }`: opens `count` SSE subscriptions, then writes a
 *   primer until every one has received an event (so each is known to be live); answers how many are.
 * - `{ cmd: 'measure', rate, seconds, drainMs }`: the same writes, with the subscribers counting; waits
 *   (at most drainMs) for every subscriber to get every answered write; answers writes and deliveries.
 * - `{ cmd: 'close' }`: closes the subscriptions and the writer, then exits.
 */
import { performance } from 'node:perf_hooks';
import { type PacedWriter, pacedWriter, type WriteRun } from './events-writer';
import { MeasuredWrites, Subscriber } from './events-subscribers';

export interface Subscribed {
  readonly opened: number;
  readonly live: number;
  /** Status and text of the first subscription that failed, when one did. */
  readonly firstFailure?: string;
}

export interface Measured {
  readonly writes: WriteRun;
  readonly subscribers: number;
  /** Subscribers whose stream ended during the run (closed as too slow, say) and the last one's last words. */
  readonly endedEarly: number;
  readonly endedText?: string;
  /** Deliveries expected (answered writes times live subscribers) and seen. */
  readonly expected: number;
  readonly delivered: number;
  readonly missing: number;
  readonly duplicates: number;
  /** Deliveries per second, from the first write sent to the last delivery. */
  readonly deliveredPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly beforeAck: number;
  /** CPU this client used during the run, in cores (1 = one core busy all the time). */
  readonly clientCores: number;
}

const base = process.argv[2]!;
let writer: PacedWriter | undefined;
let subscribers: Subscriber[] = [];
/** The writes' numbers keep rising across runs, so that no run counts another's events. */
let nextWrite = 1;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(done: () => boolean, timeoutMs: number, between?: () => Promise<void>): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) return false;
    if (between !== undefined) await between();
    await sleep(50);
  }
  return true;
}

async function subscribe(count: number, path: string, timeoutMs: number): Promise<Subscribed> {
  const url = new URL(path, base);
  let answered = 0;
  let firstFailure: string | undefined;
  const onResponse = (s: Subscriber) => {
    answered += 1;
    if (s.status !== 200 && firstFailure === undefined) firstFailure = `${s.status || 'no answer'} ${s.lastText}`;
  };
  // In steps of 100, so that the service's accept queue is not the thing measured.
  for (let i = 0; i < count; i += 100) {
    for (let j = i; j < Math.min(count, i + 100); j++) subscribers.push(new Subscriber(url, onResponse));
    await sleep(20);
  }
  // A failed subscription (404 before the stream exists) answers at once; wait a little for one to show.
  await until(() => answered > 0, Math.min(timeoutMs, 5000));
  if (firstFailure !== undefined) return { opened: subscribers.length, live: 0, firstFailure };
  let primer = 0;
  await until(
    () => subscribers.every((s) => s.live || s.ended),
    timeoutMs,
    async () => {
      primer += 1;
      await writer!.writeOne(0, `primer-${primer}`);
      await sleep(150);
    },
  );
  const live = subscribers.filter((s) => s.live && !s.ended).length;
  const silent = subscribers.find((s) => !s.live);
  return {
    opened: subscribers.length,
    live,
    ...(silent === undefined ? {} : { firstFailure: `${silent.status} ${silent.ended ? 'ended' : 'no event'} ${silent.lastText}` }),
  };
}

async function measure(rate: number, seconds: number, drainMs: number): Promise<Measured> {
  const live = subscribers.filter((s) => s.live && !s.ended);
  const measured = new MeasuredWrites(nextWrite, Math.round(rate * seconds));
  for (const s of live) s.measure(measured);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const writes = await writer!.run(rate, seconds, nextWrite, (n, at) => measured.ack(n, at));
  nextWrite += measured.capacity;
  await until(() => live.every((s) => s.ended || s.seenCount >= writes.acked), drainMs);
  const used = process.cpuUsage(cpu);
  const elapsed = performance.now() - started;
  measured.settle();
  const ended = live.filter((s) => s.ended);
  const missing = live.reduce((sum, s) => sum + s.missing(), 0);
  const h = measured.latency;
  return {
    writes,
    subscribers: live.length,
    endedEarly: ended.length,
    ...(ended.length === 0 ? {} : { endedText: ended[0]!.lastText }),
    expected: writes.acked * live.length,
    delivered: measured.deliveries,
    missing,
    duplicates: live.reduce((sum, s) => sum + s.duplicates, 0),
    deliveredPerSecond: measured.deliveries / (Math.max(measured.lastDelivery - started, 1) / 1000),
    p50Ms: h.percentile(0.5),
    p99Ms: h.percentile(0.99),
    p999Ms: h.percentile(0.999),
    beforeAck: h.beforeAck,
    clientCores: (used.user + used.system) / 1000 / elapsed,
  };
}

async function handle(m: Record<string, unknown>): Promise<unknown> {
  switch (m.cmd) {
    case 'prepare':
      writer = pacedWriter(base, m.connections as number, m.entries as number);
      await writer.prepare();
      return { ok: true };
    case 'write': {
      const rate = m.rate as number;
      const seconds = m.seconds as number;
      const run = await writer!.run(rate, seconds, nextWrite, () => {});
      nextWrite += Math.round(rate * seconds);
      return run;
    }
    case 'subscribe':
      return subscribe(m.count as number, m.path as string, m.timeoutMs as number);
    case 'measure':
      return measure(m.rate as number, m.seconds as number, m.drainMs as number);
    case 'close':
      for (const s of subscribers) s.close();
      subscribers = [];
      writer?.close();
      setImmediate(() => process.exit(0));
      return { ok: true };
    default:
      throw new Error(`unknown command ${String(m.cmd)}`);
  }
}

process.on('message', (m) => {
  handle(m as Record<string, unknown>).then(
    (answer) => process.send?.(answer),
    (e: unknown) => process.send?.({ error: (e as Error).stack ?? String(e) }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send?.({ started: true });
