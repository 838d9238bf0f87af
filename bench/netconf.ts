/**
 * NETCONF mount-point benchmark against the real yuma123 netconfd (test/peers/netconf-device.sh on its
 * own port): install-node time including schema download (cold: empty cache, nothing compiled; warm: the
 * module set on disk and compiled), then GET and PUT latency through the mount point beside a raw NETCONF
 * session (the SDK's bare client) sending the same get-config, and edit-config + commit, straight to
 * netconfd: the floor. Goal: within 1.5x of the raw session once connected. Each mount row is timed in
 * alternation with its raw rows (and the HTTP floor), request by request, so the machine's drift falls on
 * both sides of a ratio. Bounded: a fixed number of requests, each suite under a minute. Skipped (no rows)
 * when netconfd cannot run here.
 *
 * Beside the one-leaf reads, a read of 500 interfaces (about 136 KB of XML) shows the per-byte costs;
 * the mount decodes such a reply while it arrives (netconfd sends it over ~3 ms), the raw row only waits.
 * The raw floor has no HTTP: a local RESTCONF GET on the same service is reported beside it, and the
 * mount's latency minus that HTTP floor, so the table shows what the mount point itself adds. A bare
 * node:http server answering `{}` (timed in the same rounds) shows what any HTTP front pays: the raw
 * read plus that round trip is the least a RESTCONF service could answer in, whatever it does inside. A mount PUT
 * sends lock, a get-config of its target (201 vs 204) and edit-config together, then commit and unlock
 * together: two round trips, five RPCs for the device to run, against the raw rows' two and four.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodeHttp from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openRawNetconf, type RawNetconfSession } from '@rosetta/sdk/testing';
import { openDatastores } from '@rosetta/core/dist/src/datastore';
import { resolveConfig } from '@rosetta/core/dist/src/service/config';
import { startService, type RunningService } from '@rosetta/core/dist/src/service/service';
import { benchClient, type BenchClient } from './http-client';
import { result, type BenchResult, median } from './results';

const REPO = path.resolve(__dirname, '..', '..'); // from bench/dist
const SCRIPT = path.join(REPO, 'test/peers/netconf-device.sh');
const PEER = { host: '127.0.0.1', port: 10862, username: 'ncuser', password: 'ncpass', state: '/tmp/rosetta-bench-netconf' };
const GETS = 200;
/**
 * Rounds run before timing: the service's code path of a request is long and compiles over tens of
 * requests (with 10, a mount PUT was still being compiled while it was timed), the raw client's few
 * lines at once, so too few warm-ups charge the service for its compilation.
 */
const WARM_UPS = 40;
const PUTS = 150;
// a 136 KB read swings by ±20% from one to the next on this machine: enough of them for a steady median
const BIG_GETS = 150;
/** Interfaces in the large read (about 136 KB of XML from netconfd). */
const INTERFACES = 500;
const SYSTEM_NS = 'urn:ietf:params:xml:ns:yang:ietf-system';
const INTERFACES_NS = 'urn:ietf:params:xml:ns:yang:ietf-interfaces';
const MOUNT = '/rests/data/network-topology:network-topology/topology=topology-netconf/node=B1/yang-ext:mount';

function peer(command: 'start' | 'stop' | 'restart'): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      [SCRIPT, command],
      {
        env: { ...process.env, NETCONF_PEER_PORT: String(PEER.port), NETCONF_PEER_STATE: PEER.state, NETCONF_PEER_NO_INSTALL: '1' },
        timeout: 60_000,
      },
      (err, _out, stderr) => (err ? reject(new Error(`netconf-device.sh ${command}: ${stderr || err.message}`)) : resolve()),
    );
  });
}

/**
 * Median latency (ms) of each operation, timed in turn within every round (after a warm-up of each:
 * JIT, caches, the device's own), so a drift of this machine's speed during the run falls on all of them
 * alike; timed one after the other, a raw row and its mount row were minutes apart.
 */
async function timedTogether(n: number, ops: ReadonlyArray<(i: number) => Promise<unknown>>): Promise<number[]> {
  for (let i = 0; i < WARM_UPS; i++) for (const op of ops) await op(i);
  const samples = ops.map((): number[] => []);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < ops.length; k++) {
      const start = performance.now();
      await ops[k]!(i);
      samples[k]!.push(performance.now() - start);
    }
  }
  return samples.map(median);
}

