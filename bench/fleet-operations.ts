/**
 * What the fleet benchmark asks the service, as a client would over RESTCONF: install and uninstall a
 * fleet (the bulk RPCs when the service offers them, else one node per request with 32 in flight, as the
 * figures this benchmark replaces were taken), sync-from-network, count the nodes that are connected,
 * count the JSON lines of the nodes' configuration, and a uniconfig transaction over many nodes. Each
 * call checks its answer and throws naming the nodes that failed; long phases print their progress.
 */
import { performance } from 'node:perf_hooks';
import type { BenchClient } from './http-client';
import type { FleetDevice } from './fleet-processes';

const OPS = '/rests/operations';
const UNICONFIG = '/rests/data/network-topology:network-topology/topology=uniconfig';
const UNIFIED = '/rests/data/network-topology:network-topology/topology=unified';
/** The module of the fleet simulator's NETCONF devices (sdk/src/testing/fleet-config.ts). */
const FLEET_MODULE = 'rosetta-fleet-device';
/** Requests in flight when nodes are installed, read or changed one per request. */
const IN_FLIGHT = 32;
/** Nodes per bulk install or uninstall request. */
const BULK_BATCH = 1000;

/** Prints `bench: fleet: <label> done/total` at most every two seconds and at the end. */
export function progress(label: string, total: number): (done: number) => void {
  const start = performance.now();
  let last = 0;
  return (done) => {
    const now = performance.now();
    if (done < total && now - last < 2000) return;
    last = now;
    console.log(`bench: fleet: ${label} ${done}/${total} (${((now - start) / 1000).toFixed(1)} s)`);
  };
}

