/**
 * Value codecs: every built-in type with good and bad values in JSON (RFC 7951) and lexical (RFC
 * 7950) form, canonical output, restriction messages, identityref derivation, instance-identifiers,
 * unions, leafrefs, and the ordering used for sorting.
 */
import test from 'ava';
import type { LeafValue } from '../../src/data/tree';
import type { YangType } from '../../src/yang/schema';
import { compareValues, valueFromJson, valueFromText, valueToJson, valueToText, type ValueResult } from '../../src/yang/types';
import { makeContext, makeType } from './types-fixture';

const { ctx, identities, nodes } = makeContext();
const MOD = 'base-mod';
const prefixes: Record<string, string> = { b: 'base-mod', x: 'ext-mod' };
const resolve = (p: string): string | undefined => prefixes[p];

function json(type: YangType, raw: unknown): ValueResult {
  return valueFromJson(type, raw, ctx, MOD);
}
function text(type: YangType, s: string): ValueResult {
  return valueFromText(type, s, ctx, resolve, MOD);
}
function value(r: ValueResult): LeafValue {
  if (!r.ok) throw new Error(`expected a value, got: ${r.message}`);
  return r.value;
}
function message(r: ValueResult): string {
  if (r.ok) throw new Error(`expected a refusal, got ${String(r.value)}`);
  return r.message;
}

test('int8..uint32 are JSON numbers; text allows sign, leading zeros and surrounding whitespace', (t) => {
  const u16 = makeType('uint16');
  t.is(value(json(u16, 1500)), 1500);
  t.is(value(json(u16, -0)), 0);
  t.is(message(json(u16, 70000)), 'value 70000 is out of range 0..65535');
  t.regex(message(json(u16, '1500')), /"1500" is not a JSON number/);
  t.regex(message(json(u16, 1.5)), /not an integer/);
  t.regex(message(json(u16, null)), /not a JSON number/);
  t.is(value(text(u16, '+0015')), 15);
  t.is(value(text(u16, ' 15\n')), 15);
  t.regex(message(text(u16, '0x15')), /not a valid uint16/);
  t.regex(message(text(u16, '1 5')), /not a valid uint16/);
  t.regex(message(text(u16, '')), /not a valid uint16/);
  t.regex(message(text(u16, '99999999999999999999999')), /out of range 0\.\.65535/);
  const i8 = makeType('int8');
  t.is(value(json(i8, -128)), -128);
  t.is(message(json(i8, 128)), 'value 128 is out of range -128..127');
  t.is(value(text(makeType('int32'), '-2147483648')), -2147483648);
  t.is(value(text(makeType('uint32'), '4294967295')), 4294967295);
  t.regex(message(text(makeType('uint32'), '-1')), /out of range/);
  t.regex(message(text(makeType('uint8'), '-0x1')), /not a valid uint8/);
});

test('ranges with several parts, and the model error-message and error-app-tag', (t) => {
  const r = makeType('int32', { range: '1..10 | 20 | 30..max' });
  t.is(value(json(r, 20)), 20);
  t.is(value(json(r, 2147483647)), 2147483647);
  t.is(message(json(r, 15)), 'value 15 is out of range 1..10 | 20 | 30..2147483647');
  const custom = makeType('uint8', { range: '1..4', rangeError: { errorMessage: 'pick a lane from 1 to 4', errorAppTag: 'lane-range' } });
  const bad = json(custom, 9);
  t.deepEqual(bad, { ok: false, message: 'pick a lane from 1 to 4', appTag: 'lane-range' });
});

test('int64 and uint64 are JSON strings and bigint values', (t) => {
  const i64 = makeType('int64');
  t.is(value(json(i64, '-9223372036854775808')), -9223372036854775808n);
  t.regex(message(json(i64, '9223372036854775808')), /out of range/);
  t.regex(message(json(i64, 15)), /is not a JSON string/);
  t.is(value(text(i64, '+015')), 15n);
  const u64 = makeType('uint64', { range: '1..max' });
  t.is(value(json(u64, '18446744073709551615')), 18446744073709551615n);
  t.regex(message(json(u64, '0')), /out of range 1\.\.18446744073709551615/);
  t.regex(message(json(u64, '1.0')), /not a valid uint64/);
  t.is(valueToJson(u64, 18446744073709551615n), '18446744073709551615');
  t.is(valueToText(u64, 5n), '5');
});

