/**
 * The XML decoder's shortcuts for repeated structure (list entries repeating one sequence of child
 * names, attribute values written the same again) must not change what a document means: names in
 * a changed scope, a changed prefix or another order resolve afresh, and a repeated attribute value
 * that needs decoding is decoded each time. Real ietf-interfaces model (../shared/yang).
 */
import test from 'ava';
import { decodeXml, encodeJson, DataError } from '../../src/data';
import { XmlToken, XmlTokenizer } from '../../src/data/xml-tokenizer';
import { schema } from './fixture';

const IF_NS = 'urn:ietf:params:xml:ns:yang:ietf-interfaces';
const IANA_NS = 'urn:ietf:params:xml:ns:yang:iana-if-type';

function faultOf(fn: () => unknown): { tag: string; path: string; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof DataError) return e.first;
    throw e;
  }
  throw new Error('no DataError thrown');
}

const entry = (name: string, extra = ''): string =>
  `<interface><name>${name}</name><type xmlns:ianaift="${IANA_NS}">ianaift:ethernetCsmacd</type>${extra}</interface>`;

test('entries that repeat, then change, their children resolve each child afresh where anything differs', (t) => {
  const xml = `<interfaces xmlns="${IF_NS}">${entry('a')}${entry('b')}`
    // another order, a prefixed name for the same node, and a prefix bound to another identity module name
    + `<interface><type xmlns:x="${IANA_NS}">x:softwareLoopback</type><if:name xmlns:if="${IF_NS}">c</if:name></interface>`
    + `${entry('d', '<enabled>false</enabled>')}</interfaces>`;
  const { node } = decodeXml(xml, schema());
  t.deepEqual(JSON.parse(encodeJson(node!)), {
    'ietf-interfaces:interfaces': { interface: [
      { name: 'a', type: 'iana-if-type:ethernetCsmacd' },
      { name: 'b', type: 'iana-if-type:ethernetCsmacd' },
      { name: 'c', type: 'iana-if-type:softwareLoopback' },
      { name: 'd', type: 'iana-if-type:ethernetCsmacd', enabled: false },
    ] },
  });
});

test('a name repeated in a scope whose default namespace changed is not taken for the earlier node', (t) => {
  const xml = `<interfaces xmlns="${IF_NS}">${entry('a')}${entry('b')}`
    + `<interface><name>c</name><type xmlns="urn:example:other">x</type></interface></interfaces>`;
  const f = faultOf(() => decodeXml(xml, schema()));
  t.is(f.tag, 'unknown-namespace');
  t.regex(f.message, /urn:example:other/);
});

test('a repeated identity prefix bound to another namespace is resolved again', (t) => {
  const xml = `<interfaces xmlns="${IF_NS}">${entry('a')}`
    + `<interface><name>b</name><type xmlns:ianaift="urn:example:nowhere">ianaift:ethernetCsmacd</type></interface></interfaces>`;
  const f = faultOf(() => decodeXml(xml, schema()));
  t.is(f.tag, 'invalid-value');
  t.is(f.path, "/ietf-interfaces:interfaces/interface[name='b']/type");
});

test('attribute values: a plain value repeated comes back as one string; values with references or line ends are decoded every time', (t) => {
  const tok = new XmlTokenizer('<r><e a="x&amp;y" b="1\t2" c="urn:z"/><e a="x&amp;y" b="1\t2" c="urn:z"/><e a="x&amp;y"/></r>', 8);
  const values: string[][] = [];
  for (let k = tok.next(); k !== XmlToken.Eof; k = tok.next()) {
    if (k === XmlToken.Start && tok.name === 'e') values.push(tok.attrValues.slice(0, tok.attrCount));
  }
  t.deepEqual(values, [['x&y', '1 2', 'urn:z'], ['x&y', '1 2', 'urn:z'], ['x&y']]);
  t.true(Object.is(values[0]![2], values[1]![2]));
});
