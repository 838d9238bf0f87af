/**
 * Benchmark: event streams under load. The service (`rosetta start`, the test models of ietf-interfaces
 * and iana-if-type, durable journal, a fresh data folder) runs in its own process; the client
 * (bench/events-load-child.ts: a paced writer and every subscriber, one clock) in another.
 * - Without subscribers: writes (a PATCH of one interface's description, 32 connections) offered at
 *   2,000/s for a few seconds: the write rate the service sustains. Right after, with the same tool.
 * - 1,000 subscribers on `data-change` over SSE (`/rests/streams/json/data-change`), each its own
 *   connection; service RSS before and after they connect (after gc), per subscriber, and its peak
 *   RSS during the run with them (buffers of subscribers that fall behind show there).
 * - The same offered writes with them subscribed: the write rate beside the no-subscriber rate (goal
 *   >= 80%); events delivered per second and whether every subscriber got every answered write (each
 *   write carries its number in the value it sets; the subscriber finds it in the event); p50/p99 of the
 *   time from the write's 2xx at the writer to the event's arrival at the subscriber (goal p99 < 50 ms).
 * The service's CPU seconds (/proc) are taken over both write phases, and the client's, so that a
 * client that ran out of CPU (one process parsing 1,000 streams, on a shared 2-core machine) shows.
 * When the service has no data-change stream, the rows are skipped saying why. A run is bounded: a few
 * seconds per phase, the subscribers' wait and the drain bounded; under 3 minutes in all.
 * Tuning: BENCH_EVENTS_RATE (writes/s offered), BENCH_EVENTS_SUBSCRIBERS, BENCH_EVENTS_SECONDS;
 * BENCH_EVENTS_PROFILE=<dir> runs the service and the client under --cpu-prof and leaves their profiles
 * there; BENCH_EVENTS_CONFIG=<json> is the service's configuration file (say, its `events` settings).
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Measured, Subscribed } from './events-load-child';
import type { WriteRun } from './events-writer';
import { cpuSeconds, memoryAfterGc } from './fleet-processes';
import { testModels } from './paths';
import { type Child, peakRss, resetPeak, startChild, stopChild } from './restconf';
import { result, type BenchResult } from './results';

const RATE = Number(process.env.BENCH_EVENTS_RATE ?? 2000);
const SUBSCRIBERS = Number(process.env.BENCH_EVENTS_SUBSCRIBERS ?? 1000);
const SECONDS = Number(process.env.BENCH_EVENTS_SECONDS ?? 10);
const CONNECTIONS = 32;
const ENTRIES = 64;
const STREAM = '/rests/streams/json/data-change';
const SUBSCRIBE_TIMEOUT_MS = 40_000;
const DRAIN_MS = 10_000;
const PROFILE_DIR = process.env.BENCH_EVENTS_PROFILE;
const SERVICE_CONFIG = process.env.BENCH_EVENTS_CONFIG;
const profile = PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`];

interface LoadClient {
  ask<T>(command: Record<string, unknown>, timeoutMs: number): Promise<T>;
  /** Resolves once the client has exited: it gets a moment to (writing its profile), then is killed. */
  stop(): Promise<void>;
}

