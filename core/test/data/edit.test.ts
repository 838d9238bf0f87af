import test from 'ava';
import {
  applyEdit,
  decodeJson,
  diffTrees,
  encodeJson,
  emptyRoot,
  DataError,
  findEntry,
  type ContainerNode,
  type DataRoot,
  type ListNode,
  type PathStep,
} from '../../src/data';
import type { ContainerSchema, ListSchema, SchemaNode } from '../../src/yang/schema';
import { schema } from './fixture';

function faultOf(fn: () => unknown): { tag: string; path: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof DataError) return e.first;
    throw e;
  }
  throw new Error('no DataError thrown');
}

const ctx = schema();
const top = (name: string) => ctx.data.find((n) => n.name === name)!;
const child = (parent: SchemaNode, name: string) => {
  const found = parent.children.find((c) => c.name === name);
  if (!found) throw new Error(`no ${name} under ${parent.name}`);
  return found;
};

const interfacesSchema = top('interfaces') as ContainerSchema;
const interfaceSchema = child(interfacesSchema, 'interface') as ListSchema;

function tree(doc: unknown): DataRoot {
  return decodeJson(doc, ctx).root;
}
function json(root: DataRoot): unknown {
  return JSON.parse(encodeJson(root));
}
/** Deep-freezes a tree so that any mutation by an edit throws. */
function freeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value))
      if (typeof v === 'object' && v !== null && !('module' in v && 'kind' in v && 'parent' in v)) freeze(v);
    Object.freeze(value);
  }
  return value;
}

const base = () =>
  freeze(
    tree({
      'ietf-interfaces:interfaces': {
        interface: [
          { name: 'eth0', description: 'one', type: 'iana-if-type:ethernetCsmacd', 'ietf-ip:ipv4': { mtu: 1500 } },
          { name: 'eth1', type: 'iana-if-type:ethernetCsmacd' },
        ],
      },
    }),
  );
const eth = (name: string): PathStep[] => [{ schema: interfacesSchema }, { schema: interfaceSchema, keys: [name] }];
const entryValue = (doc: unknown) => decodeJson({ 'ietf-interfaces:interface': [doc] }, ctx, { parent: interfacesSchema }).node!;

test('merge creates what is missing and merges the rest, deleting nothing; the input is untouched', (t) => {
  const before = base();
  const snapshot = JSON.stringify(json(before));
  const after = applyEdit(
    before,
    { operation: 'merge', target: eth('eth0'), value: entryValue({ name: 'eth0', enabled: false, 'ietf-ip:ipv4': { forwarding: true } }) },
    ctx,
  );
  t.is(JSON.stringify(json(before)), snapshot);
  t.deepEqual(json(after), {
    'ietf-interfaces:interfaces': {
      interface: [
        {
          name: 'eth0',
          description: 'one',
          type: 'iana-if-type:ethernetCsmacd',
          enabled: false,
          'ietf-ip:ipv4': { forwarding: true, mtu: 1500 },
        },
        { name: 'eth1', type: 'iana-if-type:ethernetCsmacd' },
      ],
    },
  });
  // Copy-on-write: the untouched entry is shared, the changed path is new.
  const list = (r: DataRoot) => (r.children[0] as ContainerNode).children[0] as ListNode;
  t.is(list(after).entries[1], list(before).entries[1]);
  t.not(list(after).entries[0], list(before).entries[0]);
  // A merge down a missing path creates the containers and the entry with its key.
  const created = applyEdit(
    emptyRoot(),
    { operation: 'merge', target: eth('eth9'), value: entryValue({ name: 'eth9', description: 'new' }) },
    ctx,
  );
  t.deepEqual(json(created), { 'ietf-interfaces:interfaces': { interface: [{ name: 'eth9', description: 'new' }] } });
});

