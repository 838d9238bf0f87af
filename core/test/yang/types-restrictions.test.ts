/**
 * Range and length restrictions: the built-in ranges, `min`/`max` against the base, ascending and
 * disjoint parts, subsets of the base, decimal64 fraction digits, and the errors naming the bad part.
 */
import test from 'ava';
import { builtinRange, formatDecimal, formatRange, parseDecimal, parseLength, parseRange, FULL_LENGTH } from '../../src/yang/types';

test('builtinRange gives the exact bounds of each integer type and the int64 mantissa of decimal64', (t) => {
  t.deepEqual(builtinRange('int8'), [{ min: -128n, max: 127n }]);
  t.deepEqual(builtinRange('uint16'), [{ min: 0n, max: 65535n }]);
  t.deepEqual(builtinRange('int32'), [{ min: -2147483648n, max: 2147483647n }]);
  t.deepEqual(builtinRange('uint64'), [{ min: 0n, max: 18446744073709551615n }]);
  t.deepEqual(builtinRange('int64'), [{ min: -9223372036854775808n, max: 9223372036854775807n }]);
  t.deepEqual(builtinRange('decimal64', 2), [{ min: -9223372036854775808n, max: 9223372036854775807n }]);
  t.is(builtinRange('string'), undefined);
  t.is(builtinRange('boolean'), undefined);
});

test('parseRange resolves min and max against the base and keeps parts in order', (t) => {
  const r = parseRange('1..10 | 20 | 30..max', builtinRange('uint8')!, 'uint8');
  t.deepEqual(r, {
    intervals: [
      { min: 1n, max: 10n },
      { min: 20n, max: 20n },
      { min: 30n, max: 255n },
    ],
  });
  const m = parseRange('min..-1', builtinRange('int16')!, 'int16');
  t.deepEqual(m, { intervals: [{ min: -32768n, max: -1n }] });
  // A derived type narrows its parent's range: min/max are the parent's, not the built-in's.
  const parent = (parseRange('10..100 | 200..300', builtinRange('uint32')!, 'uint32') as { intervals: never[] }).intervals;
  t.deepEqual(parseRange('min..50 | 250..max', parent, 'uint32'), {
    intervals: [
      { min: 10n, max: 50n },
      { min: 250n, max: 300n },
    ],
  });
  t.deepEqual(parseRange(' 5 ', builtinRange('int8')!, 'int8'), { intervals: [{ min: 5n, max: 5n }] });
});

test('parseRange rejects parts outside the base, out of order, overlapping or malformed, naming the part', (t) => {
  const u8 = builtinRange('uint8')!;
  t.regex((parseRange('0..256', u8, 'uint8') as { error: string }).error, /"0\.\.256" is not within the base range 0\.\.255/);
  t.regex((parseRange('-1', u8, 'uint8') as { error: string }).error, /"-1"/);
  t.regex((parseRange('10..1', u8, 'uint8') as { error: string }).error, /lower bound above/);
  t.regex((parseRange('1..10 | 5..20', u8, 'uint8') as { error: string }).error, /"5\.\.20" is not above/);
  t.regex((parseRange('20 | 10', u8, 'uint8') as { error: string }).error, /"10" is not above/);
  t.regex((parseRange('1..x', u8, 'uint8') as { error: string }).error, /"x" is not an integer/);
  t.regex((parseRange('1.5', u8, 'uint8') as { error: string }).error, /not an integer/);
  t.regex((parseRange('1 || 2', u8, 'uint8') as { error: string }).error, /empty part/);
  t.regex((parseRange('', u8, 'uint8') as { error: string }).error, /empty part/);
  // A part that spans a gap of the base admits values the base excludes.
  const gappy = (parseRange('1..10 | 20..30', u8, 'uint8') as { intervals: never[] }).intervals;
  t.regex((parseRange('5..25', gappy, 'uint8') as { error: string }).error, /not within the base range 1\.\.10 \| 20\.\.30/);
  t.regex((parseRange('1..2', [], 'uint8') as { error: string }).error, /admits no values/);
  t.regex((parseRange('1..2', [], 'string') as { error: string }).error, /cannot restrict type string/);
});

test('parseRange on decimal64 scales by fraction-digits and limits the digits', (t) => {
  const base = builtinRange('decimal64', 2)!;
  t.deepEqual(parseRange('-1.5..2 | 3.25', base, 'decimal64', 2), {
    intervals: [
      { min: -150n, max: 200n },
      { min: 325n, max: 325n },
    ],
  });
  t.regex((parseRange('1.555', base, 'decimal64', 2) as { error: string }).error, /more than 2 fraction digits/);
  t.regex((parseRange('1..2', base, 'decimal64') as { error: string }).error, /fraction-digits/);
  // The full decimal64 range at 18 fraction digits is about ±9.22.
  t.regex(
    (parseRange('-10..10', builtinRange('decimal64', 18)!, 'decimal64', 18) as { error: string }).error,
    /not within the base range -9\.223372036854775808\.\.9\.223372036854775807/,
  );
  t.is(formatRange([{ min: -150n, max: 200n }], 'decimal64', 2), '-1.5..2.0');
});

test('parseLength handles max as Infinity, narrows a base and rejects bad parts', (t) => {
  t.deepEqual(parseLength('1..max', FULL_LENGTH), { intervals: [{ min: 1, max: Infinity }] });
  t.deepEqual(parseLength('0 | 2..4 | 8', FULL_LENGTH), {
    intervals: [
      { min: 0, max: 0 },
      { min: 2, max: 4 },
      { min: 8, max: 8 },
    ],
  });
  const base = (parseLength('1..253', FULL_LENGTH) as { intervals: never[] }).intervals;
  t.deepEqual(parseLength('min..max', base), { intervals: [{ min: 1, max: 253 }] });
  t.regex((parseLength('0..10', base) as { error: string }).error, /"0\.\.10" is not within the base length 1\.\.253/);
  t.regex((parseLength('-1..3', FULL_LENGTH) as { error: string }).error, /not a non-negative integer/);
  t.regex((parseLength('4..2', FULL_LENGTH) as { error: string }).error, /lower bound above/);
  t.regex((parseLength('1..5 | 3', FULL_LENGTH) as { error: string }).error, /not above/);
  t.deepEqual(parseLength('0..18446744073709551615', FULL_LENGTH), { intervals: [{ min: 0, max: Infinity }] });
});

test('decimal parsing and canonical formatting follow RFC 7950 §9.3.2', (t) => {
  t.deepEqual(parseDecimal('1.50', 2), { value: 150n });
  t.deepEqual(parseDecimal('1.500', 2), { value: 150n }); // zeros past fraction-digits are harmless
  t.deepEqual(parseDecimal('-0.05', 2), { value: -5n });
  t.deepEqual(parseDecimal('+007', 3), { value: 7000n });
  t.true('error' in parseDecimal('.5', 2));
  t.true('error' in parseDecimal('1.', 2));
  t.true('error' in parseDecimal('1e3', 2));
  t.true('error' in parseDecimal('1.505', 2));
  t.is(formatDecimal(150n, 2), '1.5');
  t.is(formatDecimal(300n, 2), '3.0');
  t.is(formatDecimal(-5n, 2), '-0.05');
  t.is(formatDecimal(0n, 3), '0.0');
  t.is(formatDecimal(-9223372036854775808n, 18), '-9.223372036854775808');
});
