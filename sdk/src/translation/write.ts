/**
 * The write side of the translation engine: compares the before and after documents node by node for
 * every registration with a writer, and turns each created, changed or deleted instance into commands.
 * Deletes run first, deepest first (a child is not deleted separately when its parent is); then creates and
 * updates, parents first. Undo commands come from the inverse writer of each step, in reverse order; the
 * undo of a parent's delete also recreates the children that delete removed with it, and the undo of a
 * parent's create (its delete) takes its created children with it.
 * The plan keeps its steps: each node's commands next to the commands that undo them, so a plugin whose
 * write fails midway undoes exactly the steps that had started, without re-deriving which undo command
 * belongs to which forward command.
 * A change that no writer covers is refused with its path instead of being silently dropped.
 */
import { type InstancePath, type JsonObject, type JsonValue, renderInstancePath } from '@rosetta/core';
import { type InstanceSegment, pathValueOf } from './path';
import { TranslationError, isObject } from './read';
import { isListHandler, type Keys, type Registration, type TranslationUnit, type Writer, type WriterContext } from './unit';

export interface WritePlan {
  /** One step per created, changed or deleted node, in sending order. */
  readonly steps: readonly WriteStep[];
  /** Commands to send in configuration mode, in order: every step's `commands`. */
  readonly commands: string[];
  /** Commands that return the device to `before` (send in this order): every step's `undo`, last step first. */
  readonly undo: string[];
  /** Steps whose inverse writer is missing, so `undo` cannot restore them. */
  readonly undoGaps: string[];
}

/** What one node's create, update or delete sends, and what takes it back. */
export interface WriteStep {
  readonly kind: 'create' | 'update' | 'delete';
  /** Instance path of the node the step writes. */
  readonly path: string;
  /** The step's commands; empty for a delete its parent's delete already covers. */
  readonly commands: readonly string[];
  /**
   * Index in the plan's `commands` from which this node is being written: the step's own first command,
   * or for a delete its parent's covers, that parent's first. Once the command at this index has been
   * sent, the step's `undo` is needed.
   */
  readonly start: number;
  /**
   * Commands that undo the step; empty when its parent's undo takes it along (a child created with its
   * parent); undefined when no inverse writer exists (`undoGaps` says which).
   */
  readonly undo: readonly string[] | undefined;
}

interface Found {
  /** The instance's path as text: its identity within the plan, and its steps' `path`. */
  readonly id: string;
  readonly path: InstancePath;
  readonly keys: Keys[];
  readonly segments: InstanceSegment[];
  readonly value: JsonObject;
}

interface Step {
  readonly kind: 'create' | 'update' | 'delete';
  readonly reg: Registration;
  readonly id: string;
  readonly depth: number;
  readonly before?: JsonObject;
  readonly after?: JsonObject;
  readonly ctx: WriterContext;
}