test('replace replaces the subtree: leaves not given are gone, and a replaced list loses its other entries', (t) => {
  const before = base();
  const after = applyEdit(
    before,
    { operation: 'replace', target: eth('eth0'), value: entryValue({ name: 'eth0', type: 'iana-if-type:softwareLoopback' }) },
    ctx,
  );
  t.deepEqual((json(after) as any)['ietf-interfaces:interfaces'].interface[0], { name: 'eth0', type: 'iana-if-type:softwareLoopback' });
  const wholeList = decodeJson({ 'ietf-interfaces:interface': [{ name: 'x' }] }, ctx, { parent: interfacesSchema }).node!;
  const replaced = applyEdit(
    before,
    { operation: 'replace', target: [{ schema: interfacesSchema }, { schema: interfaceSchema }], value: wholeList },
    ctx,
  );
  t.deepEqual(json(replaced), { 'ietf-interfaces:interfaces': { interface: [{ name: 'x' }] } });
  // The key in the data must be that of the target.
  t.is(
    faultOf(() => applyEdit(before, { operation: 'replace', target: eth('eth0'), value: entryValue({ name: 'other' }) }, ctx)).tag,
    'invalid-value',
  );
});

test('create fails with data-exists, delete with data-missing, remove never', (t) => {
  const before = base();
  let f = faultOf(() => applyEdit(before, { operation: 'create', target: eth('eth0'), value: entryValue({ name: 'eth0' }) }, ctx));
  t.is(f.tag, 'data-exists');
  t.is(f.path, "/ietf-interfaces:interfaces/interface[name='eth0']");
  const created = applyEdit(before, { operation: 'create', target: eth('eth2'), value: entryValue({ name: 'eth2' }) }, ctx);
  t.is((json(created) as any)['ietf-interfaces:interfaces'].interface.length, 3);
  f = faultOf(() => applyEdit(before, { operation: 'delete', target: eth('nope') }, ctx));
  t.is(f.tag, 'data-missing');
  t.is(f.path, "/ietf-interfaces:interfaces/interface[name='nope']");
  t.is(applyEdit(before, { operation: 'remove', target: eth('nope') }, ctx), before);
  const deleted = applyEdit(before, { operation: 'delete', target: eth('eth0') }, ctx);
  t.deepEqual(
    (json(deleted) as any)['ietf-interfaces:interfaces'].interface.map((e: any) => e.name),
    ['eth1'],
  );
  const leafGone = applyEdit(
    before,
    { operation: 'delete', target: [...eth('eth0'), { schema: child(interfaceSchema, 'description') }] },
    ctx,
  );
  t.false('description' in (json(leafGone) as any)['ietf-interfaces:interfaces'].interface[0]);
  t.is(
    faultOf(() =>
      applyEdit(leafGone, { operation: 'delete', target: [...eth('eth0'), { schema: child(interfaceSchema, 'description') }] }, ctx),
    ).tag,
    'data-missing',
  );
  // Deleting the last entry removes the list node.
  const empty = applyEdit(
    applyEdit(before, { operation: 'delete', target: eth('eth0') }, ctx),
    { operation: 'delete', target: eth('eth1') },
    ctx,
  );
  t.deepEqual(json(empty), { 'ietf-interfaces:interfaces': {} });
});

test('insert and point order ordered-by user lists and leaf-lists', (t) => {
  const kinds = top('kinds');
  const rule = child(kinds, 'rule') as ListSchema;
  const tags = child(kinds, 'tags');
  let root = freeze(tree({ 'data-kinds:kinds': { rule: [{ name: 'a' }, { name: 'b' }], tags: ['x', 'y'] } }));
  const ruleValue = (name: string) => decodeJson({ rule: [{ name }] }, ctx, { parent: kinds }).node!;
  const at = (name: string): PathStep[] => [{ schema: kinds }, { schema: rule, keys: [name] }];
  root = applyEdit(root, { operation: 'create', target: at('c'), value: ruleValue('c'), insert: { where: 'first' } }, ctx);
  root = applyEdit(root, { operation: 'create', target: at('d'), value: ruleValue('d'), insert: { where: 'after', point: ['a'] } }, ctx);
  root = applyEdit(root, { operation: 'replace', target: at('b'), value: ruleValue('b'), insert: { where: 'before', point: ['c'] } }, ctx);
  t.deepEqual(
    (json(root) as any)['data-kinds:kinds'].rule.map((r: any) => r.name),
    ['b', 'c', 'a', 'd'],
  );
  t.is(
    faultOf(() =>
      applyEdit(root, { operation: 'create', target: at('e'), value: ruleValue('e'), insert: { where: 'after', point: ['zz'] } }, ctx),
    ).tag,
    'bad-attribute',
  );
  root = applyEdit(
    root,
    { operation: 'merge', target: [{ schema: kinds }, { schema: tags, value: 'w' }], insert: { where: 'before', point: ['y'] } },
    ctx,
  );
  root = applyEdit(
    root,
    { operation: 'merge', target: [{ schema: kinds }, { schema: tags, value: 'v' }], insert: { where: 'first' } },
    ctx,
  );
  t.deepEqual((json(root) as any)['data-kinds:kinds'].tags, ['v', 'x', 'w', 'y']);
  t.is(
    faultOf(() => applyEdit(root, { operation: 'create', target: [{ schema: kinds }, { schema: tags, value: 'v' }] }, ctx)).tag,
    'data-exists',
  );
});

