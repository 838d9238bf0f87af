/**
 * The fleet simulator seen from outside, through clients of its devices: twenty NETCONF and five CLI
 * devices each answer with their own configuration, an edit on one leaves the others as they were, and
 * drop, stall, resume and restart do to sessions what a client of a real fleet would see. Then
 * rosetta-sim as a process: its ready line, commands spread over worker processes, and a clean exit,
 * workers included, when stdin closes or SIGTERM comes.
 */
import test from 'ava';
import { spawn, execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'ssh2';
import { hostKeyFingerprint } from '@rosetta/sdk';
import {
  fleetDeviceJson,
  fleetDeviceXml,
  openRawNetconf,
  simulatorHostKeyFingerprint,
  startFleet,
  type Fleet,
  type FleetDevice,
  type RawNetconfSession,
} from '@rosetta/sdk/testing';

const GET_CONFIG = '<get-config><source><running/></source></get-config>';
const BIN = path.resolve(__dirname, '../../bin/rosetta-sim.js');

let fleet: Fleet;

test.before(async () => {
  fleet = await startFleet({ netconf: 20, cli: 5 });
});

test.after.always(async () => {
  await fleet?.close();
});

const device = (id: string): FleetDevice => fleet.devices.find((d) => d.id === id)!;
const open = (d: FleetDevice, timeoutMs = 10_000): Promise<RawNetconfSession> => openRawNetconf({ ...d, timeoutMs });

/** The SHA256 fingerprint of the host key a device presents to a client. */
/** The fingerprint of the host key a device presents; resolves once the connection has closed, so the device no longer counts it as a session. */
function presentedFingerprint(d: FleetDevice): Promise<string> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    let fingerprint: string | undefined;
    client
      .once('error', reject)
      .once('ready', () => client.end())
      .once('close', () => (fingerprint ? resolve(fingerprint) : reject(new Error(`${d.id} closed before presenting a host key`))))
      .connect({
        host: d.host,
        port: d.port,
        username: d.username,
        password: d.password,
        hostVerifier: (key: Buffer) => {
          fingerprint = hostKeyFingerprint(key);
          return true;
        },
      });
  });
}

/** Runs one exec command on a CLI device and resolves with its output. */
function exec(d: FleetDevice, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    client
      .once('ready', () =>
        client.exec(command, (e, stream) => {
          if (e) return reject(e);
          let out = '';
          stream.on('data', (chunk: Buffer) => (out += chunk.toString()));
          stream.on('close', () => {
            client.end();
            resolve(out);
          });
        }),
      )
      .once('error', reject)
      .connect({ host: d.host, port: d.port, username: d.username, password: d.password, readyTimeout: 10_000 });
  });
}

test.serial('every device has its own id, port and configuration', async (t) => {
  t.is(fleet.devices.length, 25);
  t.deepEqual(fleet.devices.map((d) => d.id).slice(18, 22), ['nc-00019', 'nc-00020', 'cli-00001', 'cli-00002']);
  t.is(new Set(fleet.devices.map((d) => d.port)).size, 25);
  for (const id of ['nc-00001', 'nc-00007', 'nc-00020']) {
    const session = await open(device(id));
    try {
      t.true(session.capabilities.some((c) => c.startsWith('urn:rosetta:fleet-device?module=rosetta-fleet-device')));
      const reply = await session.rpc(GET_CONFIG);
      const index = Number(id.slice(3));
      t.true(reply.includes(`<data>${fleetDeviceXml(index, 200)}</data>`), id);
      t.true(reply.includes(`<hostname>${id}</hostname>`));
    } finally {
      await session.close();
    }
  }
  const lines = JSON.stringify(fleetDeviceJson(1, 200), null, 2).split('\n').length;
  t.true(lines >= 180 && lines <= 220, `${lines} JSON lines`);
  const cli = await exec(device('cli-00003'), 'show running-config');
  t.regex(cli, /hostname cli-00003/);
  t.regex(cli, /description link 0 of cli device 3/);
  t.is(fleet.running('cli-00003'), cli.replace(/\n$/, ''));
  t.not(fleet.hostKeyFingerprint, simulatorHostKeyFingerprint(), "an Ed25519 key of the fleet's own");
  t.is(await presentedFingerprint(device('cli-00003')), fleet.hostKeyFingerprint);
});

test.serial('an edit on one device changes that device only', async (t) => {
  const session = await open(device('nc-00004'));
  try {
    const edit = await session.rpc(
      '<edit-config><target><candidate/></target><config><system xmlns="urn:rosetta:fleet-device"><location>moved</location></system></config></edit-config>',
    );
    t.regex(edit, /<ok\/>/);
    t.regex(await session.rpc('<commit/>'), /<ok\/>/);
  } finally {
    await session.close();
  }
  t.regex(fleet.running('nc-00004'), /<location>moved<\/location>/);
  t.is(fleet.running('nc-00005'), fleetDeviceXml(5, 200));
  const other = await open(device('nc-00005'));
  try {
    t.notRegex(await other.rpc(GET_CONFIG), /moved/);
  } finally {
    await other.close();
  }
  await exec(device('cli-00001'), 'configure terminal\nhostname changed\nend');
  t.regex(fleet.running('cli-00001'), /hostname changed/);
  t.regex(fleet.running('cli-00002'), /hostname cli-00002/);
});

