/**
 * The large lists of the Config datastore as rows of the database (database/list-entries.ts): which
 * lists have rows, what a row holds, and which rows a change touches.
 *
 * - A list has rows when it holds `threshold` entries or more and no list encloses it (its data
 *   ancestors are containers): a jsonb-filter over a smaller list is cheaper in the instance than a
 *   round trip, and an entry of a nested list lives inside its parent entry's row already.
 * - A row is the entry as a jsonb document in the form the filter reads (`entryDocument`): members
 *   named by their local name (`module:name` where two children of one parent share the local name),
 *   lists and leaf-lists as arrays, values typed as jsonb-filter compares them (integers and decimal64
 *   as numbers, identityrefs as `module:identity` strings, `empty` as null).
 * - A change to one entry rewrites that entry's row; a change to the whole list (or above it) rewrites
 *   the entries whose node changed (trees are copy-on-write: an untouched entry is the same object);
 *   a list that grows past the threshold gets all its rows, one that shrinks under it loses them.
 */
import { childTable } from '../data/children';
import type { Edit } from '../data/edit';
import { entryKey, findEntry, listIndex } from '../data/list';
import type { DataNode, DataRoot, InnerNode, LeafValue, ListEntryNode, ListNode } from '../data/tree';
import type { ListRowChange } from '../database';
import { dataParent, type ListSchema, type SchemaNode } from '../yang/schema';

/** Entries from which a list has rows, unless `database.largeListEntries` says otherwise. */
export const DEFAULT_LARGE_LIST_ENTRIES = 10_000;

const names = new WeakMap<SchemaNode, string>();

/** The member name of `schema` in a row document: its local name, qualified where a sibling shares it. */
export function documentName(schema: SchemaNode): string {
  let name = names.get(schema);
  if (name === undefined) {
    const parent = dataParent(schema);
    let sharing = 0;
    if (parent !== undefined) for (const sibling of childTable(parent).bySchema.keys()) if (sibling.name === schema.name) sharing += 1;
    name = sharing > 1 ? `${schema.module.name}:${schema.name}` : schema.name;
    names.set(schema, name);
  }
  return name;
}

/** The containers from the top down to `schema`, or undefined when a list (or anything else) encloses it. */
export function topListChain(schema: ListSchema): readonly SchemaNode[] | undefined {
  const chain: SchemaNode[] = [];
  for (let p = dataParent(schema); p !== undefined; p = dataParent(p)) {
    if (p.kind !== 'container') return undefined;
    chain.unshift(p);
  }
  return chain;
}

/** The name of a list's rows: its schema path, every step qualified. */
export function listName(schema: ListSchema): string {
  let out = '';
  for (const s of [...(topListChain(schema) ?? []), schema]) out += `/${s.module.name}:${s.name}`;
  return out;
}

function childOf(inner: InnerNode | DataRoot, schema: SchemaNode): DataNode | undefined {
  for (const c of inner.children) if (c.schema === schema) return c;
  return undefined;
}

/** The list of `schema` in `root` (a top-level list: `topListChain` defined), if present. */
export function topListIn(root: DataRoot, schema: ListSchema): ListNode | undefined {
  let at: InnerNode | DataRoot = root;
  for (const step of topListChain(schema) ?? []) {
    const next = childOf(at, step);
    if (next?.kind !== 'container') return undefined;
    at = next;
  }
  const list = childOf(at, schema);
  return list?.kind === 'list' ? list : undefined;
}

/** A number as jsonb reads one, for decimal64 text; anything else stays a string. */
const JSON_NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * A string as jsonb takes it: PostgreSQL refuses \u0000 and lone surrogates in jsonb, so they are
 * written as U+FFFD (a filter cannot match them in the database; the write still succeeds). A YANG
 * string refuses both when decoded; anydata keeps what arrived, so this is its guard.
 */
function jsonString(s: string): string {
  const noNul = s.includes('\0') ? s.split('\0').join('\ufffd') : s;
  return JSON.stringify((noNul as string & { toWellFormed(): string }).toWellFormed());
}

function valueJson(value: LeafValue, decimal: boolean): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : jsonString(String(value));
  return decimal && JSON_NUMBER.test(value) ? value : jsonString(value);
}

function anyJson(value: unknown): string {
  return (
    JSON.stringify(value, (_k, v: unknown) =>
      typeof v === 'bigint' ? Number(v) : typeof v === 'string' ? v.split('\0').join('\ufffd') : v,
    ) ?? 'null'
  );
}

function innerJson(inner: InnerNode): string {
  let out = '{';
  for (const child of inner.children) {
    if (out.length > 1) out += ',';
    out += `${JSON.stringify(documentName(child.schema))}:${nodeJson(child)}`;
  }
  return `${out}}`;
}

function nodeJson(node: DataNode): string {
  switch (node.kind) {
    case 'container':
    case 'entry':
      return innerJson(node);
    case 'list':
      return `[${node.entries.map(innerJson).join(',')}]`;
    case 'leaf':
      return valueJson(node.value, node.schema.type.builtin === 'decimal64');
    case 'leaf-list': {
      const decimal = node.schema.type.builtin === 'decimal64';
      return `[${node.values.map((v) => valueJson(v, decimal)).join(',')}]`;
    }
    case 'any':
      return anyJson(node.value);
  }
}

