/**
 * Edits and choices, below the HTTP layer: a written node of one case deletes the other cases' nodes
 * wherever the edit places it (top level, under a container, inside a list entry, by a merge deep in
 * the value), which is what every user of applyEdits (the datastores, uniconfig, CLI mounts) relies
 * on; merging what reads gather keeps everything. A small module written here.
 */
import test from 'ava';
import { applyEdit, decodeJson, encodeJson, mergeChildren, type DataRoot, type ListNode, type PathStep } from '../../src/data';
import { topTable } from '../../src/data/children';
import { changeEdits } from '../../src/uniconfig/device-edits';
import { renderInstancePath } from '../../src/yang/instance-path';
import { compileSchema } from '../../src/yang/compiler';
import { ModuleRepository } from '../../src/yang/repository';
import type { SchemaNode } from '../../src/yang/schema';
import { OWN_YANG_DIR } from '../../src/service/schema';

const MODULE = `module edit-choice {
  yang-version 1.1;
  namespace "urn:test:edit-choice";
  prefix ec;
  choice scope {
    case global { container global { leaf on { type boolean; } } }
    case local { leaf local-name { type string; } }
  }
  list peer {
    key id;
    leaf id { type uint8; }
    choice auth {
      case key { leaf key-id { type uint32; } leaf key-text { type string; } }
      case password { leaf password { type string; } }
    }
  }
}`;

const repo = new ModuleRepository([OWN_YANG_DIR]);
repo.addText('edit-choice.yang', MODULE);
const ctx = compileSchema(repo, { modules: ['edit-choice'] });
const errors = ctx.diagnostics.filter((d) => d.severity === 'error');
if (errors.length > 0) throw new Error(`test module does not compile: ${errors.map((e) => e.message).join('; ')}`);

/** The data node of that name anywhere in the module (the names are unique). */
function schemaNamed(name: string, within: readonly SchemaNode[] = ctx.data): SchemaNode {
  const found = findNamed(name, within);
  if (found === undefined) throw new Error(`no ${name}`);
  return found;
}
function findNamed(name: string, within: readonly SchemaNode[]): SchemaNode | undefined {
  for (const n of within) {
    if (n.name === name && n.kind !== 'choice' && n.kind !== 'case') return n;
    const inner = findNamed(name, n.children);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

const tree = (doc: unknown): DataRoot => decodeJson(doc, ctx).root;
const json = (root: DataRoot): unknown => JSON.parse(encodeJson(root));

const stored = tree({
  'edit-choice:global': { on: true },
  'edit-choice:peer': [
    { id: 1, 'key-id': 7, 'key-text': 'k' },
    { id: 2, password: 'p' },
  ],
});

test('a top-level node of another case replaces the case, by a merge at the root and by a replace of the node', (t) => {
  const merged = applyEdit(stored, { operation: 'merge', target: [], value: tree({ 'edit-choice:local-name': 'x' }) }, ctx);
  t.deepEqual(json(merged), {
    'edit-choice:local-name': 'x',
    'edit-choice:peer': [
      { id: 1, 'key-id': 7, 'key-text': 'k' },
      { id: 2, password: 'p' },
    ],
  });
  const back = applyEdit(
    merged,
    { operation: 'create', target: [{ schema: schemaNamed('global') }], value: tree({ 'edit-choice:global': {} }).children[0]! },
    ctx,
  );
  t.deepEqual(json(back), {
    'edit-choice:global': {},
    'edit-choice:peer': [
      { id: 1, 'key-id': 7, 'key-text': 'k' },
      { id: 2, password: 'p' },
    ],
  });
  t.deepEqual(
    json(stored),
    {
      'edit-choice:global': { on: true },
      'edit-choice:peer': [
        { id: 1, 'key-id': 7, 'key-text': 'k' },
        { id: 2, password: 'p' },
      ],
    },
    'the input tree is not changed',
  );
});

test("inside list entries: a merge of the list, and a leaf target in one entry, replace only that entry's case", (t) => {
  const peer = schemaNamed('peer');
  let next = applyEdit(
    stored,
    { operation: 'merge', target: [{ schema: peer }], value: tree({ 'edit-choice:peer': [{ id: 1, password: 'q' }] }).children[0]! },
    ctx,
  );
  t.deepEqual(json(next), {
    'edit-choice:global': { on: true },
    'edit-choice:peer': [
      { id: 1, password: 'q' },
      { id: 2, password: 'p' },
    ],
  });
  const keyId: PathStep[] = [{ schema: peer, keys: [2] }, { schema: schemaNamed('key-id') }];
  const entry = (tree({ 'edit-choice:peer': [{ id: 2, 'key-id': 9 }] }).children[0] as ListNode).entries[0]!;
  next = applyEdit(next, { operation: 'replace', target: keyId, value: entry.children.find((c) => c.schema === keyId[1]!.schema)! }, ctx);
  t.deepEqual(json(next), {
    'edit-choice:global': { on: true },
    'edit-choice:peer': [
      { id: 1, password: 'q' },
      { id: 2, 'key-id': 9 },
    ],
  });
});

test("uniconfig sends a case switch as the removal of the old case's nodes and the new node", (t) => {
  const after = applyEdit(stored, { operation: 'merge', target: [], value: tree({ 'edit-choice:peer': [{ id: 1, password: 's' }] }) }, ctx);
  const edits = changeEdits(stored, after)
    .map((e) => `${e.operation} ${renderInstancePath(e.path)}`)
    .sort();
  t.deepEqual(edits, [
    "remove /edit-choice:peer[id='1']/key-id",
    "remove /edit-choice:peer[id='1']/key-text",
    "replace /edit-choice:peer[id='1']/password",
  ]);
});

test('one edit value holding two cases keeps both, for validation to refuse; merging what reads gather keeps both too', (t) => {
  const value = tree({ 'edit-choice:global': { on: false }, 'edit-choice:local-name': 'x' });
  const next = applyEdit(stored, { operation: 'merge', target: [], value }, ctx);
  t.like(json(next), { 'edit-choice:global': { on: false }, 'edit-choice:local-name': 'x' });
  const read = mergeChildren(stored.children, tree({ 'edit-choice:local-name': 'y' }).children, topTable(ctx));
  t.like(json({ kind: 'root', children: read }), { 'edit-choice:global': { on: true }, 'edit-choice:local-name': 'y' });
  const replaced = applyEdit(stored, { operation: 'merge', target: [], value: tree({ 'edit-choice:local-name': 'y' }) }, ctx);
  t.false('edit-choice:global' in (json(replaced) as object), 'the same nodes written by an edit replace the case');
});