test.serial('drop closes sessions and refuses new ones until resume', async (t) => {
  const d = device('nc-00010');
  const session = await open(d);
  t.is(fleet.stats().sessions >= 1, true);
  await fleet.drop([d.id]);
  await t.throwsAsync(session.rpc(GET_CONFIG), { message: /closed/ });
  await t.throwsAsync(open(d, 3000));
  t.is(fleet.stats().dropped, 1);
  // the other devices are untouched
  const neighbour = await open(device('nc-00011'));
  t.regex(await neighbour.rpc(GET_CONFIG), /nc-00011/);
  await neighbour.close();
  await fleet.resume([d.id]);
  const again = await open(d);
  t.regex(await again.rpc(GET_CONFIG), /nc-00010/);
  await again.close();
  t.is(fleet.stats().dropped, 0);
});

test.serial('stall keeps connections but answers nothing until resume', async (t) => {
  const d = device('nc-00012');
  const session = await open(d, 1500);
  await fleet.stall([d.id]);
  await t.throwsAsync(session.rpc(GET_CONFIG), { message: /no reply/ });
  // a new connection hangs at login
  await t.throwsAsync(open(d, 1000), { message: /within|Timed out/ });
  t.is(fleet.stats().stalled, 1);
  await fleet.resume([d.id]);
  // the open session answers again: what it sent while stalled is read now
  t.regex(await session.rpc(GET_CONFIG), /nc-00012/);
  await session.close();
});

test.serial('restart closes every session and every listener comes back on its port', async (t) => {
  const sessions = await Promise.all(['nc-00001', 'nc-00002', 'nc-00003'].map((id) => open(device(id))));
  await fleet.restart();
  const outcome = (s: RawNetconfSession) =>
    s.rpc(GET_CONFIG).then(
      () => 'answered',
      () => 'closed',
    );
  t.deepEqual(await Promise.all(sessions.map(outcome)), ['closed', 'closed', 'closed']);
  for (const id of ['nc-00001', 'nc-00020']) {
    const s = await open(device(id));
    t.regex(await s.rpc(GET_CONFIG), new RegExp(id));
    await s.close();
  }
  t.regex(await exec(device('cli-00005'), 'show running-config'), /hostname cli-00005/);
  // a restart keeps what the device holds, as a reboot of a saved configuration does
  t.regex(fleet.running('nc-00004'), /<location>moved<\/location>/);
});

test.serial('unknown device ids are refused', async (t) => {
  await t.throwsAsync(fleet.drop(['nc-99999']), { message: /no such device: nc-99999/ });
  t.throws(() => fleet.running('nope'), { message: /no such device/ });
});

/** Every rosetta-sim a test started, so one whose test failed midway (a failed assertion ends the test) is still stopped. */
const startedSims: ChildProcessWithoutNullStreams[] = [];

