/**
 * reply.ts: reading an rpc-reply's envelope and its lone `<data>` without parsing the reply whole, and
 * answering undefined (parse it whole) for anything it cannot read with certainty.
 */
import test from 'ava';
import { NETCONF_NS, parseXml, standaloneText, child } from '@rosetta/sdk';
import { isRpcReply, loneDataText, loneOk, readEnvelope } from '../src/reply';

const IF = 'urn:ietf:params:xml:ns:yang:ietf-interfaces';

function lone(text: string): string | undefined {
  const envelope = readEnvelope(text);
  if (envelope === undefined || !isRpcReply(envelope)) throw new Error('not an rpc-reply');
  return loneDataText(text, envelope);
}

test('the envelope: message-id, namespace (default or prefixed), after an XML declaration and comments', (t) => {
  const a = readEnvelope(
    `<?xml version="1.0" encoding="UTF-8"?>\n<!-- hi -->\n<rpc-reply message-id="42" xmlns="${NETCONF_NS}"\n  last-modified="2026-11-22T15:23:38Z"><ok/></rpc-reply>`,
  )!;
  t.true(isRpcReply(a));
  t.is(a.attrs.get('message-id'), '42');
  const b = readEnvelope(`<nc:rpc-reply xmlns:nc="${NETCONF_NS}" message-id='7' note="a &gt; b"><nc:ok/></nc:rpc-reply>`)!;
  t.true(isRpcReply(b));
  t.is(b.prefix, 'nc');
  t.is(b.attrs.get('message-id'), '7');
  t.is(b.attrs.get('note'), 'a > b');
  t.false(isRpcReply(readEnvelope(`<rpc-reply xmlns="urn:other" message-id="1"/>`)!));
  t.false(
    isRpcReply(
      readEnvelope(`<notification xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0"><eventTime>x</eventTime></notification>`)!,
    ),
  );
  t.is(readEnvelope('not xml'), undefined);
  t.is(readEnvelope(`<rpc-reply message-id="&bogus;" xmlns="${NETCONF_NS}"/>`), undefined, 'a bad entity: the whole parse reports it');
});

test('a lone <data> becomes a standalone document with the prefixes in scope, as the whole parse gives it', (t) => {
  const text = `<rpc-reply message-id="3" xmlns:nc="${NETCONF_NS}" xmlns:ianaift="urn:iana" xmlns="${NETCONF_NS}">\n  <data>\n    <interfaces xmlns="${IF}"><interface><name>eth0</name><type>ianaift:ethernetCsmacd</type></interface></interfaces>\n  </data>\n</rpc-reply>\n`;
  const data = lone(text)!;
  t.is(
    data,
    `<data xmlns:nc="${NETCONF_NS}" xmlns:ianaift="urn:iana">\n    <interfaces xmlns="${IF}"><interface><name>eth0</name><type>ianaift:ethernetCsmacd</type></interface></interfaces>\n  </data>`,
  );
  // the same elements and scope as the generic parser's standalone text of <data>
  const viaParse = parseXml(standaloneText(text, child(parseXml(text), 'data')!));
  const viaLone = parseXml(data);
  t.deepEqual(
    viaLone.children.map((c) => [c.name, c.ns]),
    viaParse.children.map((c) => [c.name, c.ns]),
  );
  t.is(viaLone.scope.get('ianaift'), 'urn:iana');
  // prefixed envelope and data
  t.is(
    lone(`<nc:rpc-reply xmlns:nc="${NETCONF_NS}" message-id="1"><nc:data><x xmlns="urn:x"/></nc:data></nc:rpc-reply>`),
    `<data xmlns:nc="${NETCONF_NS}"><x xmlns="urn:x"/></data>`,
  );
});

test('empty data is the empty string', (t) => {
  t.is(lone(`<rpc-reply xmlns="${NETCONF_NS}" message-id="1"><data/></rpc-reply>`), '');
  t.is(lone(`<rpc-reply xmlns="${NETCONF_NS}" message-id="1">\n<data>\n  </data>\n</rpc-reply>`), '');
});

