/**
 * Benchmark (`ROSETTA_BENCH=database`): the Config datastore in a real PostgreSQL (core/test/postgres-server.ts:
 * a private cluster on loopback, Debian's `postgresql`) beside the data folder's journal, each service
 * a real `rosetta start` (bench/restconf-child.ts) with the ietf-interfaces test models and 1,000 stored
 * entries, loaded by wrk in its own process, 8 connections in all:
 * - durable PUT of one entry: PostgreSQL (one instance) / embedded; goal >= 0.5;
 * - GET of one entry: PostgreSQL (one instance) / embedded (every request first asks the database
 *   whether another instance wrote: read-your-writes across instances);
 * - GET of one entry over three instances on one database (a wrk process each, 8 connections split
 *   3/3/2, rates summed) / one instance alone on a database of its own; goal >= 1.5 (this machine has
 *   2 cores, which the instances, PostgreSQL and wrk share; three embedded services, sharing nothing,
 *   show what three processes can serve here at all);
 * - PUT of the same over three instances / one (writes are serialized in the database: no goal).
 * The settings alternate in BENCH_DATABASE_ROUNDS rounds (default 5) of BENCH_DATABASE_SECONDS loads
 * (default 3), the order turning each round; each ratio is the median of the rounds' ratios.
 * - Take-over: two instances (the NETCONF plugin) share 500 devices of the fleet simulator (rosetta-sim,
 *   its own process), installed through one; the owner of most is killed (-9) and the time until the
 *   other has every device connected is taken, from the kill and from the end of the killed one's
 *   leases (10 s after its last renewal at the latest); goal: under 15 s after the leases end.
 * - A 100,000-entry list: one PUT of it and one GET of it, PostgreSQL (one instance) beside embedded,
 *   and jsonb-filters over it, run inside PostgreSQL (the list's rows) beside the embedded service's
 *   own evaluation.
 * Skipped, saying why, without PostgreSQL's server binaries or wrk (the loads) or the simulator (the
 * take-over).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { type PostgresServer, postgresAbsent, startPostgres } from '@rosetta/core/dist/test/postgres-server';
import { interfacesDocument } from './data-codecs';
import { benchClient, type BenchClient } from './http-client';
import { connectedCount, hasBulkRpcs, installAll } from './fleet-operations';
import { fleetPlugins, fleetUnavailable, freePortRange, startSimulator } from './fleet-processes';
import { testModels } from './paths';
import { type Child, entryLoads, startChild, stopChild, storeEntries } from './restconf';
import { median, result, type BenchResult } from './results';
import { type Load, type LoadRequest, loadTool, wrkLoad } from './wrk';

const ROUNDS = Math.max(1, Math.round(Number(process.env.BENCH_DATABASE_ROUNDS ?? 5)));
const SECONDS = Math.max(1, Math.round(Number(process.env.BENCH_DATABASE_SECONDS ?? 3)));
const CONNECTIONS = 8;
const STORED = 1000;
const { get: GET_ENTRY, put: PUT_ENTRY } = entryLoads(STORED);

/** `rosetta start` on a fresh data folder, with `extra` flags (the database's URL). */
async function service(yangDir: string, folders: string[], extra: readonly string[]): Promise<Child> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-dbdata-'));
  folders.push(dataDir);
  const logFd = fs.openSync(path.join(dataDir, 'service.log'), 'a');
  return startChild(['service', '--port', '0', '--data-dir', dataDir, '--yang', yangDir, ...extra], [], logFd).finally(() =>
    fs.closeSync(logFd),
  );
}

/** `request` on the instances at once, CONNECTIONS split among them, a wrk process each; the summed load. */
async function spread(children: readonly Child[], request: LoadRequest): Promise<Load> {
  const share = (i: number) => Math.floor(CONNECTIONS / children.length) + (i < CONNECTIONS % children.length ? 1 : 0);
  const loads = await Promise.all(children.map((c, i) => wrkLoad(c.url, request, SECONDS, share(i))));
  return {
    perSecond: loads.reduce((n, l) => n + l.perSecond, 0),
    p99Ms: Math.max(...loads.map((l) => l.p99Ms)),
    answered: loads.reduce((n, l) => n + l.answered, 0),
    errors: loads.reduce((n, l) => n + l.errors, 0),
  };
}

type Setting = 'embedded' | 'postgres' | 'three' | 'separate';
/** `separate`: three embedded services, each its own data: what three processes can serve here at all. */
const SETTINGS: readonly Setting[] = ['embedded', 'postgres', 'three', 'separate'];

