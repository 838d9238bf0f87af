/**
 * What the decoders prove about the lists they build (decode-proof.ts) lets validation skip those
 * entries; these tests pin that validation with proofs reports exactly what validation of the same
 * tree without proofs (a fresh copy) reports, for JSON and XML, both modes, and lists that can and
 * cannot be proved (the test models of ietf-interfaces and ietf-ip), and that a list changed after decoding loses
 * its proof.
 */
import test from 'ava';
import { ModuleRepository } from '../../src/yang/repository';
import { compileSchema } from '../../src/yang/compiler';
import type { SchemaContext } from '../../src/yang/schema';
import { decodeJson } from '../../src/data/json-decode';
import { decodeXml } from '../../src/data/xml-decode';
import { encodeXml } from '../../src/data/xml-encode';
import { validateTree, type ValidateOptions } from '../../src/data/validate';
import { ListProof, listProof } from '../../src/data/decode-proof';
import { putEntry } from '../../src/data/list';
import type { DataNode, DataRoot, ListEntryNode, ListNode } from '../../src/data/tree';
import { MODEL_DIRS } from './fixture';

const ctx: SchemaContext = compileSchema(new ModuleRepository([...MODEL_DIRS]), {
  modules: ['ietf-interfaces', 'iana-if-type', 'ietf-ip'],
});

/** A deep copy made of fresh objects: nothing a decoder proved applies to it. */
function fresh<T extends DataNode | DataRoot>(node: T): T {
  switch (node.kind) {
    case 'root':
    case 'container':
    case 'entry':
      return { ...node, children: node.children.map((c) => fresh(c)) };
    case 'list': {
      const copy = { ...node, entries: node.entries.map((e) => fresh(e)) } as ListNode;
      delete copy.index;
      return copy as T;
    }
    default:
      return { ...node };
  }
}

function faults(root: DataRoot, options: ValidateOptions): string[] {
  return validateTree(root, ctx, options).map((f) => `${f.tag} ${f.path}${f.appTag ? ` [${f.appTag}]` : ''}: ${f.message}`);
}

function interfacesList(root: DataRoot): ListNode {
  const interfaces = root.children[0]!;
  if (interfaces.kind !== 'container') throw new Error('no interfaces container');
  return interfaces.children.find((c) => c.kind === 'list')! as ListNode;
}

const eth = (i: number): Record<string, unknown> => ({ name: `eth${i}`, type: 'iana-if-type:ethernetCsmacd', enabled: i % 2 === 0 });

/** Documents whose faults validation must report the same with and without proofs. */
const documents: Array<[string, unknown]> = [
  ['valid', { 'ietf-interfaces:interfaces': { interface: [eth(0), eth(1), eth(2)] } }],
  ['an entry without its mandatory type', { 'ietf-interfaces:interfaces': { interface: [eth(0), { name: 'eth1' }, eth(2)] } }],
  [
    'ietf-ip address without a prefix (a mandatory choice below)',
    {
      'ietf-interfaces:interfaces': {
        interface: [{ ...eth(0), 'ietf-ip:ipv4': { address: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2', 'prefix-length': 24 }] } }],
      },
    },
  ],
  [
    'ietf-ip neighbor without its mandatory link-layer-address',
    { 'ietf-interfaces:interfaces': { interface: [{ ...eth(0), 'ietf-ip:ipv4': { neighbor: [{ ip: '10.0.0.9' }] } }] } },
  ],
  [
    'state data with its mandatory state leaves missing',
    {
      'ietf-interfaces:interfaces': {
        interface: [
          { ...eth(0), 'oper-status': 'up' },
          { ...eth(1), 'oper-status': 'down', 'if-index': 2, statistics: { 'discontinuity-time': '2024-01-01T00:00:00Z' } },
        ],
      },
    },
  ],
];

for (const [what, doc] of documents) {
  for (const type of ['config', 'data'] as const) {
    test(`${what}: validation as ${type} reports the same with and without the decoders' proofs (JSON and XML)`, (t) => {
      const allowState = type === 'data';
      let decoded: DataRoot;
      try {
        decoded = decodeJson(doc, ctx, { allowState }).root;
      } catch (e) {
        // The decoder refused it (state data in a configuration): nothing to validate.
        t.false(allowState, String(e));
        return;
      }
      for (const checkLeafrefs of [false, true]) {
        const options = { type, checkLeafrefs };
        const expected = faults(fresh(decoded), options);
        t.deepEqual(faults(decoded, options), expected);
        const xml = encodeXml(decoded, ctx);
        t.deepEqual(faults(decodeXml(xml, ctx, { allowState }).root, options), expected);
      }
    });
  }
}

test('a list decoded for configuration is proved complete only when every entry is, and not where an entry holds a choice', (t) => {
  const good = decodeJson({ 'ietf-interfaces:interfaces': { interface: [eth(0), eth(1)] } }, ctx, { allowState: false }).root;
  t.is(listProof(interfacesList(good), 'config'), ListProof.Complete);
  t.is(listProof(interfacesList(good), 'data'), ListProof.Keys, 'a configuration proof says nothing of state leaves');

  const missing = decodeJson({ 'ietf-interfaces:interfaces': { interface: [eth(0), { name: 'eth1' }] } }, ctx, { allowState: false }).root;
  t.is(listProof(interfacesList(missing), 'config'), ListProof.Keys);

  const withIp = decodeXml(
    encodeXml(
      decodeJson(
        {
          'ietf-interfaces:interfaces': {
            interface: [{ ...eth(0), 'ietf-ip:ipv4': { address: [{ ip: '10.0.0.1', 'prefix-length': 8 }] } }],
          },
        },
        ctx,
      ).root,
      ctx,
    ),
    ctx,
    { allowState: false },
  ).root;
  // ietf-ip's address has a choice (subnet): validation must walk the entries that hold one.
  t.is(listProof(interfacesList(withIp), 'config'), ListProof.Keys);
  t.deepEqual(faults(withIp, { type: 'config' }), []);
});

test('a decoded list changed afterwards is validated in full: putEntry, or entries replaced', (t) => {
  const doc = { 'ietf-interfaces:interfaces': { interface: [eth(0), eth(1)] } };
  const expected = ['missing-element /ietf-interfaces:interfaces/interface[name=\'eth9\']/type: mandatory leaf "type" is missing'];
  const bad = interfacesList(decodeJson({ 'ietf-interfaces:interfaces': { interface: [{ name: 'eth9' }] } }, ctx).root).entries[0]!;

  const root = decodeJson(doc, ctx, { allowState: false }).root;
  putEntry(interfacesList(root), bad);
  t.is(listProof(interfacesList(root), 'config'), ListProof.None);
  t.deepEqual(faults(root, { type: 'config' }), expected);

  const replaced = decodeJson(doc, ctx, { allowState: false }).root;
  const list = interfacesList(replaced);
  list.entries = [...list.entries, bad];
  delete list.index;
  t.deepEqual(faults(replaced, { type: 'config' }), expected);

  const pushed = decodeJson(doc, ctx, { allowState: false }).root;
  (interfacesList(pushed).entries as ListEntryNode[]).push(bad);
  t.deepEqual(faults(pushed, { type: 'config' }), expected, 'a longer entries array voids the proof');
});
