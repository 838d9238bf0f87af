/**
 * The secrets key outside the data directory, end to end: a service whose `secretsKeyFile` lies elsewhere
 * seals an installed device's password with it (the device logs in), the data directory holds neither
 * the key nor the password, so a copy of it alone opens nothing; a key open to other users stops
 * start-up naming the file; `rosetta secrets rotate-key` (run as the command, refused while the service
 * runs) seals the password again under a new key, after which a service on the new key logs the device
 * in and one on the old key does not; run again, it says the job is done. Also where the setting comes
 * from: the file, else ROSETTA_SECRETS_KEY_FILE, else the data directory.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { frrDevice, startSimulator, type SimulatedDevice } from '@rosetta/sdk/testing';
import { openDatastores } from '../../src/datastore';
import { resolveConfig } from '../../src/service/config';
import { startService, type RunningService } from '../../src/service/service';

const REPO = path.resolve(__dirname, '../../../..');
const ROSETTA = path.join(REPO, 'core/bin/rosetta.js');
const PASSWORD = 'Pw-5519-rotated-login';
const NODE = '/rests/data/network-topology:network-topology/topology=cli/node=R1';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-key-file-'));
const dataDir = path.join(root, 'data');
const keyDir = path.join(root, 'keys');
const oldKey = path.join(keyDir, 'secrets.key');
const newKey = path.join(keyDir, 'secrets-2.key');
const pluginsFile = path.join(root, 'plugins.json');
fs.writeFileSync(
  pluginsFile,
  JSON.stringify({
    watch: false,
    plugins: [
      { path: path.join(REPO, 'plugins/cli'), enabled: true },
      { path: path.join(REPO, 'plugins/frr'), enabled: true },
    ],
  }),
);
const configFile = (key: string, dir = dataDir): string => {
  const file = path.join(root, `config-${path.basename(key)}-${path.basename(dir)}.json`);
  fs.writeFileSync(file, JSON.stringify({ port: 0, dataDir: dir, secretsKeyFile: key, plugins: pluginsFile }));
  return file;
};

let device: SimulatedDevice;
let current: RunningService | undefined;
const logs: string[] = [];

async function start(key: string, dir = dataDir): Promise<RunningService> {
  const config = resolveConfig(JSON.parse(fs.readFileSync(configFile(key, dir), 'utf8')), root, {}, root, {});
  current = await startService({ config, openDatastores, log: { info: (m) => logs.push(m), error: (m) => logs.push(m) } });
  return current;
}

async function stop(): Promise<void> {
  await current?.stop();
  current = undefined;
}

async function connected(s: RunningService, ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const r = await fetch(`${s.url}${NODE}?content=nonconfig`);
    const body = r.status === 200 ? ((await r.json()) as { 'network-topology:node': Array<Record<string, unknown>> }) : undefined;
    if (body?.['network-topology:node'][0]?.['cli-topology:connection-status'] === 'connected') return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isFile() && fs.readFileSync(file).includes(needle)) found.push(file);
  }
  return found;
}

/** `rosetta store check` with these arguments, as a process. */
function storeCheck(args: string[]): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [ROSETTA, 'store', 'check', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ROSETTA_SECRETS_KEY_FILE: '' },
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