test.afterEach.always(() => {
  for (const child of startedSims.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    for (const pid of childPids(child.pid!)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    child.kill('SIGKILL');
  }
});

const childPids = (pid: number): number[] => {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((s) => Number(s.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there are none
  }
};

/** rosetta-sim as a process: its output lines one at a time, its commands, its worker processes. */
function startSim(args: string[]) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [BIN, ...args]);
  startedSims.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  const queued: string[] = [];
  const waiting: Array<{ resolve: (line: string) => void; reject: (e: Error) => void }> = [];
  lines.on('line', (line) => {
    const w = waiting.shift();
    if (w) w.resolve(line);
    else queued.push(line);
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      // a line awaited from a process that is gone fails the test with what it said, instead of hanging it
      for (const w of waiting.splice(0)) w.reject(new Error(`rosetta-sim exited (${code}) before answering: ${stderr}`));
      resolve(code);
    }),
  );
  const next = (): Promise<any> =>
    new Promise((resolve, reject) => {
      const line = queued.shift();
      if (line !== undefined) resolve(JSON.parse(line));
      else if (child.exitCode !== null || child.signalCode !== null)
        reject(new Error(`rosetta-sim exited (${child.exitCode ?? child.signalCode}) before answering: ${stderr}`));
      else {
        // bounded, so a line that never comes fails the test with what the process said, not a hang
        const timer = setTimeout(() => {
          const at = waiting.indexOf(entry);
          if (at >= 0) waiting.splice(at, 1);
          reject(new Error(`rosetta-sim said nothing for 30 s; workers: ${workers().join(', ') || 'none'}; stderr: ${stderr}`));
        }, 30_000);
        const entry = {
          resolve: (l: string) => {
            clearTimeout(timer);
            resolve(JSON.parse(l));
          },
          reject: (e: Error) => {
            clearTimeout(timer);
            reject(e);
          },
        };
        waiting.push(entry);
      }
    });
  const command = (cmd: object) => {
    child.stdin.write(`${JSON.stringify(cmd)}\n`);
    return next();
  };
  const workers = () => childPids(child.pid!);
  /** The exit code, or a failure naming what is still running when it has not exited within `ms`. */
  const exit = async (ms = 20_000): Promise<number | null> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const left = workers();
        child.kill('SIGKILL');
        reject(new Error(`rosetta-sim did not exit within ${ms} ms (workers left: ${left.join(', ') || 'none'}); stderr: ${stderr}`));
      }, ms);
    });
    try {
      return await Promise.race([exited, late]);
    } finally {
      clearTimeout(timer);
    }
  };
  return { child, next, command, exited, exit, workers };
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test.serial('rosetta-sim spreads a fleet over workers, answers commands and exits cleanly when stdin closes', async (t) => {
  const sim = startSim(['--netconf', '6', '--cli', '2', '--per-process', '3']);
  const ready = await sim.next();
  t.true(ready.ready);
  t.is(ready.devices.length, 8);
  t.deepEqual(Object.keys(ready.devices[0]).sort(), ['host', 'id', 'kind', 'password', 'port', 'username']);
  const workers = sim.workers();
  t.is(workers.length, 3);
  // every worker presents the one host key the ready line names
  for (const id of ['nc-00001', 'nc-00004', 'cli-00002'])
    t.is(await presentedFingerprint(ready.devices.find((d: FleetDevice) => d.id === id)), ready.hostKeyFingerprint);

  const nc = ready.devices.find((d: FleetDevice) => d.id === 'nc-00005');
  const session = await openRawNetconf({ ...nc, timeoutMs: 10_000 });
  t.regex(await session.rpc(GET_CONFIG), /<hostname>nc-00005<\/hostname>/);
  // a worker counts a session's end when its socket closes, a moment after the client sees it
  let stats = await sim.command({ cmd: 'stats', id: 1 });
  for (const deadline = Date.now() + 5_000; stats.sessions !== 1 && Date.now() < deadline; )
    stats = await new Promise((r) => setTimeout(r, 50)).then(() => sim.command({ cmd: 'stats', id: 1 }));
  t.like(stats, { id: 1, ok: true, devices: 8, netconf: 6, cli: 2, sessions: 1, processes: 3 });
  t.true(stats.cpuSeconds > 0 && stats.rssBytes > 0);
  t.like(await sim.command({ cmd: 'drop', ids: ['nc-00005', 'cli-00002'] }), { ok: true, devices: 2 });
  await t.throwsAsync(session.rpc(GET_CONFIG));
  t.like(await sim.command({ cmd: 'stats' }), { dropped: 2, sessions: 0 });
  t.like(await sim.command({ cmd: 'restart' }), { ok: true, devices: 8 });
  const running = await sim.command({ cmd: 'running', ids: ['nc-00005', 'cli-00002'] });
  t.is(running.running['nc-00005'], fleetDeviceXml(5, 200));
  t.regex(running.running['cli-00002'], /hostname cli-00002/);
  t.like(await sim.command({ cmd: 'drop', ids: ['nc-12345'] }), { ok: false });
  t.like(await sim.command({ cmd: 'explode' }), { ok: false });

  sim.child.stdin.end();
  t.is(await sim.exit(), 0);
  t.deepEqual(
    workers.filter((pid) => alive(pid)),
    [],
  );
});

test.serial('rosetta-sim exits cleanly on SIGTERM, its workers with it', async (t) => {
  // --until-signal: stdin closing does not stop it, as when it runs in the background
  const sim = startSim(['--netconf', '2', '--cli', '1', '--per-process', '2', '--until-signal']);
  t.true((await sim.next()).ready);
  sim.child.stdin.end();
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.is(sim.child.exitCode, null);
  const workers = sim.workers();
  t.is(workers.length, 2);
  sim.child.kill('SIGTERM');
  t.is(await sim.exit(), 0);
  t.deepEqual(
    workers.filter((pid) => alive(pid)),
    [],
  );
});

test.serial('rosetta-sim killed outright leaves no worker behind', async (t) => {
  const sim = startSim(['--netconf', '2', '--per-process', '1']);
  t.true((await sim.next()).ready);
  const workers = sim.workers();
  t.is(workers.length, 2);
  sim.child.kill('SIGKILL');
  await sim.exit();
  // a worker's IPC channel closes with its coordinator, and the worker exits with it
  for (let waited = 0; waited < 10_000 && workers.some(alive); waited += 100) await new Promise((r) => setTimeout(r, 100));
  t.deepEqual(workers.filter(alive), []);
});
