/**
 * Journal records of the Config datastore: one record per apply(), holding its edits, and the reading
 * of records and snapshots back against a schema that may have changed since they were written.
 *
 * A record is JSON text: `{"e":[edit, ...]}` with each edit
 * `{"o": operation, "t": [step, ...], "d"?: RFC 7951 JSON of the value, "i"?: insert position}`, a step
 * `{"n": "module:name", "k"?: [key values], "v"?: leaf-list value}` and values as RFC 7951 JSON scalars.
 * Steps and values name schema nodes by module-qualified name, so they resolve again after a restart.
 * Only the edited subtree is stored, so a one-entry PUT writes a record of a few hundred bytes.
 * Instead of `d`, an edit may hold `"b"`: a JSON string holding the RFC 7951 text the value was decoded
 * from (a PUT body, see `ValueSource` in datastore.ts), decoded again with the same parser and scope
 * (datastore.ts's `valueDecodeScope`) on replay: a large PUT is then not encoded a second time for the journal.
 *
 * Reading back never throws on a schema change: an edit whose target no longer exists, or data naming
 * nodes that no longer exist, is dropped (the node, or the edit) with a log line naming the path. What
 * belongs to a module the schema lacks altogether (a plugin switched off) is not dropped when the reader
 * asks for it (`ReadContext.park`): it is handed over, as a stored edit, to be kept aside (parked-data.ts).
 *
 * Over 400 lines because writing and reading back are one format: the lenient reading (pruning,
 * fault-path removal, parking) must change with the encoding it reads.
 */
import { DataError } from '../data/errors';
import type { Edit, PathStep } from '../data/edit';
import { encodeJson } from '../data/json-encode';
import { decodeJson } from '../data/json-decode';
import { leafFromJson } from '../data/leaf-values';
import { resolveChild, tableFor } from '../data/children';
import type { InsertPosition } from '../data/list';
import { instancePath } from '../data/path';
import type { DataNode, DataRoot, LeafValue } from '../data/tree';
import type { LeafListSchema, LeafSchema, ListSchema, SchemaContext, SchemaNode } from '../yang/schema';
import { valueDecodeScope } from './datastore';

/** RFC 7951 JSON text of one canonical leaf value (64-bit numbers as strings, `empty` as `[null]`). */
function scalarJson(value: LeafValue): string {
  if (typeof value === 'bigint') return `"${value}"`;
  if (value === null) return '[null]';
  return JSON.stringify(value);
}

/** A path step as records store it: `{"n": "module:name", "k"?: [keys], "v"?: value}`. */
export function stepJson(step: PathStep): string {
  let out = `{"n":${JSON.stringify(`${step.schema.module.name}:${step.schema.name}`)}`;
  if (step.keys !== undefined) out += `,"k":[${step.keys.map(scalarJson).join(',')}]`;
  if (step.value !== undefined) out += `,"v":${scalarJson(step.value)}`;
  return `${out}}`;
}

function insertJson(insert: InsertPosition): string {
  if (!('point' in insert)) return `{"w":"${insert.where}"}`;
  return `{"w":"${insert.where}","p":[${insert.point.map(scalarJson).join(',')}]}`;
}

/**
 * The record text of one apply(): its edits, each with only its own target and value. `valueJson`
 * (one edit only) is the text the value was decoded from, kept instead of encoding the value.
 */
export function encodeEditRecord(edits: readonly Edit[], valueJson?: string): string {
  const parts: string[] = [];
  for (const edit of edits) {
    let out = `{"o":"${edit.operation}","t":[${edit.target.map(stepJson).join(',')}]`;
    if (edit.value !== undefined && valueJson !== undefined && edits.length === 1) out += `,"b":${JSON.stringify(valueJson)}`;
    else if (edit.value !== undefined) out += `,"d":${encodeJson(edit.value as DataRoot | DataNode)}`;
    if (edit.insert !== undefined) out += `,"i":${insertJson(edit.insert)}`;
    parts.push(`${out}}`);
  }
  return `{"e":[${parts.join(',')}]}`;
}

