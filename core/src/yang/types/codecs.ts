/**
 * Per-type value codecs: for each resolved YangType, one small object that turns a JSON value
 * (RFC 7951) or a lexical/XML text (RFC 7950 §9) into the canonical `LeafValue`, checking every
 * restriction of the type on the way. A codec is compiled once per YangType and cached in a WeakMap,
 * so the per-value cost is one map lookup and the checks the type really has.
 *
 * Why this file is longer than 400 lines: it holds one codec per built-in type (integers, decimal64,
 * string, boolean, empty, enumeration, bits, binary, identityref, instance-identifier, union, leafref),
 * each small, all sharing the result and failure helpers at the top.
 */
import type { LeafValue } from '../instance-tree';
import type { PatternRestriction, RestrictionError, SchemaContext, YangType } from '../schema';
import { holdsNonXmlCharacter, nonXmlCharacterMessage } from './characters';
import { detached } from './detached';
import { linearMatcher } from './xsd-nfa';
import { nativeIsSafe, SHORT_VALUE } from './xsd-regex';
import { instanceIdentifierToXml, parseInstanceIdentifier, resolveInstanceIdentifier } from './instance-identifier';
import { builtinRange, formatDecimal, formatLength, formatRange, inLength, inRange, parseDecimal } from './restrictions';

/** The outcome of parsing one value: the canonical value, or why it was refused. */
export type ValueResult = { ok: true; value: LeafValue } | { ok: false; message: string; appTag?: string };

export type PrefixResolver = (prefix: string) => string | undefined;

/** What `jsonValue`/`textValue` return for a value the type refuses (`json`/`text` then say why). */
export const INVALID: unique symbol = Symbol('invalid value');

/** A canonical value, or {@link INVALID}. */
export type FastValue = LeafValue | typeof INVALID;

/** What a compiled codec can do. Both parsers return canonical values. */
export interface Codec {
  json(raw: unknown, ctx: SchemaContext, leafModule: string): ValueResult;
  text(text: string, ctx: SchemaContext, resolvePrefix: PrefixResolver, leafModule: string): ValueResult;
  /**
   * As `json`, returning the bare value or INVALID: no result object per value, for the decoders'
   * hot path (a 100,000-entry list would otherwise allocate one per leaf). Call `json` for the reason.
   */
  jsonValue(raw: unknown, ctx: SchemaContext, leafModule: string): FastValue;
  /**
   * As `text`, returning the bare value or INVALID (see `jsonValue`). `resolvePrefix` must answer the
   * same for a prefix every time it is passed (its answers may be remembered with it).
   */
  textValue(text: string, ctx: SchemaContext, resolvePrefix: PrefixResolver, leafModule: string): FastValue;
  /** True when a canonical value could have come from this type (no schema context needed). */
  accepts(value: LeafValue): boolean;
}

/** A codec as each type compiles it: the fast paths are optional (derived from `json`/`text` when absent). */
type CodecParts = Omit<Codec, 'jsonValue' | 'textValue'> & Partial<Pick<Codec, 'jsonValue' | 'textValue'>>;

function complete(parts: CodecParts): Codec {
  const { json, text } = parts;
  return {
    json,
    text,
    accepts: parts.accepts,
    jsonValue:
      parts.jsonValue ??
      ((raw, ctx, leafModule) => {
        const r = json(raw, ctx, leafModule);
        return r.ok ? r.value : INVALID;
      }),
    textValue:
      parts.textValue ??
      ((t, ctx, resolvePrefix, leafModule) => {
        const r = text(t, ctx, resolvePrefix, leafModule);
        return r.ok ? r.value : INVALID;
      }),
  };
}

const codecs = new WeakMap<YangType, Codec>();

/** The codec of a type, compiled on first use. */
export function codecFor(type: YangType): Codec {
  let codec = codecs.get(type);
  if (!codec) {
    codec = compile(type, 0);
    codecs.set(type, codec);
  }
  return codec;
}

