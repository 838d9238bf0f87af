/**
 * RFC 6242 framing and the XML reader: frames split across reads at every byte, several frames per read,
 * UTF-8 split between chunks, and malformed input that must fail with a reason, never hang or crash.
 */
import test from 'ava';
import { FrameReader, FramingError, frameMessage, parseXml, standaloneText, XmlSyntaxError } from '@rosetta/sdk';
import { cpuStopwatch } from '@rosetta/sdk/testing';

const MESSAGES = [
  '<rpc-reply message-id="1" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><ok/></rpc-reply>',
  '<rpc-reply message-id="2" xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><data>grüße ]]> ##</data></rpc-reply>',
];

/** A chunked stream with the second message split into several chunks (one boundary inside "ü"). */
function chunkedStream(): Buffer {
  const second = Buffer.from(MESSAGES[1]!);
  const cut = second.indexOf(Buffer.from('ü')) + 1; // between the two bytes of ü
  return Buffer.concat([
    Buffer.from(frameMessage(MESSAGES[0]!, 'chunked')),
    Buffer.from(`\n#${cut}\n`),
    second.subarray(0, cut),
    Buffer.from(`\n#${second.length - cut}\n`),
    second.subarray(cut),
    Buffer.from('\n##\n'),
  ]);
}

function readAll(reader: FrameReader, parts: Buffer[]): string[] {
  const out: string[] = [];
  for (const p of parts) reader.push(p, (m) => out.push(m));
  return out;
}

test('chunked framing decodes the same whatever the split point (every byte)', (t) => {
  const stream = chunkedStream();
  for (let cut = 0; cut <= stream.length; cut++) {
    const reader = new FrameReader();
    reader.useChunked();
    const got = readAll(reader, [stream.subarray(0, cut), stream.subarray(cut)]);
    if (got.length !== 2 || got[0] !== MESSAGES[0] || got[1] !== MESSAGES[1]) t.fail(`split at ${cut}: ${JSON.stringify(got)}`);
  }
  const oneByOne = new FrameReader();
  oneByOne.useChunked();
  t.deepEqual(
    readAll(
      oneByOne,
      [...stream].map((b) => Buffer.from([b])),
    ),
    MESSAGES,
  );
});

test('end-of-message framing decodes the same whatever the split point, marker split too', (t) => {
  const stream = Buffer.from(MESSAGES.map((m) => frameMessage(m.replace(']]> ', '')!, 'eom')).join(''));
  const want = MESSAGES.map((m) => m.replace(']]> ', ''));
  for (let cut = 0; cut <= stream.length; cut++) {
    const got = readAll(new FrameReader(), [stream.subarray(0, cut), stream.subarray(cut)]);
    if (JSON.stringify(got) !== JSON.stringify(want)) t.fail(`split at ${cut}: ${JSON.stringify(got)}`);
  }
  t.pass();
});

test('the hello is end-of-message framed and bytes after it are read in the chosen mode', (t) => {
  const hello =
    '<hello xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><capabilities><capability>urn:ietf:params:netconf:base:1.1</capability></capabilities></hello>';
  const stream = Buffer.concat([Buffer.from(frameMessage(hello, 'eom')), chunkedStream()]);
  for (const cut of [
    0,
    10,
    stream.indexOf(']]>'),
    stream.indexOf(']]>') + 3,
    stream.indexOf(']]>') + 6,
    stream.indexOf(']]>') + 8,
    stream.length,
  ]) {
    const reader = new FrameReader();
    const got: string[] = [];
    for (const part of [stream.subarray(0, cut), stream.subarray(cut)]) {
      reader.push(part, (m) => {
        got.push(m);
        if (got.length === 1) reader.useChunked();
      });
    }
    t.deepEqual(got, [hello, ...MESSAGES], `split at ${cut}`);
  }
});

