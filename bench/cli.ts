/**
 * CLI devices through Rosetta against the floor of a raw SSH session (ssh2 directly, a shell, wait for
 * the prompt after each command, or after the last of commands typed ahead) sending the same commands
 * straight to the real FRR peer:
 * - install-node of the FRR peer vs. SSH connect + shell + first prompt;
 * - GET of the whole mount point (content=config and content=all) vs. the same show commands raw (the
 *   list is learned from an FRR simulator that records what a whole read sends). The FRR unit lets the
 *   service type a read's show commands ahead in one write (vtysh answers them in order), so the goal row's
 *   floor is a raw client doing the same: all commands in one write, done at the last of their prompts.
 *   A second row keeps the simpler floor, one command per round trip (wait for each prompt), which is what
 *   a client that does not know the device takes typed-ahead input pays;
 * - 100 static routes in one PUT vs. `configure terminal`, the 100 `ip route` lines, `end` raw;
 * - install of 1 (FRR), 10 and 50 (the SDK's simulator) devices at once vs. as many raw logins at once.
 * The service runs in this process with the cli and frr plugins, on loopback. Medians of a few runs; every
 * phase is bounded in time; reads are timed after a warm-up. Without FRR (not installed, not root) the FRR rows are left out, loudly.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'ssh2';
import { openDatastores } from '@rosetta/core/dist/src/datastore';
import { resolveConfig } from '@rosetta/core/dist/src/service/config';
import { startService, type RunningService } from '@rosetta/core/dist/src/service/service';
import {
  acquireFrrPeer,
  frrDevice,
  frrPeerUnavailable,
  startSimulator,
  type FrrPeerLease,
  type SimulatedDevice,
} from '@rosetta/sdk/testing';
import { benchClient, type BenchClient, type Reply } from './http-client';
import { result, type BenchResult, median } from './results';

const REPO = path.resolve(__dirname, '..', '..');
const NODES = '/rests/data/network-topology:network-topology';
const mountOf = (node: string) => `${NODES}/topology=cli/node=${node}/yang-ext:mount`;
const STATICS =
  '/rosetta-openconfig-network-instance:network-instances/network-instance=default/protocols/protocol=rosetta-openconfig-policy-types:STATIC,static/static-routes';
const PROMPT = /(?:^|\r?\n)[\w.-]+(\([\w-]+\))?[#>] $/;
/** Every prompt in a typed-ahead answer (the last one ends it, the others are followed by the next echo). */
const PROMPTS = /(?:^|\n)[\w.-]+(\([\w-]+\))?[#>] /g;
const GOAL = 'within 1.5x of raw SSH';
/** Reads of each kind before timing (see frrRows), and timed. */
const WARM_READS = 40;
const TIMED_READS = 101;

interface Login {
  host: string;
  port: number;
  username: string;
  password: string;
}

/** A raw shell session: the floor any CLI southbound pays. */
class RawShell {
  private buffer = '';
  private waiter: (() => void) | undefined;
  private constructor(
    private readonly client: Client,
    private readonly stream: NodeJS.ReadWriteStream,
  ) {
    stream.on('data', (d: Buffer) => {
      this.buffer += d.toString('utf8');
      this.waiter?.();
    });
  }

  static open(login: Login, timeoutMs = 20_000): Promise<RawShell> {
    return new Promise((resolve, reject) => {
      const client = new Client();
      const timer = setTimeout(() => {
        client.end();
        reject(new Error(`raw login to ${login.host}:${login.port} timed out`));
      }, timeoutMs);
      client.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      client.on('ready', () =>
        client.shell({ term: 'vt100' }, (err, stream) => {
          if (err) {
            clearTimeout(timer);
            reject(err);
            return;
          }
          const shell = new RawShell(client, stream);
          shell.untilPrompt(timeoutMs).then(() => {
            clearTimeout(timer);
            resolve(shell);
          }, reject);
        }),
      );
      client.connect({ host: login.host, port: login.port, username: login.username, password: login.password, readyTimeout: timeoutMs });
    });
  }

  private untilPrompt(timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new Error('raw session: no prompt'));
      }, timeoutMs);
      const check = () => {
        if (!PROMPT.test(this.buffer.slice(-256))) return;
        clearTimeout(timer);
        this.waiter = undefined;
        const out = this.buffer;
        this.buffer = '';
        resolve(out);
      };
      this.waiter = check;
      check();
    });
  }

  exec(command: string): Promise<string> {
    this.stream.write(`${command}\n`);
    return this.untilPrompt(30_000);
  }

  /**
   * The commands typed ahead in one write; done at the prompt after the last one's output (one prompt per
   * command: FRR's show output holds no prompt-like line, so counting them finds each command's end).
   */
  async execAll(commands: readonly string[]): Promise<string> {
    this.stream.write(commands.map((c) => `${c}\n`).join(''));
    let out = '';
    do out += await this.untilPrompt(30_000);
    while ((out.match(PROMPTS) ?? []).length < commands.length);
    return out;
  }

  close(): void {
    this.client.end();
  }
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const t0 = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

