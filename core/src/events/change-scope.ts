/**
 * Which edits of a data change a path-scoped subscription sees: the subscribed path is a RESTCONF data
 * path (`/ietf-interfaces:interfaces/interface=eth0`, modules named at the top and where they change,
 * key values percent-encoded and separated by commas), read here without a schema, since the path of a
 * uniconfig node is in the device's schema, which may not be loaded when a subscription is restored.
 *
 * Scopes (UniConfig's and OpenDaylight's data-change-scope):
 * - BASE: edits of the node itself: at the path, or at an ancestor (which replaces or deletes it whole);
 * - ONE: those, and edits of its direct children;
 * - SUBTREE: those, and edits anywhere under it.
 * An edit at an ancestor is passed on whole, value included: it may change the subscribed node, and
 * cutting its value down needs the schema (list keys) the filter does without.
 */
import type { InstancePath } from '../yang/instance-path';

export type ChangeScope = 'BASE' | 'ONE' | 'SUBTREE';

/** One segment of a subscribed path: the module is always filled in (inherited from the segment before). */
export interface ScopeSegment {
  readonly module: string;
  readonly name: string;
  /** Key values (a list entry) or the one value (a leaf-list entry), decoded; undefined without `=`. */
  readonly keys?: readonly string[];
}

/** Thrown for a subscribed path that cannot be read; the message says why. */
export class ScopePathError extends Error {}

const SEGMENT = /^(?:([A-Za-z_][A-Za-z0-9_.-]*):)?([A-Za-z_][A-Za-z0-9_.-]*)(?:=(.*))?$/s;

function decode(text: string, path: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new ScopePathError(`'${path}' holds a malformed percent-escape`);
  }
}

/** Reads a subscribed path; `/` or the empty text is the whole datastore (every edit is under it). */
export function parseScopePath(text: string): ScopeSegment[] {
  const trimmed = text.trim().replace(/\/$/, '');
  if (trimmed === '') return [];
  if (!trimmed.startsWith('/')) throw new ScopePathError(`'${text}' must start with '/'`);
  const out: ScopeSegment[] = [];
  let module: string | undefined;
  for (const raw of trimmed.slice(1).split('/')) {
    const m = SEGMENT.exec(raw);
    if (m === null) throw new ScopePathError(`'${raw}' in '${text}' is not a segment [module:]name[=keys]`);
    module = m[1] ?? module;
    if (module === undefined) throw new ScopePathError(`the first segment of '${text}' must name its module (module:name)`);
    const keys = m[3] === undefined ? undefined : m[3].split(',').map((k) => decode(k, text));
    out.push({ module, name: m[2]!, ...(keys !== undefined ? { keys } : {}) });
  }
  return out;
}

/** The subscribed path as a RESTCONF data path, written the canonical way (for the list of subscriptions). */
export function scopePathText(path: readonly ScopeSegment[]): string {
  if (path.length === 0) return '/';
  let out = '';
  let module: string | undefined;
  for (const seg of path) {
    out += seg.module === module ? `/${seg.name}` : `/${seg.module}:${seg.name}`;
    module = seg.module;
    if (seg.keys !== undefined) out += `=${seg.keys.map(encodeURIComponent).join(',')}`;
  }
  return out;
}

/**
 * Whether segment `e` of an edit's target names the same node as `s` of a subscribed path. A subscribed
 * segment without keys names a whole list, so it matches every entry of it.
 */
function sameNode(e: InstancePath[number], s: ScopeSegment): boolean {
  if (e.module !== s.module || e.name !== s.name) return false;
  if (s.keys === undefined) return true;
  const values = e.keys !== undefined ? Object.values(e.keys) : e.value !== undefined ? [e.value] : undefined;
  if (values === undefined) return false;
  return values.length === s.keys.length && values.every((v, i) => v === s.keys![i]);
}

/** Whether an edit at `target` is one a subscription on `path` with `scope` sees. */
export function inScope(target: InstancePath, path: readonly ScopeSegment[], scope: ChangeScope): boolean {
  const common = Math.min(target.length, path.length);
  for (let i = 0; i < common; i++) if (!sameNode(target[i]!, path[i]!)) return false;
  // at the path, or at an ancestor of it: the node itself changes
  if (target.length <= path.length) return true;
  // under the path: a direct child (one segment further; a list entry is one segment) or deeper
  if (scope === 'SUBTREE') return true;
  return scope === 'ONE' && target.length === path.length + 1;
}