// ---------------------------------------------------------------------------------------------------
// Messages

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}...` : value);
  if (typeof value === 'bigint') return value.toString();
  try {
    const s = JSON.stringify(value);
    if (s === undefined) return String(value);
    return s.length > 80 ? `${s.slice(0, 80)}...` : s;
  } catch {
    // Writing out a value nested thousands deep overflows the stack (so would String(value)): name its kind.
    return Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : typeof value;
  }
}

function fail(message: string): ValueResult {
  return { ok: false, message };
}

/** A restriction failure: the model's own error-message/app-tag when it gives them. */
function restrictionFail(r: RestrictionError | undefined, message: string): ValueResult {
  const result: { ok: false; message: string; appTag?: string } = { ok: false, message: r?.errorMessage ?? message };
  if (r?.errorAppTag !== undefined) result.appTag = r.errorAppTag;
  return result;
}

function ok(value: LeafValue): ValueResult {
  return { ok: true, value };
}

/** A string holding a character no YANG string may hold (characters.ts). */
function nonXmlFail(s: string): ValueResult {
  return fail(`value ${show(s)} is refused: ${nonXmlCharacterMessage(s)}`);
}

/** Text kept as given, refused only for characters no YANG string may hold. */
function freeText(s: string): ValueResult {
  return holdsNonXmlCharacter(s) ? nonXmlFail(s) : ok(s);
}

/** XML and URI text of numbers may carry surrounding whitespace (XSD whitespace collapse). */
function trimXmlSpace(text: string): string {
  // Checked by character first: this runs for every numeric and identity value read from XML.
  const n = text.length;
  if (n === 0 || (!isXmlSpace(text.charCodeAt(0)) && !isXmlSpace(text.charCodeAt(n - 1)))) return text;
  return text.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
}

function isXmlSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

// ---------------------------------------------------------------------------------------------------
// Compilation per built-in type

function compile(type: YangType, depth: number): Codec {
  return complete(compileParts(type, depth));
}

function compileParts(type: YangType, depth: number): CodecParts {
  switch (type.builtin) {
    case 'int8':
    case 'int16':
    case 'int32':
    case 'uint8':
    case 'uint16':
    case 'uint32':
      return smallIntegerCodec(type);
    case 'int64':
    case 'uint64':
      return bigIntegerCodec(type);
    case 'decimal64':
      return decimalCodec(type);
    case 'string':
      return stringCodec(type);
    case 'boolean':
      return booleanCodec;
    case 'empty':
      return emptyCodec;
    case 'binary':
      return binaryCodec(type);
    case 'enumeration':
      return enumerationCodec(type);
    case 'bits':
      return bitsCodec(type);
    case 'identityref':
      return identityrefCodec(type);
    case 'instance-identifier':
      return instanceIdentifierCodec;
    case 'union':
      return unionCodec(type, depth);
    case 'leafref':
      return leafrefCodec(type, depth);
  }
}

const INTEGER_TEXT = /^[+-]?[0-9]+$/;

function smallIntegerCodec(type: YangType): CodecParts {
  const intervals = type.range?.intervals ?? builtinRange(type.builtin)!;
  // Every bound of these types fits a double exactly, so the hot path compares numbers.
  const bounds = intervals.map((i) => [Number(i.min), Number(i.max)] as const);
  const single = bounds.length === 1 ? bounds[0]! : undefined;
  const rangeText = formatRange(intervals, type.builtin);
  const inBounds = (n: number): boolean => (single ? n >= single[0] && n <= single[1] : bounds.some(([lo, hi]) => n >= lo && n <= hi));
  const check = (n: number): ValueResult => {
    if (inBounds(n)) return ok(n === 0 ? 0 : n);
    return restrictionFail(type.range, `value ${n} is out of range ${rangeText}`);
  };
  return {
    jsonValue: (raw) => (typeof raw === 'number' && Number.isInteger(raw) && inBounds(raw) ? (raw === 0 ? 0 : raw) : INVALID),
    json(raw) {
      if (typeof raw !== 'number') return fail(`value ${show(raw)} is not a JSON number (${type.builtin} is encoded as a number)`);
      if (!Number.isInteger(raw)) return fail(`value ${show(raw)} is not an integer`);
      return check(raw);
    },
    text(text) {
      const t = trimXmlSpace(text);
      if (!INTEGER_TEXT.test(t)) return fail(`value ${show(text)} is not a valid ${type.builtin}`);
      const n = Number(t);
      if (!Number.isSafeInteger(n)) return restrictionFail(type.range, `value ${t} is out of range ${rangeText}`);
      return check(n);
    },
    accepts: (v) => typeof v === 'number' && Number.isInteger(v) && bounds.some(([lo, hi]) => v >= lo && v <= hi),
  };
}

function bigIntegerCodec(type: YangType): CodecParts {
  const intervals = type.range?.intervals ?? builtinRange(type.builtin)!;
  const rangeText = formatRange(intervals, type.builtin);
  const parse = (text: string, shown: string): ValueResult => {
    const t = trimXmlSpace(text);
    if (!INTEGER_TEXT.test(t)) return fail(`value ${shown} is not a valid ${type.builtin}`);
    const n = BigInt(t);
    if (!inRange(n, intervals)) return restrictionFail(type.range, `value ${n} is out of range ${rangeText}`);
    return ok(n);
  };
  return {
    json(raw) {
      if (typeof raw !== 'string') return fail(`value ${show(raw)} is not a JSON string (${type.builtin} is encoded as a string)`);
      return parse(raw, show(raw));
    },
    text: (text) => parse(text, show(text)),
    accepts: (v) => typeof v === 'bigint' && inRange(v, intervals),
  };
}

function decimalCodec(type: YangType): CodecParts {
  const fd = type.fractionDigits;
  const intervals = type.range?.intervals ?? builtinRange('decimal64', fd)!;
  const rangeText = formatRange(intervals, 'decimal64', fd);
  const parse = (text: string): ValueResult => {
    if (fd === undefined) return fail(`type ${type.name} has no fraction-digits`);
    const d = parseDecimal(trimXmlSpace(text), fd);
    if ('error' in d) return fail(`value ${d.error}`);
    const canonical = formatDecimal(d.value, fd);
    if (!inRange(d.value, intervals)) return restrictionFail(type.range, `value ${canonical} is out of range ${rangeText}`);
    return ok(canonical);
  };
  return {
    json(raw) {
      if (typeof raw !== 'string') return fail(`value ${show(raw)} is not a JSON string (decimal64 is encoded as a string)`);
      return parse(raw);
    },
    text: parse,
    accepts: (v) =>
      typeof v === 'string' &&
      fd !== undefined &&
      (() => {
        const d = parseDecimal(v, fd);
        return 'value' in d && inRange(d.value, intervals);
      })(),
  };
}

/** Number of Unicode characters (code points), which is what a string's length restriction counts. */
function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) n--;
  }
  return n;
}

/**
 * Whether a pattern matches the whole value, in time linear in the value's length. V8's backtracking
 * RegExp is 1.5 to 2.5 times faster than the linear-time matcher's DFA on short values (27 to 52 ns
 * against 56 to 76 ns for ipv4-address, domain-name, MAC addresses), so it serves values of up to
 * SHORT_VALUE characters for the patterns where it cannot backtrack catastrophically (nativeIsSafe);
 * long values (some real patterns are quadratic on them) and the other patterns (a model downloaded
 * from a device may hold `(a+)+b`) go to the linear-time matcher.
 */
export function patternMatches(p: PatternRestriction, s: string): boolean {
  if (s.length <= SHORT_VALUE && nativeIsSafe(p.source)) return p.regex.test(s);
  const linear = linearMatcher(p.source);
  return linear ? linear(s) : p.regex.test(s);
}

function checkPatterns(patterns: readonly PatternRestriction[], s: string): ValueResult | undefined {
  for (const p of patterns) {
    if (patternMatches(p, s) === p.inverted) {
      return restrictionFail(
        p,
        p.inverted
          ? `value ${show(s)} matches the inverted pattern ${show(p.source)}`
          : `value ${show(s)} does not match pattern ${show(p.source)}`,
      );
    }
  }
  return undefined;
}

function stringCodec(type: YangType): CodecParts {
  const length = type.length;
  const patterns = type.patterns;
  const lengthText = length ? formatLength(length.intervals) : '';
  const restricted = length !== undefined || patterns.length > 0;
  const valid = (s: string): boolean => {
    if (length && !inLength(codePointLength(s), length.intervals)) return false;
    for (const p of patterns) if (patternMatches(p, s) === p.inverted) return false;
    return true;
  };
  const check = (s: string): ValueResult => {
    if (holdsNonXmlCharacter(s)) return nonXmlFail(s);
    if (length) {
      const n = codePointLength(s);
      if (!inLength(n, length.intervals)) {
        return restrictionFail(length, `length ${n} of value ${show(s)} is outside the allowed length ${lengthText}`);
      }
    }
    return (patterns.length > 0 && checkPatterns(patterns, s)) || ok(s);
  };
  return {
    json(raw) {
      if (typeof raw !== 'string') return fail(`value ${show(raw)} is not a JSON string`);
      return check(raw);
    },
    text: check,
    jsonValue: (raw) => (typeof raw !== 'string' || holdsNonXmlCharacter(raw) ? INVALID : !restricted || valid(raw) ? raw : INVALID),
    textValue: (text) => (holdsNonXmlCharacter(text) ? INVALID : !restricted || valid(text) ? text : INVALID),
    accepts: (v) => typeof v === 'string' && check(v).ok,
  };
}

// Shared results: a boolean value needs no allocation per leaf.
const TRUE = ok(true);
const FALSE = ok(false);

const booleanCodec: CodecParts = {
  json(raw) {
    return raw === true ? TRUE : raw === false ? FALSE : fail(`value ${show(raw)} is not a JSON boolean`);
  },
  text(text) {
    return text === 'true' ? TRUE : text === 'false' ? FALSE : fail(`value ${show(text)} is not a boolean (true or false)`);
  },
  jsonValue: (raw) => (raw === true || raw === false ? raw : INVALID),
  textValue: (text) => (text === 'true' ? true : text === 'false' ? false : INVALID),
  accepts: (v) => typeof v === 'boolean',
};

const emptyCodec: CodecParts = {
  json(raw) {
    return Array.isArray(raw) && raw.length === 1 && raw[0] === null
      ? ok(null)
      : fail(`value ${show(raw)} of an empty leaf must be [null]`);
  },
  text(text) {
    return trimXmlSpace(text) === '' ? ok(null) : fail(`value ${show(text)} of an empty leaf must have no content`);
  },
  accepts: (v) => v === null,
};

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function binaryCodec(type: YangType): CodecParts {
  const length = type.length;
  const lengthText = length ? formatLength(length.intervals) : '';
  const check = (s: string, shown: string): ValueResult => {
    if (!BASE64.test(s)) return fail(`value ${shown} is not valid base64`);
    if (length) {
      const octets = (s.length / 4) * 3 - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);
      if (!inLength(octets, length.intervals)) {
        return restrictionFail(length, `binary value of ${octets} octets is outside the allowed length ${lengthText}`);
      }
    }
    return ok(s);
  };
  return {
    json(raw) {
      if (typeof raw !== 'string') return fail(`value ${show(raw)} is not a JSON string (binary is base64 text)`);
      return check(raw, show(raw));
    },
    // Devices line-wrap base64 in XML; the line breaks carry no data.
    text: (text) => check(text.replace(/[ \t\r\n]+/g, ''), show(text)),
    accepts: (v) => typeof v === 'string' && check(v, '').ok,
  };
}

function listNames(names: readonly string[]): string {
  return names.length <= 12 ? names.join(', ') : `${names.slice(0, 12).join(', ')}, ...`;
}

function enumerationCodec(type: YangType): CodecParts {
  const names = new Set((type.enums ?? []).map((e) => e.name));
  const allowed = listNames([...names]);
  const check = (s: string): ValueResult =>
    names.has(s) ? ok(s) : fail(`value ${show(s)} is not one of the enumeration's names (${allowed})`);
  return {
    json(raw) {
      if (typeof raw !== 'string') return fail(`value ${show(raw)} is not a JSON string (an enumeration is encoded by name)`);
      return check(raw);
    },
    text: check,
    jsonValue: (raw) => (typeof raw === 'string' && names.has(raw) ? raw : INVALID),
    textValue: (text) => (names.has(text) ? text : INVALID),
    accepts: (v) => typeof v === 'string' && names.has(v),
  };
}