/** Plans the commands that take the device from `before` to `after` (RFC 7951 documents of its config). */
export function planWrite(units: readonly TranslationUnit[], before: JsonObject, after: JsonObject): WritePlan {
  const registrations = units.flatMap((u) => u.registrations);
  const listKeys = new Map<string, readonly string[]>();
  for (const r of registrations) if (isListHandler(r.handler)) listKeys.set(r.path.segments.join('/'), r.handler.keys);
  const writers = registrations.filter((r) => r.handler.write);

  const uncovered = firstDifference(stripAll(before, writers), stripAll(after, writers), '');
  if (uncovered !== undefined)
    throw new TranslationError(uncovered || '/', 'no writer of the serving translation units handles a change here', 'write');

  const documents = { before, after };
  const steps: Step[] = [];
  for (const reg of writers) {
    const deeper = writers.filter((d) => d !== reg && startsWith(d.path.segments, reg.path.segments));
    const view = (v: JsonObject) =>
      prune(
        stripBelow(
          v,
          deeper.map((d) => d.path.segments.slice(reg.path.segments.length)),
        ),
      );
    const was = new Map(instancesOf(before, reg, listKeys).map((f) => [f.id, f]));
    const now = instancesOf(after, reg, listKeys);
    const depth = reg.path.segments.length;
    for (const f of now) {
      const ctx = { keys: f.keys, key: f.keys[f.keys.length - 1] ?? {}, path: f.path, documents };
      const old = was.get(f.id);
      was.delete(f.id);
      const a = view(f.value);
      if (!old) steps.push({ kind: 'create', reg, id: f.id, depth, after: a, ctx });
      else {
        const b = view(old.value);
        if (firstDifference(b, a, '') !== undefined) steps.push({ kind: 'update', reg, id: f.id, depth, before: b, after: a, ctx });
      }
    }
    for (const f of was.values()) {
      steps.push({
        kind: 'delete',
        reg,
        id: f.id,
        depth,
        before: view(f.value),
        ctx: { keys: f.keys, key: f.keys[f.keys.length - 1] ?? {}, path: f.path, documents },
      });
    }
  }

  const deletes = steps.filter((s) => s.kind === 'delete').sort((a, b) => b.depth - a.depth);
  const deletedIds = deletes.filter((s) => s.reg.handler.write!.delete).map((s) => s.id);
  const createdIds = steps.filter((s) => s.kind === 'create' && s.reg.handler.write!.delete).map((s) => s.id);
  const under = (ids: readonly string[], s: Step) => ids.some((id) => id !== s.id && s.id.startsWith(`${id}/`));
  const ordered = [...deletes, ...steps.filter((s) => s.kind !== 'delete').sort((a, b) => a.depth - b.depth)];

  // every forward writer runs before any inverse one, so a refused change is reported before its undo's faults
  // a delete under a deleted parent sends nothing: the parent's delete removes it
  const covered = ordered.map((step) => step.kind === 'delete' && under(deletedIds, step));
  const forward = ordered.map((step, i) => (covered[i] ? [] : run(step.reg.handler.write!, step.kind, step.before, step.after, step)));
  const starts = new Map<string, number>();
  let sent = 0;
  ordered.forEach((step, i) => {
    if (covered[i]) return;
    starts.set(step.id, sent);
    sent += forward[i]!.length;
  });
  const undoGaps: string[] = [];
  const planned: WriteStep[] = ordered.map((step, i) => ({
    kind: step.kind,
    path: step.id,
    commands: forward[i]!,
    // a covered delete is being written once its parent's delete is (which comes after it in `ordered`)
    start: covered[i] ? coveringStart(starts, step.id) : starts.get(step.id)!,
    undo: undoOf(step, before, after, under(createdIds, step), undoGaps),
  }));
  return {
    steps: planned,
    commands: planned.flatMap((s) => s.commands),
    undo: [...planned].reverse().flatMap((s) => s.undo ?? []),
    undoGaps,
  };
}

/**
 * The commands that undo one step: the inverse of every step, even a delete its parent's covered (the
 * parent's undo recreates only the parent); but a create under a created parent needs no undo of its own,
 * the parent's delete takes it. A missing inverse writer is recorded in `gaps`.
 */
function undoOf(step: Step, before: JsonObject, after: JsonObject, parentCreated: boolean, gaps: string[]): string[] | undefined {
  if (step.kind === 'create' && parentCreated) return [];
  const w = step.reg.handler.write!;
  const inverse = step.kind === 'create' ? 'delete' : step.kind === 'delete' ? 'create' : 'update';
  if (!canRun(w, inverse)) {
    gaps.push(`${step.id}: no ${inverse} writer to undo the ${step.kind}`);
    return undefined;
  }
  const undoStep = { ...step, ctx: { ...step.ctx, documents: { before: after, after: before } } };
  return run(w, inverse, step.after, step.before, undoStep);
}

/** Where the nearest enclosing step that sends commands starts (the delete that covers a child's). */
function coveringStart(starts: ReadonlyMap<string, number>, id: string): number {
  let nearest: string | undefined;
  for (const path of starts.keys()) if (id.startsWith(`${path}/`) && (!nearest || path.length > nearest.length)) nearest = path;
  return nearest === undefined ? 0 : starts.get(nearest)!;
}

function canRun(w: Writer, kind: Step['kind']): boolean {
  return kind === 'update' ? !!w.update || (!!w.delete && !!w.create) : !!w[kind];
}

