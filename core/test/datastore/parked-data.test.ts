// Configuration of a module the local schema lacks is parked, not dropped. A fixture plugin ships a module
// that augments network-topology's node (settings with a sensitive password) and has a top-level
// container of its own. Its data survives the plugin being switched off, across a restart or a reload of
// plugins.json: not served meanwhile, kept in the data directory with the secret still sealed, and served
// byte for byte as before once the plugin is back. A node deleted while its plugin was off stays deleted.
// A damaged PARKED file refuses the start by name. Rotating the secrets key while the data is parked
// seals the parked secrets again too: back with the plugin, they open with the new key alone.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { childTable, resolveChild, topTable } from '../../src/data/children';
import type { PathStep } from '../../src/data/edit';
import type { ConfigStore } from '../../src/datastore';
import { startTestService, type TestService } from '../../src/service/test-service';
import type { SchemaNode } from '../../src/yang/schema';

const MODULE = `module test-node-settings {
  yang-version 1.1; namespace "urn:rosetta:test:node-settings"; prefix tns;
  import network-topology { prefix nt; }
  import rosetta-secret { prefix rsec; }
  revision 2026-01-01;
  augment "/nt:network-topology/nt:topology/nt:node" {
    container settings {
      leaf host { type string; }
      leaf password { type string; rsec:sensitive; }
      leaf-list tag { type string; }
    }
  }
  container own {
    leaf label { type string; }
    list account { key "name"; leaf name { type string; } leaf token { type string; rsec:sensitive; } }
  }
}`;

const ROSETTA = path.resolve(__dirname, '../../../bin/rosetta.js');
const storeCheck = (dataDir: string) =>
  spawnSync(process.execPath, [ROSETTA, 'store', 'check', '--data-dir', dataDir], { encoding: 'utf8' });

const PASSWORD = 'clear-text-password-123';
const TOPOLOGY = '/rests/data/network-topology:network-topology/topology=parking';
const node = (id: string) => `${TOPOLOGY}/node=${id}`;

interface Fixture {
  readonly root: string;
  readonly dataDir: string;
  readonly pluginsFile: string;
  setEnabled(enabled: boolean): void;
  start(): Promise<TestService>;
}

function fixture(config: Readonly<Record<string, unknown>> = {}): Fixture {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-parked-'));
  const plugin = path.join(root, 'plugin');
  fs.mkdirSync(path.join(plugin, 'yang'), { recursive: true });
  fs.writeFileSync(path.join(plugin, 'yang/test-node-settings@2026-01-01.yang'), MODULE);
  fs.writeFileSync(path.join(plugin, 'index.js'), 'module.exports = { rosettaPlugin: 1, setup() {} };');
  fs.writeFileSync(
    path.join(plugin, 'package.json'),
    JSON.stringify({ name: 'plugin-node-settings', version: '1.0.0', rosetta: { kind: 'extension', entry: 'index.js', yang: 'yang' } }),
  );
  const pluginsFile = path.join(root, 'plugins.json');
  const dataDir = path.join(root, 'data');
  const setEnabled = (enabled: boolean) =>
    fs.writeFileSync(pluginsFile, JSON.stringify({ watch: false, plugins: [{ path: plugin, enabled }] }));
  setEnabled(true);
  return {
    root,
    dataDir,
    pluginsFile,
    setEnabled,
    start: () => startTestService({ plugins: [], dataDir, label: 'parked', config: { plugins: pluginsFile, ...config } }),
  };
}

async function configure(s: TestService): Promise<void> {
  const body = {
    'network-topology:topology': [
      {
        'topology-id': 'parking',
        node: [
          { 'node-id': 'n1', 'test-node-settings:settings': { host: '192.0.2.1', password: PASSWORD, tag: ['a', 'b'] } },
          { 'node-id': 'n2', 'test-node-settings:settings': { host: '192.0.2.2', password: PASSWORD } },
        ],
      },
    ],
  };
  const put = await s.request('PUT', TOPOLOGY, body);
  if (put.status >= 300) throw new Error(`PUT answered ${put.status}: ${put.text}`);
  const own = await s.request('PUT', '/rests/data/test-node-settings:own', { 'test-node-settings:own': { label: 'mine' } });
  if (own.status >= 300) throw new Error(`PUT own answered ${own.status}: ${own.text}`);
  // A later change through a target inside the module: parked as an edit of its own.
  const host = await s.request('PUT', `${node('n1')}/test-node-settings:settings/host`, { 'test-node-settings:host': '192.0.2.9' });
  if (host.status >= 300) throw new Error(`PUT host answered ${host.status}: ${host.text}`);
}

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('timed out waiting for the schema change');
}

