/**
 * Writing RESTCONF URI segments (the inverse of uri.ts): `[module:]name[=k1,k2]`, with key values in
 * their text form and every character RFC 8040 §3.5.3 reserves percent-encoded. Used for `Location`,
 * which a client must be able to use as given, so each key is written in a form uri-segments.ts reads
 * back to the same value:
 * - a key holding `/` is wrapped in the key delimiter with its slashes left bare, since the parser
 *   refuses `%2F` anywhere in a path;
 * - so is a key whose encoded form starts with the delimiter (a key starting with `"`): written bare
 *   it would be read as delimited and lose its quotes.
 * Two kinds of key have no form the parser reads back, and get the RFC 8040 form (`%2F`) rather than
 * none: a key holding `/` when the key delimiter is disabled, and one where a delimiter character
 * comes right before a `/` (`a"/b`), since the parser ends a delimited key at the first delimiter
 * followed by `/`.
 */
import type { PathStep } from '../data/edit';
import { valueText } from '../data/path';
import type { LeafValue } from '../data/tree';

/**
 * A `Location` value as express's `res.location` wrote it (the `encodeurl` package): characters a URL
 * may not hold are percent-encoded, escapes already there are kept, lone surrogates become U+FFFD.
 */
export function encodeLocation(url: string): string {
  return url
    .replace(/([\uD800-\uDBFF][\uDC00-\uDFFF])|[\uD800-\uDFFF]/g, (_, pair: string | undefined) => pair ?? '\uFFFD')
    .replace(/(?:[^\x21\x23-\x3B\x3D\x3F-\x5F\x61-\x7A\x7C\x7E]+|%+(?![0-9A-Fa-f]{2})){1,1024}/g, encodeURI);
}

/** Percent-encodes a key value: everything but RFC 3986 unreserved characters. */
export function encodeKey(value: LeafValue): string {
  return encodeURIComponent(valueText(value)).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * A key value as a URI writes it: percent-encoded, or wrapped in `keyDelimiter` (as written in URIs,
 * `%22`; null when disabled) where the encoded form would not read back (see the top of this file).
 */
export function keyInUri(value: LeafValue, keyDelimiter: string | null): string {
  const encoded = encodeKey(value);
  if (keyDelimiter === null || keyDelimiter === '') return encoded;
  const hasSlash = encoded.includes('%2F');
  if (!hasSlash && !encoded.startsWith(keyDelimiter)) return encoded;
  const inner = encoded.replace(/%2F/g, '/');
  if (hasSlash && inner.includes(`${keyDelimiter}/`)) return encoded;
  return `${keyDelimiter}${inner}${keyDelimiter}`;
}

/**
 * The URI segment of a step; `parentModule` is the module of the step before (undefined at the top),
 * `keyDelimiter` the key delimiter in force for the request.
 */
export function resourceSegment(step: PathStep, parentModule: string | undefined, keyDelimiter: string | null): string {
  const module = step.schema.module.name;
  const name = module === parentModule ? step.schema.name : `${module}:${step.schema.name}`;
  if (step.keys !== undefined) return `${name}=${step.keys.map((k) => keyInUri(k, keyDelimiter)).join(',')}`;
  if (step.value !== undefined) return `${name}=${keyInUri(step.value, keyDelimiter)}`;
  return name;
}
