/**
 * The read side of the translation engine: runs the units' list enumerators and readers over a CLI session
 * and assembles one RFC 7951 JSON document. A target path limits the work to the registrations on it (and
 * the list entries it names); `content` picks config readers, state readers or both.
 */
import type { ContentFilter, JsonObject, JsonValue } from '@rosetta/core';
import type { CliSession } from '../cli/session';
import { formatInstancePath, parseInstancePath, type InstanceSegment } from './path';
import { isListHandler, type Keys, type ListHandler, type Registration, type TranslationUnit } from './unit';

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
  for (const unit of units) {
    const lists = new Map<string, ListHandler>();
    for (const r of unit.registrations) if (isListHandler(r.handler)) lists.set(r.path.segments.join('/'), r.handler);
    const memo = new Map<string, Promise<readonly Keys[]>>();
    for (const reg of unit.registrations) {
      if (!onTarget(reg.path.segments, target)) continue;
      const readers = [
        content !== 'nonconfig' ? reg.handler.readConfig : undefined,
        content !== 'config' ? reg.handler.readState : undefined,
      ].filter((f): f is NonNullable<typeof f> => f !== undefined);
      const isList = isListHandler(reg.handler);
      if (readers.length === 0 && !isList) continue;
      for (const inst of await expand(reg, target, lists, memo, session, content)) {
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
            place(tree, inst.segments, value);
            found = true;
          }
        }
        if (found && isList) place(tree, inst.segments, {});
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

/** Every instance of a registration: one per combination of list entries along its path. */
async function expand(
  reg: Registration, target: readonly InstanceSegment[], lists: Map<string, ListHandler>,
  memo: Map<string, Promise<readonly Keys[]>>, session: CliSession, content: ContentFilter,
): Promise<Instance[]> {
  let instances: Instance[] = [{ keys: [], segments: [] }];
  const segs = reg.path.segments;
  for (let i = 0; i < segs.length; i++) {
    const member = segs[i]!;
    const prefix = segs.slice(0, i + 1).join('/');
    const list = lists.get(prefix);
    if (!list) {
      instances = instances.map((inst) => ({ keys: inst.keys, segments: [...inst.segments, { member }] }));
      continue;
    }
    const pinned = i < target.length ? target[i]!.keys : undefined;
    const next: Instance[] = [];
    for (const inst of instances) {
      const memoKey = `${prefix}\0${JSON.stringify(inst.keys)}`;
      let entries = memo.get(memoKey);
      if (!entries) {
        const ctx = { session, content, keys: inst.keys, key: inst.keys[inst.keys.length - 1] ?? {} };
        entries = list.list(ctx).catch((err: unknown) => {
          throw new TranslationError(formatInstancePath([...inst.segments, { member }]), `list failed: ${(err as Error).message}`);
        });
        memo.set(memoKey, entries);
      }
      for (const keys of await entries) {
        if (pinned && !list.keys.every((k) => pinned[k] === undefined || String(pinned[k]) === String(keys[k]))) continue;
        next.push({ keys: [...inst.keys, keys], segments: [...inst.segments, { member, keys: pick(keys, list.keys) }] });
      }
    }
    instances = next;
  }
  return instances;
}

function pick(keys: Keys, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) out[n] = String(keys[n] ?? '');
  return out;
}

/** Merges `value` into the tree at the instance path, creating containers and list entries on the way. */
function place(tree: JsonObject, segments: readonly InstanceSegment[], value: JsonObject): void {
  let node: JsonObject = tree;
  for (const seg of segments) {
    if (seg.keys) {
      const list = Array.isArray(node[seg.member]) ? node[seg.member] as JsonValue[] : (node[seg.member] = []);
      let entry = list.find((e) => isObject(e) && matches(e, seg.keys!)) as JsonObject | undefined;
      if (!entry) {
        entry = { ...seg.keys };
        list.push(entry);
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