/** One keep-alive client per service (up to 64 sockets: the scale rows install 50 devices at once). */
const clients = new WeakMap<RunningService, BenchClient>();

function call(service: RunningService, method: string, p: string, body?: unknown): Promise<Reply> {
  let client = clients.get(service);
  if (client === undefined) clients.set(service, (client = benchClient(service.url, 64)));
  return client.request(method, p, body);
}

async function must(service: RunningService, method: string, p: string, body?: unknown): Promise<void> {
  const r = await call(service, method, p, body);
  if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${r.text.slice(0, 300)}`);
}

function installBody(nodeId: string, login: Login): unknown {
  return {
    input: {
      'node-id': nodeId,
      cli: {
        'cli-topology:host': login.host,
        'cli-topology:port': login.port,
        'cli-topology:transport-type': 'ssh',
        'cli-topology:device-type': 'frr',
        'cli-topology:device-version': '8.4.4',
        'cli-topology:username': login.username,
        'cli-topology:password': login.password,
      },
    },
  };
}

const install = (s: RunningService, nodeId: string, login: Login) =>
  must(s, 'POST', '/rests/operations/connection-manager:install-node', installBody(nodeId, login));
const uninstall = (s: RunningService, nodeId: string) =>
  must(s, 'POST', '/rests/operations/connection-manager:uninstall-node', { input: { 'node-id': nodeId, 'connection-type': 'cli' } });

function routesBody(count: number): unknown {
  const statics = Array.from({ length: count }, (_, i) => {
    const prefix = `10.${200 + Math.floor(i / 250)}.${i % 250}.0/24`;
    return {
      prefix,
      config: { prefix },
      'next-hops': { 'next-hop': [{ index: '127.0.0.2', config: { index: '127.0.0.2', 'next-hop': '127.0.0.2' } }] },
    };
  });
  return { 'rosetta-openconfig-network-instance:static-routes': { static: statics } };
}

const routeCommands = (count: number) =>
  Array.from({ length: count }, (_, i) => `ip route 10.${200 + Math.floor(i / 250)}.${i % 250}.0/24 127.0.0.2`);

async function startRosetta(): Promise<RunningService> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-cli-'));
  const plugins = path.join(dir, 'plugins.json');
  fs.writeFileSync(
    plugins,
    JSON.stringify({ watch: false, plugins: ['plugins/cli', 'plugins/frr'].map((p) => ({ path: path.join(REPO, p), enabled: true })) }),
  );
  const config = resolveConfig({ port: 0, dataDir: path.join(dir, 'data'), plugins }, dir);
  return startService({ config, openDatastores: (d, s) => openDatastores(d, s), log: { info: () => undefined, error: () => undefined } });
}

/** The show commands a whole-mount read sends, as a recording simulator sees them. */
async function readCommands(service: RunningService, content: 'config' | 'all'): Promise<string[]> {
  const device = await startSimulator(frrDevice({ username: 'bench', password: 'bench' }));
  try {
    await install(service, 'LEARN', { host: '127.0.0.1', port: device.port, username: 'bench', password: 'bench' });
    const from = device.commandLog.length;
    await must(service, 'GET', `${mountOf('LEARN')}?content=${content}`);
    const sent = device.commandLog.slice(from);
    await uninstall(service, 'LEARN');
    return sent;
  } finally {
    await device.close();
  }
}

async function frrRows(service: RunningService, peer: FrrPeerLease, rows: BenchResult[]): Promise<void> {
  const login: Login = { host: peer.host, port: peer.port, username: peer.username, password: peer.password };
  const installs: number[] = [];
  const logins: number[] = [];
  for (let i = 0; i < 5; i++) {
    logins.push(await timed(async () => (await RawShell.open(login)).close()));
    installs.push(await timed(() => install(service, 'FRR1', login)));
    if (i < 4) await uninstall(service, 'FRR1');
  }
  rows.push(
    result('CLI: install-node of the FRR peer (median of 5)', median(installs), 'ms', median(logins), 'raw: SSH connect + shell + prompt'),
  );

  const raw = await RawShell.open(login);
  try {
    for (const content of ['config', 'all'] as const) {
      const commands = await readCommands(service, content);
      const oneByOne: number[] = [];
      const typedAhead: number[] = [];
      const ours: number[] = [];
      // warm both paths (JIT, the device's caches, the service's learned read) before timing: the first
      // reads are several times slower, and the service's code (far more of it than the raw client's)
      // takes dozens of requests to be compiled; a service that has run a while is past that
      for (let i = 0; i < WARM_READS; i++) {
        for (const c of commands) await raw.exec(c);
        await raw.execAll(commands);
        await must(service, 'GET', `${mountOf('FRR1')}?content=${content}`);
      }
      for (let i = 0; i < TIMED_READS; i++) {
        oneByOne.push(
          await timed(async () => {
            for (const c of commands) await raw.exec(c);
          }),
        );
        typedAhead.push(await timed(() => raw.execAll(commands)));
        ours.push(await timed(() => must(service, 'GET', `${mountOf('FRR1')}?content=${content}`)));
      }
      const what = `CLI: GET whole mount point, content=${content} (${commands.length} show command(s), median of ${TIMED_READS})`;
      rows.push(result(`${what} vs. raw typed ahead`, median(ours), 'ms', median(typedAhead), `${GOAL} typing the same commands ahead`));
      rows.push(
        result(
          `${what} vs. raw one command per round trip`,
          median(ours),
          'ms',
          median(oneByOne),
          `${GOAL} sending one command per round trip`,
        ),
      );
    }
    // what every mount GET pays for HTTP (request and response through the service, no device), which the
    // raw floor does not: the node's own status resource
    const httpOnly: number[] = [];
    for (let i = 0; i < TIMED_READS; i++) httpOnly.push(await timed(() => must(service, 'GET', `${NODES}/topology=cli/node=FRR1`)));
    rows.push(
      result(
        `CLI: GET of the node itself (the HTTP part of a mount GET, no device; median of ${TIMED_READS})`,
        median(httpOnly),
        'ms',
        null,
        'context for the GET rows',
      ),
    );

    const count = 100;
    const commands = routeCommands(count);
    const rawWrites: number[] = [];
    const puts: number[] = [];
    for (let i = 0; i < 3; i++) {
      rawWrites.push(
        await timed(async () => {
          await raw.exec('configure terminal');
          for (const c of commands) await raw.exec(c);
          await raw.exec('end');
        }),
      );
      await raw.exec('configure terminal');
      for (const c of commands) await raw.exec(`no ${c}`);
      await raw.exec('end');
      puts.push(await timed(() => must(service, 'PUT', `${mountOf('FRR1')}${STATICS}`, routesBody(count))));
      const onDevice = peer
        .runningConfig()
        .split('\n')
        .filter((l) => l.startsWith('ip route 10.20')).length;
      if (onDevice !== count) throw new Error(`the PUT left ${onDevice} of ${count} routes on the device`);
      await must(service, 'DELETE', `${mountOf('FRR1')}${STATICS}`);
    }
    rows.push(result(`CLI: PUT ${count} static routes (one request, median of 3)`, median(puts), 'ms', median(rawWrites), GOAL));
  } finally {
    raw.close();
    await uninstall(service, 'FRR1').catch(() => undefined);
  }
}

/** N simulated devices installed at once, against N raw logins at once. */
async function scaleRow(service: RunningService, n: number, rows: BenchResult[]): Promise<void> {
  const devices: SimulatedDevice[] = [];
  try {
    for (let i = 0; i < n; i++)
      devices.push(await startSimulator(frrDevice({ hostname: `sim${i}`, username: 'bench', password: 'bench' })));
    const logins = devices.map((d): Login => ({ host: '127.0.0.1', port: d.port, username: 'bench', password: 'bench' }));
    const rawMs = await timed(async () => {
      for (const s of await Promise.all(logins.map((l) => RawShell.open(l, 60_000)))) s.close();
    });
    const ours = await timed(() => Promise.all(logins.map((l, i) => install(service, `SIM${i}`, l))));
    rows.push(result(`CLI: install ${n} simulated devices at once (all answered)`, ours, 'ms', rawMs, `raw: ${n} logins at once`));
    await Promise.all(logins.map((_, i) => uninstall(service, `SIM${i}`)));
  } finally {
    await Promise.all(devices.map((d) => d.close()));
  }
}

/** The CLI benchmark rows. */
export async function benchCli(): Promise<BenchResult[]> {
  const rows: BenchResult[] = [];
  const service = await startRosetta();
  try {
    const why = frrPeerUnavailable();
    if (why !== undefined) {
      console.warn(`bench cli: *** FRR rows SKIPPED: ${why} ***`);
    } else {
      const peer = await acquireFrrPeer({ who: 'bench/cli', waitMs: 180_000 });
      try {
        await frrRows(service, peer, rows);
      } finally {
        await peer.release();
      }
    }
    for (const n of [1, 10, 50]) await scaleRow(service, n, rows);
  } finally {
    await service.stop();
  }
  return rows;
}

if (require.main === module) {
  benchCli().then(
    (rows) => {
      for (const r of rows) console.log(JSON.stringify(r));
    },
    (e) => {
      console.error(e);
      process.exitCode = 1;
    },
  );
}
