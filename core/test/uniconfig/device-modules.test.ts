// The kept module sets of uniconfig nodes: a set shared by many nodes is one file, written once, and the
// nodes' records go to one journal (no file per node); both come back after a reopen, a file per node of
// an earlier version is moved into the journal, and a set no node names is removed.
import test from 'ava';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DeviceModuleStore } from '../../src/uniconfig/device-modules';

const quiet = { error: () => undefined };
const SET = [
  { name: 'acme-system', revision: '2024-01-01', text: 'module acme-system { namespace "urn:acme:system"; prefix sys; }' },
  { name: 'acme-types', text: 'module acme-types { namespace "urn:acme:types"; prefix t; }' },
];

function dataDirectory(t: { teardown(f: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-modules-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('40 nodes with one module set: one set file, no file per node, every node has it after a reopen', async (t) => {
  const dataDir = dataDirectory(t);
  const store = new DeviceModuleStore(dataDir, quiet);
  await store.open();
  const nodes = Array.from({ length: 40 }, (_, i) => `nc-${i}`);
  await Promise.all(nodes.map((id) => store.remember(id, SET)));
  const files = fs.readdirSync(path.join(dataDir, 'uniconfig-modules'));
  t.is(files.length, 1);
  t.regex(files[0]!, /^[0-9a-f]{64}\.json$/);
  await store.close();

  const reopened = new DeviceModuleStore(dataDir, quiet);
  await reopened.open();
  for (const id of nodes) t.deepEqual(reopened.sources(id), SET);
  for (const id of nodes) await reopened.forget(id);
  t.deepEqual(fs.readdirSync(path.join(dataDir, 'uniconfig-modules')), []);
  await reopened.close();
  const emptied = new DeviceModuleStore(dataDir, quiet);
  await emptied.open();
  t.is(emptied.sources('nc-0'), undefined);
  await emptied.close();
});

test("an earlier version's file per node is moved into the journal", async (t) => {
  const dataDir = dataDirectory(t);
  const first = new DeviceModuleStore(dataDir, quiet);
  await first.open();
  await first.remember('kept', SET);
  await first.close();
  const dir = path.join(dataDir, 'uniconfig-modules');
  const set = fs.readdirSync(dir)[0]!.slice(0, -'.json'.length);
  const legacy = path.join(dir, `node-${Buffer.from('older', 'utf8').toString('hex')}.json`);
  fs.writeFileSync(legacy, JSON.stringify({ set }));

  const store = new DeviceModuleStore(dataDir, quiet);
  await store.open();
  t.false(fs.existsSync(legacy));
  t.deepEqual(store.sources('older'), SET);
  await store.close();
  const again = new DeviceModuleStore(dataDir, quiet);
  await again.open();
  t.deepEqual(again.sources('older'), SET);
  t.deepEqual(again.sources('kept'), SET);
  await again.close();
});
