/**
 * The device simulator against real ssh2 clients: the bytes of an FRR-like login, echo and prompts, config
 * modes and a running config that reflects writes, unknown commands, exec channels, password checks;
 * the example unit end to end over SSH (read, write, read back, undo); and a fleet of simulated devices.
 */
import test from 'ava';
import * as path from 'node:path';
import { Client } from 'ssh2';
import { cachingSession, connectSshCli, planWrite, readUnits, asTranslationUnit } from '@rosetta/sdk';
import { frrDevice, startSimulator } from '@rosetta/sdk/testing';

const example = require(path.resolve(__dirname, '../../examples/frr-minimal/dist/index.js')).default;
const unit = asTranslationUnit(example.translationUnit);
const creds = { username: 'frruser', password: 'frrpass' };

/** A raw interactive shell: write text, wait until the received bytes end with something. */
async function rawShell(
  port: number,
): Promise<{ received: () => string; send: (s: string) => void; until: (re: RegExp) => Promise<string>; close: () => void }> {
  const client = new Client();
  await new Promise<void>((resolve, reject) => {
    client
      .once('ready', () => resolve())
      .once('error', reject)
      .connect({ host: '127.0.0.1', port, ...creds });
  });
  const stream = await new Promise<import('ssh2').ClientChannel>((resolve, reject) =>
    client.shell({ term: 'vt100' }, (e, s) => (e ? reject(e) : resolve(s))),
  );
  let data = '';
  let mark = 0;
  const waiters: Array<() => void> = [];
  stream.on('data', (d: Buffer) => {
    data += d.toString();
    for (const w of waiters.splice(0)) w();
  });
  return {
    received: () => data,
    send: (s) => stream.write(s),
    until: (re) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timeout waiting for ${re}; got ${JSON.stringify(data.slice(mark))}`)), 5000);
        const check = () => {
          const chunk = data.slice(mark);
          if (re.test(chunk)) {
            clearTimeout(timer);
            mark = data.length;
            resolve(chunk);
          } else waiters.push(check);
        };
        check();
      }),
    close: () => client.end(),
  };
}

test('login banner, echo, prompts and modes are FRR-like, byte for byte', async (t) => {
  const device = await startSimulator(frrDevice(creds));
  const sh = await rawShell(device.port);
  try {
    t.is(
      await sh.until(/# $/),
      '\r\nHello, this is FRRouting (version 8.4.4).\r\nCopyright 1996-2005 Kunihiro Ishiguro, et al.\r\n\r\nfrr-peer# ',
    );
    sh.send('show version\n');
    const version = await sh.until(/frr-peer# $/);
    t.true(version.startsWith('show version\r\nFRRouting 8.4.4 (frr-peer) on Linux('), version);
    t.false(/[^\r]\n/.test(version), 'every line ends with \\r\\n');
    sh.send('configure terminal\n');
    t.is(await sh.until(/# $/), 'configure terminal\r\nfrr-peer(config)# ');
    sh.send('interface eth7\n');
    t.is(await sh.until(/# $/), 'interface eth7\r\nfrr-peer(config-if)# ');
    sh.send('description uplink to core\r\nexit\r\nrouter bgp 65001\n');
    t.regex(await sh.until(/\(config-router\)# $/), /frr-peer\(config\)# router bgp 65001\r\nfrr-peer\(config-router\)# $/);
    sh.send('address-family ipv4 unicast\n');
    await sh.until(/\(config-router-af\)# $/);
    sh.send('network 10.0.0.0/8\nend\n');
    await sh.until(/\r\nfrr-peer# $/);
    sh.send('show foo\n');
    t.is(await sh.until(/# $/), 'show foo\r\n% Unknown command: show foo\r\nfrr-peer# ');
    sh.send('show running-config\n');
    const config = (await sh.until(/\r\nend\r\nfrr-peer# $/)).replace(/\r\n/g, '\n');
    t.true(
      config.includes(
        '!\ninterface eth7\n description uplink to core\nexit\n!\nrouter bgp 65001\n address-family ipv4 unicast\n  network 10.0.0.0/8\n exit-address-family\nexit\n!\nend\n',
      ),
      config,
    );
    t.true(config.startsWith('show running-config\nBuilding configuration...\n\nCurrent configuration:\n!\nfrr version 8.4.4\n'));
  } finally {
    sh.close();
    await device.close();
  }
});

test('exec channels, wrong passwords, and `no` commands', async (t) => {
  const device = await startSimulator(frrDevice({ ...creds, config: ['ip route 192.0.2.0/24 Null0', 'interface lo', ' description old'] }));
  const exec = (command: string, password = creds.password) =>
    new Promise<{ out: string; code: number }>((resolve, reject) => {
      const c = new Client();
      c.once('error', reject)
        .once('ready', () =>
          c.exec(command, (err, stream) => {
            if (err) return reject(err);
            let out = '';
            let code = -1;
            // the exit status may be seen before the output's last data event: the output is whole at close
            stream
              .on('data', (d: Buffer) => {
                out += d.toString();
              })
              .on('exit', (status: number) => {
                code = status;
              })
              .on('close', () => {
                c.end();
                resolve({ out, code });
              });
          }),
        )
        .connect({ host: '127.0.0.1', port: device.port, username: creds.username, password });
    });
  try {
    t.deepEqual(await exec('configure terminal\nno ip route 192.0.2.0/24 Null0\ninterface lo\nno description\nend'), { out: '', code: 0 });
    const after = await exec('show running-config');
    t.false(after.out.includes('ip route'));
    t.true(after.out.includes('interface lo\nexit\n'), after.out);
    t.deepEqual(await exec('show bogus'), { out: '% Unknown command: show bogus\n', code: 1 });
    await t.throwsAsync(exec('show version', 'wrong'), { message: /authentication methods failed/ });
  } finally {
    await device.close();
  }
});

test('the example unit end to end over SSH: read, write, read back, undo', async (t) => {
  const device = await startSimulator(
    frrDevice({ ...creds, config: ['ip route 192.0.2.0/24 Null0', 'interface eth7', ' description uplink', ' shutdown'] }),
  );
  const cli = await connectSshCli({ host: '127.0.0.1', port: device.port, ...creds });
  const read = () => readUnits([unit], cachingSession(cli), { content: 'config' });
  const apply = async (commands: readonly string[]) => {
    for (const c of ['configure terminal', ...commands, 'end']) t.is(await cli.exec(c), '', `command ${c}`);
  };
  try {
    const before = (await read())!;
    t.deepEqual(before, {
      'rosetta-example-frr:interfaces': { interface: [{ name: 'eth7', config: { enabled: false, description: 'uplink' } }] },
      'rosetta-example-frr:static-routes': { route: [{ prefix: '192.0.2.0/24', 'next-hop': 'Null0' }] },
    });
    const after = structuredClone(before) as any;
    after['rosetta-example-frr:interfaces'].interface.push({ name: 'lo', config: { enabled: true, description: 'loopback' } });
    after['rosetta-example-frr:interfaces'].interface[0].config = { enabled: true, description: 'uplink to core' };
    after['rosetta-example-frr:static-routes'].route = [{ prefix: '198.51.100.0/24', 'next-hop': '127.0.0.2' }];
    const plan = planWrite([unit], before, after);
    await apply(plan.commands);
    t.deepEqual(await read(), after);
    await apply(plan.undo);
    t.deepEqual(await read(), before);
    const state = await readUnits([unit], cachingSession(cli), { path: "/rosetta-example-frr:interfaces/interface[name='lo']/state" });
    t.deepEqual(state, { 'rosetta-example-frr:state': { 'admin-status': 'up', 'oper-status': 'up', mtu: 65536 } });
    t.is(cli.prompt, 'frr-peer# ');
  } finally {
    cli.close();
    await device.close();
  }
});

test('a fleet: 100 simulated devices on one machine, one session each', async (t) => {
  const count = 100;
  const started = Date.now();
  const devices = await Promise.all(Array.from({ length: count }, (_, i) => startSimulator(frrDevice({ ...creds, hostname: `r${i}` }))));
  const listening = Date.now() - started;
  try {
    const t0 = Date.now();
    const sessions = await Promise.all(devices.map((d) => connectSshCli({ host: '127.0.0.1', port: d.port, ...creds, timeoutMs: 60_000 })));
    const connected = Date.now() - t0;
    const t1 = Date.now();
    const outputs = await Promise.all(sessions.map((s) => s.exec('show version')));
    const commanded = Date.now() - t1;
    for (const [i, out] of outputs.entries()) t.true(out.startsWith(`FRRouting 8.4.4 (r${i}) on Linux`), out);
    t.true(sessions.every((s, i) => s.prompt === `r${i}# `));
    for (const s of sessions) s.close();
    t.log(
      `${count} devices: listening after ${listening} ms, ${count} SSH sessions up in ${connected} ms, one command on each in ${commanded} ms`,
    );
  } finally {
    await Promise.all(devices.map((d) => d.close()));
  }
});

test('the simulated running config matches one recorded from FRR 8.4.4 for the same configuration', async (t) => {
  const fs = await import('node:fs');
  const { parseSessionLog } = await import('@rosetta/sdk/testing');
  const recorded = parseSessionLog(
    fs.readFileSync(path.resolve(__dirname, '../../examples/frr-minimal/transcripts/frr-8.4.4.log'), 'utf8'),
  );
  const device = await startSimulator(
    frrDevice({
      ...creds,
      config: [
        'ip route 192.0.2.0/24 Null0',
        'ip route 198.51.100.0/24 127.0.0.2',
        'interface eth7',
        ' description uplink to core',
        ' shutdown',
        'interface lo',
        ' description loopback of R1',
      ],
    }),
  );
  const cli = await connectSshCli({ host: '127.0.0.1', port: device.port, ...creds });
  try {
    t.is((await cli.exec('show running-config')).trimEnd(), recorded['show running-config']!.trimEnd());
  } finally {
    cli.close();
    await device.close();
  }
});