function parkedFile(dataDir: string): string {
  return fs.readFileSync(path.join(dataDir, 'config', 'PARKED'), 'utf8');
}

test('settings of a disabled plugin are parked across restarts and come back byte for byte; a node deleted meanwhile stays deleted', async (t) => {
  const f = fixture();
  try {
    let s = await f.start();
    await configure(s);
    const n1Before = await s.request('GET', node('n1'));
    const ownBefore = await s.request('GET', '/rests/data/test-node-settings:own');
    t.is(n1Before.status, 200);
    t.true(n1Before.text.includes('192.0.2.9'));
    await s.stop();

    f.setEnabled(false);
    s = await f.start();
    const n1Off = await s.request('GET', node('n1'));
    t.is(n1Off.status, 200);
    t.false(n1Off.text.includes('test-node-settings'), n1Off.text);
    t.not((await s.request('GET', '/rests/data/test-node-settings:own')).status, 200);
    const parked = parkedFile(f.dataDir);
    t.true(parked.includes('192.0.2.9') && parked.includes('mine'), parked);
    t.false(parked.includes(PASSWORD), 'the parked file holds no clear-text secret');
    t.false(
      fs.readdirSync(path.join(f.dataDir, 'config')).some((n) => fs.readFileSync(path.join(f.dataDir, 'config', n)).includes(PASSWORD)),
    );
    // Deleting the node while its settings are parked deletes them too.
    t.is((await s.request('DELETE', node('n2'))).status, 204);
    await s.stop();

    // Off again: still parked (nothing is lost by a second start without the module).
    s = await f.start();
    t.true(parkedFile(f.dataDir).includes('192.0.2.9'));
    t.false(parkedFile(f.dataDir).includes('192.0.2.2'));
    // Recreated while parked: it must not get the deleted node's settings back.
    t.true((await s.request('PUT', node('n2'), { 'network-topology:node': [{ 'node-id': 'n2' }] })).status < 300);
    await s.stop();

    f.setEnabled(true);
    s = await f.start();
    const n1After = await s.request('GET', node('n1'));
    t.is(n1After.text, n1Before.text);
    t.is((await s.request('GET', '/rests/data/test-node-settings:own')).text, ownBefore.text);
    t.false((await s.request('GET', node('n2'))).text.includes('test-node-settings'));
    t.false(fs.existsSync(path.join(f.dataDir, 'config', 'PARKED')), 'nothing is left parked');
    await s.stop();
  } finally {
    fs.rmSync(f.root, { recursive: true, force: true });
  }
});

test('a reload that disables the plugin parks its data; enabling it again puts it back', async (t) => {
  const f = fixture();
  try {
    const s = await f.start();
    try {
      await configure(s);
      const before = await s.request('GET', node('n1'));
      f.setEnabled(false);
      t.is((await s.request('POST', '/rests/operations/rosetta-plugins:reload')).status, 200);
      await until(async () => !(await s.request('GET', node('n1'))).text.includes('test-node-settings'));
      t.true(parkedFile(f.dataDir).includes('192.0.2.9'));
      t.false(parkedFile(f.dataDir).includes(PASSWORD));
      t.is((await s.request('DELETE', node('n2'))).status, 204);

      f.setEnabled(true);
      t.is((await s.request('POST', '/rests/operations/rosetta-plugins:reload')).status, 200);
      await until(async () => (await s.request('GET', node('n1'))).text.includes('test-node-settings'));
      t.is((await s.request('GET', node('n1'))).text, before.text);
      t.is((await s.request('GET', node('n2'))).status, 404);
    } finally {
      await s.stop();
    }
  } finally {
    fs.rmSync(f.root, { recursive: true, force: true });
  }
});

test('a damaged PARKED file refuses the start, naming it', async (t) => {
  const f = fixture();
  try {
    let s = await f.start();
    await configure(s);
    await s.stop();
    f.setEnabled(false);
    s = await f.start();
    await s.stop();
    const file = path.join(f.dataDir, 'config', 'PARKED');
    const healthy = storeCheck(f.dataDir);
    t.is(healthy.status, 0, healthy.stdout + healthy.stderr);
    t.regex(healthy.stdout, /PARKED: 4 item\(s\) of modules absent when last started: test-node-settings \(4\)/);
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.replace('192.0.2.9', '192.0.2.8'));
    const error = await t.throwsAsync(f.start());
    t.regex(error?.message ?? '', /PARKED is damaged \(checksum mismatch\); refusing to start/);
    t.is(fs.readFileSync(file, 'utf8'), text.replace('192.0.2.9', '192.0.2.8'), 'left as it was');
    const refused = storeCheck(f.dataDir);
    t.is(refused.status, 1);
    t.regex(refused.stdout, /would not start: .*PARKED is damaged/);
  } finally {
    fs.rmSync(f.root, { recursive: true, force: true });
  }
});