test('anything uncertain is left to the whole parse', (t) => {
  const cases = [
    `<rpc-reply xmlns="${NETCONF_NS}" message-id="1"><rpc-error><error-tag>in-use</error-tag></rpc-error></rpc-reply>`,
    `<rpc-reply xmlns="${NETCONF_NS}" message-id="1"><data><x xmlns="urn:x"/></data><rpc-error><error-severity>warning</error-severity></rpc-error></rpc-reply>`,
    `<rpc-reply xmlns="${NETCONF_NS}" message-id="1"><data><x xmlns="urn:x"/></data><other/></rpc-reply>`,
    `<rpc-reply xmlns="${NETCONF_NS}" message-id="1"><data><x xmlns="urn:x"/></data><!-- trailing --></rpc-reply>`,
    `<rpc-reply xmlns="${NETCONF_NS}" message-id="1"><ok/></rpc-reply>`,
    `<rpc-reply xmlns="${NETCONF_NS}" message-id="1"><data xmlns="urn:not-netconf"><x/></data></rpc-reply>`,
    `<rpc-reply xmlns="${NETCONF_NS}" message-id="1"><data><x xmlns="urn:x"/></data>`,
    `<rpc-reply xmlns="${NETCONF_NS}" message-id="1"/>`,
  ];
  for (const c of cases) t.is(lone(c), undefined, c);
});

test('malformed content inside a well-framed data is passed on for the strict decoder to refuse', (t) => {
  // the session does not parse it: the device codec (the core's strict XML decoder) reports it, as a 502
  t.is(lone(`<rpc-reply xmlns="${NETCONF_NS}" message-id="1"><data><unclosed></data></rpc-reply>`), '<data><unclosed></data>');
});

test('a lone <ok/> gives the element tree the whole parse gives; anything more is left to the parse', (t) => {
  const oks = [
    `<?xml version="1.0" encoding="UTF-8"?>\n<rpc-reply message-id="5" xmlns="${NETCONF_NS}">\n  <ok/>\n</rpc-reply>\n`,
    `<rpc-reply message-id="6" xmlns="${NETCONF_NS}" xmlns:x="urn:x" last-modified="2026-11-26T10:00:00Z"><ok /></rpc-reply>`,
    `<nc:rpc-reply xmlns:nc="${NETCONF_NS}" message-id='7'><nc:ok/></nc:rpc-reply >`,
    `<nc:rpc-reply xmlns:nc="${NETCONF_NS}" xmlns="${NETCONF_NS}" message-id="8"> <ok/> </nc:rpc-reply>`,
  ];
  for (const text of oks) {
    const fast = loneOk(text, readEnvelope(text)!);
    t.deepEqual(fast, parseXml(text), text);
  }
  const others = [
    `<rpc-reply message-id="1" xmlns="${NETCONF_NS}"><ok/><rpc-error><error-severity>warning</error-severity></rpc-error></rpc-reply>`,
    `<rpc-reply message-id="1" xmlns="${NETCONF_NS}"><rpc-error><error-tag>in-use</error-tag></rpc-error></rpc-reply>`,
    `<rpc-reply message-id="1" xmlns="${NETCONF_NS}"><ok xmlns="urn:other"/></rpc-reply>`,
    `<rpc-reply message-id="1" xmlns="${NETCONF_NS}" xmlns:o="urn:other"><o:ok/></rpc-reply>`,
    `<rpc-reply message-id="1" xmlns="${NETCONF_NS}"><ok/><!-- more --></rpc-reply>`,
    `<rpc-reply message-id="1" xmlns="${NETCONF_NS}"><ok></ok></rpc-reply>`,
    `<rpc-reply message-id="1" xmlns="${NETCONF_NS}"><ok/></rpc-reply><trailing/>`,
    `<rpc-reply message-id="1" xmlns="${NETCONF_NS}"><ok/>`,
    `<rpc-reply message-id="1" xmlns="${NETCONF_NS}"/>`,
    `<rpc-reply message-id="1" xmlns="urn:other"><ok/></rpc-reply>`,
    `<rpc-reply message-id="1" xmlns="${NETCONF_NS}"><data/></rpc-reply>`,
  ];
  for (const text of others) t.is(loneOk(text, readEnvelope(text)!), undefined, text);
});