const BROKEN: Array<[string, string]> = [
  ['\n#0\nabc\n##\n', 'digit 1-9'],
  ['\n#012\n', 'digit 1-9'],
  ['\n#12x\n', 'bad character'],
  ['#4\nabcd\n##\n', 'expected \\n'],
  ['\n!4\nabcd', 'expected #'],
  ['\n#4\nabcdX##\n', 'expected \\n'],
  ['\n##\n', 'no chunk'],
  ['\n#99999999999\n', 'exceeds'],
  ['\n#4\nabcd\n##x', 'after ##'],
];

for (const [input, reason] of BROKEN) {
  test(`malformed chunk ${JSON.stringify(input)} fails with a reason and stays failed`, (t) => {
    const reader = new FrameReader();
    reader.useChunked();
    const e = t.throws(() => reader.push(Buffer.from(input), () => undefined), { instanceOf: FramingError });
    t.true(e!.message.includes(reason), e!.message);
    t.throws(() => reader.push(Buffer.from('\n#1\na\n##\n'), () => undefined), { instanceOf: FramingError });
  });
}

test('a message larger than the cap is refused before it is buffered', (t) => {
  const reader = new FrameReader(1000);
  reader.useChunked();
  t.throws(() => reader.push(Buffer.from('\n#5000\n'), () => undefined), { instanceOf: FramingError, message: /larger than 1000/ });
  const eom = new FrameReader(1000);
  t.throws(() => eom.push(Buffer.alloc(2000, 0x61), () => undefined), { instanceOf: FramingError });
});

test('XML reader resolves namespaces and keeps subtrees standalone with inherited declarations', (t) => {
  const text =
    '<rpc-reply xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type" message-id="7"><data><interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface><name>a&amp;b</name><type>ianaift:ethernetCsmacd</type></interface></interfaces></data></rpc-reply>';
  const root = parseXml(text);
  t.is(root.attrs['message-id'], '7');
  const interfaces = root.children[0]!.children[0]!;
  t.is(interfaces.ns, 'urn:ietf:params:xml:ns:yang:ietf-interfaces');
  t.is(interfaces.children[0]!.children[0]!.text, 'a&b');
  const standalone = parseXml(standaloneText(text, interfaces));
  t.is(standalone.children[0]!.children[1]!.scope.get('ianaift'), 'urn:ietf:params:xml:ns:yang:iana-if-type');
  t.is(standalone.ns, 'urn:ietf:params:xml:ns:yang:ietf-interfaces');
});

const BAD_XML: Array<[string, RegExp]> = [
  ['<a><b></a>', /does not match/],
  ['<a>', /unclosed/],
  ['<a/><b/>', /second root/],
  ['<!DOCTYPE a [<!ENTITY x "y">]><a/>', /DOCTYPE/],
  ['<p:a/>', /unbound namespace prefix p/],
  ['<a x="1" x="2"/>', /duplicate attribute/],
  ['<a>&bogus;</a>', /unknown entity/],
  ['<a', /unterminated start tag/],
  ['', /no root/],
  [`<a>${'<b>'.repeat(600)}`, /nest deeper/],
];
for (const [input, reason] of BAD_XML) {
  test(`malformed XML ${JSON.stringify(input.slice(0, 30))} is an XmlSyntaxError with a position`, (t) => {
    const e = t.throws(() => parseXml(input), { instanceOf: XmlSyntaxError });
    t.regex(e!.message, reason);
    t.true(e!.line >= 1 && e!.column >= 1);
  });
}

test('XML reader takes linear time on large and hostile input', (t) => {
  const big = `<data>${'<x a="1">v</x>'.repeat(100_000)}</data>`;
  let cpuMs = cpuStopwatch();
  t.is(parseXml(big).children.length, 100_000);
  const bigMs = cpuMs();
  t.true(bigMs < 2000, `100k elements took ${bigMs.toFixed(0)} ms of CPU`);
  cpuMs = cpuStopwatch();
  t.throws(() => parseXml(`<a b="${'&'.repeat(200_000)}`));
  t.throws(() => parseXml('<'.repeat(200_000)));
  const hostileMs = cpuMs();
  t.true(hostileMs < 2000, `hostile input took ${hostileMs.toFixed(0)} ms of CPU`);
});