function bitsCodec(type: YangType): CodecParts {
  const positions = new Map((type.bits ?? []).map((b) => [b.name, b.position]));
  const check = (s: string): ValueResult => {
    const words = s.split(/[ \t\r\n]+/);
    const set: Array<{ name: string; position: number }> = [];
    const seen = new Set<string>();
    for (const w of words) {
      if (w === '') continue;
      const position = positions.get(w);
      if (position === undefined) return fail(`bit ${show(w)} is not defined (bits: ${listNames([...positions.keys()])})`);
      if (seen.has(w)) return fail(`bit ${show(w)} is set twice`);
      seen.add(w);
      set.push({ name: w, position });
    }
    set.sort((a, b) => a.position - b.position);
    return ok(set.map((b) => b.name).join(' '));
  };
  return {
    json(raw) {
      if (typeof raw !== 'string') return fail(`value ${show(raw)} is not a JSON string (bits are space-separated names)`);
      return check(raw);
    },
    text: check,
    accepts: (v) => typeof v === 'string' && check(v).ok,
  };
}

function identityrefCodec(type: YangType): CodecParts {
  const bases = type.identityBases ?? [];
  const basesText = bases.map((b) => `${b.module.name}:${b.name}`).join(', ');
  const check = (module: string | undefined, name: string, written: string, ctx: SchemaContext): ValueResult => {
    if (module === undefined) return fail(`identity ${show(written)} has an unknown prefix`);
    const defining = ctx.modules.get(module);
    const identity = defining?.identities.get(name);
    if (!identity) return fail(`identity ${show(`${module}:${name}`)} is not defined`);
    // As libyang: an identity of a module that is only imported is not a value the server knows.
    if (!defining!.implemented) return fail(`identity ${show(`${module}:${name}`)} is in module ${module}, which is not implemented`);
    for (const base of bases) {
      if (!base.derived.has(identity)) return fail(`identity ${show(`${module}:${name}`)} is not derived from ${basesText}`);
    }
    // detached: the value is kept in trees and in the caches below, `name` may be cut from a document
    return ok(detached(`${module}:${name}`));
  };
  // Accepted values by how they were written (`module:identity`), per schema context: a list of
  // 100,000 interfaces names a handful of identities, so each is checked once and every entry shares
  // one result and one string. Only accepted values are kept, so the cache is bounded by the identities.
  type Accepted = Map<string, Map<string, ValueResult>>; // module -> identity -> result
  const accepted = new WeakMap<SchemaContext, Accepted>();
  let lastCtx: SchemaContext | undefined;
  let lastAccepted: Accepted | undefined;
  const acceptedIn = (ctx: SchemaContext): Accepted => {
    if (ctx === lastCtx) return lastAccepted!;
    let map = accepted.get(ctx);
    if (map === undefined) accepted.set(ctx, (map = new Map()));
    lastCtx = ctx;
    lastAccepted = map;
    return map;
  };
  const checkQualified = (module: string | undefined, name: string, written: string, ctx: SchemaContext): ValueResult => {
    if (module === undefined) return check(module, name, written, ctx);
    const cache = acceptedIn(ctx);
    let byName = cache.get(module);
    const hit = byName?.get(name);
    if (hit !== undefined) return hit;
    const r = check(module, name, written, ctx);
    if (r.ok) {
      if (byName === undefined) cache.set(detached(module), (byName = new Map()));
      byName.set(detached(name), r);
    }
    return r;
  };
  const json = (raw: unknown, ctx: SchemaContext, leafModule: string): ValueResult => {
    if (typeof raw !== 'string') return fail(`value ${show(raw)} is not a JSON string (an identityref is "module:identity")`);
    const colon = raw.indexOf(':');
    // RFC 7951 §6.8: the simple form names an identity of the leaf's own module.
    return colon < 0 ? check(leafModule, raw, raw, ctx) : checkQualified(raw.slice(0, colon), raw.slice(colon + 1), raw, ctx);
  };
  const text = (written: string, ctx: SchemaContext, resolvePrefix: PrefixResolver, leafModule: string): ValueResult => {
    const t = trimXmlSpace(written);
    const colon = t.indexOf(':');
    if (colon < 0) return checkQualified(resolvePrefix('') ?? leafModule, t, written, ctx);
    return checkQualified(resolvePrefix(t.slice(0, colon)), t.slice(colon + 1), written, ctx);
  };
  // Fast paths: accepted qualified JSON values by their text, per context (no slicing per value), and
  // the last XML text with the resolver and module it was read with (a list repeats one identity).
  const acceptedJson = new WeakMap<SchemaContext, Map<string, string>>();
  let lastJsonCtx: SchemaContext | undefined;
  let lastJson: Map<string, string> | undefined;
  let lastText: string | undefined;
  let lastTextCtx: SchemaContext | undefined;
  let lastResolver: PrefixResolver | undefined;
  let lastLeafModule: string | undefined;
  let lastTextValue: LeafValue = null;
  return {
    json,
    text,
    jsonValue(raw, ctx, leafModule) {
      if (typeof raw !== 'string') return INVALID;
      if (ctx !== lastJsonCtx) {
        lastJson = acceptedJson.get(ctx);
        if (lastJson === undefined) acceptedJson.set(ctx, (lastJson = new Map()));
        lastJsonCtx = ctx;
      }
      const hit = lastJson!.get(raw);
      if (hit !== undefined) return hit;
      const r = json(raw, ctx, leafModule);
      if (!r.ok) return INVALID;
      if (raw.includes(':')) lastJson!.set(raw, r.value as string); // the simple form depends on the leaf's module
      return r.value;
    },
    textValue(written, ctx, resolvePrefix, leafModule) {
      if (written === lastText && resolvePrefix === lastResolver && ctx === lastTextCtx && leafModule === lastLeafModule)
        return lastTextValue;
      const r = text(written, ctx, resolvePrefix, leafModule);
      if (!r.ok) return INVALID;
      lastText = detached(written);
      lastResolver = resolvePrefix;
      lastTextCtx = ctx;
      lastLeafModule = leafModule;
      lastTextValue = r.value;
      return r.value;
    },
    accepts: (v) => typeof v === 'string' && /^[A-Za-z_][\w.-]*:[A-Za-z_][\w.-]*$/.test(v),
  };
}