/** Where records and snapshots are read, and where what is dropped is reported. */
export interface ReadContext {
  readonly ctx: SchemaContext;
  /** Receives one line per dropped node or edit; a schema change should be loud. */
  readonly log: (message: string) => void;
  /** Names the record in log lines (e.g. `record 17`). */
  readonly where: string;
  /**
   * Runs on stored data (parsed JSON, changed in place) before it is decoded, with the schema node it
   * sits under and that node's path: the Config datastore opens sealed secrets here (sensitive.ts).
   */
  readonly prepare?: (doc: JsonObject, parent: SchemaNode | undefined, parentSteps: readonly PathStep[]) => void;
  /**
   * Receives, instead of a drop, what belongs to a module the schema lacks: a stored edit (this file's
   * format, values as stored) and how many steps of its target the schema knows (its anchor).
   */
  readonly park?: (found: ParkedEdit) => void;
}

/** A stored edit of a module the schema lacks: `edit` is `{o, t, d?|b?, i?}`, its first `anchor` steps known. */
export interface ParkedEdit {
  readonly edit: JsonObject;
  readonly anchor: number;
  /** The modules missing from the schema that it names. */
  readonly modules: readonly string[];
}

/** The module a member name `module:name` names when the schema lacks that module, else undefined. */
function absentModule(name: string, ctx: SchemaContext): string | undefined {
  const colon = name.indexOf(':');
  if (colon < 0) return undefined;
  const module = name.slice(0, colon);
  return ctx.modules.has(module) ? undefined : module;
}

/** Where a walk of stored JSON stands: the steps of the node holding the members, and its JSON as a member of its parent. */
interface Holder {
  readonly steps: readonly JsonObject[];
  readonly wrap: (members: JsonObject) => JsonObject;
}

/** The holder for data decoded under `parentSteps` (the top level when empty). */
function holderOf(parentSteps: readonly PathStep[]): Holder {
  const last = parentSteps[parentSteps.length - 1];
  const steps = parentSteps.map((s) => JSON.parse(stepJson(s)) as JsonObject);
  if (last === undefined) return { steps, wrap: (members) => members };
  const name = `${last.schema.module.name}:${last.schema.name}`;
  if (last.schema.kind !== 'list') return { steps, wrap: (members) => ({ [name]: members }) };
  const keys = (last.schema as ListSchema).keys;
  const keyMembers = Object.fromEntries(keys.map((k, i) => [k.name, JSON.parse(scalarJson(last.keys?.[i] ?? null))]));
  return { steps, wrap: (members) => ({ [name]: [{ ...keyMembers, ...members }] }) };
}

type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

const OPERATIONS = new Set(['merge', 'replace', 'create', 'delete', 'remove']);

/** Why a stored edit cannot be read: the schema no longer has its target, or the record is damaged. */
class Unreadable extends Error {}

/** The target passes through a module the schema lacks, at step `at`. */
class TargetInAbsentModule extends Unreadable {
  constructor(
    readonly at: number,
    readonly module: string,
  ) {
    super(`step ${at + 1} is in module '${module}', absent from the schema`);
  }
}

function typedValue(schema: LeafSchema | LeafListSchema, raw: unknown, read: ReadContext, at: string): LeafValue {
  const result = leafFromJson(schema.type, raw, read.ctx, schema.module);
  if (!result.ok) throw new Unreadable(`${at}: value ${JSON.stringify(raw)} no longer fits '${schema.name}': ${result.message}`);
  return result.value;
}

function resolveSteps(raw: unknown, read: ReadContext): PathStep[] {
  if (!Array.isArray(raw)) throw new Unreadable('the target is not a list of steps');
  const steps: PathStep[] = [];
  let parent: SchemaNode | undefined;
  for (const item of raw) {
    const at = steps.length === 0 ? '/' : instancePath(steps);
    if (!isObject(item) || typeof item.n !== 'string') throw new Unreadable(`${at}: a step without a name`);
    const slot = resolveChild(tableFor(parent, read.ctx), item.n);
    const absent = slot === undefined ? absentModule(item.n, read.ctx) : undefined;
    if (absent !== undefined) throw new TargetInAbsentModule(steps.length, absent);
    if (slot === undefined) throw new Unreadable(`${at === '/' ? '' : at}/${item.n}: no such node in the schema any more`);
    const schema = slot.schema as SchemaNode;
    const step: { schema: SchemaNode; keys?: LeafValue[]; value?: LeafValue } = { schema };
    if (item.k !== undefined) {
      const keys = (schema as ListSchema).keys;
      if (schema.kind !== 'list' || !Array.isArray(item.k) || item.k.length !== keys.length) {
        throw new Unreadable(`${at}/${item.n}: the keys no longer match the list's keys`);
      }
      step.keys = item.k.map((k, i) => typedValue(keys[i]!, k, read, `${at}/${item.n}`));
    }
    if (item.v !== undefined) {
      if (schema.kind !== 'leaf-list') throw new Unreadable(`${at}/${item.n}: no longer a leaf-list`);
      step.value = typedValue(schema as LeafListSchema, item.v, read, `${at}/${item.n}`);
    }
    steps.push(step);
    parent = schema;
  }
  return steps;
}

