/**
 * The fast paths of the codecs keep their meaning: on the benchmark's document shape (ietf-interfaces
 * entries with name, description, identityref type and boolean), JSON and XML decode to the same tree
 * and both encoders give back the same text; cached identity results are shared only for accepted
 * values, and refused ones keep being refused.
 */
import test from 'ava';
import {
  decodeJson,
  decodeXml,
  encodeJson,
  encodeXml,
  DataError,
  listIndex,
  type LeafNode,
  type ListNode,
  type ContainerNode,
} from '../../src/data';
import { schema } from './fixture';

const N = 20000;

function document(entries: number): string {
  const list = [];
  for (let i = 0; i < entries; i++) {
    list.push({
      name: `eth${i}`,
      description: `uplink ${i} to rack ${i % 48} <&> "q" \u00e9\u{1F600}`,
      type: i % 5 === 0 ? 'iana-if-type:softwareLoopback' : 'iana-if-type:ethernetCsmacd',
      enabled: i % 3 !== 0,
    });
  }
  return JSON.stringify({ 'ietf-interfaces:interfaces': { interface: list } });
}

function entriesOf(root: { children: unknown[] }): ListNode {
  return (root.children[0] as ContainerNode).children[0] as ListNode;
}

test('JSON and XML decode the same tree; both encoders round-trip the benchmark shape', (t) => {
  const ctx = schema();
  const text = document(N);
  const fromJson = decodeJson(text, ctx).root;
  t.is(encodeJson(fromJson), text);
  const xml = encodeXml(fromJson, ctx);
  const fromXml = decodeXml(xml, ctx).root;
  t.is(encodeJson(fromXml), text);
  t.is(encodeXml(fromXml, ctx), xml);
  const list = entriesOf(fromXml);
  t.is(list.entries.length, N);
  t.is(listIndex(list)?.size, N);
});

test('identityref values of many entries share one string and one result; refused values stay refused', (t) => {
  const ctx = schema();
  for (const root of [decodeJson(document(100), ctx).root, decodeXml(encodeXml(decodeJson(document(100), ctx).root, ctx), ctx).root]) {
    const types = entriesOf(root).entries.map((e) => (e.children.find((c) => c.schema.name === 'type') as LeafNode).value);
    t.true(Object.is(types[1], types[2]));
    t.is(types[0], 'iana-if-type:softwareLoopback');
    t.is(types[1], 'iana-if-type:ethernetCsmacd');
  }
  const bad = (type: string) => () => decodeJson({ 'ietf-interfaces:interfaces': { interface: [{ name: 'a', type }] } }, ctx);
  for (let i = 0; i < 2; i++) {
    const e = t.throws(bad('iana-if-type:noSuchThing'), { instanceOf: DataError });
    t.is(e.first.tag, 'invalid-value');
    t.is(e.first.path, "/ietf-interfaces:interfaces/interface[name='a']/type");
    t.regex(e.first.message, /not defined/);
  }
  // An identity that exists but is not derived from the leaf's base is refused even after the same
  // name was accepted elsewhere.
  t.throws(bad('ietf-interfaces:interface-type'), { instanceOf: DataError });
  const xmlBad =
    `<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface><name>a</name>` +
    '<type xmlns:x="urn:nowhere">x:ethernetCsmacd</type></interface></interfaces>';
  t.regex(t.throws(() => decodeXml(xmlBad, ctx), { instanceOf: DataError }).first.message, /unknown prefix/);
});

test('booleans decode to real booleans from both forms and refuse other values', (t) => {
  const ctx = schema();
  const { root } = decodeJson(
    {
      'ietf-interfaces:interfaces': {
        interface: [
          { name: 'a', enabled: true },
          { name: 'b', enabled: false },
        ],
      },
    },
    ctx,
  );
  const values = entriesOf(root).entries.map((e) => (e.children[1] as LeafNode).value);
  t.deepEqual(values, [true, false]);
  const xml = (v: string) =>
    `<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface><name>a</name><enabled>${v}</enabled></interface></interfaces>`;
  t.is((entriesOf(decodeXml(xml('true'), ctx).root).entries[0]!.children[1] as LeafNode).value, true);
  t.throws(() => decodeXml(xml('TRUE'), ctx), { instanceOf: DataError });
  t.throws(() => decodeJson({ 'ietf-interfaces:interfaces': { interface: [{ name: 'a', enabled: 'true' }] } }, ctx), {
    instanceOf: DataError,
  });
});

test('a parsed document passed in is left as it was (entries are only dropped from text the decoder parsed)', (t) => {
  const ctx = schema();
  const parsed = JSON.parse(document(10)) as { 'ietf-interfaces:interfaces': { interface: unknown[] } };
  decodeJson(parsed, ctx);
  t.is(parsed['ietf-interfaces:interfaces'].interface.length, 10);
  t.true(parsed['ietf-interfaces:interfaces'].interface.every((e) => typeof e === 'object' && e !== null));
});