async function measured(server: PostgresServer, yangDir: string, folders: string[]): Promise<BenchResult[]> {
  // one instance alone on its database, and three on another: instances sharing a database catch up
  // with each other's writes, which on this 2-core machine takes CPU from the one being measured
  const alone = await server.createDatabase('alone');
  const url = await server.createDatabase('bench');
  const embedded = await service(yangDir, folders, []);
  const shared: Child[] = [];
  const separate: Child[] = [embedded];
  let single: Child | undefined;
  try {
    single = await service(yangDir, folders, ['--database', alone]);
    for (let i = 0; i < 3; i++) shared.push(await service(yangDir, folders, ['--database', url]));
    for (let i = 0; i < 2; i++) separate.push(await service(yangDir, folders, []));
    for (const child of [...separate, single, shared[0]!]) await storeEntries(child, STORED);
    const targets: Record<Setting, readonly Child[]> = { embedded: [embedded], postgres: [single], three: shared, separate };
    for (const setting of SETTINGS) for (const request of [GET_ENTRY, PUT_ENTRY]) await spread(targets[setting], request);
    const rounds: Array<Record<Setting, { get: Load; put: Load }>> = [];
    for (let round = 0; round < ROUNDS; round++) {
      const loads: Partial<Record<Setting, { get: Load; put: Load }>> = {};
      for (let k = 0; k < SETTINGS.length; k++) {
        const setting = SETTINGS[(round + k) % SETTINGS.length]!;
        loads[setting] = { get: await spread(targets[setting], GET_ENTRY), put: await spread(targets[setting], PUT_ENTRY) };
      }
      rounds.push(loads as Record<Setting, { get: Load; put: Load }>);
      process.stdout.write(`bench: database round ${round + 1}/${ROUNDS}\n`);
    }
    const rate = (s: Setting, kind: 'get' | 'put') => median(rounds.map((r) => r[s][kind].perSecond));
    const ratio = (a: Setting, b: Setting, kind: 'get' | 'put') => median(rounds.map((r) => r[a][kind].perSecond / r[b][kind].perSecond));
    const errors = rounds.reduce((n, r) => n + SETTINGS.reduce((m, s) => m + r[s].get.errors + r[s].put.errors, 0), 0);
    const of = `median of ${ROUNDS} alternated rounds`;
    return [
      result('GET one entry (8 conns), embedded journal', rate('embedded', 'get'), 'req/s'),
      result('GET one entry (8 conns), PostgreSQL, one instance', rate('postgres', 'get'), 'req/s'),
      result('GET one entry (8 conns over 3 instances), PostgreSQL', rate('three', 'get'), 'req/s'),
      result(`GET one entry, PostgreSQL one instance / embedded (${of})`, ratio('postgres', 'embedded', 'get'), '×'),
      result(`GET one entry, PostgreSQL three instances / one (${of})`, ratio('three', 'postgres', 'get'), '×', null, '>= 1.5'),
      result(
        `GET one entry, three embedded services (each its own data) / one: what three processes serve on this machine (${of})`,
        ratio('separate', 'embedded', 'get'),
        '×',
      ),
      result('PUT one entry durable (8 conns), embedded journal', rate('embedded', 'put'), 'writes/s'),
      result('PUT one entry durable (8 conns), PostgreSQL, one instance', rate('postgres', 'put'), 'writes/s'),
      result('PUT one entry durable (8 conns over 3 instances), PostgreSQL', rate('three', 'put'), 'writes/s'),
      result(
        `PUT one entry durable, PostgreSQL one instance / embedded (${of})`,
        ratio('postgres', 'embedded', 'put'),
        '×',
        null,
        '>= 0.5',
      ),
      result(`PUT one entry durable, PostgreSQL three instances / one (${of})`, ratio('three', 'postgres', 'put'), '×'),
      result('non-2xx answers during the database loads', errors, 'count', null, '0'),
    ];
  } finally {
    for (const child of [...separate, ...shared, ...(single !== undefined ? [single] : [])]) await stopChild(child);
  }
}

const TAKEOVER_DEVICES = Math.max(1, Math.round(Number(process.env.BENCH_DATABASE_TAKEOVER_DEVICES ?? 500)));
/** The node leases' length (database/node-leases.ts): a killed owner's leases end at most this long after the kill. */
const LEASE_SECONDS = 10;

/** Devices connected on all of `clients`' instances together (each reports the nodes it owns). */
async function connectedOn(clients: readonly BenchClient[]): Promise<number> {
  let n = 0;
  for (const client of clients) n += await connectedCount(client);
  return n;
}

