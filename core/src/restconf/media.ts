/**
 * Media types of RESTCONF bodies (docs/restconf-api.md#media-types): which Content-Type a request body may have, which
 * type a response is written in given `Accept`, and the YANG Patch types. JSON is the answer when the
 * client states no preference; a body type nobody reads is 415, an Accept nobody can satisfy is 406.
 */
import { notAcceptable, unsupportedMediaType } from './errors';

/** How a body is encoded. */
export type Encoding = 'json' | 'xml';

/** A negotiated body type: its encoding and the exact media type written in the header. */
export interface MediaType {
  readonly encoding: Encoding;
  /** The media type as sent back in Content-Type (without parameters). */
  readonly type: string;
  /** True for `application/yang-patch+json|xml`. */
  readonly yangPatch: boolean;
}

/** Data media types, JSON first (the default). */
export const DATA_TYPES: readonly MediaType[] = Object.freeze([
  { encoding: 'json', type: 'application/yang-data+json', yangPatch: false },
  { encoding: 'json', type: 'application/json', yangPatch: false },
  { encoding: 'json', type: 'application/yang.data+json', yangPatch: false },
  { encoding: 'xml', type: 'application/yang-data+xml', yangPatch: false },
  { encoding: 'xml', type: 'application/xml', yangPatch: false },
  { encoding: 'xml', type: 'text/xml', yangPatch: false },
]);

/** YANG Patch request types (RFC 8072 §2.1 / §2.2). */
export const PATCH_TYPES: readonly MediaType[] = Object.freeze([
  { encoding: 'json', type: 'application/yang-patch+json', yangPatch: true },
  { encoding: 'xml', type: 'application/yang-patch+xml', yangPatch: true },
]);

const BY_NAME = new Map<string, MediaType>([...DATA_TYPES, ...PATCH_TYPES].map((m) => [m.type, m]));

/** The JSON type answered when the client expresses no preference. */
export const DEFAULT_RESPONSE: MediaType = DATA_TYPES[0]!;

/** The bare, lower-cased media type of a header value (`Application/JSON; charset=utf-8` -> `application/json`). */
export function bareType(header: string): string {
  const semi = header.indexOf(';');
  return (semi >= 0 ? header.slice(0, semi) : header).trim().toLowerCase();
}

/**
 * The type of a request body. `allowPatch` admits the YANG Patch types (PATCH only). A missing
 * Content-Type is read as JSON, as most RESTCONF clients send JSON without saying so; a present but
 * empty one names no type, so it is 415 like any type the service does not read.
 */
export function requestType(contentType: string | undefined, allowPatch: boolean): MediaType {
  if (contentType === undefined) return DEFAULT_RESPONSE;
  const found = BY_NAME.get(bareType(contentType));
  if (found === undefined || (found.yangPatch && !allowPatch)) {
    throw unsupportedMediaType(
      contentType.slice(0, 100),
      [...DATA_TYPES, ...(allowPatch ? PATCH_TYPES : [])].map((m) => m.type),
    );
  }
  return found;
}

interface AcceptRange {
  readonly type: string;
  readonly q: number;
  readonly order: number;
}

/** Parses an Accept header into media ranges with their weights; junk ranges are skipped. */
function parseAccept(header: string): AcceptRange[] {
  const ranges: AcceptRange[] = [];
  const parts = header.split(',');
  for (let i = 0; i < parts.length && i < 64; i++) {
    const [range, ...params] = parts[i]!.split(';');
    const type = range!.trim().toLowerCase();
    if (!/^[a-z0-9!#$&^_.+*-]+\/[a-z0-9!#$&^_.+*-]+$/.test(type)) continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m) q = Math.min(1, Math.max(0, Number(m[1]) || 0));
    }
    ranges.push({ type, q, order: i });
  }
  return ranges.sort((a, b) => b.q - a.q || specificity(b.type) - specificity(a.type) || a.order - b.order);
}

function specificity(range: string): number {
  if (range === '*/*') return 0;
  return range.endsWith('/*') ? 1 : 2;
}

/**
 * The type a response is written in, from `Accept` (q-values honoured; `*\/*`, `application/*` and a
 * missing header mean JSON). `offered` narrows the choice (default: every data type). Throws 406.
 */
export function responseType(accept: string | undefined, offered: readonly MediaType[] = DATA_TYPES): MediaType {
  if (accept === undefined || accept.trim() === '') return offered[0]!;
  for (const range of parseAccept(accept)) {
    if (range.q === 0) continue;
    if (range.type === '*/*') return offered[0]!;
    if (range.type.endsWith('/*')) {
      const major = range.type.slice(0, -1);
      const found = offered.find((m) => m.type.startsWith(major));
      if (found) return found;
      continue;
    }
    const found = offered.find((m) => m.type === range.type);
    if (found) return found;
  }
  throw notAcceptable(
    accept.slice(0, 100),
    offered.map((m) => m.type),
  );
}

/** The type to write an error in: the negotiated one when Accept allows, else JSON (never a second error). */
export function errorResponseType(accept: string | undefined): MediaType {
  try {
    return responseType(accept);
  } catch {
    return DEFAULT_RESPONSE;
  }
}