/** Runs one writer method; `from`/`to` are the node before and after the step. */
function run(w: Writer, kind: Step['kind'], from: JsonObject | undefined, to: JsonObject | undefined, step: Step): string[] {
  const fail = (message: string): never => {
    throw new TranslationError(step.id, message, 'write');
  };
  try {
    let out: readonly string[] | undefined;
    if (kind === 'create') out = w.create ? w.create(to!, step.ctx) : fail(`no writer can create ${step.reg.text}`);
    else if (kind === 'delete') out = w.delete ? w.delete(from!, step.ctx) : fail(`no writer can delete ${step.reg.text}`);
    else if (w.update) out = w.update(from!, to!, step.ctx);
    else if (w.delete && w.create) out = [...w.delete(from!, step.ctx), ...w.create(to!, step.ctx)];
    else fail(`no writer can update ${step.reg.text}`);
    if (!Array.isArray(out) || !out.every((c) => typeof c === 'string')) fail(`the ${kind} writer must return an array of command strings`);
    return [...out!];
  } catch (err) {
    if (err instanceof TranslationError) throw err;
    throw new TranslationError(step.id, `${kind} writer failed: ${(err as Error).message}`, 'write');
  }
}

/** Every instance of a registration in a document, with its keys and instance path. */
function instancesOf(doc: JsonObject, reg: Registration, listKeys: Map<string, readonly string[]>): Found[] {
  let found: Array<{ keys: Keys[]; segments: InstanceSegment[]; value: JsonValue }> = [{ keys: [], segments: [], value: doc }];
  const segs = reg.path.segments;
  for (let i = 0; i < segs.length; i++) {
    const member = segs[i]!;
    const keyNames = listKeys.get(segs.slice(0, i + 1).join('/'));
    const next: typeof found = [];
    for (const f of found) {
      if (!isObject(f.value)) continue;
      const child = f.value[member];
      if (child === undefined) continue;
      if (keyNames) {
        for (const entry of Array.isArray(child) ? child : []) {
          if (!isObject(entry)) continue;
          const keys: Record<string, string> = {};
          for (const k of keyNames) keys[k] = entry[k] === undefined ? '' : String(entry[k]);
          next.push({ keys: [...f.keys, keys], segments: [...f.segments, { member, keys }], value: entry });
        }
      } else {
        next.push({ keys: f.keys, segments: [...f.segments, { member }], value: child });
      }
    }
    found = next;
  }
  return found
    .filter((f) => isObject(f.value))
    .map((f) => {
      const path = pathValueOf(f.segments);
      return { ...f, id: renderInstancePath(path), path, value: f.value as JsonObject };
    });
}

/** A copy of `doc` without the subtrees every writer registration owns, for the uncovered-change check. */
function stripAll(doc: JsonObject, writers: readonly Registration[]): JsonObject {
  const copy = structuredClone(doc);
  for (const w of writers) removeAt(copy, w.path.segments);
  return prune(copy);
}

/** A copy of one node without what deeper registrations own (paths relative to the node). */
function stripBelow(node: JsonObject, relative: ReadonlyArray<readonly string[]>): JsonObject {
  if (relative.length === 0) return node;
  const copy = structuredClone(node);
  for (const rel of relative) removeAt(copy, rel);
  return copy;
}

function removeAt(node: JsonValue, segments: readonly string[]): void {
  if (!isObject(node) || segments.length === 0) return;
  const [head, ...rest] = segments;
  if (rest.length === 0) {
    delete node[head!];
    return;
  }
  const child = node[head!];
  if (Array.isArray(child)) for (const e of child) removeAt(e, rest);
  else removeAt(child as JsonValue, rest);
}

/** Drops empty containers and lists, which RFC 7951 treats as absent for non-presence nodes. */
function prune<T extends JsonValue>(v: T): T {
  if (Array.isArray(v)) return v.map((e) => prune(e)) as T;
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, child] of Object.entries(v)) {
    const p = prune(child);
    if ((isObject(p) && Object.keys(p).length === 0) || (Array.isArray(p) && p.length === 0)) continue;
    out[k] = p;
  }
  return out as T;
}

/** The path of the first difference between two JSON values, or undefined when equal. */
function firstDifference(a: JsonValue | undefined, b: JsonValue | undefined, at: string): string | undefined {
  if (a === b) return undefined;
  if (isObject(a) && isObject(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[k], b[k], `${at}/${k}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${at}[${i + 1}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return at;
}

function startsWith(longer: readonly string[], prefix: readonly string[]): boolean {
  return longer.length > prefix.length && prefix.every((s, i) => longer[i] === s);
}
