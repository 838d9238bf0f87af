// Configuration of a module the local schema lacks is parked, not dropped. A fixture plugin ships a module
// that augments network-topology's node (settings with a sensitive password) and has a top-level
// container of its own. Its data survives the plugin being switched off, across a restart or a reload of
// plugins.json: not served meanwhile, kept in the data directory with the secret still sealed, and served
// byte for byte as before once the plugin is back. A node deleted while its plugin was off stays deleted.
// A damaged PARKED file refuses the start by name.
import test from 'ava';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startTestService, type TestService } from '../../src/service/test-service';

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
  container own { leaf label { type string; } }
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

function fixture(): Fixture {
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
    start: () => startTestService({ plugins: [], dataDir, label: 'parked', config: { plugins: pluginsFile } }),
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
