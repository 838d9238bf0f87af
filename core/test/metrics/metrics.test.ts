/**
 * The operator's endpoints through the real service: `/metrics` in the Prometheus text format with
 * counters that move with traffic under bounded labels, `/rests/health`, `/rests/ready` (503 while a
 * plugin's YANG change is being installed, 200 after) and the `uniconfig-manager:health` RPC; and the
 * route templates requests are counted under.
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { openDatastores } from '../../src/datastore';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { ROUTES, ServiceMetrics, methodLabel, routeLabel } from '../../src/metrics';
import { resolveConfig } from '../../src/service/config';
import { startService } from '../../src/service/service';
import { startTestService, type TestService } from '../../src/service/test-service';
import { makeWorkspace, pkg } from '../plugins/plugin-folders';
import { parseExposition, type Sample } from './exposition';

async function scrape(s: TestService): Promise<Sample[]> {
  const r = await s.request('GET', '/metrics');
  if (r.status !== 200) throw new Error(`/metrics answered ${r.status}`);
  return parseExposition(r.text);
}

function requestsCounted(samples: readonly Sample[], method: string, route: string, status: string): number {
  return (
    samples.find(
      (x) =>
        x.name === 'rosetta_http_requests_total' && x.labels.method === method && x.labels.route === route && x.labels.status === status,
    )?.value ?? 0
  );
}

/** Polls `check` (a request is counted when its response closes, just after the client has read it). */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never saw ${what}`);
}

test('route templates and methods are from fixed sets, never a path or a node id', (t) => {
  t.is(routeLabel('/rests/data/ietf-yang-library:yang-library?content=config'), '/rests/data');
  t.is(routeLabel('/rests/data'), '/rests/data');
  t.is(
    routeLabel('/rests/data/network-topology:network-topology/topology=topology-netconf/node=r1/yang-ext:mount/x:y'),
    '/rests/data/mount',
  );
  t.is(routeLabel('/rests/data/network-topology:network-topology/topology=uniconfig/node=r1/configuration'), 'uniconfig');
  t.is(routeLabel('/rests/operations/uniconfig-manager:commit'), 'uniconfig');
  t.is(routeLabel('/rests/operations/connection-manager:install-node'), '/rests/operations');
  t.is(routeLabel('/rests/streams/events'), '/rests/streams');
  t.is(routeLabel('/rests/ready'), '/rests/ready');
  t.is(routeLabel('/metrics'), '/metrics');
  t.is(routeLabel('/rests/database'), 'other');
  t.is(routeLabel('/r1/node=secret'), 'other');
  t.is(methodLabel('GET'), 'GET');
  t.is(methodLabel('PROPFIND'), 'other');
  t.is(methodLabel(undefined), 'other');
});

test('the service registers every prom-client default metric but the GC duration histogram, the event-loop lag under prom-client’s names', async (t) => {
  const defaults = new Registry();
  collectDefaultMetrics({ register: defaults, prefix: 'rosetta_' });
  const expected = defaults
    .getMetricsAsArray()
    .map((m) => m.name)
    .filter((name) => name !== 'rosetta_nodejs_gc_duration_seconds')
    .sort();
  const ours = new ServiceMetrics().registry
    .getMetricsAsArray()
    .map((m) => m.name)
    .filter((name) => expected.includes(name) || name.startsWith('rosetta_nodejs_gc'));
  t.true(expected.length > 20);
  t.deepEqual(ours.sort(), expected);
});

test('the event-loop lag shows a stall: the maximum since the previous scrape, then a quiet window', async (t) => {
  const metrics = new ServiceMetrics();
  t.teardown(() => metrics.stop());
  const read = async (name: string) =>
    parseExposition((await metrics.registry.metrics()).toString()).find((x) => x.name === name)?.value ?? Number.NaN;
  await new Promise((r) => setTimeout(r, 250));
  await read('rosetta_nodejs_eventloop_lag_max_seconds');
  const stalledUntil = Date.now() + 400;
  while (Date.now() < stalledUntil) {
    // the event loop is held, as by a long synchronous task
  }
  await new Promise((r) => setTimeout(r, 250));
  const stalled = await read('rosetta_nodejs_eventloop_lag_max_seconds');
  t.true(stalled >= 0.2 && stalled < 5, `max ${stalled}`);
  t.true((await read('rosetta_nodejs_eventloop_lag_p99_seconds')) <= stalled);
  await new Promise((r) => setTimeout(r, 350));
  const quiet = await read('rosetta_nodejs_eventloop_lag_max_seconds');
  t.true(quiet < stalled, `after the stall: max ${quiet}`);
});

test('/metrics is Prometheus text whose request counters move with traffic under bounded labels; health and readiness are UP', async (t) => {
  const s = await startTestService({ plugins: [], label: 'metrics' });
  try {
    const first = await s.request('GET', '/metrics');
    t.is(first.status, 200);
    t.regex(first.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const before = parseExposition(first.text);
    for (const name of [
      'rosetta_nodejs_eventloop_lag_seconds',
      'rosetta_process_resident_memory_bytes',
      'rosetta_device_sessions',
      'rosetta_plugin_generation',
    ])
      t.true(first.text.includes(`# TYPE ${name} `), name);
    for (const name of [
      'rosetta_http_request_duration_seconds',
      'rosetta_uniconfig_commits_total',
      'rosetta_plugin_reloads_total',
      'rosetta_journal_commit_duration_seconds',
    ])
      t.true(first.text.includes(`# HELP ${name} `), name);

    const okBefore = requestsCounted(before, 'GET', '/rests/data', '200');
    const missingBefore = requestsCounted(before, 'GET', '/rests/data', '404');
    t.is((await s.request('GET', '/rests/data/ietf-yang-library:yang-library')).status, 200);
    const nodeId = 'node-id-that-must-not-be-a-label';
    t.is((await s.request('GET', `/rests/data/network-topology:network-topology/topology=topology-netconf/node=${nodeId}`)).status, 404);
    const unusual = (await s.request('PROPFIND', `/rests/data/${nodeId}`)).status;
    t.true(unusual >= 400);
    let after: Sample[] = [];
    await until('the GETs counted', async () => {
      after = await scrape(s);
      return (
        requestsCounted(after, 'GET', '/rests/data', '200') === okBefore + 1 &&
        requestsCounted(after, 'GET', '/rests/data', '404') === missingBefore + 1
      );
    });
    t.is(requestsCounted(after, 'other', '/rests/data', String(unusual)), 1);
    t.true(requestsCounted(after, 'GET', '/metrics', '200') >= 1);
    const latency = after.find(
      (x) => x.name === 'rosetta_http_request_duration_seconds_count' && x.labels.method === 'GET' && x.labels.route === '/rests/data',
    );
    t.true((latency?.value ?? 0) >= 2);
    // a well-formed histogram: buckets cumulative in their bounds, +Inf equal to the count, a sum
    const buckets = after.filter(
      (x) => x.name === 'rosetta_http_request_duration_seconds_bucket' && x.labels.method === 'GET' && x.labels.route === '/rests/data',
    );
    t.is(buckets.length, 16, 'fifteen bounds and +Inf');
    t.is(buckets[buckets.length - 1]!.labels.le, '+Inf');
    t.is(buckets[buckets.length - 1]!.value, latency!.value);
    for (let i = 1; i < buckets.length; i++) t.true(buckets[i]!.value >= buckets[i - 1]!.value, 'cumulative');
    const sum = after.find(
      (x) => x.name === 'rosetta_http_request_duration_seconds_sum' && x.labels.method === 'GET' && x.labels.route === '/rests/data',
    );
    t.true((sum?.value ?? 0) > 0);

    const text = (await s.request('GET', '/metrics')).text;
    t.false(text.includes(nodeId));
    for (const x of after.filter((x) => x.name.startsWith('rosetta_http_request'))) {
      t.true((ROUTES as readonly string[]).includes(x.labels.route ?? ''), x.labels.route);
      t.regex(x.labels.method ?? '', /^(GET|HEAD|PUT|POST|PATCH|DELETE|OPTIONS|other)$/);
      if (x.labels.status !== undefined) t.regex(x.labels.status, /^\d{3}$/);
    }

    const health = await s.request('GET', '/rests/health');
    t.is(health.status, 200);
    t.deepEqual(health.json, { status: 'UP' });
    const ready = await s.request('GET', '/rests/ready');
    t.is(ready.status, 200);
    t.is(ready.json.status, 'UP');
    t.is((await s.request('DELETE', '/rests/health')).status, 405);

    const rpc = await s.request('POST', '/rests/operations/uniconfig-manager:health');
    t.is(rpc.status, 200);
    t.deepEqual(rpc.json, { 'uniconfig-manager:output': { status: 'UP', details: 'all parts are up' } });
    await until(
      'the health RPC counted under the uniconfig template',
      async () => requestsCounted(await scrape(s), 'POST', 'uniconfig', '200') === 1,
    );
    t.pass();
  } finally {
    await s.stop();
  }
});