function rotate(key: string): { status: number | null; out: string } {
  const r = spawnSync(process.execPath, [ROSETTA, 'secrets', 'rotate-key', '--new-key-file', key, '--config', configFile(oldKey)], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ROSETTA_SECRETS_KEY_FILE: '' },
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

test.before(async () => {
  device = await startSimulator(frrDevice({ hostname: 'r1', username: 'rosetta', password: PASSWORD, config: ['interface eth0'] }));
});

test.after.always(async () => {
  await stop();
  await device?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

test('the key file: the configuration file names it, else ROSETTA_SECRETS_KEY_FILE, else the data directory', (t) => {
  const env = { ROSETTA_SECRETS_KEY_FILE: 'from-env.key' };
  t.is(
    resolveConfig({ dataDir: 'd', secretsKeyFile: 'k/file.key' }, '/etc/rosetta', {}, '/work', env).secretsKeyFile,
    '/etc/rosetta/k/file.key',
  );
  t.is(resolveConfig({ dataDir: 'd' }, '/etc/rosetta', {}, '/work', env).secretsKeyFile, '/work/from-env.key');
  t.is(resolveConfig({ dataDir: 'd' }, '/etc/rosetta', {}, '/work', {}).secretsKeyFile, '/etc/rosetta/d/device-secrets.key');
  t.throws(() => resolveConfig({ secretsKeyFile: '' }, '/etc/rosetta', {}, '/work', {}), {
    message: /^secretsKeyFile: must be a non-empty string/,
  });
});

test.serial('a key outside the data directory seals the password; rotation moves every secret to a new key', async (t) => {
  // 1. Install a device whose password is sealed with the key outside the data directory.
  let s = await start(oldKey);
  const install = await fetch(`${s.url}/rests/operations/connection-manager:install-node`, {
    method: 'POST',
    headers: { 'content-type': 'application/yang-data+json' },
    body: JSON.stringify({
      input: {
        'node-id': 'R1',
        cli: {
          'cli-topology:host': '127.0.0.1',
          'cli-topology:port': device.port,
          'cli-topology:transport-type': 'ssh',
          'cli-topology:device-type': 'frr',
          'cli-topology:device-version': '8.4.4',
          'cli-topology:username': 'rosetta',
          'cli-topology:password': PASSWORD,
        },
      },
    }),
  });
  t.is(install.status, 204, await install.text());
  t.true(await connected(s), logs.join('\n'));
  t.is(fs.statSync(oldKey).mode & 0o777, 0o600, 'the key is created for its owner only');

  // 2. While the service runs, the rotation is refused (the data directory's lock).
  const refused = rotate(newKey);
  t.is(refused.status, 1, refused.out);
  t.regex(refused.out, /stop the service first/);
  await stop();

  // 3. The data directory holds neither the key nor the password: a copy of it opens nothing.
  t.false(fs.existsSync(path.join(dataDir, 'device-secrets.key')));
  t.deepEqual(filesHolding(dataDir, PASSWORD), []);
  t.deepEqual(filesHolding(dataDir, fs.readFileSync(oldKey, 'utf8').trim()), []);
  const copy = path.join(root, 'copy');
  fs.cpSync(dataDir, copy, { recursive: true });
  const onCopy = await start(path.join(copy, 'device-secrets.key'), copy).catch((e: Error) => e);
  t.log(`a service on the copy: ${onCopy instanceof Error ? onCopy.message : 'started'}`);
  if (onCopy instanceof Error) t.regex(onCopy.message, /device-secrets\.key/, 'refused: the copy has no key');
  else {
    t.false(await connected(onCopy, 3000), 'the copy cannot log the device in');
    await stop();
  }

  // 3b. store check reads the key where the configuration puts it; without the configuration it reports
  // the sealed secrets unopenable, naming the setting.
  const checked = storeCheck(['--config', configFile(oldKey)]);
  t.is(checked.status, 0, checked.out);
  t.true(checked.out.includes(`${oldKey}: ok`), checked.out);
  const blind = storeCheck(['--data-dir', dataDir]);
  t.is(blind.status, 1, blind.out);
  t.regex(blind.out, /missing, while the store holds sealed secrets/);
  t.regex(blind.out, /point secretsKeyFile \(or ROSETTA_SECRETS_KEY_FILE\) at the key that sealed them/);

  // 4. A key open to other users stops start-up, naming it.
  fs.chmodSync(oldKey, 0o640);
  await t.throwsAsync(start(oldKey), { message: new RegExp(`${oldKey.replace(/[.]/g, '\\.')} is open to other users \\(mode 0640\\)`) });
  fs.chmodSync(oldKey, 0o600);

  // 5. Rotation, with the service stopped; then the new key logs the device in and the old one does not.
  const rotated = rotate(newKey);
  t.is(rotated.status, 0, rotated.out);
  t.regex(rotated.out, /1 stored secret\(s\) sealed again with .*secrets-2\.key/);
  t.is(fs.statSync(newKey).mode & 0o777, 0o600);
  s = await start(newKey);
  t.true(await connected(s), logs.join('\n'));
  await stop();
  const onOld = await start(oldKey).catch((e: Error) => e);
  t.log(`a service on the old key: ${onOld instanceof Error ? onOld.message : 'started'}`);
  if (onOld instanceof Error) t.regex(onOld.message, /secrets\.key/);
  else {
    t.false(await connected(onOld, 3000), 'the old key no longer opens the password');
    await stop();
  }
  t.deepEqual(filesHolding(dataDir, PASSWORD), []);

  // 6. Run again (as after an interruption), it finds the job done.
  const again = rotate(newKey);
  t.is(again.status, 0, again.out);
  t.log(again.out);
  t.regex(again.out, /(already sealed with|0 stored secret\(s\) sealed again).*secrets-2\.key/);
});