/** The row document of one entry (jsonb text). */
export function entryDocument(entry: ListEntryNode): string {
  return innerJson(entry);
}

/** What one change does to one list: rewrite it whole (diffed), or these entries only. */
interface Touched {
  whole: boolean;
  readonly keys: LeafValue[][];
}

/** The top-level lists at or under `node` (a container or the root), added to `out` as touched whole. */
function listsUnder(node: InnerNode | DataRoot | undefined, out: Map<ListSchema, Touched>): void {
  if (node === undefined) return;
  for (const child of node.children) {
    if (child.kind === 'container') listsUnder(child, out);
    else if (child.kind === 'list') touch(out, child.schema).whole = true;
  }
}

function touch(out: Map<ListSchema, Touched>, schema: ListSchema): Touched {
  let t = out.get(schema);
  if (t === undefined) {
    t = { whole: false, keys: [] };
    out.set(schema, t);
  }
  return t;
}

/** The node at the container steps `steps` of `root`, if every one is there. */
function containerAt(root: DataRoot, steps: readonly SchemaNode[]): InnerNode | DataRoot | undefined {
  let at: InnerNode | DataRoot = root;
  for (const s of steps) {
    const next = childOf(at, s);
    if (next?.kind !== 'container') return undefined;
    at = next;
  }
  return at;
}

/** The top-level lists `edits` touch, and how. */
function touchedLists(previous: DataRoot, next: DataRoot, edits: readonly Edit[]): Map<ListSchema, Touched> {
  const out = new Map<ListSchema, Touched>();
  for (const edit of edits) {
    const steps = edit.target;
    const at = steps.findIndex((s) => s.schema.kind === 'list');
    if (at >= 0) {
      const step = steps[at]!;
      const t = touch(out, step.schema as ListSchema);
      if (step.keys === undefined) t.whole = true;
      else t.keys.push([...step.keys]);
      continue;
    }
    const containers = steps.map((s) => s.schema);
    if (containers.some((s) => s.kind !== 'container')) continue; // a leaf, leaf-list or anydata above any list
    listsUnder(containerAt(previous, containers), out);
    listsUnder(containerAt(next, containers), out);
  }
  return out;
}

function allRowsOf(list: ListNode): [string, string][] {
  return list.entries.map((e) => [entryKey(e), entryDocument(e)]);
}

/** The row changes of one list between two versions of it. */
function listChange(
  schema: ListSchema,
  before: ListNode | undefined,
  after: ListNode | undefined,
  t: Touched,
  threshold: number,
): ListRowChange | undefined {
  if (before === after) return undefined;
  const had = (before?.entries.length ?? 0) >= threshold;
  const has = (after?.entries.length ?? 0) >= threshold;
  const list = listName(schema);
  if (!has) return had ? { list, clear: true, upserts: [], deletes: [] } : undefined;
  if (!had) return { list, clear: true, upserts: allRowsOf(after!), deletes: [] };
  const upserts: [string, string][] = [];
  const deletes: string[] = [];
  if (t.whole) {
    const old = listIndex(before!);
    for (const e of after!.entries) {
      const key = entryKey(e);
      if (old?.get(key) !== e) upserts.push([key, entryDocument(e)]);
    }
    const now = listIndex(after!);
    for (const e of before!.entries) {
      const key = entryKey(e);
      if (now?.has(key) !== true) deletes.push(key);
    }
  } else {
    for (const keys of t.keys) {
      const entry = findEntry(after!, keys);
      if (entry !== undefined) upserts.push([entryKey(entry), entryDocument(entry)]);
      else {
        const gone = findEntry(before!, keys);
        if (gone !== undefined) deletes.push(entryKey(gone));
      }
    }
  }
  return upserts.length > 0 || deletes.length > 0 ? { list, clear: false, upserts, deletes } : undefined;
}

/** What `edits`, which took the data from `previous` to `next`, change in the rows of lists of `threshold` entries or more. */
export function rowChanges(previous: DataRoot, next: DataRoot, edits: readonly Edit[], threshold: number): ListRowChange[] {
  const out: ListRowChange[] = [];
  for (const [schema, t] of touchedLists(previous, next, edits)) {
    if (topListChain(schema) === undefined) continue;
    const change = listChange(schema, topListIn(previous, schema), topListIn(next, schema), t, threshold);
    if (change !== undefined) out.push(change);
  }
  return out;
}

/** The rows of every large list of `root`: what a database without rows (or built for another threshold) is given. */
export function allRows(root: DataRoot, threshold: number): ListRowChange[] {
  const out = new Map<ListSchema, Touched>();
  listsUnder(root, out);
  const changes: ListRowChange[] = [];
  for (const schema of out.keys()) {
    const list = topListIn(root, schema);
    if (list !== undefined && list.entries.length >= threshold)
      changes.push({ list: listName(schema), clear: true, upserts: allRowsOf(list), deletes: [] });
  }
  return changes;
}
