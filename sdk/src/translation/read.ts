/**
 * The read side of the translation engine: runs the units' list enumerators and readers over a CLI session
 * and assembles one RFC 7951 JSON document. A target path limits the work to the registrations on it (and
 * the list entries it names); `content` picks config readers, state readers or both.
 *
 * Linear in the size of the answer: list enumerations are memoised per parent entry, and every list array
 * the read builds is indexed by its entries' keys, so placing a reader's value never scans a list (a
 * device with 10,000 interfaces would otherwise cost 10,000 x 10,000 key comparisons per registration).
 * An instance remembers the tree node it was placed at, so its next value (its state after its config,
 * a child's) is placed from there, not from the root; what depends on a unit alone (its list handlers,
 * its paths' prefixes) is worked out once per unit, not per read.
 */
import {
  deviceUnreachable,
  FaultError,
  renderInstancePath,
  unusableRequest,
  type ContentFilter,
  type InstancePath,
  type JsonObject,
  type JsonValue,
} from '@rosetta/core';
import type { CliSession } from '../cli/session';
import { formatInstancePath, parseInstancePath, type InstanceSegment } from './path';
import { isListHandler, type Keys, type ListHandler, type Registration, type TranslationUnit } from './unit';
import { RequestMemo } from './request-memo';

/**
 * A failure inside a unit's reader or writer, naming the instance path it was working on, as the fault
 * a client is answered with. A write the units cannot say in the device's commands (a value its syntax
 * has no form for) is the request's fault: 400 `invalid-value` at that path, before anything is sent. A
 * read that fails is a device that could not answer: 502 `southbound_no_connection`.
 */
export class TranslationError extends FaultError {
  constructor(
    readonly path: string,
    readonly reason: string,
    during: 'read' | 'write' = 'read',
  ) {
    super(...(during === 'write' ? unusableRequest(reason, path) : deviceUnreachable(`${path}: ${reason}`)));
    this.name = 'TranslationError';
    this.message = `${path}: ${reason}`;
  }
}

export interface ReadOptions {
  /** The target: the value the core hands over, or RFC 7951 text; '/' or empty (default) reads everything. */
  readonly path?: InstancePath | string;
  readonly content?: ContentFilter;
}

interface Instance {
  readonly keys: Keys[];
  /** The path's last step (none for the root); the whole path is `segmentsOf`. */
  readonly segment: InstanceSegment | undefined;
  /** The instance one step up (none for the root). */
  readonly parent: Instance | undefined;
  /** Where this instance's data is in the tree being built, once something was placed under it. */
  node?: JsonObject;
}

/** What a read needs of a unit that does not change from read to read. */
interface UnitPlan {
  /** List handlers by schema path (`a/b/c`). */
  readonly lists: ReadonlyMap<string, ListHandler>;
  /** Per registration, its path's prefixes by depth (`prefixes[d]`: the first d segments joined). */
  readonly prefixes: ReadonlyMap<Registration, readonly string[]>;
}

const plans = new WeakMap<TranslationUnit, UnitPlan>();

function planOf(unit: TranslationUnit): UnitPlan {
  let plan = plans.get(unit);
  if (plan === undefined) {
    const lists = new Map<string, ListHandler>();
    const prefixes = new Map<Registration, string[]>();
    for (const r of unit.registrations) {
      const segs = r.path.segments;
      const joined = [''];
      for (let d = 1; d <= segs.length; d++) joined.push(d === 1 ? segs[0]! : `${joined[d - 1]}/${segs[d - 1]}`);
      prefixes.set(r, joined);
      if (isListHandler(r.handler)) lists.set(joined[segs.length]!, r.handler);
    }
    plans.set(unit, (plan = { lists, prefixes }));
  }
  return plan;
}

/**
 * Reads through every unit and returns the document at the target: the whole tree for '/', else
 * `{ "<module>:<last node>": value }` as RESTCONF answers a GET (a list entry comes as a one-entry array).
 * Undefined when the target has no data.
 */
