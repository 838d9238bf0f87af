/**
 * Range and length restrictions (RFC 7950 §9.2.4, §9.3.4, §9.4.4): the full range of each numeric
 * built-in type, and the parsers for `range` and `length` arguments that the compiler calls while it
 * walks a typedef chain. A derived restriction must be equally or more limiting than its base, so each
 * parser takes the base's intervals, resolves `min`/`max` against them and rejects any part that
 * reaches outside them.
 *
 * Integers are exact bigints; decimal64 bounds are scaled by 10^fraction-digits (1.5 with 2 fraction
 * digits is 150n), so one interval type serves both.
 */
import type { BuiltinTypeName, LengthInterval, RangeInterval } from '../schema';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const INTEGER_RANGES: Readonly<Record<string, RangeInterval>> = {
  int8: { min: -128n, max: 127n },
  int16: { min: -32768n, max: 32767n },
  int32: { min: -2147483648n, max: 2147483647n },
  int64: { min: INT64_MIN, max: INT64_MAX },
  uint8: { min: 0n, max: 255n },
  uint16: { min: 0n, max: 65535n },
  uint32: { min: 0n, max: 4294967295n },
  uint64: { min: 0n, max: 2n ** 64n - 1n },
};

/** The length every string and binary value may have before any restriction. */
export const FULL_LENGTH: readonly LengthInterval[] = Object.freeze([{ min: 0, max: Infinity }]);

/** True for the built-in types a `range` statement may restrict. */
export function isNumericBuiltin(builtin: BuiltinTypeName): boolean {
  return builtin === 'decimal64' || builtin in INTEGER_RANGES;
}

/**
 * The full value range of a numeric built-in type: int8..uint64 as exact bigints, decimal64 as its
 * int64 mantissa (which is the value scaled by 10^fraction-digits, whatever fraction-digits is).
 * Undefined for non-numeric types.
 */
export function builtinRange(builtin: BuiltinTypeName, fractionDigits?: number): RangeInterval[] | undefined {
  void fractionDigits; // the scaled decimal64 range is the int64 range for every fraction-digits
  if (builtin === 'decimal64') return [{ min: INT64_MIN, max: INT64_MAX }];
  const r = INTEGER_RANGES[builtin];
  return r ? [r] : undefined;
}

// ---------------------------------------------------------------------------------------------------
// Numbers as written in range arguments and values

const INTEGER_TEXT = /^[+-]?[0-9]+$/;
const DECIMAL_TEXT = /^([+-]?)([0-9]+)(?:\.([0-9]+))?$/;

/**
 * Parses a decimal64 lexical value to its mantissa scaled by 10^fractionDigits. Rejects more
 * significant fraction digits than the type allows (as libyang does), a missing integer or fraction
 * part (`.5`, `1.`) and exponent notation.
 */
export function parseDecimal(text: string, fractionDigits: number): { value: bigint } | { error: string } {
  const m = DECIMAL_TEXT.exec(text);
  if (!m) return { error: `"${clip(text)}" is not a decimal number` };
  let frac = m[3] ?? '';
  // Zeros past fraction-digits change nothing; libyang accepts `1.500` for two fraction digits.
  if (frac.length > fractionDigits) frac = frac.replace(/0+$/, '');
  if (frac.length > fractionDigits) {
    return { error: `"${clip(text)}" has more than ${fractionDigits} fraction digits` };
  }
  const digits = m[2]! + frac.padEnd(fractionDigits, '0');
  const value = BigInt(digits);
  return { value: m[1] === '-' ? -value : value };
}

/** Renders a scaled decimal64 mantissa canonically: no leading zeros, no trailing zeros, at least `.0`. */
export function formatDecimal(scaled: bigint, fractionDigits: number): string {
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(fractionDigits + 1, '0');
  const intPart = digits.slice(0, digits.length - fractionDigits);
  let frac = digits.slice(digits.length - fractionDigits).replace(/0+$/, '');
  if (frac === '') frac = '0';
  return `${negative ? '-' : ''}${intPart}.${frac}`;
}

/** A range bound as the model writes it, for messages: integers plain, decimal64 unscaled. */
function formatRangeBound(value: bigint, builtin: BuiltinTypeName, fractionDigits?: number): string {
  return builtin === 'decimal64' ? formatDecimal(value, fractionDigits ?? 0) : value.toString();
}

/** Intervals as the model would write them: `1..10 | 20`. */
export function formatRange(intervals: readonly RangeInterval[], builtin: BuiltinTypeName, fractionDigits?: number): string {
  return intervals
    .map((i) => {
      const lo = formatRangeBound(i.min, builtin, fractionDigits);
      return i.min === i.max ? lo : `${lo}..${formatRangeBound(i.max, builtin, fractionDigits)}`;
    })
    .join(' | ');
}

/** Length intervals as the model would write them; an unbounded end prints as `max`. */
export function formatLength(intervals: readonly LengthInterval[]): string {
  const n = (v: number): string => (v === Infinity ? 'max' : String(v));
  return intervals.map((i) => (i.min === i.max ? n(i.min) : `${n(i.min)}..${n(i.max)}`)).join(' | ');
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}

