/**
 * The one place data/ reaches the type engine (yang/types): leaf and attribute values from JSON and
 * from XML text, and back to XML text. Keeping it in one file keeps the codecs independent of how the
 * type engine is laid out.
 */
import type { CompiledModule, SchemaContext, YangType } from '../yang/schema';
import { codecFor, INVALID, type Codec } from '../yang/types/codecs';
import { valueFromJson, valueFromText, valueToText, type ValueResult } from '../yang/types/values';
import type { LeafValue } from './tree';

export type { ValueResult, Codec };
export { INVALID };

/**
 * The compiled value codec of a type, for decoders that keep it per schema node so that each value
 * costs one call (`codec.json(raw, ctx, module)` / `codec.text(...)`) rather than a cache lookup too.
 */
export function leafCodec(type: YangType): Codec {
  return codecFor(type);
}

/** A JSON value (as `JSON.parse` gives it) of a leaf of `type` in module `module`, checked and canonical. */
export function leafFromJson(type: YangType, raw: unknown, ctx: SchemaContext, module: CompiledModule): ValueResult {
  return valueFromJson(type, raw, ctx, module.name);
}

/**
 * An XML text of a leaf of `type`, checked and canonical; `resolvePrefix` maps a prefix in scope to a
 * module name (identityref and instance-identifier values carry prefixes).
 */
export function leafFromText(
  type: YangType,
  text: string,
  ctx: SchemaContext,
  resolvePrefix: (prefix: string) => string | undefined,
  module: CompiledModule,
): ValueResult {
  return valueFromText(type, text, ctx, resolvePrefix, module.name);
}

/** The XML text of a canonical value; `prefixFor` names the prefix to use for a module (and records it). */
export function leafToText(type: YangType, value: LeafValue, prefixFor: (module: string) => string): string {
  return valueToText(type, value, prefixFor);
}
