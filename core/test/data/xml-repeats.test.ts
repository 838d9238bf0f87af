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

// Elements written like the one before them at their position are matched whole (a leaf as
// `<tag>text</name>`), after 64 matches by a compiled pattern (after 4 when an earlier document made
// it: matchers are kept); whatever differs must still be read by the general path. These documents
// repeat one shape long enough for both, then vary it.

const ENTRIES = 1200;
const TYPE = `<type xmlns:ianaift="${IANA_NS}">ianaift:ethernetCsmacd</type>`;
/** Entry `e${i}`: its name, then `body` (by default the description, type and enabled of every other entry). */
const shaped = (i: number, body = `<description>d${i}</description>${TYPE}<enabled>true</enabled>`): string =>
  `<interface><name>e${i}</name>${body}</interface>`;

function longDocument(vary: (i: number) => string | undefined): string {
  const entries: string[] = [];
  for (let i = 0; i < ENTRIES; i++) entries.push(vary(i) ?? shaped(i));
  return `<interfaces xmlns="${IF_NS}">${entries.join('')}</interfaces>`;
}

function entriesOf(xml: string): Array<Record<string, unknown>> {
  const json = JSON.parse(encodeJson(decodeXml(xml, schema()).node!)) as { 'ietf-interfaces:interfaces': { interface: Array<Record<string, unknown>> } };
  return json['ietf-interfaces:interfaces'].interface;
}

test('repeated entries, matched whole, decode as the general path reads them, and variations among them are read afresh', (t) => {
  const rest = `${TYPE}<enabled>true</enabled>`;
  const variations: Record<number, string> = {
    // early (character comparison, or a kept matcher) and late (compiled pattern): references, CR, CDATA, a comment, whitespace
    10: shaped(10, `<description>a &amp; b</description>${rest}`),
    700: shaped(700, `<description>a &amp; b&#x21;</description>${rest}`),
    701: shaped(701, `<description>x\r\ny</description>${rest}`),
    702: shaped(702, `<description><![CDATA[<c>]]></description>${rest}`),
    703: shaped(703, `<description>p<!-- note -->q</description>${TYPE}<enabled >false</enabled >`),
    704: `\n  <interface>\n    <name>e704</name>\n    <description>d704</description>\n    ${TYPE}\n    <enabled>true</enabled>\n  </interface>\n`,
    // another prefix, another identity, a self-closing leaf, a missing leaf, another order
    705: shaped(705, `<description/><type xmlns:x="${IANA_NS}">x:softwareLoopback</type><enabled>true</enabled>`),
    706: shaped(706, rest),
    707: `<interface><enabled>false</enabled><name>e707</name><description>d707</description>${TYPE}</interface>`,
    // the default namespace declared again on a child (the same namespace: the same node)
    708: shaped(708, `<description xmlns="${IF_NS}">d708</description>${rest}`),
  };
  // twice: the second document finds the first one's matchers made, and takes them early
  const document = longDocument((i) => variations[i]);
  t.deepEqual(entriesOf(document), entriesOf(document));
  const got = entriesOf(document);
  t.is(got.length, ENTRIES);
  const expected = (i: number): Record<string, unknown> => ({ name: `e${i}`, description: `d${i}`, type: 'iana-if-type:ethernetCsmacd', enabled: true });
  const differing: Record<number, Record<string, unknown>> = {
    10: { ...expected(10), description: 'a & b' },
    700: { ...expected(700), description: 'a & b!' },
    701: { ...expected(701), description: 'x\ny' },
    702: { ...expected(702), description: '<c>' },
    703: { ...expected(703), description: 'pq', enabled: false },
    705: { ...expected(705), description: '', type: 'iana-if-type:softwareLoopback' },
    706: { name: 'e706', type: 'iana-if-type:ethernetCsmacd', enabled: true },
    707: { ...expected(707), enabled: false },
  };
  for (let i = 0; i < ENTRIES; i++) t.deepEqual(got[i], differing[i] ?? expected(i), `entry ${i}`);
});

test('faults in elements shaped like the remembered ones name the element as the general path does', (t) => {
  const faultAt = (at: number, entry: string): ReturnType<typeof faultOf> =>
    faultOf(() => decodeXml(longDocument((i) => (i === at ? entry : undefined)), schema()));
  for (const at of [20, 900]) {
    const invalid = faultAt(at, shaped(at, `<description>d</description>${TYPE}<enabled>maybe</enabled>`));
    t.is(invalid.tag, 'invalid-value');
    t.is(invalid.path, `/ietf-interfaces:interfaces/interface[name='e${at}']/enabled`);

    const twice = faultAt(at, shaped(at, `<description>d</description><description>d</description>${TYPE}`));
    t.is(twice.tag, 'invalid-value');
    t.regex(twice.message, /'description' appears twice/);

    const unbound = faultAt(at, shaped(at, `<type xmlns:ianaift="urn:example:nowhere">ianaift:ethernetCsmacd</type>`));
    t.is(unbound.path, `/ietf-interfaces:interfaces/interface[name='e${at}']/type`);

    t.regex(faultAt(at, shaped(3)).message, /duplicate entry of list 'interface' with key e3/);
    t.is(faultAt(at, shaped(at).replace('</description>', '</descriptio>')).tag, 'malformed-message');
  }
});
