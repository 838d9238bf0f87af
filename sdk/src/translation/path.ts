/**
 * Paths as the translation engine reads them. The core hands a southbound the instance path value
 * (`InstancePath`, owned by the core's yang/instance-path.ts, re-exported here); this file gives the
 * engine its JSON member view of it: segments named as RFC 7951 JSON members (module-qualified at the
 * top and where the module changes, bare elsewhere), so they index the JSON documents directly.
 * Registration paths (`/m:a/b/c`, written by unit authors) and paths given as text (tests, a dry run's
 * input) are read with the core's one reader of the JSON form; nothing here splits a path by hand.
 */
import {
  type InstancePath,
  type InstancePathResult,
  type InstancePathSegment,
  parseJsonInstancePath,
  renderInstancePath,
} from '@rosetta/core';

export interface SchemaPath {
  readonly segments: readonly string[];
}

/** One segment of the member view. */
export interface InstanceSegment {
  readonly member: string;
  /** Key predicates given for this segment, if any. */
  readonly keys?: Readonly<Record<string, string>>;
  /** One leaf-list entry's value, when the path ends on one. */
  readonly value?: string;
}

export type ParseResult<T> = { readonly ok: true; readonly path: T } | { readonly ok: false; readonly error: string };

const MAX_PATH = 4096;
/** Text paths may also carry `\"` escapes inside double quotes, which the SDK always accepted. */
const TEXT_SYNTAX = { concat: true, backslashEscapes: true } as const;

/**
 * The value of a path handed over by the core (returned as it is) or written as RFC 7951 text (read
 * with the core's reader; `/` is the root).
 */
export function toInstancePath(path: InstancePath | string): InstancePathResult {
  if (typeof path !== 'string') return { ok: true, path };
  if (!path.startsWith('/')) return { ok: false, error: 'a path starts with /' };
  if (path.length > MAX_PATH) return { ok: false, error: `path longer than ${MAX_PATH} characters` };
  return parseJsonInstancePath(path, TEXT_SYNTAX);
}

/** The member view of a path value (`value` kept for a leaf-list entry; positions have no member form). */
export function memberSegments(path: InstancePath): InstanceSegment[] {
  const out: InstanceSegment[] = new Array(path.length);
  let module: string | undefined;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const member = seg.module === module ? seg.name : `${seg.module}:${seg.name}`;
    module = seg.module;
    out[i] = { member, ...(seg.keys !== undefined ? { keys: seg.keys } : {}), ...(seg.value !== undefined ? { value: seg.value } : {}) };
  }
  return out;
}

/** Parses `/module:top/child/other-module:aug`, normalising prefixes to RFC 7951 member names. */
export function parseSchemaPath(text: string): ParseResult<SchemaPath> {
  const r = parseInstancePath(text);
  if (!r.ok) return r;
  if (r.path.some((s) => s.keys))
    return { ok: false, error: 'a registration path names nodes, not entries: drop the [key=...] predicates' };
  return { ok: true, path: { segments: r.path.map((s) => s.member) } };
}

/**
 * The member view of a list-entry path given as text or value; `/` alone is the root (no segments).
 * Leaf-list entries and positions are refused: translation units register nodes and list entries only.
 */
export function parseInstancePath(path: InstancePath | string): ParseResult<InstanceSegment[]> {
  const r = toInstancePath(path);
  if (!r.ok) return r;
  for (const seg of r.path)
    if (seg.value !== undefined || seg.position !== undefined)
      return { ok: false, error: `node "${seg.name}" is selected by value or position; a translation unit reads nodes and list entries` };
  return { ok: true, path: memberSegments(r.path) };
}

/** The value of a member view (the inverse of `memberSegments`), modules taken from the qualified members. */
export function pathValueOf(segments: readonly InstanceSegment[]): InstancePath {
  const out: InstancePathSegment[] = new Array(segments.length);
  let module = '';
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    const colon = s.member.indexOf(':');
    if (colon >= 0) module = s.member.slice(0, colon);
    out[i] = {
      module,
      name: colon >= 0 ? s.member.slice(colon + 1) : s.member,
      ...(s.keys !== undefined ? { keys: s.keys } : {}),
      ...(s.value !== undefined ? { value: s.value } : {}),
    };
  }
  return out;
}

/** Formats a member view for messages with the core's renderer: `/m:a/b[name='eth0']`. */
export function formatInstancePath(segments: readonly InstanceSegment[]): string {
  return renderInstancePath(pathValueOf(segments));
}