function rawOk(reply: string): void {
  if (reply.includes('<rpc-error')) throw new Error(`raw session: ${reply.slice(0, 300)}`);
}

const installInput = {
  input: {
    'node-id': 'B1',
    netconf: {
      'netconf-node-topology:host': PEER.host,
      'netconf-node-topology:port': PEER.port,
      'netconf-node-topology:username': PEER.username,
      'netconf-node-topology:password': PEER.password,
    },
  },
};

export async function benchNetconf(): Promise<BenchResult[]> {
  if (!fs.existsSync('/usr/sbin/netconfd') || process.getuid?.() !== 0) {
    console.log('bench: netconfd is not installed or this is not root: NETCONF benchmark skipped');
    return [];
  }
  // a fresh netconfd: it crashes (double free) when one process serves get-schema of ietf-netconf twice
  await peer('restart');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-netconf-'));
  const plugins = path.join(dir, 'plugins.json');
  fs.writeFileSync(plugins, JSON.stringify({ watch: false, plugins: [{ path: path.join(REPO, 'plugins/netconf'), enabled: true }] }));
  let service: RunningService | undefined;
  let raw: RawNetconfSession | undefined;
  let client: BenchClient | undefined;
  let bare: nodeHttp.Server | undefined;
  let bareHttp: BenchClient | undefined;
  try {
    service = await startService({
      config: resolveConfig({ port: 0, dataDir: path.join(dir, 'data'), plugins }, dir),
      openDatastores: (d, s) => openDatastores(d, s),
      log: { info: () => undefined, error: (m) => console.error(m) },
    });
    const http = (client = benchClient(service.url));
    const install = async (): Promise<number> => {
      const start = performance.now();
      await http.must('POST', '/rests/operations/connection-manager:install-node', installInput, [204]);
      return performance.now() - start;
    };
    const uninstall = () =>
      http.must(
        'POST',
        '/rests/operations/connection-manager:uninstall-node',
        { input: { 'node-id': 'B1', 'connection-type': 'netconf' } },
        [204],
      );
    const cold = await install();
    await uninstall();
    const warm = await install();

    // the floor: the same requests on a raw session of its own (connect + hello timed as install's floor)
    const connectStart = performance.now();
    raw = await openRawNetconf(PEER);
    const rawConnect = performance.now() - connectStart;
    const r = raw;
    const filter = `<filter type="subtree"><system xmlns="${SYSTEM_NS}"/></filter>`;
    await r
      .rpc(
        `<edit-config><target><candidate/></target><config><system xmlns="${SYSTEM_NS}"><contact>bench</contact><location>bench lab</location></system></config></edit-config>`,
      )
      .then(rawOk);
    await r.rpc('<commit/>').then(rawOk);

    bare = nodeHttp.createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
    await new Promise<void>((resolve) => bare!.listen(0, '127.0.0.1', resolve));
    const bareClient = (bareHttp = benchClient(`http://127.0.0.1:${(bare.address() as { port: number }).port}`));
    const [rawGet, mountGet, httpFloor, bareRoundTrip] = (await timedTogether(GETS, [
      async () => rawOk(await r.rpc(`<get-config><source><candidate/></source>${filter}</get-config>`)),
      () => http.must('GET', `${MOUNT}/ietf-system:system?content=config`, [200]),
      () => http.must('GET', '/rests/data/network-topology:network-topology/topology=topology-netconf?content=config', [200, 404]),
      () => bareClient.must('GET', '/'),
    ])) as [number, number, number, number];
    const [rawState, mountState] = (await timedTogether(GETS, [
      async () =>
        rawOk(await r.rpc(`<get><filter type="subtree"><system-state xmlns="${SYSTEM_NS}"><clock/></system-state></filter></get>`)),
      () => http.must('GET', `${MOUNT}/ietf-system:system-state/clock?content=nonconfig`, [200]),
    ])) as [number, number];
    const [rawPut, rawLockedPut, mountPut] = (await timedTogether(PUTS, [
      async (i) => {
        rawOk(
          await r.rpc(
            `<edit-config><target><candidate/></target><config><system xmlns="${SYSTEM_NS}"><contact>raw ${i}</contact></system></config></edit-config>`,
          ),
        );
        rawOk(await r.rpc('<commit/>'));
      },
      async (i) => {
        rawOk(await r.rpc('<lock><target><candidate/></target></lock>'));
        rawOk(
          await r.rpc(
            `<edit-config><target><candidate/></target><config><system xmlns="${SYSTEM_NS}"><contact>locked ${i}</contact></system></config></edit-config>`,
          ),
        );
        rawOk(await r.rpc('<commit/>'));
        rawOk(await r.rpc('<unlock><target><candidate/></target></unlock>'));
      },
      (i) => http.must('PUT', `${MOUNT}/ietf-system:system/contact`, { 'ietf-system:contact': `rosetta ${i}` }, [201, 204]),
    ])) as [number, number, number];
    // a realistic read: 500 interfaces, where the per-byte work (the device's, the decode, the encode) counts;
    // last, since netconfd's commits slow down with a larger configuration
    let interfaces = '';
    for (let i = 0; i < INTERFACES; i++) {
      interfaces +=
        `<interface><name>eth${i}</name><description>uplink number ${i} to the core</description>` +
        `<type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:ethernetCsmacd</type><enabled>true</enabled></interface>`;
    }
    rawOk(
      await r.rpc(
        `<edit-config><target><candidate/></target><config><interfaces xmlns="${INTERFACES_NS}">${interfaces}</interfaces></config></edit-config>`,
      ),
    );
    rawOk(await r.rpc('<commit/>'));
    const [rawBig, mountBig] = (await timedTogether(BIG_GETS, [
      async () =>
        rawOk(
          await r.rpc(
            `<get-config><source><candidate/></source><filter type="subtree"><interfaces xmlns="${INTERFACES_NS}"/></filter></get-config>`,
          ),
        ),
      () => http.must('GET', `${MOUNT}/ietf-interfaces:interfaces?content=config`, [200]),
    ])) as [number, number];
    await uninstall();
    const goal = 'within 1.5x of the raw session';
    return [
      result('NETCONF install-node, cold (26 modules downloaded, compiled)', cold, 'ms', rawConnect, 'baseline: raw connect + hello'),
      result('NETCONF install-node, warm (schema cache on disk, compiled)', warm, 'ms', rawConnect, 'baseline: raw connect + hello'),
      result('NETCONF mount GET config (get-config candidate, subtree)', mountGet, 'ms', rawGet, goal),
      result('NETCONF mount GET state (get, subtree)', mountState, 'ms', rawState, goal),
      result(`NETCONF mount GET config of ${INTERFACES} interfaces (136 KB of XML)`, mountBig, 'ms', rawBig, goal),
      result('NETCONF mount PUT leaf vs raw edit-config + commit', mountPut, 'ms', rawPut, goal),
      result('NETCONF mount PUT leaf vs raw lock, edit-config, commit, unlock', mountPut, 'ms', rawLockedPut, goal),
      result('HTTP floor: local GET on the same service (for scale)', httpFloor, 'ms'),
      result('bare node:http round trip in this process (what any HTTP front pays)', bareRoundTrip, 'ms'),
      result(
        'raw get-config + bare HTTP round trip: the least any RESTCONF service could answer in',
        rawGet + bareRoundTrip,
        'ms',
        rawGet,
        goal,
      ),
      // what the mount point adds beyond any RESTCONF request's HTTP round trip
      result('NETCONF mount GET config minus the HTTP floor', Math.max(0, mountGet - httpFloor), 'ms', rawGet, goal),
      result(
        'NETCONF mount PUT minus the HTTP floor vs raw lock, edit-config, commit, unlock',
        Math.max(0, mountPut - httpFloor),
        'ms',
        rawLockedPut,
        goal,
      ),
    ];
  } finally {
    bareHttp?.close();
    bare?.close();
    client?.close();
    await raw?.close();
    await service?.stop();
    await peer('stop').catch(() => undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchNetconf().then(
    (rows) => {
      for (const row of rows) console.log(JSON.stringify(row));
    },
    (e: unknown) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
