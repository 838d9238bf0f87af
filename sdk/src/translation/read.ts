/**
 * The read side of the translation engine: runs the units' list enumerators and readers over a CLI session
 * and assembles one RFC 7951 JSON document. A target path limits the work to the registrations on it (and
 * the list entries it names); `content` picks config readers, state readers or both.
 *
 * Linear in the size of the answer: list enumerations are memoised per parent entry, and every list array
 * the read builds is indexed by its entries' keys, so placing a reader's value never scans a list (a
 * device with 10,000 interfaces would otherwise cost 10,000 x 10,000 key comparisons per registration).
 */
import type { ContentFilter, JsonObject, JsonValue } from '@rosetta/core';
import type { CliSession } from '../cli/session';
import { formatInstancePath, parseInstancePath, type InstanceSegment } from './path';
import { isListHandler, type Keys, type ListHandler, type TranslationUnit } from './unit';

/** A failure inside a unit's reader or writer, naming the instance path it was working on. */
export class TranslationError extends Error {
  constructor(readonly path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = 'TranslationError';
  }
}

export interface ReadOptions {
  /** RFC 7951 instance path of the target; '/' (default) reads everything. */
  readonly path?: string;
  readonly content?: ContentFilter;
}

interface Instance {
  readonly keys: Keys[];
  readonly segments: InstanceSegment[];
}

/**
 * Reads through every unit and returns the document at the target: the whole tree for '/', else
 * `{ "<module>:<last node>": value }` as RESTCONF answers a GET (a list entry comes as a one-entry array).
 * Undefined when the target has no data.
 */
export async function readUnits(units: readonly TranslationUnit[], session: CliSession, options: ReadOptions = {}): Promise<JsonObject | undefined> {
  const parsed = parseInstancePath(options.path ?? '/');
  if (!parsed.ok) throw new TranslationError(options.path ?? '', parsed.error);
  const target = parsed.path;
  const content = options.content ?? 'all';
  const tree: JsonObject = {};
  const index: EntryIndex = new Map();
  for (const unit of units) {
    const lists = new Map<string, ListHandler>();
    for (const r of unit.registrations) if (isListHandler(r.handler)) lists.set(r.path.segments.join('/'), r.handler);
    const expansion: Expansion = { target, lists, memo: new Map(), session, content };
    for (const reg of unit.registrations) {
      if (!onTarget(reg.path.segments, target)) continue;
      const readers = [
        content !== 'nonconfig' ? reg.handler.readConfig : undefined,
        content !== 'config' ? reg.handler.readState : undefined,
      ].filter((f): f is NonNullable<typeof f> => f !== undefined);
      const isList = isListHandler(reg.handler);
      if (readers.length === 0 && !isList) continue;
      for (const inst of await instancesAt(reg.path.segments, reg.path.segments.length, expansion)) {
        const ctx = { session, content, keys: inst.keys, key: inst.keys[inst.keys.length - 1] ?? {} };
        let found = isList; // a listed entry exists even when its readers have nothing to add
        for (const read of readers) {
          let value: JsonObject | undefined;
          try {
            value = await read.call(reg.handler, ctx);
          } catch (err) {
            throw new TranslationError(formatInstancePath(inst.segments), `reader failed: ${(err as Error).message}`);
          }
          if (value !== undefined) {
            place(tree, index, inst.segments, value);
            found = true;
          }
        }
        if (found && isList) place(tree, index, inst.segments, {});
      }
    }
  }
  return extract(tree, target);
}

/** A registration matters when it lies on the target path or under it. */
function onTarget(segments: readonly string[], target: readonly InstanceSegment[]): boolean {
  const n = Math.min(segments.length, target.length);
  for (let i = 0; i < n; i++) if (segments[i] !== target[i]!.member) return false;
  return true;
}

/** What `instancesAt` needs besides the path: fixed for one unit of one read. */
interface Expansion {
  readonly target: readonly InstanceSegment[];
  readonly lists: ReadonlyMap<string, ListHandler>;
  /** Instances by schema-path prefix: registrations sharing a prefix (parents, then children) share its work. */
  readonly memo: Map<string, Promise<Instance[]>>;
  readonly session: CliSession;
  readonly content: ContentFilter;
}

/**
 * Every instance of the first `depth` segments of a path: one per combination of list entries along it.
 * Each list is enumerated once per parent entry per read (the memo holds the instances of every prefix).
 */