test('journal group commits and uniconfig commits are counted with their outcome', async (t) => {
  const s = await startTestService({ plugins: [], label: 'metrics-commits' });
  try {
    const journalCount = (samples: readonly Sample[]) =>
      samples.find((x) => x.name === 'rosetta_journal_commit_duration_seconds_count')?.value ?? 0;
    const recordSum = (samples: readonly Sample[]) => samples.find((x) => x.name === 'rosetta_journal_commit_records_sum')?.value ?? 0;
    const before = await scrape(s);
    const body = { 'network-topology:network-topology': { topology: [{ 'topology-id': 'metrics-test' }] } };
    t.true([200, 201, 204].includes((await s.request('PUT', '/rests/data/network-topology:network-topology', body)).status));
    const after = await scrape(s);
    t.true(journalCount(after) > journalCount(before));
    t.true(recordSum(after) > recordSum(before));

    const commits = (samples: readonly Sample[], outcome: string) =>
      samples.find((x) => x.name === 'rosetta_uniconfig_commits_total' && x.labels.outcome === outcome)?.value ?? 0;
    // Nothing changed anywhere: a commit of every changed node commits none, and succeeds.
    t.true([200, 204].includes((await s.request('POST', '/rests/operations/uniconfig-manager:commit', { input: {} })).status));
    const refused = await s.request('POST', '/rests/operations/uniconfig-manager:commit', {
      input: { 'target-nodes': { node: ['no-such-node'] } },
    });
    t.true(refused.status >= 400);
    const counted = await scrape(s);
    t.is(commits(counted, 'success'), 1);
    t.is(commits(counted, 'failure'), 1);
  } finally {
    await s.stop();
  }
});

