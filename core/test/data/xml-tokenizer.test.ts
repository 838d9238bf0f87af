/**
 * The XML tokenizer on its own (tokens, references, skipped constructs, every well-formedness fault
 * with its line and column) and through decodeXml on the real ietf-interfaces model (text forms a
 * device may send: CDATA, comments, CRLF, character references, the <data>/<config> wrappers).
 */
import test from 'ava';
import { decodeXml, encodeJson, DataError } from '../../src/data';
import { XmlSyntaxError, XmlToken, XmlTokenizer } from '../../src/data/xml-tokenizer';
import { schema } from './fixture';

type Tok = [string, ...string[]];

/** Every token of a document, as readable tuples. */
function tokens(xml: string): Tok[] {
  const tok = new XmlTokenizer(xml, 64);
  const out: Tok[] = [];
  for (;;) {
    const t = tok.next();
    if (t === XmlToken.Eof) return out;
    if (t === XmlToken.Start) {
      const attrs: string[] = [];
      for (let i = 0; i < tok.attrCount; i++) attrs.push(`${tok.attrNames[i]}=${tok.attrValues[i]}`);
      out.push(['start', tok.name, ...attrs]);
    } else if (t === XmlToken.End) out.push(['end', tok.name]);
    else out.push(['text', tok.textValue()]);
  }
}

function syntaxError(xml: string): XmlSyntaxError {
  try {
    tokens(xml);
  } catch (e) {
    if (e instanceof XmlSyntaxError) return e;
    throw e;
  }
  throw new Error(`no syntax error in ${JSON.stringify(xml)}`);
}

test('tokens: elements, attributes in both quotes, self-closing tags, text between', (t) => {
  t.deepEqual(tokens(`<?xml version="1.0" encoding="UTF-8"?>\n<a:x xmlns:a="urn:a" b='1'><y/>t<z c="&lt;&#65;&#x42;"></z></a:x>\n`), [
    ['start', 'a:x', 'xmlns:a=urn:a', 'b=1'],
    ['start', 'y'],
    ['end', 'y'],
    ['text', 't'],
    ['start', 'z', 'c=<AB'],
    ['end', 'z'],
    ['end', 'a:x'],
  ]);
});

test('references, CDATA, comments and processing instructions inside elements', (t) => {
  t.deepEqual(tokens('<a>x &amp; y &apos;&quot;&gt; &#x1F600;<!-- note --><![CDATA[<raw> &amp;]]><?pi data?>z</a>'), [
    ['start', 'a'],
    ['text', `x & y '"> \u{1F600}`],
    ['text', '<raw> &amp;'],
    ['text', 'z'],
    ['end', 'a'],
  ]);
});

test('line ends: CRLF and CR become LF in text; whitespace in attribute values becomes spaces', (t) => {
  t.deepEqual(tokens('<a b="1\t2\r\n3">l1\r\nl2\rl3&#13;</a>'), [
    ['start', 'a', 'b=1 2 3'],
    ['text', 'l1\nl2\nl3\r'],
    ['end', 'a'],
  ]);
});

test('names and namespace values come back as the same string objects (interned)', (t) => {
  const tok = new XmlTokenizer('<r><type xmlns:p="urn:x">a</type><type xmlns:p="urn:x">b</type></r>', 8);
  const seen: string[] = [];
  const values: string[] = [];
  for (let k = tok.next(); k !== XmlToken.Eof; k = tok.next()) {
    if (k === XmlToken.Start && tok.name === 'type') {
      seen.push(tok.name);
      values.push(tok.attrValues[0]!);
    }
  }
  t.is(seen.length, 2);
  t.true(Object.is(seen[0], seen[1]));
  t.true(Object.is(values[0], values[1]));
});

test('malformed documents fail with line and column of the fault', (t) => {
  const cases: Array<[string, number, number, RegExp]> = [
    ['<a>\n  <b></a>', 2, 6, /does not match <b>/],
    ['<a>\n<b>', 2, 4, /<b> is not closed/],
    ['<a>x &nbsp; y</a>', 1, 6, /unknown entity '&nbsp;'/],
    ['<a>x & y</a>', 1, 6, /'&' starts no entity/],
    ['<a>&#0;</a>', 1, 4, /not an XML character/],
    ['<a>&#xD800;</a>', 1, 4, /not an XML character/],
    ['<a b="1" b="2"/>', 1, 10, /attribute 'b' is repeated/],
    ['<a b=1/>', 1, 6, /must be quoted/],
    ['<a b="x<y"/>', 1, 8, /'<' in an attribute value/],
    ['<a b="1"c="2"/>', 1, 9, /whitespace is expected/],
    ['<a><!-- never closed </a>', 1, 4, /comment is not terminated/],
    ['<a><![CDATA[ open </a>', 1, 4, /CDATA section is not terminated/],
    ['<a><?pi </a>', 1, 4, /processing instruction is not terminated/],
    ['<!DOCTYPE a [<!ENTITY x "y">]><a/>', 1, 1, /DOCTYPE is not allowed/],
    ['<a></a><!ELEMENT a ANY>', 1, 8, /unexpected '<!'/],
    ['text<a/>', 1, 1, /text outside the root/],
    ['<a/>\n  tail', 2, 3, /text outside the root/],
    ['</a>', 1, 1, /has no start tag/],
    ['<1a/>', 1, 2, /element name is expected/],
    ['<a', 1, 1, /start tag <a> is not terminated/],
    ['<a></a', 1, 7, /'>' is expected to end the end tag/],
    ['   ', 1, 4, /no element/],
  ];
  for (const [xml, line, column, message] of cases) {
    const e = syntaxError(xml);
    t.is(e.line, line, xml);
    t.is(e.column, column, xml);
    t.regex(e.message, message, xml);
  }
});

