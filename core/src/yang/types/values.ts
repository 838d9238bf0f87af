/**
 * The value API the data codecs, the URI parser and the compiler (for `default` statements) call for
 * every leaf: parse a JSON (RFC 7951) or lexical/XML (RFC 7950) value of a YANG type into its
 * canonical `LeafValue`, render a value back in either form, and order values for sorting.
 * The per-type work is compiled once and cached (see `codecs.ts`).
 */
import type { LeafValue } from '../instance-tree';
import type { SchemaContext, YangType } from '../schema';
import { canonicalText, codecFor, textOf, type ValueResult } from './codecs';

export type { ValueResult } from './codecs';

/**
 * Parses a value in its RFC 7951 JSON representation: int8..int32 and uint8..uint32 as JSON numbers,
 * int64/uint64/decimal64 as strings, `empty` as `[null]`, identityref as `module:identity` (the simple
 * form means an identity of `leafModule`), union as the first member type that accepts the JSON value.
 * Every range, length and pattern of the type is checked; a failure carries the model's
 * error-message and error-app-tag when the restriction declares them.
 */
export function valueFromJson(type: YangType, raw: unknown, ctx: SchemaContext, leafModule: string): ValueResult {
  return codecFor(type).json(raw, ctx, leafModule);
}

/**
 * Parses a value in its lexical form (XML content, URI keys, `default` statements). `resolvePrefix`
 * maps a prefix written in the value (identityref, instance-identifier) to a module name: an XML
 * namespace prefix, a YANG module prefix, or in URIs the module name itself.
 */
export function valueFromText(
  type: YangType,
  text: string,
  ctx: SchemaContext,
  resolvePrefix: (prefix: string) => string | undefined,
  leafModule: string,
): ValueResult {
  return codecFor(type).text(text, ctx, resolvePrefix, leafModule);
}

/** The RFC 7951 JSON representation of a canonical value. */
export function valueToJson(type: YangType, value: LeafValue): string | number | boolean | [null] {
  if (value === null) return [null];
  if (typeof value === 'bigint') return value.toString();
  // A number kept for an int64/uint64 leaf (a value built by hand) still goes out as a string.
  if (typeof value === 'number' && (type.builtin === 'int64' || type.builtin === 'uint64')) return String(value);
  return value;
}

/**
 * The canonical lexical form of a value. Identities and instance-identifiers use `prefixFor(module)`
 * as their prefixes when it is given (XML), else module names (`module:name`).
 */
export function valueToText(type: YangType, value: LeafValue, prefixFor?: (module: string) => string): string {
  return prefixFor ? textOf(type, value, prefixFor) : canonicalText(value);
}

// ---------------------------------------------------------------------------------------------------
// Ordering

/** Canonical decimal64 text; the only string-held values that order as numbers. */
const DECIMAL_VALUE = /^-?[0-9]+\.[0-9]+$/;

function rank(v: LeafValue | undefined): number {
  if (v === undefined) return 0;
  if (v === null) return 1;
  if (typeof v === 'boolean') return 2;
  if (typeof v === 'number' || typeof v === 'bigint') return 3;
  return DECIMAL_VALUE.test(v) ? 3 : 4;
}

/** A numeric value as an exact scaled integer: value = mantissa / 10^scale. */
function scaled(v: number | bigint | string): { mantissa: bigint; scale: number } {
  if (typeof v === 'bigint') return { mantissa: v, scale: 0 };
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) return { mantissa: BigInt(v), scale: 0 };
    v = String(v);
    if (!DECIMAL_VALUE.test(v)) return { mantissa: 0n, scale: 0 }; // NaN/exponent forms: not produced by codecs
  }
  const dot = v.indexOf('.');
  if (dot < 0) return { mantissa: BigInt(v), scale: 0 };
  return { mantissa: BigInt(v.slice(0, dot) + v.slice(dot + 1)), scale: v.length - dot - 1 };
}

function compareNumeric(a: number | bigint | string, b: number | bigint | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  const x = scaled(a);
  const y = scaled(b);
  const scale = Math.max(x.scale, y.scale);
  const xm = x.mantissa * 10n ** BigInt(scale - x.scale);
  const ym = y.mantissa * 10n ** BigInt(scale - y.scale);
  return xm < ym ? -1 : xm > ym ? 1 : 0;
}

/**
 * A total order on leaf values for sorting list keys and `sortby`: no value, then empty, then
 * booleans (false first), then numbers (integers and decimal64 compared exactly), then strings in
 * code unit order. decimal64 values are held as strings, so a string in canonical decimal form
 * (`-1.5`) is ordered as a number.
 */
export function compareValues(a: LeafValue | undefined, b: LeafValue | undefined): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 2:
      return a === b ? 0 : a ? 1 : -1;
    case 3:
      return compareNumeric(a as number | bigint | string, b as number | bigint | string);
    case 4:
      return (a as string) < (b as string) ? -1 : (a as string) > (b as string) ? 1 : 0;
    default:
      return 0;
  }
}