test('decimal64: strings in, canonical strings out, fraction digits and range checked', (t) => {
  const d = makeType('decimal64', { fractionDigits: 2, range: '-90..90' });
  t.is(value(json(d, '1.50')), '1.5');
  t.is(value(json(d, '3')), '3.0');
  t.is(value(json(d, '01.500')), '1.5');
  t.is(value(json(d, '-0.00')), '0.0');
  t.is(value(text(d, ' -0.05 ')), '-0.05');
  t.regex(message(json(d, 1.5)), /not a JSON string/);
  t.regex(message(json(d, '1.555')), /more than 2 fraction digits/);
  t.regex(message(json(d, '.5')), /not a decimal number/);
  t.regex(message(json(d, '1.')), /not a decimal number/);
  t.regex(message(json(d, '1e2')), /not a decimal number/);
  t.is(message(json(d, '90.01')), 'value 90.01 is out of range -90.0..90.0');
  const full = makeType('decimal64', { fractionDigits: 18 });
  t.is(value(json(full, '9.223372036854775807')), '9.223372036854775807');
  t.regex(message(json(full, '9.223372036854775808')), /out of range/);
  t.is(valueToJson(d, '1.5'), '1.5');
});

test('string: length in characters (not UTF-16 units), patterns, inverted patterns', (t) => {
  const s = makeType('string', { length: '2..4', patterns: ['[a-z\u00e9\u{1F600}]*'] });
  t.is(value(json(s, 'abcd')), 'abcd');
  t.is(value(json(s, 'é\u{1F600}')), 'é\u{1F600}'); // two characters, three UTF-16 units
  t.is(message(json(s, 'abcde')), 'length 5 of value "abcde" is outside the allowed length 2..4');
  t.is(message(json(s, 'AB')), 'value "AB" does not match pattern "[a-z\u00e9\u{1F600}]*"');
  t.regex(message(json(s, 12)), /not a JSON string/);
  const noXml = makeType('string', { patterns: [{ source: '[xX][mM][lL].*', inverted: true, errorAppTag: 'no-xml' }] });
  t.is(value(text(noXml, 'interface')), 'interface');
  const bad = text(noXml, 'XMLfoo');
  t.false(bad.ok);
  t.deepEqual(bad, { ok: false, message: 'value "XMLfoo" matches the inverted pattern "[xX][mM][lL].*"', appTag: 'no-xml' });
  const messaged = makeType('string', { patterns: [{ source: '\\d+', errorMessage: 'digits only' }] });
  t.is(message(json(messaged, 'x')), 'digits only');
  t.is(value(text(makeType('string'), ' keeps spaces ')), ' keeps spaces ');
});

test('boolean and empty', (t) => {
  const b = makeType('boolean');
  t.is(value(json(b, true)), true);
  t.is(value(text(b, 'false')), false);
  t.regex(message(json(b, 'true')), /not a JSON boolean/);
  t.regex(message(text(b, 'True')), /not a boolean/);
  t.regex(message(text(b, ' true')), /not a boolean/);
  const e = makeType('empty');
  t.is(value(json(e, [null])), null);
  t.is(value(text(e, '')), null);
  t.regex(message(json(e, null)), /must be \[null\]/);
  t.regex(message(json(e, [])), /must be \[null\]/);
  t.regex(message(text(e, 'x')), /no content/);
  t.deepEqual(valueToJson(e, null), [null]);
  t.is(valueToText(e, null), '');
  t.is(valueToText(b, true), 'true');
});