export async function readUnits(
  units: readonly TranslationUnit[],
  session: CliSession,
  options: ReadOptions = {},
): Promise<JsonObject | undefined> {
  const given = options.path ?? '/';
  const parsed = parseInstancePath(given);
  if (!parsed.ok) throw new TranslationError(typeof given === 'string' ? given : renderInstancePath(given), parsed.error);
  const target = parsed.path;
  const content = options.content ?? 'all';
  const tree: JsonObject = {};
  const index: EntryIndex = new Map();
  const memo = new RequestMemo();
  for (const unit of units) {
    const plan = planOf(unit);
    const root: Instance = { keys: [], segment: undefined, parent: undefined, node: tree };
    const expansion: Expansion = { target, lists: plan.lists, instances: new Map(), memo, session, content, root };
    for (const reg of unit.registrations) {
      if (!onTarget(reg.path.segments, target)) continue;
      const readers = [
        content !== 'nonconfig' ? reg.handler.readConfig : undefined,
        content !== 'config' ? reg.handler.readState : undefined,
      ].filter((f): f is NonNullable<typeof f> => f !== undefined);
      const isList = isListHandler(reg.handler);
      if (readers.length === 0 && !isList) continue;
      for (const inst of await instancesAt(reg.path.segments, plan.prefixes.get(reg)!, reg.path.segments.length, expansion)) {
        const ctx = { session, content, memo, keys: inst.keys, key: inst.keys[inst.keys.length - 1] ?? {} };
        let found = isList; // a listed entry exists even when its readers have nothing to add
        for (const read of readers) {
          let value: JsonObject | undefined;
          try {
            value = await read.call(reg.handler, ctx);
          } catch (err) {
            throw new TranslationError(formatInstancePath(segmentsOf(inst)), `reader failed: ${(err as Error).message}`);
          }
          if (value !== undefined) {
            deepMerge(nodeOf(inst, index), value);
            found = true;
          }
        }
        if (found && isList) nodeOf(inst, index);
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
  readonly instances: Map<string, Promise<Instance[]>>;
  /** The read's handlers' derived values, shared across units. */
  readonly memo: RequestMemo;
  readonly session: CliSession;
  readonly content: ContentFilter;
  /** The instance of the empty path: the tree's root. */
  readonly root: Instance;
}

/**
 * Every instance of the first `depth` segments of a path: one per combination of list entries along it.
 * Each list is enumerated once per parent entry per read (`instances` holds those of every prefix).
 */
function instancesAt(segs: readonly string[], prefixes: readonly string[], depth: number, x: Expansion): Promise<Instance[]> {
  if (depth === 0) return Promise.resolve([x.root]);
  const prefix = prefixes[depth]!;
  let held = x.instances.get(prefix);
  if (!held) {
    held = extend(prefix, segs[depth - 1]!, depth - 1, instancesAt(segs, prefixes, depth - 1, x), x);
    x.instances.set(prefix, held);
  }
  return held;
}

/** The instances of a prefix from those of its parent: one step down, through a list when it is one. */
async function extend(prefix: string, member: string, at: number, parents: Promise<Instance[]>, x: Expansion): Promise<Instance[]> {
  const list = x.lists.get(prefix);
  if (!list) {
    const segment = { member };
    return (await parents).map((inst) => ({ keys: inst.keys, segment, parent: inst }));
  }
  const pinned = at < x.target.length ? x.target[at]!.keys : undefined;
  const next: Instance[] = [];
  for (const inst of await parents) {
    const ctx = { session: x.session, content: x.content, memo: x.memo, keys: inst.keys, key: inst.keys[inst.keys.length - 1] ?? {} };
    let entries: readonly Keys[];
    try {
      entries = await list.list(ctx);
    } catch (err) {
      throw new TranslationError(formatInstancePath([...segmentsOf(inst), { member }]), `list failed: ${(err as Error).message}`);
    }
    for (const keys of entries) {
      if (pinned && !list.keys.every((k) => pinned[k] === undefined || String(pinned[k]) === String(keys[k]))) continue;
      next.push({ keys: [...inst.keys, keys], segment: { member, keys: pick(keys, list.keys) }, parent: inst });
    }
  }
  return next;
}

/** An instance's whole path (for messages). */
function segmentsOf(inst: Instance): InstanceSegment[] {
  const out: InstanceSegment[] = [];
  for (let at: Instance | undefined = inst; at?.segment !== undefined; at = at.parent) out.unshift(at.segment);
  return out;
}

function pick(keys: Keys, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) out[n] = String(keys[n] ?? '');
  return out;
}

/**
 * The entries of each list array of the tree being built, by key: `entryKey` of the entry's key values.
 * Only `nodeOf` creates entries, always with the keys in the list handler's key order, so one key string
 * per entry suffices.
 */
type EntryIndex = Map<JsonValue[], Map<string, JsonObject>>;

function entryKey(keys: Readonly<Record<string, string>>): string {
  let out = '';
  for (const k in keys) out += `${k}\u0000${keys[k]}\u0000`;
  return out;
}

/**
 * The tree node of an instance, created (with the containers and list entries above it) on first use
 * and remembered on the instance. Another unit's instance of the same entry finds it through `index`.
 */
function nodeOf(inst: Instance, index: EntryIndex): JsonObject {
  if (inst.node !== undefined) return inst.node;
  const parent = nodeOf(inst.parent!, index);
  const seg = inst.segment!;
  let node: JsonObject;
  if (seg.keys) {
    let list = parent[seg.member];
    if (!Array.isArray(list)) list = parent[seg.member] = [];
    let entries = index.get(list);
    if (!entries) index.set(list, (entries = new Map()));
    const key = entryKey(seg.keys);
    let entry = entries.get(key);
    if (!entry) {
      entry = { ...seg.keys };
      list.push(entry);
      entries.set(key, entry);
    }
    node = entry;
  } else {
    const child = parent[seg.member];
    node = isObject(child) ? child : (parent[seg.member] = {});
  }
  inst.node = node;
  return node;
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
