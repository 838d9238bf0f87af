/**
 * The XML decoder's shortcuts for repeated structure (list entries repeating one sequence of child
 * names, attribute values written the same again) must not change what a document means: names in
 * a changed scope, a changed prefix or another order resolve afresh, and a repeated attribute value
 * that needs decoding is decoded each time. Runs on the test model of ietf-interfaces.
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
  const xml =
    `<interfaces xmlns="${IF_NS}">${entry('a')}${entry('b')}` +
    // another order, a prefixed name for the same node, and a prefix bound to another identity module name
    `<interface><type xmlns:x="${IANA_NS}">x:softwareLoopback</type><if:name xmlns:if="${IF_NS}">c</if:name></interface>` +
    `${entry('d', '<enabled>false</enabled>')}</interfaces>`;
  const { node } = decodeXml(xml, schema());
  t.deepEqual(JSON.parse(encodeJson(node!)), {
    'ietf-interfaces:interfaces': {
      interface: [
        { name: 'a', type: 'iana-if-type:ethernetCsmacd' },
        { name: 'b', type: 'iana-if-type:ethernetCsmacd' },
        { name: 'c', type: 'iana-if-type:softwareLoopback' },
        { name: 'd', type: 'iana-if-type:ethernetCsmacd', enabled: false },
      ],
    },
  });
});

test('a name repeated in a scope whose default namespace changed is not taken for the earlier node', (t) => {
  const xml =
    `<interfaces xmlns="${IF_NS}">${entry('a')}${entry('b')}` +
    `<interface><name>c</name><type xmlns="urn:example:other">x</type></interface></interfaces>`;
  const f = faultOf(() => decodeXml(xml, schema()));
  t.is(f.tag, 'unknown-namespace');
  t.regex(f.message, /urn:example:other/);
});

test('a repeated identity prefix bound to another namespace is resolved again', (t) => {
  const xml =
    `<interfaces xmlns="${IF_NS}">${entry('a')}` +
    `<interface><name>b</name><type xmlns:ianaift="urn:example:nowhere">ianaift:ethernetCsmacd</type></interface></interfaces>`;
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
  const json = JSON.parse(encodeJson(decodeXml(xml, schema()).node!)) as {
    'ietf-interfaces:interfaces': { interface: Array<Record<string, unknown>> };
  };
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
  const expected = (i: number): Record<string, unknown> => ({
    name: `e${i}`,
    description: `d${i}`,
    type: 'iana-if-type:ethernetCsmacd',
    enabled: true,
  });
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
    faultOf(() =>
      decodeXml(
        longDocument((i) => (i === at ? entry : undefined)),
        schema(),
      ),
    );
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

// After 64 entries of one shape, a list entry made only of leaves is matched whole, by one pattern
// that captures each leaf's text; these documents check that reading against the general path.

test('whole entries: pretty-printed entries, a changed shape and back, and an entry holding more than leaves read as the general path reads them', (t) => {
  const indent = (i: number, body: string): string => `\n  <interface>\n    <name>e${i}</name>${body}\n  </interface>`;
  const leaves = (i: number): string => `\n    <description>d${i}</description>\n    ${TYPE}\r\n    <enabled>${i % 2 === 0}</enabled>`;
  const variations: Record<number, string> = {
    // one leaf more, one less, then a leaf whose value needs a reference: each leaves the whole match
    300: indent(
      300,
      `${leaves(300)}\n    <mtu>1500</mtu>`.replace('<mtu>1500</mtu>', '<link-up-down-trap-enable>enabled</link-up-down-trap-enable>'),
    ),
    301: indent(301, `\n    <description>d301</description>`),
    302: indent(302, leaves(302).replace('>d302<', '>d&lt;302<')),
    // a value the shape matches but its type refuses is read by the general path, which reports it (see below)
  };
  const document = `<interfaces xmlns="${IF_NS}">${Array.from({ length: ENTRIES }, (_, i) => variations[i] ?? indent(i, leaves(i))).join('')}\n</interfaces>`;
  const got = entriesOf(document);
  t.deepEqual(entriesOf(document), got); // the second document takes the kept matchers early
  t.is(got.length, ENTRIES);
  for (let i = 0; i < ENTRIES; i++) {
    let want: Record<string, unknown> = { name: `e${i}`, description: `d${i}`, type: 'iana-if-type:ethernetCsmacd', enabled: i % 2 === 0 };
    if (i === 300) want = { ...want, 'link-up-down-trap-enable': 'enabled' };
    if (i === 301) want = { name: 'e301', description: 'd301' };
    if (i === 302) want = { ...want, description: 'd<302' };
    t.deepEqual(got[i], want, `entry ${i}`);
  }
  const refusing = document.replace(indent(999, leaves(999)), indent(999, leaves(999).replace('<enabled>false<', '<enabled>yes<')));
  t.not(refusing, document);
  const refused = faultOf(() => decodeXml(refusing, schema()));
  t.is(refused.path, "/ietf-interfaces:interfaces/interface[name='e999']/enabled");
  t.regex(refused.message, /invalid value 'yes'/);
});

test('whole entries: duplicate keys, a missing key and a list in a container at the entries depth are found as on the general path', (t) => {
  const doc = (vary: (i: number) => string | undefined): string => longDocument(vary);
  t.regex(
    faultOf(() =>
      decodeXml(
        doc((i) => (i === 1100 ? shaped(1000) : undefined)),
        schema(),
      ),
    ).message,
    /duplicate entry of list 'interface' with key e1000/,
  );
  const keyless = faultOf(() =>
    decodeXml(
      doc((i) => (i === 1100 ? `<interface><description>d</description>${TYPE}<enabled>true</enabled></interface>` : undefined)),
      schema(),
    ),
  );
  t.is(keyless.tag, 'missing-element'); // was a TypeError: the path read the entry's children after they were handed over
  t.is(keyless.path, "/ietf-interfaces:interfaces/interface[name='']");
  // entries of another shape (a container among the leaves) interleaved with whole-matched ones
  const statistics = (i: number): string =>
    `<interface><name>s${i}</name><description>d</description>${TYPE}<enabled>true</enabled><higher-layer-if>x</higher-layer-if></interface>`;
  const mixed = entriesOf(doc((i) => (i > 600 && i % 50 === 0 ? statistics(i) : undefined)));
  t.is(mixed.length, ENTRIES);
  t.deepEqual(mixed[650], { name: 's650', description: 'd', type: 'iana-if-type:ethernetCsmacd', enabled: true, 'higher-layer-if': ['x'] });
  t.deepEqual(mixed[651], { name: 'e651', description: 'd651', type: 'iana-if-type:ethernetCsmacd', enabled: true });
});