/** Forks the client process against `url`; every command is answered within its bound or fails. */
function startLoadClient(url: string): Promise<LoadClient> {
  const proc: ChildProcess = fork(path.join(__dirname, 'events-load-child.js'), [url], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: profile,
  });
  const ask = <T>(command: Record<string, unknown>, timeoutMs: number): Promise<T> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the event client did not answer ${String(command.cmd)} within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
      proc.once('message', (m: { error?: string }) => {
        clearTimeout(timer);
        if (m.error !== undefined) reject(new Error(`the event client, ${String(command.cmd)}: ${m.error}`));
        else resolve(m as T);
      });
      proc.send(command);
    });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error('the event client did not start in 30 s'));
    }, 30_000);
    proc.once('message', () => {
      clearTimeout(timer);
      resolve({ ask, stop });
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the event client exited with ${code}`));
    });
  });
}

/** Runs `phase` and answers it with the service's CPU seconds over it. */
async function withCpu<T>(service: Child, phase: () => Promise<T>): Promise<[T, number]> {
  const before = cpuSeconds(service.proc.pid!);
  const value = await phase();
  return [value, cpuSeconds(service.proc.pid!) - before];
}

const offered = `offered ${RATE.toLocaleString('en')}/s`;

/** The rows of the writes with no one subscribed (they stand alone when the stream is missing). */
function aloneRows(alone: WriteRun, aloneCpu: number): BenchResult[] {
  return [
    result(
      `data-change writes, no subscribers (${offered}, ${CONNECTIONS} conns)`,
      alone.perSecond,
      'writes/s',
      RATE,
      'what the service sustains',
    ),
    result('data-change writes, no subscribers: write p99', alone.p99Ms, 'ms'),
    result('service CPU per 1,000 writes, no subscribers', perThousand(aloneCpu, alone), 's', null, `${aloneCpu.toFixed(1)} CPU s in all`),
  ];
}

const perThousand = (cpu: number, run: WriteRun): number => (run.acked === 0 ? 0 : (cpu * 1000) / run.acked);

function rows(
  alone: WriteRun,
  aloneCpu: number,
  subscribed: Subscribed,
  memoryPerSubscriber: { idle: number; heap: number; peak: number },
  m: Measured,
  cpu: number,
): BenchResult[] {
  const n = m.subscribers.toLocaleString('en');
  return [
    ...aloneRows(alone, aloneCpu),
    result(
      `data-change writes, ${n} subscribers (${offered})`,
      m.writes.perSecond,
      'writes/s',
      alone.perSecond,
      '>= 0.8x without subscribers',
    ),
    result(`data-change writes, ${n} subscribers: write p99`, m.writes.p99Ms, 'ms', alone.p99Ms),
    result(
      `events delivered per second, ${n} subscribers`,
      m.deliveredPerSecond,
      'events/s',
      m.writes.perSecond * m.subscribers,
      'answered writes/s x subscribers',
    ),
    result(`events not delivered (of ${m.expected.toLocaleString('en')} expected)`, m.missing, 'count', null, '0: every event delivered'),
    result('events delivered twice', m.duplicates, 'count', null, '0'),
    result('subscribers closed during the run', m.endedEarly, 'count', null, '0'),
    result('write 2xx to delivery at the subscriber, p50', m.p50Ms, 'ms'),
    result('write 2xx to delivery at the subscriber, p99', m.p99Ms, 'ms', 50, '< 50 ms'),
    result('write 2xx to delivery at the subscriber, p99.9', m.p999Ms, 'ms'),
    result("deliveries that arrived before their write's 2xx (counted as 0 ms)", m.beforeAck, 'count', m.delivered),
    result(
      'service RSS per idle subscriber (after gc)',
      memoryPerSubscriber.idle / 1024,
      'KB',
      null,
      'RSS moves with more than subscribers',
    ),
    result('service heap and buffers per idle subscriber (after gc)', memoryPerSubscriber.heap / 1024, 'KB'),
    result('service peak RSS during the run, per subscriber (over the RSS before they connected)', memoryPerSubscriber.peak / 1024, 'KB'),
    result(
      `service CPU per 1,000 writes, ${n} subscribers`,
      perThousand(cpu, m.writes),
      's',
      perThousand(aloneCpu, alone),
      `${cpu.toFixed(1)} CPU s in all`,
    ),
    result(
      'event client CPU during the run (1 = a core)',
      m.clientCores,
      'cores',
      null,
      `live subscribers ${subscribed.live}/${subscribed.opened}`,
    ),
  ];
}

/** Says on stderr which of the goals the run missed, so that a reader of the log sees it. */
function reportMissedGoals(alone: WriteRun, m: Measured): void {
  const missed: string[] = [];
  if (m.missing > 0 || m.endedEarly > 0)
    missed.push(`${m.missing} of ${m.expected} events not delivered, ${m.endedEarly} subscribers closed (${m.endedText ?? ''})`);
  if (m.p99Ms >= 50) missed.push(`p99 ${m.p99Ms.toFixed(1)} ms >= 50 ms`);
  if (m.writes.perSecond < 0.8 * alone.perSecond)
    missed.push(`writes with subscribers ${Math.round(m.writes.perSecond)}/s < 80% of ${Math.round(alone.perSecond)}/s`);
  if (alone.perSecond < 0.95 * RATE) missed.push(`the service sustains ${Math.round(alone.perSecond)} writes/s of the ${RATE} offered`);
  if (m.clientCores > 0.9) missed.push(`the client used ${m.clientCores.toFixed(2)} cores: it may be what limits delivery`);
  for (const line of missed) console.error(`bench: events: goal missed or measurement limited: ${line}`);
  for (const run of [alone, m.writes])
    if (run.failed > 0) console.error(`bench: events: ${run.failed} writes failed; the first: ${run.firstError ?? ''}`);
}

export async function benchEvents(): Promise<BenchResult[]> {
  const yangDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-yang-'));
  for (const f of ['ietf-interfaces@2018-02-20.yang', 'iana-if-type@2026-03-17.yang'])
    fs.symlinkSync(path.join(testModels, f), path.join(yangDir, f));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-events-'));
  const logFd = fs.openSync(path.join(dir, 'service.log'), 'a');
  const config: string[] = [];
  if (SERVICE_CONFIG !== undefined) {
    fs.writeFileSync(path.join(dir, 'config.json'), SERVICE_CONFIG);
    config.push('--config', path.join(dir, 'config.json'));
  }
  const service = await startChild(
    ['service', '--port', '0', '--data-dir', path.join(dir, 'data'), '--yang', yangDir, ...config],
    profile,
    logFd,
  ).finally(() => fs.closeSync(logFd));
  let client: LoadClient | undefined;
  try {
    client = await startLoadClient(service.url);
    await client.ask({ cmd: 'prepare', entries: ENTRIES, connections: CONNECTIONS }, 30_000);
    // Two unmeasured seconds (JIT, connections), then the rate without subscribers right before the run with them.
    await client.ask({ cmd: 'write', rate: RATE, seconds: 2 }, 60_000);
    const [alone, aloneCpu] = await withCpu(service, () =>
      client!.ask<WriteRun>({ cmd: 'write', rate: RATE, seconds: SECONDS }, (SECONDS + 30) * 1000),
    );

    const before = await memoryAfterGc(service);
    const subscribed = await client.ask<Subscribed>(
      { cmd: 'subscribe', count: SUBSCRIBERS, path: STREAM, timeoutMs: SUBSCRIBE_TIMEOUT_MS },
      SUBSCRIBE_TIMEOUT_MS + 30_000,
    );
    if (subscribed.live === 0) {
      console.error(
        `bench: events: SKIPPING the event stream rows: no subscription to ${STREAM} got an event (${subscribed.firstFailure ?? ''})`,
      );
      return aloneRows(alone, aloneCpu);
    }
    if (subscribed.live < subscribed.opened)
      console.error(
        `bench: events: only ${subscribed.live} of ${subscribed.opened} subscriptions are live (${subscribed.firstFailure ?? ''})`,
      );
    const after = await memoryAfterGc(service);
    resetPeak(service.proc.pid!);
    const [measured, cpu] = await withCpu(service, () =>
      client!.ask<Measured>({ cmd: 'measure', rate: RATE, seconds: SECONDS, drainMs: DRAIN_MS }, (SECONDS + DRAIN_MS / 1000 + 60) * 1000),
    );
    const peakPerSubscriber = (peakRss(service.proc.pid!) - before.rss) / subscribed.live;
    reportMissedGoals(alone, measured);
    const perSubscriber = {
      idle: (after.rss - before.rss) / subscribed.live,
      heap: (after.heapUsed + after.external - before.heapUsed - before.external) / subscribed.live,
      peak: peakPerSubscriber,
    };
    return rows(alone, aloneCpu, subscribed, perSubscriber, measured, cpu);
  } catch (e) {
    console.error(
      `bench: events: the service's log ends:\n${fs.readFileSync(path.join(dir, 'service.log'), 'utf8').split('\n').slice(-20).join('\n')}`,
    );
    throw e;
  } finally {
    await client?.ask({ cmd: 'close' }, 10_000).catch(() => undefined);
    await client?.stop();
    await stopChild(service);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(yangDir, { recursive: true, force: true });
  }
}
