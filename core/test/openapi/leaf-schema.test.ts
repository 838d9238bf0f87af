/**
 * YANG types as the JSON Schema of their RFC 7951 values: the encodings JSON numbers cannot carry are
 * strings, `empty` is `[null]`, single-interval ranges and lengths are bounds, and an XSD pattern is a
 * `pattern` only when its translation reads the same without the `u` flag (else it is described).
 */
import test from 'ava';
import type { BuiltinTypeName, PatternRestriction, YangType } from '../../src/yang/schema';
import { translatePattern } from '../../src/yang/types';
import { typeSchema } from '../../src/openapi/leaf-schema';

function type(builtin: BuiltinTypeName, rest: Partial<YangType> = {}): YangType {
  return { builtin, name: builtin, patterns: [], ...rest };
}

function pattern(source: string, inverted = false): PatternRestriction {
  const translated = translatePattern(source);
  if ('error' in translated) throw new Error(translated.error);
  return { source, regex: translated.regex, inverted };
}

test('64-bit integers and decimal64 are strings; narrower integers are bounded numbers', (t) => {
  t.is(typeSchema(type('int64')).type, 'string');
  t.is(typeSchema(type('uint64')).type, 'string');
  t.is(typeSchema(type('decimal64', { fractionDigits: 2 })).type, 'string');
  t.like(typeSchema(type('uint8', { range: { intervals: [{ min: 1n, max: 10n }], source: '1..10' } })), {
    type: 'integer',
    minimum: 1,
    maximum: 10,
  });
  const split = typeSchema(
    type('int32', {
      range: {
        intervals: [
          { min: 1n, max: 3n },
          { min: 7n, max: 9n },
        ],
        source: '1..3 | 7..9',
      },
    }),
  );
  t.like(split, { minimum: 1, maximum: 9 });
  t.regex(split['description'] as string, /1\.\.3 \| 7\.\.9/);
});

test('empty is [null], enumerations are enums, unions any of their members', (t) => {
  t.like(typeSchema(type('empty')), { type: 'array', minItems: 1, maxItems: 1, items: { enum: [null] } });
  const e = type('enumeration', { enums: [{ name: 'up', value: 1, status: 'current', ifFeatures: [] }] });
  t.deepEqual(typeSchema(e)['enum'], ['up']);
  t.deepEqual(typeSchema(type('union', { union: [type('int32'), type('boolean')] })), {
    anyOf: [{ type: 'integer' }, { type: 'boolean' }],
  });
});

test('a pattern is given only when it means the same without flags; others are described', (t) => {
  const plain = typeSchema(
    type('string', { patterns: [pattern('[a-z]+[0-9]*')], length: { intervals: [{ min: 1, max: 8 }], source: '1..8' } }),
  );
  t.like(plain, { type: 'string', minLength: 1, maxLength: 8 });
  t.true(new RegExp(plain['pattern'] as string).test('ab12'));
  t.false(new RegExp(plain['pattern'] as string).test('ab12 '), 'anchored as XSD patterns are');
  const unicode = typeSchema(type('string', { patterns: [pattern('\\p{L}+')] }));
  t.is(unicode['pattern'], undefined);
  t.regex(unicode['description'] as string, /must match the XSD pattern \\p\{L\}\+/);
  const inverted = typeSchema(type('string', { patterns: [pattern('x.*', true)] }));
  t.is(inverted['pattern'], undefined);
  t.regex(inverted['description'] as string, /must not match/);
  const two = typeSchema(type('string', { patterns: [pattern('[a-z]+'), pattern('.{2}')] }));
  t.is((two['allOf'] as unknown[]).length, 2);
});
