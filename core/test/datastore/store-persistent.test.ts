// The persistent structures under the stored lists (data/key-index.ts, data/entry-sequence.ts, used by
// data/list.ts copyList): random operations checked against a plain Map / array model, with forks taken
// along the way that must keep their contents while the newer copies change.
import test from 'ava';
import { EntrySequence } from '../../src/data/entry-sequence';
import { KeyIndex } from '../../src/data/key-index';
import { applyEdit, decodeJson, type PathStep } from '../../src/data';
import { childTable, resolveChild, topTable } from '../../src/data/children';
import type { ListEntryNode, ListNode } from '../../src/data/tree';
import { schema } from '../data/fixture';

/** Deterministic pseudo-random numbers (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('KeyIndex matches a Map through 30,000 random sets and deletes; forks keep their contents', (t) => {
  const next = random(7);
  let index = KeyIndex.empty<number>();
  let model = new Map<string, number>();
  const forks: Array<[KeyIndex<number>, Map<string, number>]> = [];
  for (let step = 0; step < 30_000; step++) {
    const key = `k${Math.floor(next() * 3000)}`;
    if (next() < 0.3) {
      t.is(index.delete(key), model.delete(key));
    } else {
      index.set(key, step);
      model.set(key, step);
    }
    if (step % 3000 === 0) {
      forks.push([index, new Map(model)]);
      index = index.fork();
      model = new Map(model);
    }
  }
  for (const [copy, expected] of [...forks, [index, model] as [KeyIndex<number>, Map<string, number>]]) {
    t.is(copy.size, expected.size);
    t.deepEqual(new Map([...copy].sort()), new Map([...expected].sort()));
    for (const [key, value] of expected) t.is(copy.get(key), value);
    t.false(copy.has('absent'));
  }
});

test('KeyIndex keeps keys whose hashes collide apart', (t) => {
  // Many keys, small table: with 200,000 keys some 32-bit FNV hashes are bound to share 5-bit slots deeply.
  const index = KeyIndex.empty<number>();
  for (let i = 0; i < 200_000; i++) index.set(String(i), i);
  t.is(index.size, 200_000);
  for (let i = 0; i < 200_000; i += 7) t.is(index.get(String(i)), i);
  for (let i = 0; i < 200_000; i += 2) index.delete(String(i));
  t.is(index.size, 100_000);
  t.is(index.get('3'), 3);
  t.is(index.get('4'), undefined);
});

function entry(name: string): ListEntryNode {
  return { kind: 'entry', schema: undefined as never, children: [], name } as unknown as ListEntryNode;
}
const nameOf = (e: ListEntryNode): string => (e as unknown as { name: string }).name;

test('EntrySequence matches an array through random replace/insert (first, last, before, after)/remove; forks keep theirs', (t) => {
  const next = random(11);
  const model = Array.from({ length: 1000 }, (_, i) => entry(`e${i}`));
  let sequence = EntrySequence.from(model, nameOf);
  const forks: Array<[EntrySequence, ListEntryNode[]]> = [];
  let fresh = 1000;
  for (let step = 0; step < 20_000; step++) {
    const roll = next();
    const at = Math.floor(next() * model.length);
    if (roll < 0.3 && model.length > 0) {
      const replacement = entry(nameOf(model[at]!));
      t.true(sequence.replace(nameOf(replacement), replacement));
      model[at] = replacement;
    } else if (roll < 0.5 && model.length > 0) {
      t.true(sequence.remove(nameOf(model[at]!)));
      model.splice(at, 1);
    } else {
      const added = entry(`e${fresh++}`);
      const where = (['first', 'last', 'before', 'after'] as const)[Math.floor(next() * 4)]!;
      if ((where === 'before' || where === 'after') && model.length > 0) {
        // Hammer one spot now and then, so ranks run out of room and get renumbered.
        const point = step % 500 < 60 ? 0 : at;
        sequence.insert(nameOf(added), added, where, nameOf(model[point]!));
        model.splice(point + (where === 'after' ? 1 : 0), 0, added);
      } else if (where === 'first') {
        sequence.insert(nameOf(added), added, 'first');
        model.unshift(added);
      } else {
        sequence.insert(nameOf(added), added, 'last');
        model.push(added);
      }
    }
    if (step % 2000 === 0) {
      t.deepEqual(sequence.toArray().map(nameOf), model.map(nameOf));
      forks.push([sequence, model.slice()]);
      sequence = sequence.fork();
    }
  }
  t.is(sequence.size, model.length);
  t.deepEqual(sequence.toArray().map(nameOf), model.map(nameOf));
  for (const [copy, expected] of forks) {
    t.is(copy.size, expected.length);
    t.true(copy.toArray().every((e, i) => e === expected[i]));
  }
});

test('EntrySequence grown at its end one fork at a time (a fleet installed node by node) keeps every version and stays editable', (t) => {
  let sequence = EntrySequence.from([], nameOf);
  const versions: EntrySequence[] = [];
  const names = Array.from({ length: 1300 }, (_, i) => `n${i}`);
  for (const name of names) {
    sequence = sequence.fork();
    sequence.insert(name, entry(name), 'last');
    versions.push(sequence);
  }
  for (const [i, version] of versions.entries()) t.deepEqual(version.toArray().map(nameOf), names.slice(0, i + 1), `version ${i + 1}`);
  // edits across the chunks the appends started
  const edited = sequence.fork();
  edited.insert('before-300', entry('before-300'), 'before', 'n300');
  edited.insert('after-1299', entry('after-1299'), 'after', 'n1299');
  edited.insert('first', entry('first'), 'first');
  t.true(edited.remove('n700'));
  const expected = ['first', ...names.slice(0, 300), 'before-300', ...names.slice(300, 700), ...names.slice(701), 'after-1299'];
  t.deepEqual(edited.toArray().map(nameOf), expected);
  t.deepEqual(sequence.toArray().map(nameOf), names);
});

test('a copy-on-write edit of a 20,000-entry list leaves the old version and its lookups intact', (t) => {
  const ctx = schema();
  const interfaces = resolveChild(topTable(ctx), 'ietf-interfaces:interfaces')!.schema;
  const itf = resolveChild(childTable(interfaces), 'interface')!.schema;
  const entries = Array.from({ length: 20_000 }, (_, i) => ({ name: `eth${i}`, description: `d${i}` }));
  let root = decodeJson(JSON.stringify({ 'ietf-interfaces:interfaces': { interface: entries } }), ctx).root;
  const versions = [root];
  const target = (name: string): PathStep[] => [{ schema: interfaces }, { schema: itf, keys: [name] }];
  for (let i = 0; i < 50; i++) {
    const name = `eth${i * 397}`;
    const value = decodeJson(JSON.stringify({ 'ietf-interfaces:interface': [{ name, description: `v${i}` }] }), ctx, { parent: interfaces })
      .node!;
    root = applyEdit(root, { operation: 'merge', target: target(name), value }, ctx);
    if (i % 3 === 0) root = applyEdit(root, { operation: 'remove', target: target(`eth${i * 397 + 1}`) }, ctx);
    if (i % 5 === 0) {
      const created = decodeJson(JSON.stringify({ 'ietf-interfaces:interface': [{ name: `new${i}` }] }), ctx, { parent: interfaces }).node!;
      root = applyEdit(root, { operation: 'create', target: target(`new${i}`), value: created }, ctx);
    }
    versions.push(root);
  }
  const list = (r: typeof root): ListNode => (r.children[0] as { children: ListNode[] }).children[0]!;
  const descriptions = (r: typeof root): string[] =>
    list(r).entries.map((e) => {
      const d = e.children.find((c) => c.schema.name === 'description');
      return d?.kind === 'leaf' ? String(d.value) : '';
    });
  // The first version is untouched; the last has every change, in order.
  t.deepEqual(
    descriptions(versions[0]!),
    entries.map((e) => e.description),
  );
  const last = descriptions(versions[versions.length - 1]!);
  t.is(last.length, 20_000 - 17 + 10);
  t.is(last[0], 'v0');
  t.is(last[397 - 1], 'v1'); // eth1 was removed before it
  t.deepEqual(
    list(versions[versions.length - 1]!)
      .entries.slice(-2)
      .map((e) => (e.children[0] as { value: string }).value),
    ['new40', 'new45'],
  );
  // Key lookups through the persistent index agree with each version's entries.
  for (const version of [versions[1]!, versions[20]!, versions[50]!]) {
    const l = list(version);
    for (const e of l.entries.slice(0, 500))
      t.is(l.index?.get((e.children[0] as { value: string }).value) ?? (l.index === undefined ? e : undefined), e);
  }
});