test('binary: strict base64 in JSON, line breaks dropped in text, length in octets', (t) => {
  const bin = makeType('binary', { length: '1..3' });
  t.is(value(json(bin, 'AAE=')), 'AAE=');
  t.is(value(json(bin, 'AAEC')), 'AAEC');
  t.regex(message(json(bin, 'AAE')), /not valid base64/);
  t.regex(message(json(bin, 'AA=E')), /not valid base64/);
  t.regex(message(json(bin, 'AAE= ')), /not valid base64/);
  t.is(value(text(bin, 'AA\nE=')), 'AAE=');
  t.is(message(json(bin, 'AAECAw==')), 'binary value of 4 octets is outside the allowed length 1..3');
  t.regex(message(json(bin, '')), /0 octets/);
});

test('enumeration and bits, with canonical bit order', (t) => {
  const en = makeType('enumeration', { enums: ['up', 'down', 'testing'] });
  t.is(value(json(en, 'down')), 'down');
  t.is(value(text(en, 'testing')), 'testing');
  t.is(message(json(en, 'sideways')), 'value "sideways" is not one of the enumeration\'s names (up, down, testing)');
  t.regex(message(json(en, 0)), /not a JSON string/);
  const bits = makeType('bits', {
    bits: [
      ['zero', 0],
      ['one', 1],
      ['seven', 7],
    ],
  });
  t.is(value(json(bits, 'seven zero')), 'zero seven');
  t.is(value(text(bits, '  one\tzero ')), 'zero one');
  t.is(value(json(bits, '')), '');
  t.regex(message(json(bits, 'one one')), /bit "one" is set twice/);
  t.regex(message(json(bits, 'two')), /bit "two" is not defined/);
});

test('identityref: module-qualified values, the leaf module for the simple form, derived-from every base', (t) => {
  const idref = makeType('identityref', { bases: [identities.transport] });
  t.is(value(json(idref, 'base-mod:tcp')), 'base-mod:tcp');
  t.is(value(json(idref, 'tcp')), 'base-mod:tcp');
  t.is(value(json(idref, 'ext-mod:quic')), 'ext-mod:quic'); // derived through udp
  t.regex(message(json(idref, 'base-mod:transport')), /not derived from base-mod:transport/); // not from itself
  t.regex(message(json(idref, 'ext-mod:colour')), /not derived/);
  t.regex(message(json(idref, 'quic')), /"base-mod:quic" is not defined/); // simple form means the leaf's module
  t.regex(message(json(idref, 'nomod:tcp')), /not defined/);
  t.regex(message(json(idref, 'imp-mod:legacy')), /in module imp-mod, which is not implemented/); // as libyang
  t.is(value(text(idref, 'x:quic')), 'ext-mod:quic');
  t.is(value(text(idref, 'b:udp')), 'base-mod:udp');
  t.is(value(text(idref, 'udp')), 'base-mod:udp');
  t.regex(message(text(idref, 'zz:udp')), /unknown prefix/);
  const both = makeType('identityref', { bases: [identities.transport, identities.udp] });
  t.is(value(json(both, 'ext-mod:quic')), 'ext-mod:quic');
  t.regex(message(json(both, 'base-mod:tcp')), /not derived from base-mod:transport, base-mod:udp/);
  t.is(
    valueToText(idref, 'ext-mod:quic', (m) => (m === 'ext-mod' ? 'x' : 'b')),
    'x:quic',
  );
  t.is(valueToText(idref, 'ext-mod:quic'), 'ext-mod:quic');
  t.is(valueToJson(idref, 'ext-mod:quic'), 'ext-mod:quic');
});