function resolveInsert(raw: unknown, target: readonly PathStep[], read: ReadContext): InsertPosition {
  if (!isObject(raw) || !['first', 'last', 'before', 'after'].includes(raw.w as string)) throw new Unreadable('a bad insert position');
  const where = raw.w as InsertPosition['where'];
  if (where === 'first' || where === 'last') return { where };
  const last = target[target.length - 1];
  const types: readonly (LeafSchema | LeafListSchema)[] =
    last?.schema.kind === 'list'
      ? (last.schema as ListSchema).keys
      : last?.schema.kind === 'leaf-list'
        ? [last.schema as LeafListSchema]
        : [];
  if (!Array.isArray(raw.p) || raw.p.length !== types.length) throw new Unreadable('the insert point no longer matches the target');
  return { where, point: raw.p.map((p, i) => typedValue(types[i]!, p, read, instancePath(target))) };
}

/** Retries (each dropping one faulty member) before the top-level node at fault is dropped whole. */
const MAX_RETRIES = 20;

/**
 * Decodes stored RFC 7951 JSON (a parsed value) under `parent` (at `parentSteps`), dropping what the
 * schema no longer allows. The common case is one strict pass. When it fails, members naming nodes that
 * no longer exist are removed in one walk (logged once per schema path, with a count; those of a module
 * the schema lacks go to `read.park` when given); then any other fault (a value that no longer fits its
 * type, say) removes the member at fault and decoding is retried, and past MAX_RETRIES the top-level
 * node at fault goes whole, so the cost stays bounded.
 */
export function decodeStored(
  doc: JsonObject,
  parent: SchemaNode | undefined,
  parentPath: string,
  read: ReadContext,
  parentSteps: readonly PathStep[] = [],
): ReturnType<typeof decodeJson> {
  const options = parent === undefined ? {} : { parent, parentPath };
  const attempt = (): ReturnType<typeof decodeJson> | DataError => {
    try {
      return decodeJson(doc, read.ctx, options);
    } catch (error) {
      if (error instanceof DataError) return error;
      throw error;
    }
  };
  let result = attempt();
  if (!(result instanceof DataError)) return result;
  const unknown = new Map<string, number>();
  pruneUnknown(doc, parent, parentPath === '/' ? '' : parentPath, read, unknown, holderOf(parentSteps));
  for (const [path, count] of unknown) {
    read.log(`${read.where}: dropping ${path}${count > 1 ? ` (${count} instances)` : ''}: no such node in the schema any more`);
  }
  for (let retry = 0; ; retry++) {
    result = attempt();
    if (!(result instanceof DataError)) return result;
    const fault = result.first;
    const removed = retry < MAX_RETRIES ? removeAt(doc, fault.path, parentPath) : removeTop(doc, fault.path, parentPath);
    if (removed === undefined) throw new Unreadable(`${fault.path}: ${fault.message}`);
    read.log(`${read.where}: dropping ${removed} (${fault.message}): the schema no longer allows it`);
  }
}

/**
 * Removes every member (at any depth) that names no schema node, counting them by schema path; those of
 * a module the schema lacks go, per holding node, to `read.park` as one merge into that node.
 */
