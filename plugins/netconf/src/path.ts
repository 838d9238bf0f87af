/**
 * Instance paths as the core hands them to the NETCONF southbound: the SDK's instance-identifier
 * (`/m:a/b[k='v']`) plus the leaf-list entry predicate `[.='value']` the core writes for a leaf-list
 * entry target (RFC 7950 §9.13). The predicate is taken out, quotes respected, before the SDK parses the
 * rest, and comes back as the segment's `value`. Linear in the path's length.
 */
import { parseInstancePath, type InstanceSegment } from '@rosetta/sdk';

/** One path segment; `value` selects one leaf-list entry. */
export interface DeviceSegment extends InstanceSegment {
  readonly value?: string;
}

export type DevicePathResult = { ok: true; path: DeviceSegment[] } | { ok: false; error: string };

const VALUE_PREDICATE = /^\[\s*\.\s*=\s*(?:'([^']*)'|"((?:[^"\\]|\\.)*)")\s*\]/;

/** Parses a path under the mount point; `/` is the whole tree (no segments). */
export function parseDevicePath(text: string): DevicePathResult {
  if (typeof text !== 'string') return { ok: false, error: 'a path is a string' };
  const values = new Map<number, string>();
  let stripped = '';
  let segment = -1;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '/') {
      segment++;
      stripped += c;
      i++;
      continue;
    }
    if (c !== '[') {
      stripped += c;
      i++;
      continue;
    }
    const value = VALUE_PREDICATE.exec(text.slice(i, i + 1100));
    if (value) {
      if (values.has(segment)) return { ok: false, error: `two value predicates at column ${i + 1}` };
      values.set(segment, value[1] ?? value[2]!.replace(/\\(.)/g, '$1'));
      i += value[0].length;
      continue;
    }
    // a key predicate: copy it whole, quotes included, so a ']' or '/' inside a quoted key stays put
    const end = predicateEnd(text, i);
    if (end < 0) return { ok: false, error: `unterminated predicate at column ${i + 1}` };
    stripped += text.slice(i, end);
    i = end;
  }
  const parsed = parseInstancePath(stripped);
  if (!parsed.ok) return parsed;
  for (const index of values.keys())
    if (index !== parsed.path.length - 1 || parsed.path[index]?.keys)
      return { ok: false, error: 'a [.=...] predicate may only end the path, on a leaf-list' };
  return { ok: true, path: parsed.path.map((s, n) => (values.has(n) ? { ...s, value: values.get(n)! } : s)) };
}

/** Index just past the `]` closing the predicate opened at `from`, skipping quoted text; -1 if none. */
function predicateEnd(text: string, from: number): number {
  let quote: string | undefined;
  for (let i = from + 1; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== undefined) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === ']') {
      return i + 1;
    }
  }
  return -1;
}
