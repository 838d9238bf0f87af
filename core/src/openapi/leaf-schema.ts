/**
 * The JSON Schema (OpenAPI 3.0 dialect) of one YANG leaf value as RFC 7951 writes it: int64, uint64
 * and decimal64 are strings (JSON numbers lose their precision), `empty` is `[null]`, enumerations
 * are enums of their names, identityrefs name their module, ranges and lengths become minimum/maximum
 * and minLength/maxLength where one interval says it all, and everything a JSON Schema cannot say
 * exactly is written in the description instead of being approximated into a wrong constraint.
 *
 * Patterns: YANG patterns are XSD regular expressions. The compiler already translated each into a
 * JavaScript RegExp (yang/types/xsd-regex.ts), which needs the `u` flag; an OpenAPI `pattern` is read
 * without flags by most tools. A translation is given as `pattern` only when it reads the same either
 * way (printable ASCII, no Unicode property or code point escapes, compiles without `u`); any other
 * pattern, and every inverted one, is quoted in the description.
 */
import { formatLength, formatRange } from '../yang/types';
import type { LeafListSchema, LeafSchema, PatternRestriction, YangType } from '../yang/schema';

/** A JSON Schema object as OpenAPI 3.0.3 takes it. */
export type JsonSchema = { [key: string]: unknown };

/** Integer built-ins whose every value is exact as a JSON number (RFC 7951 §6.1). */
const JSON_INTEGERS = new Set(['int8', 'int16', 'int32', 'uint8', 'uint16', 'uint32']);

/** The schema of a leaf's or leaf-list's value (one item for a leaf-list). */
export function valueSchema(node: LeafSchema | LeafListSchema): JsonSchema {
  const schema = typeSchema(node.type);
  const notes = [node.description?.trim(), node.units !== undefined ? `units: ${node.units}` : undefined].filter((n) => n);
  if (node.kind === 'leaf' && node.default !== undefined) notes.push(`default: ${node.default}`);
  return withNotes(schema, notes as string[]);
}

/** The schema of a value of `type`. */
export function typeSchema(type: YangType): JsonSchema {
  switch (type.builtin) {
    case 'boolean':
      return { type: 'boolean' };
    case 'empty':
      return {
        type: 'array',
        items: { nullable: true, enum: [null] },
        minItems: 1,
        maxItems: 1,
        description: 'empty: the value is [null]',
      };
    case 'enumeration':
      return { type: 'string', enum: (type.enums ?? []).map((e) => e.name) };
    case 'bits':
      return withNotes({ type: 'string' }, [`bits, space-separated: ${(type.bits ?? []).map((b) => b.name).join(' ')}`]);
    case 'binary':
      return lengthOf({ type: 'string', format: 'byte' }, type);
    case 'identityref':
      return identitySchema(type);
    case 'instance-identifier':
      return { type: 'string', description: 'instance-identifier (RFC 7951 §6.11)' };
    case 'leafref': {
      const target = type.leafref?.target;
      return target ? withNotes(typeSchema(target.type), [`leafref: ${type.leafref!.path.source}`]) : { type: 'string' };
    }
    case 'union':
      return { anyOf: (type.union ?? []).map(typeSchema) };
    case 'string':
      return patternsOf(lengthOf({ type: 'string' }, type), type.patterns);
    case 'int64':
    case 'uint64':
      return rangeNote(
        { type: 'string', pattern: type.builtin === 'int64' ? '^-?[0-9]+$' : '^[0-9]+$', description: `${type.builtin} as a string` },
        type,
      );
    case 'decimal64':
      return rangeNote(
        {
          type: 'string',
          pattern: '^-?[0-9]+(\\.[0-9]+)?$',
          description: `decimal64 (${type.fractionDigits ?? 1} fraction digits) as a string`,
        },
        type,
      );
    default:
      return JSON_INTEGERS.has(type.builtin) ? integerSchema(type) : { type: 'string' };
  }
}

/** An integer that JSON carries as a number: one interval becomes minimum/maximum, several a note. */
function integerSchema(type: YangType): JsonSchema {
  const intervals = type.range?.intervals;
  const schema: JsonSchema = { type: 'integer' };
  if (intervals !== undefined && intervals.length > 0) {
    schema['minimum'] = Number(intervals[0]!.min);
    schema['maximum'] = Number(intervals[intervals.length - 1]!.max);
    if (intervals.length > 1) schema['description'] = `range ${formatRange(intervals, type.builtin)}`;
  }
  return schema;
}

function rangeNote(schema: JsonSchema, type: YangType): JsonSchema {
  return type.range ? withNotes(schema, [`range ${formatRange(type.range.intervals, type.builtin, type.fractionDigits)}`]) : schema;
}

function lengthOf(schema: JsonSchema, type: YangType): JsonSchema {
  const intervals = type.length?.intervals;
  if (intervals === undefined || intervals.length === 0) return schema;
  const min = intervals[0]!.min;
  const max = intervals[intervals.length - 1]!.max;
  if (min > 0) schema['minLength'] = min;
  if (max !== Infinity) schema['maxLength'] = max;
  return intervals.length > 1 ? withNotes(schema, [`length ${formatLength(intervals)}`]) : schema;
}

/** Printable ASCII only: a source outside it may read differently without the `u` flag. */
const PLAIN = /^[\x20-\x7e]*$/;

/** The pattern as an OpenAPI `pattern` when it means the same without flags, else undefined. */
export function safePattern(p: PatternRestriction): string | undefined {
  if (p.inverted) return undefined;
  const source = p.regex.source;
  if (!PLAIN.test(source) || /\\[pPu]/.test(source)) return undefined;
  try {
    new RegExp(source);
  } catch {
    return undefined;
  }
  return source;
}

function patternsOf(schema: JsonSchema, patterns: readonly PatternRestriction[]): JsonSchema {
  const safe: string[] = [];
  const notes: string[] = [];
  for (const p of patterns) {
    const js = safePattern(p);
    if (js !== undefined) safe.push(js);
    else notes.push(`${p.inverted ? 'must not match' : 'must match'} the XSD pattern ${p.source}`);
  }
  if (safe.length === 1) schema['pattern'] = safe[0];
  const out = safe.length > 1 ? { ...schema, allOf: safe.map((pattern) => ({ pattern })) } : schema;
  return withNotes(out, notes);
}

/** An identityref: the module-qualified names of the identities derived from every base. */
function identitySchema(type: YangType): JsonSchema {
  const bases = type.identityBases ?? [];
  if (bases.length === 0) return { type: 'string' };
  let allowed = [...bases[0]!.derived];
  for (const b of bases.slice(1)) allowed = allowed.filter((i) => b.derived.has(i));
  const names = [...new Set(allowed.map((i) => `${i.module.name}:${i.name}`))].sort();
  const note = `identityref derived from ${bases.map((b) => `${b.module.name}:${b.name}`).join(' and ')}`;
  return names.length > 0 ? { type: 'string', enum: names, description: note } : { type: 'string', description: note };
}

/** The schema with `notes` appended to its description. */
export function withNotes(schema: JsonSchema, notes: readonly string[]): JsonSchema {
  const all = [schema['description'] as string | undefined, ...notes].filter((n): n is string => n !== undefined && n !== '');
  if (all.length === 0) return schema;
  return { ...schema, description: all.join('\n\n') };
}