function pruneUnknown(
  value: JsonObject,
  parent: SchemaNode | undefined,
  path: string,
  read: ReadContext,
  dropped: Map<string, number>,
  holder: Holder,
): void {
  const { ctx, park } = read;
  const table = tableFor(parent, ctx);
  let parked: JsonObject | undefined;
  const modules = new Set<string>();
  for (const name of Object.keys(value)) {
    if (name === '@') continue;
    const slot = resolveChild(table, name);
    const childPath = `${path}/${name}`;
    if (slot === undefined) {
      const absent = park === undefined ? undefined : absentModule(name, ctx);
      if (absent !== undefined) {
        (parked ??= {})[name] = value[name];
        modules.add(absent);
      } else dropped.set(childPath, (dropped.get(childPath) ?? 0) + 1);
      delete value[name];
      continue;
    }
    const schema = slot.schema as SchemaNode;
    const step = { n: `${schema.module.name}:${schema.name}` };
    let content = value[name];
    if (isObject(content) && '#' in content) content = content['#'];
    if (schema.kind === 'container' && isObject(content)) {
      const inner: Holder = { steps: [...holder.steps, step], wrap: (members) => ({ [name]: members }) };
      pruneUnknown(content, schema, childPath, read, dropped, inner);
    } else if (schema.kind === 'list' && Array.isArray(content)) {
      const keys = (schema as ListSchema).keys;
      for (const entry of content) {
        if (!isObject(entry)) continue;
        const keyNames = keys.map((k) => (k.name in entry ? k.name : `${k.module.name}:${k.name}`));
        const keyMembers = Object.fromEntries(keyNames.map((k) => [k, entry[k]]));
        const inner: Holder = {
          steps: [...holder.steps, { ...step, k: keyNames.map((k) => entry[k]) }],
          wrap: (members) => ({ [name]: [{ ...keyMembers, ...members }] }),
        };
        pruneUnknown(entry, schema, childPath, read, dropped, inner);
      }
    }
  }
  if (parked !== undefined) {
    const edit = { o: 'merge', t: holder.steps, d: holder.wrap(parked) };
    park?.({ edit, anchor: holder.steps.length, modules: [...modules] });
  }
}

/** Removes the top-level member a fault path starts with. */
function removeTop(doc: JsonObject, faultPath: string, base: string): string | undefined {
  const relative = base !== '/' && faultPath.startsWith(base) ? faultPath.slice(base.length) : faultPath;
  const first = splitPath(relative)[0];
  if (first === undefined) return undefined;
  const bare = first.name.slice(first.name.indexOf(':') + 1);
  const member = first.name in doc ? first.name : Object.keys(doc).find((k) => k === bare || k.endsWith(`:${bare}`));
  if (member === undefined) return undefined;
  delete doc[member];
  return `${base === '/' ? '' : base}/${member} as a whole`;
}

/** A path step of an instance path: a name and its predicates (kept as text). */
function splitPath(path: string): Array<{ name: string; predicates: string[] }> {
  const steps: Array<{ name: string; predicates: string[] }> = [];
  let i = path.startsWith('/') ? 1 : 0;
  while (i < path.length) {
    let name = '';
    while (i < path.length && path[i] !== '/' && path[i] !== '[') name += path[i++];
    const predicates: string[] = [];
    while (path[i] === '[') {
      let quote = '';
      let text = '';
      i++;
      while (i < path.length) {
        const c = path[i++]!;
        if (quote) {
          if (c === quote) quote = '';
          text += c;
          continue;
        }
        if (c === "'" || c === '"') {
          quote = c;
          text += c;
          continue;
        }
        if (c === ']') break;
        text += c;
      }
      predicates.push(text);
    }
    if (path[i] === '/') i++;
    steps.push({ name, predicates });
  }
  return steps;
}

/**
 * Removes from `doc` the member an error path names (relative to `base`), descending through list
 * entries by their key predicates. Returns the removed path, or undefined when it cannot be found.
 */