/** The path steps of a leaf, named from the top (a list entry as [name, key]), on the service's schema. */
function leafSteps(s: TestService, ...names: Array<string | [string, string]>): PathStep[] {
  const out: PathStep[] = [];
  let parent: SchemaNode | undefined;
  for (const n of names) {
    const [name, key] = Array.isArray(n) ? n : [n, undefined];
    const slot = resolveChild(parent === undefined ? topTable(s.service.schema) : childTable(parent), name);
    if (slot === undefined) throw new Error(`no ${name} in the schema`);
    const schema = slot.schema as SchemaNode;
    out.push(key === undefined ? { schema } : { schema, keys: [key] });
    parent = schema;
  }
  return out;
}

function filesHolding(dir: string, needle: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && fs.readFileSync(path.join(e.parentPath, e.name)).includes(needle))
    .map((e) => path.join(e.parentPath, e.name));
}

test('rotating the key while a plugin is off seals its parked secrets again: back, they open with the new key alone', async (t) => {
  const newKey = path.join(os.tmpdir(), `rosetta-parked-key-${process.pid}-${Date.now()}`, 'secrets-2.key');
  const oldKey = path.join(path.dirname(newKey), 'secrets.key');
  fs.mkdirSync(path.dirname(newKey), { recursive: true });
  const f = fixture({ secretsKeyFile: oldKey });
  const TOKEN = 'clear-text-account-token-77';
  const rotate = () =>
    spawnSync(
      process.execPath,
      [ROSETTA, 'secrets', 'rotate-key', '--new-key-file', newKey, '--data-dir', f.dataDir, '--plugins', f.pluginsFile],
      { encoding: 'utf8', env: { ...process.env, ROSETTA_SECRETS_KEY_FILE: oldKey } },
    );
  try {
    let s = await f.start();
    await configure(s);
    // A secret in a list of the absent module, whose keys only its schema names.
    const own = { 'test-node-settings:own': { label: 'mine', account: [{ name: 'ops', token: TOKEN }] } };
    t.true((await s.request('PUT', '/rests/data/test-node-settings:own', own)).status < 300);
    await s.stop();

    f.setEnabled(false);
    s = await f.start();
    await s.stop();
    const before = parkedFile(f.dataDir);
    t.regex(before, /\$rosetta\$v2\$/);

    const rotated = rotate();
    t.is(rotated.status, 0, rotated.stdout + rotated.stderr);
    t.regex(rotated.stdout, /3 stored secret\(s\) sealed again/);
    const after = parkedFile(f.dataDir);
    t.not(after, before, 'the parked secrets were sealed again');
    t.true(after.includes('192.0.2.9') && after.includes('mine'), after);
    const again = rotate();
    t.is(again.status, 0, again.stdout + again.stderr);
    t.regex(again.stdout, /already sealed with/);
    t.is(parkedFile(f.dataDir), after, 'run again, it changes nothing');

    // The old key destroyed: the plugin back, the service on the new key alone.
    fs.rmSync(oldKey);
    f.setEnabled(true);
    s = await startTestService({
      plugins: [],
      dataDir: f.dataDir,
      label: 'parked',
      config: { plugins: f.pluginsFile, secretsKeyFile: newKey },
    });
    try {
      const n1 = await s.request('GET', node('n1'));
      t.true(n1.text.includes('test-node-settings:settings'), n1.text);
      t.false(fs.existsSync(path.join(f.dataDir, 'config', 'PARKED')), 'everything was put back');
      const store = s.service.datastores.config as ConfigStore;
      const topology = ['network-topology:network-topology', ['topology', 'parking']] as const;
      const settings = (id: string) =>
        [...topology, ['node', id], 'test-node-settings:settings', 'password'] as Array<string | [string, string]>;
      t.is(store.revealSecret(leafSteps(s, ...settings('n1'))), PASSWORD);
      t.is(store.revealSecret(leafSteps(s, ...settings('n2'))), PASSWORD);
      t.is(store.revealSecret(leafSteps(s, 'test-node-settings:own', ['account', 'ops'], 'token')), TOKEN);
    } finally {
      await s.stop();
    }
    t.deepEqual(filesHolding(f.dataDir, PASSWORD), [], 'no clear-text password under the data directory');
    t.deepEqual(filesHolding(f.dataDir, TOKEN), [], 'no clear-text token under the data directory');
  } finally {
    fs.rmSync(f.root, { recursive: true, force: true });
    fs.rmSync(path.dirname(newKey), { recursive: true, force: true });
  }
});
