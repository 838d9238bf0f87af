/**
 * The fleet benchmark's latency probe, a process of its own (forked with IPC) so that its client work is
 * not counted as the service's latency nor competes with the service's event loop: it GETs the URL it is
 * given one request after another (a short pause between, as a monitoring client polls) from the moment
 * it starts until the parent sends 'finish', then answers the latencies it saw (p50, p99, worst) and how
 * many requests failed. A request is timed from send to the last byte of the answer.
 */
import { performance } from 'node:perf_hooks';
import { benchClient } from './http-client';

const PAUSE_MS = 10;

const url = new URL(process.argv[2]!);
const client = benchClient(url.origin);
const times: number[] = [];
let errors = 0;
let finishing = false;

const percentile = (sorted: readonly number[], p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function loop(): Promise<void> {
  while (!finishing) {
    const start = performance.now();
    try {
      const reply = await client.request('GET', url.pathname + url.search);
      if (reply.status !== 200) errors += 1;
    } catch {
      errors += 1;
    }
    times.push(performance.now() - start);
    await new Promise((r) => setTimeout(r, PAUSE_MS));
  }
  const sorted = [...times].sort((a, b) => a - b);
  process.send?.({
    count: times.length,
    errors,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.at(-1) ?? 0,
  });
  client.close();
}

process.on('message', (m) => {
  if (m === 'finish') finishing = true;
});
process.on('disconnect', () => process.exit(0));
process.send?.({ started: true });
void loop();