test('instance-identifier: JSON and XML forms, schema checks, canonical keys', (t) => {
  const iid = makeType('instance-identifier');
  const canonical = "/base-mod:top/interface[name='eth0'][unit='1']/mtu";
  t.is(value(json(iid, canonical)), canonical);
  // Keys in any order, double quotes, spacing and leading zeros come back canonical.
  t.is(value(json(iid, '/base-mod:top/interface[unit = "01"][name="eth0"]/mtu')), canonical);
  t.is(value(text(iid, "/b:top/b:interface[b:name='eth0'][b:unit='1']/b:mtu")), canonical);
  t.is(
    value(json(iid, "/base-mod:top/interface[name='eth0'][unit='1']/ext-mod:speed")),
    "/base-mod:top/interface[name='eth0'][unit='1']/ext-mod:speed",
  );
  t.is(value(json(iid, "/base-mod:top/tag[.='7']")), "/base-mod:top/tag[.='7']");
  t.is(value(json(iid, '/base-mod:top/interface[3]')), '/base-mod:top/interface[3]');
  t.is(value(json(iid, "/base-mod:top/interface[name=\"it's\"][unit='2']")), "/base-mod:top/interface[name=\"it's\"][unit='2']");
  t.regex(message(json(iid, '/top/interface')), /must be module-qualified/);
  t.regex(message(json(iid, '/base-mod:top/base-mod:tag')), /repeats its parent's module/);
  t.regex(message(json(iid, '/base-mod:top/nothing')), /no schema node "base-mod:nothing"/);
  t.regex(message(json(iid, "/base-mod:top/interface[name='eth0']")), /key "unit" of node "interface" is missing/);
  t.regex(message(json(iid, "/base-mod:top/interface[name='eth0'][unit='x']")), /key "unit".*not a valid uint16/);
  t.regex(message(json(iid, "/base-mod:top/interface[name=''][unit='1']")), /key "name".*length 0/);
  t.regex(message(json(iid, "/base-mod:top/interface[mtu='1'][unit='1']")), /"mtu" is not a key/);
  t.regex(message(json(iid, "/base-mod:top/tag[.='300']")), /out of range/);
  t.regex(message(json(iid, '/base-mod:top[1]')), /takes no predicate/);
  t.regex(message(json(iid, "/base-mod:top/interface[name='eth0'")), /expected "\]"/);
  t.regex(message(json(iid, '')), /cannot be empty/);
  t.regex(message(text(iid, '/q:top')), /unknown prefix "q"/);
  t.is(
    valueToText(iid, "/base-mod:top/interface[name='eth0'][unit='1']/ext-mod:speed", (m) => (m === 'base-mod' ? 'b' : 'x')),
    "/b:top/b:interface[b:name='eth0'][b:unit='1']/x:speed",
  );
});

test('union: the first member that accepts the JSON value, by JSON type (RFC 7951 §6.10)', (t) => {
  const u = makeType('union', {
    union: [makeType('int32'), makeType('enumeration', { enums: ['auto'] }), makeType('string', { patterns: ['[a-z]+'] })],
  });
  t.is(value(json(u, 1500)), 1500);
  t.is(value(json(u, 'auto')), 'auto');
  t.is(value(json(u, 'abc')), 'abc');
  // A JSON string is never an int32, so "1500" reaches the string member, whose pattern refuses it.
  t.regex(
    message(json(u, '1500')),
    /matches no member type of the union \(int32: .*not a JSON number.*; enumeration: .*; string: .*does not match pattern/,
  );
  // In XML the text itself decides: the int32 member takes it first.
  t.is(value(text(u, '1500')), 1500);
  t.is(value(text(u, 'auto')), 'auto');
  const intOrString = makeType('union', { union: [makeType('int32'), makeType('string')] });
  t.is(value(json(intOrString, '15')), '15'); // as yanglint: a string stays a string
  t.is(value(json(intOrString, 15)), 15);
  t.is(valueToJson(intOrString, '15'), '15');
  t.is(valueToJson(intOrString, 15), 15);
  const bigOrString = makeType('union', { union: [makeType('uint64'), makeType('string')] });
  t.is(value(json(bigOrString, '15')), 15n);
  t.is(valueToJson(bigOrString, 15n), '15');
  const idOrString = makeType('union', { union: [makeType('identityref', { bases: [identities.transport] }), makeType('string')] });
  t.is(value(json(idOrString, 'ext-mod:quic')), 'ext-mod:quic');
  t.is(value(json(idOrString, 'hello')), 'hello');
  const prefixFor = (m: string): string => (m === 'ext-mod' ? 'x' : 'b');
  t.is(valueToText(idOrString, 'ext-mod:quic', prefixFor), 'x:quic');
  t.is(valueToText(idOrString, 'hello', prefixFor), 'hello');
  const nested = makeType('union', {
    union: [makeType('union', { union: [makeType('boolean'), makeType('empty')] }), makeType('decimal64', { fractionDigits: 1 })],
  });
  t.is(value(json(nested, [null])), null);
  t.is(value(json(nested, '2.50')), '2.5');
  t.is(value(text(nested, 'true')), true);
});

test('leafref takes its target type; an unresolved leafref takes scalars as they are', (t) => {
  const ref = makeType('leafref', { target: nodes.mtu });
  t.is(value(json(ref, 1500)), 1500);
  t.is(message(json(ref, 10)), 'value 10 is out of range 68..9000');
  t.is(value(text(ref, '9000')), 9000);
  const chain = makeType('leafref', { target: { ...nodes.mtu, type: ref } });
  t.is(value(json(chain, 100)), 100);
  const unresolved = makeType('leafref');
  t.is(value(json(unresolved, 'eth0')), 'eth0');
  t.is(value(json(unresolved, 5)), 5);
  t.regex(message(json(unresolved, { a: 1 })), /not a scalar/);
  t.is(value(text(unresolved, 'eth0')), 'eth0');
});

test('garbage never throws: objects, arrays, huge strings, odd numbers', (t) => {
  const types = [
    makeType('uint8'),
    makeType('int64'),
    makeType('decimal64', { fractionDigits: 3 }),
    makeType('string', { length: '1..5', patterns: ['a*'] }),
    makeType('boolean'),
    makeType('empty'),
    makeType('binary'),
    makeType('enumeration', { enums: ['a'] }),
    makeType('bits', { bits: [['a', 0]] }),
    makeType('identityref', { bases: [identities.transport] }),
    makeType('instance-identifier'),
    makeType('leafref'),
    makeType('union', { union: [makeType('uint8'), makeType('boolean')] }),
  ];
  const raws: unknown[] = [
    undefined,
    null,
    NaN,
    Infinity,
    -Infinity,
    1e300,
    {},
    [],
    [null, null],
    { toString: 1 },
    'x'.repeat(100000),
    '[[[',
    ':',
    '/',
    '/a:b[',
    5n,
  ];
  for (const type of types) {
    for (const raw of raws) {
      const r = valueFromJson(type, raw, ctx, MOD);
      t.is(typeof r.ok, 'boolean');
      if (typeof raw === 'string') t.is(typeof valueFromText(type, raw, ctx, () => undefined, MOD).ok, 'boolean');
    }
  }
});

test('compareValues: no value, empty, boolean, numbers (exactly), then strings', (t) => {
  const values: Array<LeafValue | undefined> = [
    'b',
    10,
    null,
    true,
    '2.5',
    3n,
    false,
    undefined,
    'a',
    -1,
    '-1.25',
    18446744073709551615n,
    'B',
  ];
  // Array.prototype.sort never hands `undefined` to a comparator, so sort boxed values.
  const sorted = values
    .map((v) => ({ v }))
    .sort((x, y) => compareValues(x.v, y.v))
    .map((x) => x.v);
  t.deepEqual(sorted, [undefined, null, false, true, '-1.25', -1, '2.5', 3n, 10, 18446744073709551615n, 'B', 'a', 'b']);
  t.is(compareValues(3n, 3), 0);
  t.is(compareValues('3.0', 3), 0);
  t.true(compareValues('0.1', '0.05') > 0);
  t.true(compareValues('10', '9') < 0, 'plain digit strings are strings (a string leaf "10" sorts before "9")');
});
