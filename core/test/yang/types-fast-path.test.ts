/**
 * The codecs' allocation-free fast paths (`jsonValue`, `textValue`, used by the data decoders) must
 * accept exactly what `json`/`text` accept, with the same canonical value, for every built-in type
 * and restriction, including repeated values (the identityref paths remember recent answers).
 */
import test from 'ava';
import type { YangType } from '../../src/yang/schema';
import { codecFor, INVALID, type FastValue, type ValueResult } from '../../src/yang/types/codecs';
import { makeContext, makeType } from './types-fixture';

const { ctx, identities } = makeContext();
const MOD = 'base-mod';
const prefixes: Record<string, string> = { b: 'base-mod', x: 'ext-mod' };
const resolve = (p: string): string | undefined => prefixes[p];
const otherResolve = (p: string): string | undefined => (p === 'b' ? 'ext-mod' : prefixes[p]);

function expected(r: ValueResult): FastValue {
  return r.ok ? r.value : INVALID;
}

const types: Array<[string, YangType]> = [
  ['string', makeType('string')],
  ['string with length and pattern', makeType('string', { length: '2..5', patterns: ['[a-z]+', { source: 'bad', inverted: true }] })],
  ['int8 with range', makeType('int8', { range: '-10..10 | 20' })],
  ['uint32', makeType('uint32')],
  ['int64', makeType('int64')],
  ['decimal64', makeType('decimal64', { fractionDigits: 2 })],
  ['boolean', makeType('boolean')],
  ['empty', makeType('empty')],
  ['enumeration', makeType('enumeration', { enums: ['up', 'down'] })],
  [
    'bits',
    makeType('bits', {
      bits: [
        ['a', 0],
        ['b', 1],
      ],
    }),
  ],
  ['binary', makeType('binary')],
  ['identityref', makeType('identityref', { bases: [identities.transport] })],
  [
    'union',
    makeType('union', {
      union: [makeType('int8', { range: '1..5' }), makeType('enumeration', { enums: ['auto'] }), makeType('string', { length: '3' })],
    }),
  ],
];

const jsonValues: unknown[] = [
  'abc',
  'bad',
  'a',
  'abcdef',
  '',
  ' up',
  'up',
  'down',
  7,
  20,
  21,
  -0,
  1.5,
  300,
  '12',
  '1.5',
  '1.555',
  true,
  false,
  'true',
  null,
  [null],
  'a b',
  'b a',
  'AAE=',
  'base-mod:tcp',
  'base-mod:tcp',
  'ext-mod:quic',
  'base-mod:unrelated',
  'tcp',
  'nomod:tcp',
  'auto',
  {},
  [1],
];
const texts = [
  'abc',
  'bad',
  'a',
  '7',
  ' 7 ',
  '20',
  '1.5',
  'true',
  'false',
  'True',
  '',
  'up',
  'b:tcp',
  'b:tcp',
  'x:quic',
  'tcp',
  'b:unrelated',
  'z:tcp',
  'auto',
  'AAE=',
  'a b',
];

for (const [name, type] of types) {
  test(`${name}: jsonValue and textValue agree with json and text`, (t) => {
    const codec = codecFor(type);
    for (const raw of jsonValues) {
      t.deepEqual(codec.jsonValue(raw, ctx, MOD), expected(codec.json(raw, ctx, MOD)), `JSON ${JSON.stringify(raw)}`);
    }
    for (const s of texts) {
      for (const r of [resolve, otherResolve, resolve]) {
        t.deepEqual(codec.textValue(s, ctx, r, MOD), expected(codec.text(s, ctx, r, MOD)), `text '${s}'`);
      }
      t.deepEqual(codec.textValue(s, ctx, resolve, 'ext-mod'), expected(codec.text(s, ctx, resolve, 'ext-mod')), `text '${s}' in ext-mod`);
    }
  });
}

test('identityref: a value accepted once is still checked against the context it is read in', (t) => {
  const codec = codecFor(makeType('identityref', { bases: [identities.udp] }));
  t.is(codec.jsonValue('ext-mod:quic', ctx, MOD), 'ext-mod:quic');
  t.is(codec.jsonValue('base-mod:tcp', ctx, MOD), INVALID, 'tcp is not derived from udp');
  const other = makeContext().ctx; // a context where ext-mod is not implemented
  (other.modules.get('ext-mod') as { implemented: boolean }).implemented = false;
  t.is(codec.jsonValue('ext-mod:quic', other, MOD), INVALID);
  t.is(codec.textValue('x:quic', other, resolve, MOD), INVALID);
  t.is(codec.textValue('x:quic', ctx, resolve, MOD), 'ext-mod:quic');
});