/** Rejects when `work` takes longer than `ms`, naming `what`. */
export async function bounded<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `fn` over `items` with at most `limit` at once; reports each completion to `onDone`. */
export async function inFlight<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
  onDone?: (n: number) => void,
): Promise<void> {
  let next = 0;
  let done = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
      onDone?.(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function installInput(d: FleetDevice): Record<string, unknown> {
  if (d.kind === 'netconf')
    return {
      'node-id': d.id,
      netconf: {
        'netconf-node-topology:host': d.host,
        'netconf-node-topology:port': d.port,
        'netconf-node-topology:username': d.username,
        'netconf-node-topology:password': d.password,
      },
    };
  return {
    'node-id': d.id,
    cli: {
      'cli-topology:host': d.host,
      'cli-topology:port': d.port,
      'cli-topology:transport-type': 'ssh',
      'cli-topology:device-type': 'frr',
      'cli-topology:device-version': '8.4.4',
      'cli-topology:username': d.username,
      'cli-topology:password': d.password,
    },
  };
}

/**
 * A GET, sent again once when the connection was closed before any answer ('socket hang up', ECONNRESET):
 * a keep-alive socket left idle through a long request (a sync of 10,000 nodes) can be closed by the
 * server just as it is reused, which says nothing about the service. Only a GET is safe to send twice.
 */
async function getOnce(http: BenchClient, path: string): ReturnType<BenchClient['must']> {
  try {
    return await http.must('GET', path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ECONNRESET' && !/socket hang up/.test((e as Error).message)) throw e;
    console.error(`bench: fleet: GET ${path.slice(0, 120)}: ${(e as Error).message}; sent again`);
    return http.must('GET', path);
  }
}

/** Whether the service offers the bulk node RPCs (listed under /rests/operations). */
export async function hasBulkRpcs(http: BenchClient): Promise<boolean> {
  const ops = await http.must('GET', OPS);
  return ops.text.includes('connection-manager:install-multiple-nodes') && ops.text.includes('connection-manager:uninstall-multiple-nodes');
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Runs a bulk RPC over `devices` a batch of BULK_BATCH at a time (the service bounds its own concurrency
 * within a batch); prints which batch runs every five seconds, since one batch of 1,000 takes a while.
 */
async function inBulk(
  http: BenchClient,
  label: string,
  rpc: string,
  devices: readonly FleetDevice[],
  inputOf: (d: FleetDevice) => Record<string, unknown>,
): Promise<string[]> {
  const report = progress(label, devices.length);
  const failed: string[] = [];
  const batches = chunks(devices, BULK_BATCH);
  let done = 0;
  for (const [i, batch] of batches.entries()) {
    const start = performance.now();
    const ticker = setInterval(() => {
      const s = ((performance.now() - start) / 1000).toFixed(0);
      console.log(`bench: fleet: ${label} ${done}/${devices.length}: batch ${i + 1}/${batches.length} of ${batch.length} running (${s} s)`);
    }, 5000);
    try {
      const reply = await http.request('POST', `${OPS}/${rpc}`, { input: { nodes: batch.map(inputOf) } });
      if (reply.status !== 204) failed.push(`batch from ${batch[0]!.id}: ${reply.status} ${reply.text.slice(0, 300)}`);
    } finally {
      clearInterval(ticker);
    }
    report((done += batch.length));
  }
  return failed;
}

/** Runs a single-node RPC over `devices`, IN_FLIGHT at once. */
async function oneByOne(
  http: BenchClient,
  label: string,
  rpc: string,
  devices: readonly FleetDevice[],
  inputOf: (d: FleetDevice) => Record<string, unknown>,
): Promise<string[]> {
  const failed: string[] = [];
  const send = async (d: FleetDevice): Promise<void> => {
    const reply = await http.request('POST', `${OPS}/${rpc}`, { input: inputOf(d) });
    if (reply.status !== 204) failed.push(`${d.id}: ${reply.status} ${reply.text.slice(0, 200)}`);
  };
  await inFlight(devices, IN_FLIGHT, send, progress(label, devices.length));
  return failed;
}

/** Installs every device (install-multiple-nodes when `bulk`, else install-node); throws naming the ones that failed. */
export async function installAll(http: BenchClient, devices: readonly FleetDevice[], bulk: boolean): Promise<void> {
  const failed = bulk
    ? await inBulk(http, 'installing', 'connection-manager:install-multiple-nodes', devices, installInput)
    : await oneByOne(http, 'installing', 'connection-manager:install-node', devices, installInput);
  if (failed.length > 0) throw new Error(`install failed for ${failed.length}: ${failed.slice(0, 5).join('; ')}`);
}

/** Uninstalls every device (uninstall-multiple-nodes when `bulk`, else uninstall-node); throws naming the ones that failed. */
export async function uninstallAll(http: BenchClient, devices: readonly FleetDevice[], bulk: boolean): Promise<void> {
  const input = (d: FleetDevice) => ({ 'node-id': d.id, 'connection-type': d.kind });
  const failed = bulk
    ? await inBulk(http, 'uninstalling', 'connection-manager:uninstall-multiple-nodes', devices, input)
    : await oneByOne(http, 'uninstalling', 'connection-manager:uninstall-node', devices, input);
  if (failed.length > 0) throw new Error(`uninstall failed for ${failed.length}: ${failed.slice(0, 5).join('; ')}`);
}

interface NodeResult {
  readonly 'node-id': string;
  readonly status?: string;
  readonly 'error-message'?: string;
}

/** The node-results of a uniconfig-manager answer, throwing when any node failed. */
function checkNodeResults(what: string, text: string): NodeResult[] {
  const json = text === '' ? {} : (JSON.parse(text) as Record<string, { 'node-results'?: { 'node-result'?: NodeResult[] } }>);
  const results = json['uniconfig-manager:output']?.['node-results']?.['node-result'] ?? [];
  const failed = results.filter((r) => r.status === 'fail');
  if (failed.length > 0)
    throw new Error(
      `${what} failed on ${failed.length} nodes: ${failed
        .slice(0, 5)
        .map((r) => `${r['node-id']}: ${r['error-message']}`)
        .join('; ')}`,
    );
  return results;
}

/** sync-from-network of `ids` in one request (the service decides how many devices it reads at once). */
export async function syncAll(http: BenchClient, ids: readonly string[]): Promise<void> {
  const start = performance.now();
  const ticker = setInterval(
    () => console.log(`bench: fleet: syncing ${ids.length} nodes (${((performance.now() - start) / 1000).toFixed(0)} s)`),
    5000,
  );
  try {
    const reply = await http.must('POST', `${OPS}/uniconfig-manager:sync-from-network`, { input: { 'target-nodes': { node: ids } } });
    checkNodeResults('sync-from-network', reply.text);
  } finally {
    clearInterval(ticker);
  }
}

/** How many installed nodes topology `unified` shows as connected. */
export async function connectedCount(http: BenchClient): Promise<number> {
  const reply = await getOnce(http, `${UNIFIED}?content=nonconfig&fields=node(node-id;unified-topology:connection-status)`);
  const json = JSON.parse(reply.text) as Record<string, Array<{ node?: Array<Record<string, string>> }>>;
  const nodes = json['network-topology:topology']?.[0]?.node ?? [];
  return nodes.filter((n) => n['unified-topology:connection-status'] === 'connected').length;
}

/** Polls until `want` nodes are connected (every `everyMs`); throws after `ms`. */
export async function waitConnected(http: BenchClient, want: number, ms: number, everyMs = 500): Promise<void> {
  const deadline = performance.now() + ms;
  const report = progress('connected', want);
  for (;;) {
    const n = await connectedCount(http);
    report(n);
    if (n >= want) return;
    if (performance.now() > deadline) throw new Error(`only ${n} of ${want} nodes connected after ${Math.round(ms / 1000)} s`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Lines of a node's intended configuration, pretty-printed RFC 7951 JSON (two-space indent, without the wrapper). */
async function configurationLines(http: BenchClient, id: string): Promise<number> {
  const reply = await getOnce(http, `${UNICONFIG}/node=${encodeURIComponent(id)}/configuration?content=config`);
  const json = JSON.parse(reply.text) as Record<string, unknown>;
  const members = Object.values(json);
  const body = members.length === 1 ? members[0] : json;
  return JSON.stringify(body, null, 2).split('\n').length;
}

/** JSON lines of each node's configuration, by node-id. */
export async function countLines(http: BenchClient, ids: readonly string[]): Promise<Map<string, number>> {
  const lines = new Map<string, number>();
  await inFlight(ids, 8, async (id) => void lines.set(id, await configurationLines(http, id)), progress('counting JSON lines', ids.length));
  return lines;
}

/** What a transaction over many nodes took, phase by phase (ms). */
export interface TransactionTimes {
  readonly patchMs: number;
  readonly diffMs: number;
  readonly commitMs: number;
  /** The location each node was given. */
  readonly location: (id: string) => string;
}

/**
 * create-transaction, a PATCH of each node's system location, calculate-diff of those nodes (each must
 * show a change) and commit: the uniconfig way of changing many devices at once.
 */
export async function transaction(http: BenchClient, ids: readonly string[], tag: string): Promise<TransactionTimes> {
  const created = await http.request('POST', `${OPS}/uniconfig-manager:create-transaction`);
  if (created.status !== 201) throw new Error(`create-transaction: ${created.status} ${created.text.slice(0, 300)}`);
  const cookie = created.headers['set-cookie']?.[0]?.split(';')[0];
  if (cookie === undefined) throw new Error('create-transaction answered no cookie');
  const headers = { cookie };
  const location = (id: string) => `moved by ${tag} ${id}`;
  const t0 = performance.now();
  const failed: string[] = [];
  await inFlight(
    ids,
    IN_FLIGHT,
    async (id) => {
      const body = { [`${FLEET_MODULE}:system`]: { location: location(id) } };
      const reply = await http.request(
        'PATCH',
        `${UNICONFIG}/node=${encodeURIComponent(id)}/configuration/${FLEET_MODULE}:system`,
        body,
        headers,
      );
      if (reply.status >= 300) failed.push(`${id}: ${reply.status} ${reply.text.slice(0, 200)}`);
    },
    progress('PATCHing', ids.length),
  );
  if (failed.length > 0) throw new Error(`PATCH failed on ${failed.length} nodes: ${failed.slice(0, 5).join('; ')}`);
  const t1 = performance.now();
  const target = { input: { 'target-nodes': { node: ids } } };
  const diff = await http.request('POST', `${OPS}/uniconfig-manager:calculate-diff`, target, headers);
  if (diff.status !== 200) throw new Error(`calculate-diff: ${diff.status} ${diff.text.slice(0, 300)}`);
  const changed = checkNodeResults('calculate-diff', diff.text).filter((r) => JSON.stringify(r).includes(location(r['node-id'])));
  if (changed.length !== ids.length) throw new Error(`calculate-diff showed the change on ${changed.length} of ${ids.length} nodes`);
  const t2 = performance.now();
  const commit = await http.request('POST', `${OPS}/uniconfig-manager:commit`, target, headers);
  if (commit.status >= 300) throw new Error(`commit: ${commit.status} ${commit.text.slice(0, 300)}`);
  checkNodeResults('commit', commit.text);
  const t3 = performance.now();
  return { patchMs: t1 - t0, diffMs: t2 - t1, commitMs: t3 - t2, location };
}