function removeAt(doc: JsonObject, faultPath: string, base: string): string | undefined {
  const relative = base !== '/' && faultPath.startsWith(base) ? faultPath.slice(base.length) : faultPath;
  const steps = splitPath(relative);
  let holder: JsonObject = doc;
  for (let s = 0; s < steps.length; s++) {
    const { name, predicates } = steps[s]!;
    const bare = name.includes(':') ? name.slice(name.indexOf(':') + 1) : name;
    const member = name in holder ? name : Object.keys(holder).find((k) => k === bare || k.endsWith(`:${bare}`));
    if (member === undefined) return undefined;
    let value = holder[member];
    if (isObject(value) && '#' in value) value = value['#'];
    const lastStep = s === steps.length - 1;
    if (predicates.length > 0 && Array.isArray(value)) {
      const wanted = predicates.map((p) => {
        const eq = p.indexOf('=');
        return { key: p.slice(0, eq), text: p.slice(eq + 1).replace(/^['"]|['"]$/g, '') };
      });
      const at = value.findIndex(
        (e) =>
          isObject(e) &&
          wanted.every((w) => w.key === '.' || String(e[w.key] ?? e[Object.keys(e).find((k) => k.endsWith(`:${w.key}`)) ?? '']) === w.text),
      );
      if (at < 0) return undefined;
      if (lastStep) {
        value.splice(at, 1);
        return faultPath;
      }
      holder = value[at] as JsonObject;
      continue;
    }
    if (lastStep || !isObject(value)) {
      delete holder[member];
      return lastStep ? faultPath : `${faultPath} (at ${name})`;
    }
    holder = value;
  }
  return undefined;
}

/**
 * Reads one record back into edits. An edit that no longer fits the schema is left out (logged);
 * a record that is not a record at all throws.
 */
export function decodeEditRecord(text: string, read: ReadContext): Edit[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${read.where} is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(parsed) || !Array.isArray(parsed.e)) throw new Error(`${read.where} is not an edit record`);
  const edits: Edit[] = [];
  for (const [n, raw] of parsed.e.entries()) {
    try {
      if (!isObject(raw) || !OPERATIONS.has(raw.o as string)) throw new Unreadable('not an edit');
      const target = resolveSteps(raw.t, read);
      const edit: { operation: Edit['operation']; target: PathStep[]; value?: DataNode | DataRoot; insert?: InsertPosition } = {
        operation: raw.o as Edit['operation'],
        target,
      };
      if (typeof raw.b === 'string') edit.value = decodeKeptText(raw.b, target, read);
      else if (raw.d !== undefined) {
        if (!isObject(raw.d)) throw new Unreadable('the data is not a JSON object');
        // A list entry's or leaf-list value's data sits under the parent of the list.
        const parentSteps = target.slice(0, -1);
        const parent = parentSteps[parentSteps.length - 1]?.schema;
        read.prepare?.(raw.d, target.length === 0 ? undefined : parent, target.length === 0 ? [] : parentSteps);
        const decoded = decodeStored(
          raw.d,
          target.length === 0 ? undefined : parent,
          parentSteps.length === 0 ? '/' : instancePath(parentSteps),
          read,
          parentSteps,
        );
        if (target.length === 0) edit.value = decoded.root;
        else if (decoded.node !== undefined) edit.value = decoded.node;
        else throw new Unreadable(`${instancePath(target)}: nothing of the data is left`);
      }
      if (raw.i !== undefined) edit.insert = resolveInsert(raw.i, target, read);
      edits.push(edit);
    } catch (error) {
      if (!(error instanceof Unreadable)) throw error;
      if (error instanceof TargetInAbsentModule && read.park !== undefined && isObject(raw)) {
        read.park({ edit: raw, anchor: error.at, modules: [error.module] });
        continue;
      }
      read.log(`${read.where}: dropping edit ${n + 1} (${String(raw && (raw as JsonObject).o)}): ${error.message}`);
    }
  }
  return edits;
}

/**
 * The value of a kept body text (`"b"`): decoded as the request decoded it (same parser, same scope);
 * when that fails, the schema changed since, and the parsed text goes the lenient way `"d"` goes.
 */
function decodeKeptText(text: string, target: readonly PathStep[], read: ReadContext): DataNode | DataRoot {
  const scope = valueDecodeScope(target);
  try {
    const decoded = decodeJson(text, read.ctx, scope.parent === undefined ? {} : { parent: scope.parent, parentPath: scope.parentPath });
    if (target.length === 0) return decoded.root;
    if (decoded.root.children.length === 1) return decoded.root.children[0]!;
  } catch (error) {
    if (!(error instanceof DataError)) throw error;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new Unreadable(`${instancePath(target)}: the kept body is not JSON`);
  }
  if (!isObject(doc)) throw new Unreadable('the data is not a JSON object');
  const decoded = decodeStored(doc, scope.parent, scope.parentPath === '' ? '/' : scope.parentPath, read, target.slice(0, -1));
  if (target.length === 0) return decoded.root;
  if (decoded.node !== undefined) return decoded.node;
  throw new Unreadable(`${instancePath(target)}: nothing of the data is left`);
}

/** Reads a snapshot (encodeJson of the whole tree) back, dropping what the schema no longer has. */
export function decodeSnapshot(text: string, read: ReadContext): DataRoot {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${read.where} is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(parsed)) throw new Error(`${read.where} is not a JSON object`);
  read.prepare?.(parsed, undefined, []);
  try {
    return decodeStored(parsed, undefined, '/', read).root;
  } catch (error) {
    if (!(error instanceof Unreadable)) throw error;
    throw new Error(`${read.where}: ${error.message}`);
  }
}