async function until(what: string, ms: number, check: () => Promise<boolean>): Promise<void> {
  for (const deadline = performance.now() + ms; !(await check()); await new Promise((r) => setTimeout(r, 250)))
    if (performance.now() > deadline) throw new Error(`${what}: not within ${Math.round(ms / 1000)} s`);
}

const BIG_LIST = 100_000;

/**
 * Filters timed over the BIG_LIST-entry list (fetch=count): an equality on the key, which the service on
 * PostgreSQL hands to the database (its GIN index); two-thirds of the entries by a boolean, and a
 * regular expression over every description, scans, which it runs in the instance as the embedded one
 * does (PostgreSQL scans its rows two to three times slower than the instance walks its tree).
 */
const BIG_LIST_FILTERS = ['{@/name} == "eth77777"', '{@/enabled} == true', '{@/description} like_regex "rack 47$"'];

interface BigListTimes {
  readonly put: number;
  readonly get: number;
  /** Milliseconds of each of BIG_LIST_FILTERS. */
  readonly filters: readonly number[];
}

/** One PUT and one GET of a BIG_LIST-entry list on `child`, then each filter: their wall times (ms). */
async function bigList(child: Child, text: string): Promise<BigListTimes> {
  const client = benchClient(child.url);
  try {
    let t = performance.now();
    const put = await client.request('PUT', '/rests/data/ietf-interfaces:interfaces', text);
    const putMs = performance.now() - t;
    if (put.status !== 201 && put.status !== 204)
      throw new Error(`PUT of ${BIG_LIST} entries answered ${put.status}: ${put.text.slice(0, 300)}`);
    t = performance.now();
    const got = await client.request('GET', '/rests/data/ietf-interfaces:interfaces');
    const getMs = performance.now() - t;
    if (got.status !== 200) throw new Error(`GET of ${BIG_LIST} entries answered ${got.status}`);
    const filters: number[] = [];
    for (const filter of BIG_LIST_FILTERS) {
      t = performance.now();
      const counted = await client.request(
        'GET',
        `/rests/data/ietf-interfaces:interfaces/interface?fetch=count&jsonb-filter=${encodeURIComponent(filter)}`,
      );
      filters.push(performance.now() - t);
      if (counted.status !== 200) throw new Error(`jsonb-filter ${filter} answered ${counted.status}: ${counted.text.slice(0, 300)}`);
    }
    return { put: putMs, get: getMs, filters };
  } finally {
    client.close();
  }
}

/**
 * The BIG_LIST-entry list on an embedded service and on one on PostgreSQL (whose Config datastore
 * keeps the list's entries as rows too, so its jsonb-filters run in the database): PUT, GET, and each
 * filter, median of 3. The filters' answers are checked equal on both.
 */
async function bigListRows(server: PostgresServer, yangDir: string, folders: string[]): Promise<BenchResult[]> {
  const url = await server.createDatabase('biglist');
  const embedded = await service(yangDir, folders, []);
  const shared = await service(yangDir, folders, ['--database', url]);
  try {
    const runs: Array<{ embedded: BigListTimes; postgres: BigListTimes }> = [];
    for (let round = 0; round < 3; round++) {
      // every entry changes each round, as a real replace of the list would (an unchanged one costs less)
      const text = interfacesDocument(BIG_LIST).replace(/uplink /g, `uplink r${round} `);
      runs.push({ embedded: await bigList(embedded, text), postgres: await bigList(shared, text) });
    }
    await sameCounts(embedded, shared);
    const of = (side: 'embedded' | 'postgres', kind: 'put' | 'get') => median(runs.map((r) => r[side][kind]));
    const filter = (side: 'embedded' | 'postgres', i: number) => median(runs.map((r) => r[side].filters[i]!));
    return [
      result(`PUT of a ${BIG_LIST}-entry list, PostgreSQL vs embedded (median of 3)`, of('postgres', 'put'), 'ms', of('embedded', 'put')),
      result(`GET of a ${BIG_LIST}-entry list, PostgreSQL vs embedded (median of 3)`, of('postgres', 'get'), 'ms', of('embedded', 'get')),
      ...BIG_LIST_FILTERS.map((f, i) =>
        result(
          `jsonb-filter ${f} over ${BIG_LIST} entries (fetch=count), ${i === 0 ? 'in PostgreSQL (GIN index)' : 'scan: in the instance on PostgreSQL too'} vs embedded (median of 3)`,
          filter('postgres', i),
          'ms',
          filter('embedded', i),
        ),
      ),
    ];
  } finally {
    await stopChild(embedded);
    await stopChild(shared);
  }
}