test('nesting is bounded without recursion: 100,000 levels fail fast at the bound', (t) => {
  const deep = '<a>'.repeat(100000) + '</a>'.repeat(100000);
  const e = syntaxError(deep);
  t.regex(e.message, /nest deeper than 64 levels/);
  t.is(e.column, 64 * 3 + 1);
});

test('linear on garbage: 200,000 unterminated references or attributes fail at the first', (t) => {
  const start = process.hrtime.bigint();
  t.regex(syntaxError(`<a>${'&'.repeat(200000)}</a>`).message, /'&' starts no entity/);
  t.regex(syntaxError(`<a ${'b="1" '.repeat(5000)}/>`).message, /more than 4096 attributes|repeated/);
  t.regex(syntaxError(`<a>${'<b>'.repeat(30)}${'x'.repeat(1_000_000)}`).message, /nest deeper|not closed/);
  t.true(Number(process.hrtime.bigint() - start) / 1e6 < 2000);
});

const IF_NS = 'urn:ietf:params:xml:ns:yang:ietf-interfaces';

test('decodeXml: CDATA, comments, CRLF and character references in real ietf-interfaces values', (t) => {
  const ctx = schema();
  const xml =
    `<?xml version="1.0"?>\r\n<!-- from a device -->\r\n<interfaces xmlns="${IF_NS}">\r\n` +
    '  <interface><name>ge-0/0/1</name><!-- uplink --><description><![CDATA[a <b> & c]]>&#x21;</description>\r\n' +
    '    <type xmlns:ift="urn:ietf:params:xml:ns:yang:iana-if-type"> ift:ethernetCsmacd </type><enabled>false</enabled></interface>\r\n' +
    '</interfaces>\r\n';
  const { root } = decodeXml(xml, ctx);
  t.deepEqual(JSON.parse(encodeJson(root)), {
    'ietf-interfaces:interfaces': {
      interface: [{ name: 'ge-0/0/1', description: 'a <b> & c!', type: 'iana-if-type:ethernetCsmacd', enabled: false }],
    },
  });
});

test('decodeXml: <data> and NETCONF <config> wrappers hold a whole datastore; nothing may follow them', (t) => {
  const ctx = schema();
  const body = `<interfaces xmlns="${IF_NS}"><interface><name>a</name></interface></interfaces>`;
  for (const wrapper of [
    '<data xmlns="urn:ietf:params:xml:ns:yang:ietf-restconf">',
    '<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0">',
  ]) {
    const name = wrapper.slice(1, wrapper.indexOf(' '));
    const { root } = decodeXml(`${wrapper}${body}</${name}>`, ctx);
    t.deepEqual(JSON.parse(encodeJson(root)), { 'ietf-interfaces:interfaces': { interface: [{ name: 'a' }] } });
  }
  const e = t.throws(() => decodeXml(`<data>${body}</data><data/>`, ctx), { instanceOf: DataError });
  t.is(e.first.tag, 'unknown-element');
});

test('decodeXml: malformed text outranks a content fault found earlier in the document', (t) => {
  const ctx = schema();
  const e = t.throws(() => decodeXml(`<interfaces xmlns="${IF_NS}"><bogus/>\n<interface></interfaces>`, ctx), { instanceOf: DataError });
  t.is(e.first.tag, 'malformed-message');
  t.regex(e.first.message, /line 2, column 12: end tag <\/interfaces> does not match <interface>/);
});

test('decodeXml: a config leaf-list value given twice is refused in linear time', (t) => {
  const ctx = schema();
  const values = Array.from({ length: 50000 }, (_, i) => `<search>d${i}.example</search>`).join('');
  const sys = 'urn:ietf:params:xml:ns:yang:ietf-system';
  const start = process.hrtime.bigint();
  const { root } = decodeXml(`<system xmlns="${sys}"><dns-resolver>${values}</dns-resolver></system>`, ctx);
  t.true(Number(process.hrtime.bigint() - start) / 1e6 < 3000);
  const json = JSON.parse(encodeJson(root)) as { 'ietf-system:system': { 'dns-resolver': { search: string[] } } };
  t.is(json['ietf-system:system']['dns-resolver'].search.length, 50000);
  const e = t.throws(
    () => decodeXml(`<system xmlns="${sys}"><dns-resolver><search>a</search><search>a</search></dns-resolver></system>`, ctx),
    { instanceOf: DataError },
  );
  t.is(e.first.tag, 'invalid-value');
  t.regex(e.first.message, /appears twice/);
});