test('two services in one process count only their own requests', async (t) => {
  const [a, b] = await Promise.all([
    startTestService({ plugins: [], label: 'metrics-a' }),
    startTestService({ plugins: [], label: 'metrics-b' }),
  ]);
  try {
    for (let i = 0; i < 3; i++) t.is((await a.request('GET', '/rests/data/ietf-yang-library:yang-library')).status, 200);
    await until('the three GETs counted', async () => requestsCounted(await scrape(a), 'GET', '/rests/data', '200') === 3);
    t.is(requestsCounted(await scrape(b), 'GET', '/rests/data', '200'), 0);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});

const yangOf = (extra: string) => `module test-ready {
  yang-version 1.1; namespace "urn:test:ready"; prefix tr;
  revision 2026-01-01;
  container settings { leaf label { type string; } ${extra} }
}
`;

test('/rests/ready answers 503 naming the schema while a plugin YANG change is installed, 200 after; the health RPC, held at the gate, answers UP after it', async (t) => {
  const ws = await makeWorkspace();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'rosetta-ready-'));
  const writePlugin = async (version: string, extra: string) => {
    await fs.mkdir(path.join(ws.root, 'plugins/ready/yang'), { recursive: true });
    await fs.writeFile(path.join(ws.root, 'plugins/ready/yang/test-ready@2026-01-01.yang'), yangOf(extra));
    await ws.writePlugin(
      'plugins/ready',
      pkg('plugin-ready', version, 'extension', { yang: 'yang' }),
      'module.exports = { rosettaPlugin: 1, setup() {} };',
    );
  };
  await writePlugin('1.0.0', '');
  await ws.writeConfig({ watch: false, plugins: [{ path: 'plugins/ready' }] });
  // Opening the datastores on the new schema waits for the test: the swap stays in progress until then.
  let hold: Promise<void> | undefined;
  let release: () => void = () => undefined;
  const service = await startService({
    config: resolveConfig({ port: 0, dataDir, plugins: ws.configFile }, os.tmpdir()),
    openDatastores: async (dir, schema, options) => {
      if (hold !== undefined) await hold;
      return openDatastores(dir, schema, options);
    },
    log: { info: () => undefined, error: () => undefined },
  });
  const get = async (p: string, method = 'GET') => {
    const r = await fetch(service.url + p, { method });
    return { status: r.status, json: JSON.parse(await r.text()) };
  };
  try {
    t.is((await get('/rests/ready')).status, 200);
    hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    await writePlugin('2.0.0', 'leaf extra { type string; }');
    t.is((await get('/rests/operations/rosetta-plugins:reload', 'POST')).status, 200);
    let during = await get('/rests/ready');
    await until('readiness down during the swap', async () => {
      during = await get('/rests/ready');
      return during.status === 503;
    });
    t.is(during.json.status, 'DOWN');
    t.is(during.json.checks.schema, 'swapping');
    t.is(during.json.checks.datastores, 'UP');
    t.is((await get('/rests/health')).status, 200);
    // The health RPC waits at the gate like any other request, and answers once the swap is done.
    const rpc = get('/rests/operations/uniconfig-manager:health', 'POST');
    release();
    hold = undefined;
    t.is((await rpc).json['uniconfig-manager:output'].status, 'UP');
    await until('readiness up after the swap', async () => (await get('/rests/ready')).status === 200);
    const gen = parseExposition(await (await fetch(`${service.url}/metrics`)).text()).find((x) => x.name === 'rosetta_plugin_generation');
    t.true((gen?.value ?? 0) >= 2);
  } finally {
    release();
    await service.stop();
    await ws.remove();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
});