/** Throws unless both services count the same entries for every filter. */
async function sameCounts(a: Child, b: Child): Promise<void> {
  for (const filter of BIG_LIST_FILTERS) {
    const counts: string[] = [];
    for (const child of [a, b]) {
      const client = benchClient(child.url);
      const got = await client.request(
        'GET',
        `/rests/data/ietf-interfaces:interfaces/interface?fetch=count&jsonb-filter=${encodeURIComponent(filter)}`,
      );
      client.close();
      counts.push(got.text.trim());
    }
    if (counts[0] !== counts[1])
      throw new Error(`jsonb-filter ${filter}: ${counts[0]} entries in the instance, ${counts[1]} in PostgreSQL`);
  }
}

async function takeoverRows(server: PostgresServer, folders: string[]): Promise<BenchResult[]> {
  const unavailable = fleetUnavailable();
  if (unavailable !== null) {
    console.error(`bench: SKIPPING the take-over row: ${unavailable}`);
    return [];
  }
  const url = await server.createDatabase('takeover');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-takeover-'));
  folders.push(dir);
  const configFile = path.join(dir, 'rosetta.json');
  fs.writeFileSync(configFile, JSON.stringify({ secretsKeyFile: path.join(dir, 'device-secrets.key') }));
  const plugins = fleetPlugins(dir);
  const sim = await startSimulator(
    ['--netconf', String(TAKEOVER_DEVICES), '--cli', '0', '--base-port', String(freePortRange(TAKEOVER_DEVICES))],
    70_000,
  );
  const children: Child[] = [];
  const clients: BenchClient[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const child = await service(folders[0]!, folders, ['--plugins', plugins, '--config', configFile, '--database', url]);
      children.push(child);
      clients.push(benchClient(child.url));
    }
    await installAll(clients[0]!, sim.devices, await hasBulkRpcs(clients[0]!));
    // the leases hand the other instance its share; wait until every device is connected somewhere
    await until('every device connected over the two instances', 180_000, async () => (await connectedOn(clients)) >= TAKEOVER_DEVICES);
    const counts = [await connectedCount(clients[0]!), await connectedCount(clients[1]!)];
    const victim = counts[0]! >= counts[1]! ? 0 : 1;
    const survivor = 1 - victim;
    const killed = performance.now();
    children[victim]!.proc.kill('SIGKILL');
    await until('the survivor connected every device', 120_000, async () => (await connectedCount(clients[survivor]!)) >= TAKEOVER_DEVICES);
    const seconds = (performance.now() - killed) / 1000;
    return [
      result(`take-over: devices the killed instance owned (of ${TAKEOVER_DEVICES})`, counts[victim]!, 'devices'),
      result('take-over: all devices connected by the survivor, after kill -9 of the owner', seconds, 's'),
      result(
        `take-over: the same, after the killed instance's leases ended (${LEASE_SECONDS} s after the kill at the latest)`,
        Math.max(0, seconds - LEASE_SECONDS),
        's',
        null,
        '< 15 s',
      ),
    ];
  } finally {
    for (const client of clients) client.close();
    // the killed one has exited already: stopChild would wait for an exit that has come and gone
    for (const child of children) if (child.proc.exitCode === null && child.proc.signalCode === null) await stopChild(child);
    await sim.stop();
  }
}

export async function benchDatabase(): Promise<BenchResult[]> {
  const absent = postgresAbsent() ?? loadTool();
  if (absent !== undefined && absent !== null) {
    console.error(`bench: SKIPPING the PostgreSQL rows: ${absent}`);
    return [];
  }
  const yangDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-yang-'));
  for (const f of ['ietf-interfaces@2018-02-20.yang', 'iana-if-type@2026-03-17.yang'])
    fs.symlinkSync(path.join(testModels, f), path.join(yangDir, f));
  const folders = [yangDir];
  const server = await startPostgres();
  try {
    // BENCH_DATABASE_PARTS: some of `loads,list,takeover` (default all)
    const parts = (process.env.BENCH_DATABASE_PARTS ?? 'loads,list,takeover').split(',');
    return [
      ...(parts.includes('loads') ? await measured(server, yangDir, folders) : []),
      ...(parts.includes('list') ? await bigListRows(server, yangDir, folders) : []),
      ...(parts.includes('takeover') ? await takeoverRows(server, folders) : []),
    ];
  } finally {
    await server.destroy();
    for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
  }
}