const moduleNameAsPrefix: PrefixResolver = (p) => p;

function parseInstanceIdentifierValue(
  text: string,
  ctx: SchemaContext,
  form: 'json' | 'xml',
  resolvePrefix: PrefixResolver,
  leafModule: string,
): ValueResult {
  const parsed = parseInstanceIdentifier(text);
  if ('error' in parsed) return fail(`instance-identifier ${show(text)} is invalid: ${parsed.error}`);
  const resolved = resolveInstanceIdentifier(parsed.steps, ctx, form, resolvePrefix, (node, valueText) => {
    const codec = codecFor(node.type);
    const r =
      form === 'json' ? codec.text(valueText, ctx, moduleNameAsPrefix, leafModule) : codec.text(valueText, ctx, resolvePrefix, leafModule);
    return r.ok ? { ok: true, value: r.value, text: canonicalText(r.value) } : r;
  });
  if ('error' in resolved) return fail(`instance-identifier ${show(text)} is invalid: ${resolved.error}`);
  return ok(resolved.value);
}

/** The canonical lexical form of a value, module-qualified where it names an identity. */
export function canonicalText(value: LeafValue): string {
  if (value === null) return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return String(value);
}

const instanceIdentifierCodec: CodecParts = {
  json(raw, ctx, leafModule) {
    if (typeof raw !== 'string') return fail(`value ${show(raw)} is not a JSON string (an instance-identifier is a path)`);
    return parseInstanceIdentifierValue(raw, ctx, 'json', moduleNameAsPrefix, leafModule);
  },
  text(text, ctx, resolvePrefix, leafModule) {
    return parseInstanceIdentifierValue(trimXmlSpace(text), ctx, 'xml', resolvePrefix, leafModule);
  },
  accepts: (v) => typeof v === 'string' && v.startsWith('/'),
};