function instancesAt(segs: readonly string[], depth: number, x: Expansion): Promise<Instance[]> {
  if (depth === 0) return Promise.resolve([{ keys: [], segments: [] }]);
  const prefix = segs.slice(0, depth).join('/');
  let held = x.memo.get(prefix);
  if (!held) {
    held = extend(prefix, segs[depth - 1]!, depth - 1, instancesAt(segs, depth - 1, x), x);
    x.memo.set(prefix, held);
  }
  return held;
}

/** The instances of a prefix from those of its parent: one step down, through a list when it is one. */
async function extend(prefix: string, member: string, at: number, parents: Promise<Instance[]>, x: Expansion): Promise<Instance[]> {
  const list = x.lists.get(prefix);
  if (!list) return (await parents).map((inst) => ({ keys: inst.keys, segments: [...inst.segments, { member }] }));
  const pinned = at < x.target.length ? x.target[at]!.keys : undefined;
  const next: Instance[] = [];
  for (const inst of await parents) {
    const ctx = { session: x.session, content: x.content, keys: inst.keys, key: inst.keys[inst.keys.length - 1] ?? {} };
    let entries: readonly Keys[];
    try {
      entries = await list.list(ctx);
    } catch (err) {
      throw new TranslationError(formatInstancePath([...inst.segments, { member }]), `list failed: ${(err as Error).message}`);
    }
    for (const keys of entries) {
      if (pinned && !list.keys.every((k) => pinned[k] === undefined || String(pinned[k]) === String(keys[k]))) continue;
      next.push({ keys: [...inst.keys, keys], segments: [...inst.segments, { member, keys: pick(keys, list.keys) }] });
    }
  }
  return next;
}

function pick(keys: Keys, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) out[n] = String(keys[n] ?? '');
  return out;
}

/**
 * The entries of each list array of the tree being built, by key: `entryKey` of the entry's key values.
 * Only `place` creates entries, always with the keys in the list handler's key order, so one key string
 * per entry suffices.
 */
type EntryIndex = Map<JsonValue[], Map<string, JsonObject>>;

function entryKey(keys: Readonly<Record<string, string>>): string {
  let out = '';
  for (const k in keys) out += `${k}\u0000${keys[k]}\u0000`;
  return out;
}

/** Merges `value` into the tree at the instance path, creating containers and list entries on the way. */
function place(tree: JsonObject, index: EntryIndex, segments: readonly InstanceSegment[], value: JsonObject): void {
  let node: JsonObject = tree;
  for (const seg of segments) {
    if (seg.keys) {
      let list = node[seg.member];
      if (!Array.isArray(list)) list = node[seg.member] = [];
      let entries = index.get(list);
      if (!entries) index.set(list, entries = new Map());
      const key = entryKey(seg.keys);
      let entry = entries.get(key);
      if (!entry) {
        entry = { ...seg.keys };
        list.push(entry);
        entries.set(key, entry);
      }
      node = entry;
    } else {
      const child = node[seg.member];
      node = isObject(child) ? child : (node[seg.member] = {});
    }
  }
  deepMerge(node, value);
}

/** The target's subtree, wrapped in its qualified member name; the whole tree for '/'. */
function extract(tree: JsonObject, target: readonly InstanceSegment[]): JsonObject | undefined {
  if (target.length === 0) return Object.keys(tree).length > 0 ? tree : undefined;
  let node: JsonValue | undefined = tree;
  let module = '';
  for (const seg of target) {
    if (seg.member.includes(':')) module = seg.member.split(':')[0]!;
    if (!isObject(node)) return undefined;
    node = node[seg.member];
    if (seg.keys) {
      if (!Array.isArray(node)) return undefined;
      node = node.find((e) => isObject(e) && matches(e, seg.keys!));
    }
    if (node === undefined) return undefined;
  }
  const last = target[target.length - 1]!;
  const name = last.member.includes(':') ? last.member : `${module}:${last.member}`;
  return { [name]: last.keys ? [node] : node };
}

function matches(entry: JsonObject, keys: Readonly<Record<string, string>>): boolean {
  return Object.entries(keys).every(([k, v]) => entry[k] !== undefined && String(entry[k]) === v);
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Merges objects member by member; arrays and scalars from `source` replace. */
export function deepMerge(target: JsonObject, source: JsonObject): void {
  for (const [k, v] of Object.entries(source)) {
    const held = target[k];
    if (isObject(held) && isObject(v)) deepMerge(held, v);
    else target[k] = v;
  }
}