// ---------------------------------------------------------------------------------------------------
// The shared shape of range and length arguments: parts separated by `|`, each `a` or `a..b`

interface Bounds<T> {
  readonly min: T;
  readonly max: T;
}

/**
 * Splits `1..10 | 20 | 30..max` into parts, converts each bound with `parseBound`, and checks the
 * rules both statements share: each part ordered, parts ascending and disjoint, each inside one base
 * interval (the base intervals are themselves disjoint, so a part spanning two would admit a gap).
 */
function parseIntervals<T extends bigint | number>(
  expr: string,
  base: readonly Bounds<T>[],
  parseBound: (text: string) => T | { error: string },
  show: (value: T) => string,
  what: 'range' | 'length',
): { intervals: Bounds<T>[] } | { error: string } {
  if (base.length === 0) return { error: `${what} "${clip(expr)}" restricts a type that admits no values` };
  const lowest = base[0]!.min;
  const highest = base[base.length - 1]!.max;
  const intervals: Bounds<T>[] = [];
  for (const rawPart of expr.split('|')) {
    const part = rawPart.trim();
    if (part === '') return { error: `${what} "${clip(expr)}" has an empty part` };
    const dots = part.indexOf('..');
    const loText = (dots < 0 ? part : part.slice(0, dots)).trim();
    const hiText = dots < 0 ? loText : part.slice(dots + 2).trim();
    const bound = (text: string): T | { error: string } => (text === 'min' ? lowest : text === 'max' ? highest : parseBound(text));
    const lo = bound(loText);
    if (typeof lo === 'object') return { error: `${what} part "${clip(part)}": ${lo.error}` };
    const hi = bound(hiText);
    if (typeof hi === 'object') return { error: `${what} part "${clip(part)}": ${hi.error}` };
    if (lo > hi) return { error: `${what} part "${clip(part)}" has its lower bound above its upper bound` };
    const prev = intervals[intervals.length - 1];
    if (prev && lo <= prev.max) {
      return { error: `${what} part "${clip(part)}" is not above the previous part (parts must be ascending and disjoint)` };
    }
    if (!base.some((b) => b.min <= lo && hi <= b.max)) {
      const baseText = base.map((b) => (b.min === b.max ? show(b.min) : `${show(b.min)}..${show(b.max)}`)).join(' | ');
      return { error: `${what} part "${clip(part)}" is not within the base ${what} ${baseText}` };
    }
    intervals.push({ min: lo, max: hi });
  }
  return { intervals };
}

/**
 * Parses a `range` argument (RFC 7950 §9.2.4) against the base range (the parent type's range, or
 * `builtinRange` for a built-in). `min`/`max` mean the base's lowest and highest values; decimal64
 * bounds may carry at most `fractionDigits` fraction digits.
 */
export function parseRange(
  expr: string,
  base: readonly RangeInterval[],
  builtin: BuiltinTypeName,
  fractionDigits?: number,
): { intervals: RangeInterval[] } | { error: string } {
  if (!isNumericBuiltin(builtin)) return { error: `a range cannot restrict type ${builtin}` };
  const isDecimal = builtin === 'decimal64';
  if (isDecimal && (fractionDigits === undefined || fractionDigits < 1 || fractionDigits > 18)) {
    return { error: 'a decimal64 range needs fraction-digits between 1 and 18' };
  }
  const parseBound = (text: string): bigint | { error: string } => {
    if (isDecimal) {
      const d = parseDecimal(text, fractionDigits!);
      return 'error' in d ? d : d.value;
    }
    if (!INTEGER_TEXT.test(text)) return { error: `"${clip(text)}" is not an integer` };
    return BigInt(text);
  };
  return parseIntervals<bigint>(expr, base, parseBound, (v) => formatRangeBound(v, builtin, fractionDigits), 'range');
}

/**
 * Parses a `length` argument (RFC 7950 §9.4.4) against the base length (`FULL_LENGTH` for string and
 * binary). Bounds are non-negative integers; `max` of an unrestricted base is Infinity.
 */
export function parseLength(expr: string, base: readonly LengthInterval[]): { intervals: LengthInterval[] } | { error: string } {
  const parseBound = (text: string): number | { error: string } => {
    if (!/^\+?[0-9]+$/.test(text)) return { error: `"${clip(text)}" is not a non-negative integer` };
    const n = Number(text);
    // Lengths beyond 2^53 cannot be told apart as numbers; no real value is that long.
    return Number.isSafeInteger(n) ? n : Infinity;
  };
  return parseIntervals<number>(expr, base, parseBound, (v) => (v === Infinity ? 'max' : String(v)), 'length');
}

/** True when `value` lies in one of the intervals (which are ascending). */
export function inRange(value: bigint, intervals: readonly RangeInterval[]): boolean {
  for (const i of intervals) {
    if (value < i.min) return false;
    if (value <= i.max) return true;
  }
  return false;
}

/** True when `length` lies in one of the intervals. */
export function inLength(length: number, intervals: readonly LengthInterval[]): boolean {
  for (const i of intervals) {
    if (length < i.min) return false;
    if (length <= i.max) return true;
  }
  return false;
}

// The compiler reaches pattern translation through this module too (see compiler/types.ts).
export { translatePattern } from './xsd-regex';