export { instanceIdentifierToXml };

function unionCodec(type: YangType, depth: number): CodecParts {
  const members = (type.union ?? []).map((m) => (depth > 16 ? invalidCodec('union nested too deeply') : compileMember(m, depth + 1)));
  const combine = (results: ValueResult[], shown: string): ValueResult => {
    if (results.length === 1) return results[0]!;
    const reasons = results.map((r, i) => `${type.union![i]!.name}: ${r.ok ? '' : r.message}`).join('; ');
    return fail(`value ${shown} matches no member type of the union (${reasons})`);
  };
  return {
    json(raw, ctx, leafModule) {
      const failures: ValueResult[] = [];
      for (const m of members) {
        const r = m.json(raw, ctx, leafModule);
        if (r.ok) return r;
        failures.push(r);
      }
      return combine(failures, show(raw));
    },
    text(text, ctx, resolvePrefix, leafModule) {
      const failures: ValueResult[] = [];
      for (const m of members) {
        const r = m.text(text, ctx, resolvePrefix, leafModule);
        if (r.ok) return r;
        failures.push(r);
      }
      return combine(failures, show(text));
    },
    jsonValue(raw, ctx, leafModule) {
      for (const m of members) {
        const v = m.jsonValue(raw, ctx, leafModule);
        if (v !== INVALID) return v;
      }
      return INVALID;
    },
    textValue(text, ctx, resolvePrefix, leafModule) {
      for (const m of members) {
        const v = m.textValue(text, ctx, resolvePrefix, leafModule);
        if (v !== INVALID) return v;
      }
      return INVALID;
    },
    accepts: (v) => members.some((m) => m.accepts(v)),
  };
}

