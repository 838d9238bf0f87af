// A write's value kept in the journal as the body text it was decoded from (ValueSource, record member
// "b"): replay decodes it again in the same scope and gets the same tree, for a list entry, a container
// and the datastore root, text with escapes and attributes included; it is used only with the store's
// own schema, and a text the schema no longer fully accepts goes the lenient way (the unknown node
// dropped and logged, the rest kept).
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeJson, encodeJson, type Edit } from '../../src/data';
import { ConfigStore, decodeEditRecord, encodeEditRecord } from '../../src/datastore';
import { valueDecodeScope } from '../../src/datastore/datastore';
import type { DataNode, DataRoot } from '../../src/data/tree';
import type { PathStep } from '../../src/data/edit';
import { compileSchema } from '../../src/yang/compiler';
import { ModuleRepository } from '../../src/yang/repository';
import type { SchemaContext } from '../../src/yang/schema';
import { MODEL_DIRS, schema } from '../data/fixture';
import { dataDirectory, entryTarget, interfacesSchema } from './store-fixture';

const ctx = schema();

/** The value a PUT handler would get for `text` at `target` (same scope as replay uses). */
function decodeAt(text: string, target: PathStep[], context: SchemaContext = ctx): DataNode | DataRoot {
  const scope = valueDecodeScope(target);
  const decoded = decodeJson(text, context, {
    ...(scope.parent !== undefined ? { parent: scope.parent, parentPath: scope.parentPath } : {}),
    allowState: false,
  });
  return target.length === 0 ? decoded.root : decoded.root.children[0]!;
}

function journalText(dir: string): string {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
    .join('');
}

const ENTRY =
  '{ "ietf-interfaces:interface" : [ { "name": "eth0", "description": "caf\\u00e9 \\"quoted\\" \\\\ back", "enabled": false, "type": "iana-if-type:ethernetCsmacd" } ] }';
const CONTAINER = JSON.stringify({
  'ietf-interfaces:interfaces': {
    interface: [
      { name: 'a', description: 'x' },
      { name: 'b', enabled: true },
    ],
  },
});
const ROOT = JSON.stringify({
  'ietf-interfaces:interfaces': { interface: [{ name: 'r' }] },
  'example-jukebox:jukebox': { library: { artist: [{ name: 'Ella' }] } },
});

test('kept body texts replay to the same trees: list entry, container, datastore root', async (t) => {
  const dir = dataDirectory(t);
  const store = await ConfigStore.open(dir, ctx, { log: () => undefined });
  const { interfaces } = interfacesSchema(ctx);
  const writes: Array<[PathStep[], string]> = [
    [entryTarget(ctx, 'eth0'), ENTRY],
    [[{ schema: interfaces }], CONTAINER],
    [[], ROOT],
    [entryTarget(ctx, 'eth0'), ENTRY],
  ];
  const after: string[] = [];
  for (const [target, text] of writes) {
    const edit: Edit = { operation: 'replace', target, value: decodeAt(text, target) };
    await store.apply([edit], undefined, { source: { json: text, schema: ctx } });
    after.push(encodeJson(store.current()));
  }
  await store.close();
  const journal = journalText(dir);
  t.is(journal.split('"b":').length - 1, 4, 'every record kept its body text');
  t.false(journal.includes('"d":'));
  const reopened = await ConfigStore.open(dir, ctx, { log: () => undefined });
  t.teardown(() => reopened.close());
  t.is(encodeJson(reopened.current()), after[after.length - 1]);
  t.true(after[after.length - 1]!.includes('café \\"quoted\\" \\\\ back'));
});

test('a body text decoded against another schema is not kept: the value is encoded', async (t) => {
  const dir = dataDirectory(t);
  const store = await ConfigStore.open(dir, ctx, { log: () => undefined });
  const other = compileSchema(new ModuleRepository([...MODEL_DIRS]), { modules: ['ietf-interfaces', 'iana-if-type'] });
  const target = entryTarget(ctx, 'eth0');
  await store.apply([{ operation: 'replace', target, value: decodeAt(ENTRY, target) }], undefined, {
    source: { json: ENTRY, schema: other },
  });
  await store.close();
  const journal = journalText(dir);
  t.true(journal.includes('"d":'));
  t.false(journal.includes('"b":'));
});

test('a kept text the schema no longer fully accepts: the unknown node is dropped and logged, the rest replays', (t) => {
  const target = entryTarget(ctx, 'eth7');
  const value = decodeAt('{"ietf-interfaces:interface":[{"name":"eth7","description":"kept"}]}', target);
  // As if written under a schema that had a leaf `retired` in interface entries.
  const text = '{"ietf-interfaces:interface":[{"name":"eth7","description":"kept","ietf-interfaces:retired":"x"}]}';
  const record = encodeEditRecord([{ operation: 'replace', target, value }], text);
  const logs: string[] = [];
  const [edit] = decodeEditRecord(record, { ctx, log: (m) => logs.push(m), where: 'record 0' });
  t.truthy(edit);
  t.is(encodeJson(edit!.value as DataNode), encodeJson(value));
  t.true(
    logs.some((l) => l.includes('retired')),
    logs.join('\n'),
  );
});

test('a record whose kept text is not JSON drops that edit with a log line, never throws', (t) => {
  const target = entryTarget(ctx, 'eth8');
  const record = `{"e":[{"o":"replace","t":${JSON.stringify([{ n: 'ietf-interfaces:interfaces' }, { n: 'ietf-interfaces:interface', k: ['eth8'] }])},"b":"{not json"}]}`;
  const logs: string[] = [];
  t.deepEqual(decodeEditRecord(record, { ctx, log: (m) => logs.push(m), where: 'record 3' }), []);
  t.true(
    logs.some((l) => l.includes('record 3') && l.includes('not JSON')),
    logs.join('\n'),
  );
  t.is(target.length, 2);
});
