/**
 * Child process of the RESTCONF benchmark (forked with IPC and --expose-gc). Two roles:
 * - `service <args...>`: the real `rosetta start` with the given flags; reports its URL once it listens.
 * - `trivial`: a bare Node `http` server answering a fixed 200-byte body, the ceiling for this machine.
 * On 'profile-start' and 'profile-stop' it samples its own CPU (V8's profiler, every 200 us) and answers
 * the samples of each script (bench/operability.ts reads what share went to metrics and logging).
 * On `{ snapshot: dir }` it writes a heap snapshot into that folder and answers its file name.
 * On the message 'gc' it collects garbage twice and answers its heap use, so that the parent can
 * measure memory per stored entry without counting garbage (with the RSS, the heap's total and the memory
 * outside it, to tell where a process's memory sits). On 'fsyncs' it answers how many durable
 * commits (file writes) ran so far and their total time with any datasync: a probe on node's
 * FileHandle, which the service's own code does not know about.
 */
import * as http from 'node:http';
import * as inspector from 'node:inspector';
import type { AddressInfo } from 'node:net';
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as v8 from 'node:v8';
import { main } from '@rosetta/core/dist/src/cli/main';

const send = (m: unknown) => process.send?.(m);

const fsyncs = { count: 0, totalMs: 0 };

/**
 * Wraps FileHandle.prototype.write and .datasync to count and time them. During a PUT load the only
 * file writes are the journal's group commits: one write each (through an O_DSYNC descriptor, durable
 * when it returns), or one write and one datasync where the journal syncs explicitly.
 */
async function probeFsyncs(): Promise<void> {
  const handle = await fsp.open(__filename, 'r');
  const proto = Object.getPrototypeOf(handle) as Record<'write' | 'datasync', (...args: unknown[]) => Promise<unknown>>;
  await handle.close();
  for (const name of ['write', 'datasync'] as const) {
    const original = proto[name];
    proto[name] = function (this: unknown, ...args: unknown[]) {
      const started = performance.now();
      return original.apply(this, args).finally(() => {
        if (name === 'write') fsyncs.count += 1;
        fsyncs.totalMs += performance.now() - started;
      });
    };
  }
}

/** The sampling CPU profiler of this process (the service), when the parent asks for a profile. */
const inspectorSession = new inspector.Session();

/**
 * Stops the profile and answers the samples of each script (its URL; a native or V8 entry by its name
 * in parentheses): self time, so the parent can tell which code the service's CPU went to.
 */
function profileCounts(profile: inspector.Profiler.Profile): Record<string, number> {
  const byNode = new Map<number, string>();
  for (const node of profile.nodes) {
    const { url, functionName } = node.callFrame;
    byNode.set(node.id, url !== '' ? url : functionName.startsWith('(') ? functionName : `(${functionName || 'anonymous'})`);
  }
  const counts: Record<string, number> = {};
  for (const id of profile.samples ?? []) {
    const key = byNode.get(id) ?? '(unknown)';
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

process.on('message', (m) => {
  if (m === 'profile-start') {
    inspectorSession.connect();
    inspectorSession.post('Profiler.enable', () =>
      inspectorSession.post('Profiler.setSamplingInterval', { interval: 200 }, () =>
        inspectorSession.post('Profiler.start', () => send({ profiling: true })),
      ),
    );
    return;
  }
  if (m === 'profile-stop') {
    inspectorSession.post('Profiler.stop', (error, result) => {
      send({ profile: error ? {} : profileCounts(result.profile) });
      inspectorSession.disconnect();
    });
    return;
  }
  if (typeof m === 'object' && m !== null && typeof (m as { snapshot?: unknown }).snapshot === 'string') {
    send({
      snapshot: v8.writeHeapSnapshot(path.join((m as { snapshot: string }).snapshot, `service-${process.pid}-${Date.now()}.heapsnapshot`)),
    });
    return;
  }
  if (m === 'fsyncs') {
    send({ fsyncs: { ...fsyncs } });
    return;
  }
  if (m !== 'gc') return;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  send({ heapUsed, rss, heapTotal, external, arrayBuffers });
});

const [role, ...args] = process.argv.slice(2);
if (role === 'trivial') {
  const body = Buffer.from('x'.repeat(200));
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': body.length });
    res.end(body);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => send({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
} else {
  // The service's own lines may be off (`"log": {"level": "silent"}`, which the operability bench
  // compares), so the child does not read them: it gives the service a free port when asked for 0 and
  // tells the parent the URL once /rests/ready answers there (the store open, the plugins loaded).
  const portAt = args.indexOf('--port') + 1;
  const ready = (portAt > 0 && args[portAt] === '0' ? freePort().then((p) => (args[portAt] = String(p))) : Promise.resolve()).then(() => {
    const port = portAt > 0 ? args[portAt] : '8181';
    void untilReady(`http://127.0.0.1:${port}`).then((url) => send({ url }));
  });
  ready
    .then(() => probeFsyncs())
    .then(() => main(['start', ...args]))
    .then(
      (code) => process.exit(code),
      (e) => {
        console.error(e);
        process.exit(1);
      },
    );
}

/** A port nothing listens on now (the kernel's pick, released at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = http.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves with `url` once GET <url>/rests/ready answers 200 (asked every 50 ms). */
async function untilReady(url: string): Promise<string> {
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const req = http.get(`${url}/rests/ready`, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('error', () => resolve(false));
    });
    if (ok) return url;
    await new Promise((r) => setTimeout(r, 50));
  }
}