/** Union members are compiled with the union (and cached too, so a shared typedef compiles once). */
function compileMember(member: YangType, depth: number): Codec {
  let codec = codecs.get(member);
  if (!codec) {
    codec = compile(member, depth);
    codecs.set(member, codec);
  }
  return codec;
}

function invalidCodec(reason: string): Codec {
  return complete({ json: () => fail(reason), text: () => fail(reason), accepts: () => false });
}

/** A leafref whose target the compiler could not resolve: takes any scalar as it is. */
const unresolvedLeafrefCodec: CodecParts = {
  json(raw) {
    if (typeof raw === 'string') return freeText(raw);
    if (typeof raw === 'boolean' || (typeof raw === 'number' && Number.isFinite(raw))) return ok(raw);
    return fail(`value ${show(raw)} is not a scalar`);
  },
  text: freeText,
  accepts: (v) => v !== null,
};

function leafrefCodec(type: YangType, depth: number): CodecParts {
  // A leafref takes the type of its target, which may itself be a leafref: follow the chain,
  // refusing a cycle rather than recursing forever.
  let target: YangType = type;
  for (let hops = 0; target.builtin === 'leafref'; hops++) {
    const next = target.leafref?.target?.type;
    if (!next) return unresolvedLeafrefCodec;
    if (hops > 32) return invalidCodec(`leafref ${type.leafref?.path.source ?? type.name} forms a cycle`);
    target = next;
  }
  return compileMember(target, depth + 1);
}

/** The XML/lexical form of a canonical value of `type`, using prefixes where XML needs them. */
export function textOf(type: YangType, value: LeafValue, prefixFor: ((module: string) => string) | undefined): string {
  if (typeof value !== 'string' || prefixFor === undefined) return canonicalText(value);
  let t = type;
  for (let hops = 0; t.builtin === 'leafref' && t.leafref?.target && hops < 32; hops++) t = t.leafref.target.type;
  if (t.builtin === 'union') {
    const member = (t.union ?? []).find((m) => codecFor(m).accepts(value));
    return member ? textOf(member, value, prefixFor) : value;
  }
  if (t.builtin === 'identityref') {
    const colon = value.indexOf(':');
    return colon < 0 ? value : `${prefixFor(value.slice(0, colon))}:${value.slice(colon + 1)}`;
  }
  if (t.builtin === 'instance-identifier') return instanceIdentifierToXml(value, prefixFor);
  return value;
}