test('diff reports created, updated, deleted and reordered with instance paths', (t) => {
  const before = tree({
    'ietf-interfaces:interfaces': { interface: [{ name: 'eth0', description: 'one', 'ietf-ip:ipv4': { mtu: 1500 } }, { name: 'eth1' }] },
    'data-kinds:kinds': { rule: [{ name: 'a' }, { name: 'b' }], tags: ['x', 'y'] },
  });
  const after = tree({
    'ietf-interfaces:interfaces': { interface: [{ name: 'eth0', description: 'two', 'ietf-ip:ipv4': { mtu: 1500 } }, { name: 'eth2' }] },
    'data-kinds:kinds': { rule: [{ name: 'b' }, { name: 'a' }], tags: ['y', 'z'] },
  });
  const changes = diffTrees(before, after).map(
    (c) => `${c.type} ${c.path}${c.type === 'updated' ? ` ${String(c.oldValue)}->${String(c.newValue)}` : ''}`,
  );
  t.deepEqual(changes.sort(), [
    "created /data-kinds:kinds/tags[.='z']",
    "created /ietf-interfaces:interfaces/interface[name='eth2']",
    "deleted /data-kinds:kinds/tags[.='x']",
    "deleted /ietf-interfaces:interfaces/interface[name='eth1']",
    'reordered /data-kinds:kinds/rule',
    "updated /ietf-interfaces:interfaces/interface[name='eth0']/description one->two",
  ]);
  t.deepEqual(diffTrees(before, before), []);
});

test('diff of 10,000 entries is keyed and fast; a copy-on-write edit diffs by identity', (t) => {
  const entries = Array.from({ length: 10000 }, (_, i) => ({ name: `eth${i}`, description: `d${i}`, enabled: true }));
  const a = tree({ 'ietf-interfaces:interfaces': { interface: entries } });
  const shuffled = entries
    .slice()
    .reverse()
    .map((e, i) => (i % 1000 === 0 ? { ...e, description: 'changed' } : e));
  const b = tree({ 'ietf-interfaces:interfaces': { interface: shuffled } });
  // Best of three: the first run also pays for JIT compilation, and the machine is shared.
  let changes = diffTrees(a, b);
  let ms = Infinity;
  for (let run = 0; run < 3; run++) {
    const start = process.hrtime.bigint();
    changes = diffTrees(a, b);
    ms = Math.min(ms, Number(process.hrtime.bigint() - start) / 1e6);
  }
  t.is(changes.filter((c) => c.type === 'updated').length, 10);
  t.is(changes.filter((c) => c.type === 'created' || c.type === 'deleted').length, 0);
  t.log(`diff of two decoded 10,000-entry lists: ${ms.toFixed(1)} ms`);
  const edited = applyEdit(a, { operation: 'merge', target: eth('eth5000'), value: entryValue({ name: 'eth5000', enabled: false }) }, ctx);
  const start = process.hrtime.bigint();
  const one = diffTrees(a, edited);
  const ms2 = Number(process.hrtime.bigint() - start) / 1e6;
  t.deepEqual(
    one.map((c) => c.path),
    ["/ietf-interfaces:interfaces/interface[name='eth5000']/enabled"],
  );
  t.log(`diff after one edit of a 10,000-entry list: ${ms2.toFixed(1)} ms`);
  t.truthy(findEntry((edited.children[0] as ContainerNode).children[0] as ListNode, ['eth5000']));
});
