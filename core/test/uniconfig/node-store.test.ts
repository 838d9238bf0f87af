/**
 * The node store's answer to "which nodes have something to commit" (changedNodeIds) over the service's
 * own schema and real datastores: right after stores and changes, and at a cost that follows the nodes
 * whose configuration was stored anew, not the number of nodes (the JSON serialisations it spends are
 * counted).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { openDatastores } from '../../src/datastore';
import { assembleSchema } from '../../src/service/schema';
import { type ConfigurationJson, NodeStore } from '../../src/uniconfig/node-store';

const NODES = 200;

function configuration(n: number, description = 'as installed'): ConfigurationJson {
  return JSON.parse(JSON.stringify({ 'example:system': { hostname: `device-${n}`, description } })) as ConfigurationJson;
}

/** JSON.stringify calls made by `work` (synchronous, so nothing else runs meanwhile). */
function serialisations<T>(work: () => T): { result: T; calls: number } {
  const original = JSON.stringify;
  let calls = 0;
  JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => {
    calls++;
    return original(...args);
  }) as typeof JSON.stringify;
  try {
    return { result: work(), calls };
  } finally {
    JSON.stringify = original;
  }
}

test('changedNodeIds names the changed nodes and serialises only configurations stored since it last looked', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-node-store-'));
  const { schema } = assembleSchema([]);
  const datastores = await openDatastores(dataDir, schema);
  t.teardown(async () => {
    await datastores.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const store = new NodeStore({ schema, datastores }, dataDir);
  await store.open();
  const ids = Array.from({ length: NODES }, (_, n) => `node-${n}`);
  await store.save(ids.map((nodeId, n) => ({ nodeId, intended: configuration(n), actual: configuration(n) })));

  const first = serialisations(() => store.changedNodeIds());
  t.deepEqual(first.result, []);
  t.true(first.calls <= 2 * NODES, `the first look serialises each stored configuration at most once (${first.calls})`);
  const again = serialisations(() => store.changedNodeIds());
  t.deepEqual(again.result, []);
  t.is(again.calls, 0, 'nothing was stored since: nothing is serialised');

  await store.save([3, 77, 150].map((n) => ({ nodeId: `node-${n}`, intended: configuration(n, 'changed') })));
  const changed = serialisations(() => store.changedNodeIds());
  t.deepEqual([...changed.result].sort(), ['node-150', 'node-3', 'node-77']);
  t.is(changed.calls, 6, 'the three changed nodes, intended and actual each');

  // the devices catch up (a commit stores what they now hold): nothing left to commit
  await store.save([3, 77, 150].map((n) => ({ nodeId: `node-${n}`, actual: configuration(n, 'changed') })));
  const committed = serialisations(() => store.changedNodeIds());
  t.deepEqual(committed.result, []);
  // what they hold equals the intended configuration, so the store keeps the intended object for both sides
  t.is(committed.calls, 0);

  // a node with no actual configuration (never read from its device) has something to commit
  await store.save([{ nodeId: 'node-9', actual: null }]);
  t.deepEqual(store.changedNodeIds(), ['node-9']);
});

test('withoutConfigurations edits out every node configuration, or only those of the nodes a read shows', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-node-store-'));
  const { schema } = assembleSchema([]);
  const datastores = await openDatastores(dataDir, schema);
  t.teardown(async () => {
    await datastores.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const store = new NodeStore({ schema, datastores }, dataDir);
  await store.open();
  const ids = Array.from({ length: NODES }, (_, n) => `node-${n}`);
  await store.save(ids.map((nodeId, n) => ({ nodeId, intended: configuration(n), actual: configuration(n) })));
  const root = datastores.operational.current();
  const entries = (r: typeof root) => {
    const [top] = r.children;
    const topology = top?.kind === 'container' ? top.children.find((c) => c.kind === 'list') : undefined;
    const uniconfig = topology?.kind === 'list' ? topology.entries[0] : undefined;
    const nodes = uniconfig?.children.find((c) => c.kind === 'list');
    return nodes?.kind === 'list' ? nodes.entries : [];
  };
  const hasConfiguration = (e: ReturnType<typeof entries>[number]) => e.children.some((c) => c.kind === 'any');

  const all = store.withoutConfigurations(root);
  t.is(entries(all).length, NODES);
  t.false(entries(all).some(hasConfiguration));
  t.true(entries(root).every(hasConfiguration), 'the stored version is not changed');

  const one = store.withoutConfigurations(root, ['node-42']);
  const before = entries(root);
  const after = entries(one);
  t.is(after.length, NODES);
  t.deepEqual(
    after.flatMap((e, i) => (e === before[i] ? [] : [i])),
    [42],
    'only the node read is copied; every other entry is the stored one',
  );
  t.false(hasConfiguration(after[42]!));
  t.is(store.withoutConfigurations(root, ['no-such-node']), root);
});
