/**
 * A write plan split into steps: the SDK's `planWrite` gives one list of commands and one list of undo
 * commands for the whole write; to undo exactly what a failed write had sent, we need to know which undo
 * commands belong to which forward commands. We learn that by watching the writers while `planWrite`
 * runs them (each writer call is one block, its context tells forward from undo), and check that the
 * blocks add up to the SDK's lists; if they do not (a future SDK plans differently), the whole plan's
 * undo is used, which the SDK documents as valid for a write that failed midway.
 */
import {
  planWrite,
  TranslationError,
  type JsonObject,
  type Registration,
  type TranslationUnit,
  type Writer,
  type WriterContext,
} from '@rosetta/sdk';
import { CliUntranslatableError } from './errors';

/** The forward commands of one step of the plan. */
export interface PlanStep {
  /** Instance path of the node the step writes. */
  readonly path: string;
  /** Index in `commands` of the step's first command. */
  readonly start: number;
  readonly commands: readonly string[];
}

/** The commands that undo one step, and from which forward command on they are needed. */
export interface UndoBlock {
  readonly path: string;
  /** Needed once the forward command at this index has been sent (that step's start, or its parent's). */
  readonly neededFrom: number;
  readonly commands: readonly string[];
}

export interface SteppedPlan {
  readonly commands: readonly string[];
  readonly undo: readonly string[];
  readonly undoGaps: readonly string[];
  /** Forward steps in sending order; undefined when the writers' calls could not be matched to the plan. */
  readonly steps: readonly PlanStep[] | undefined;
  /** Undo blocks in planning order (sent in reverse); undefined with `steps`. */
  readonly undoBlocks: readonly UndoBlock[] | undefined;
}

interface Call {
  readonly ctx: WriterContext;
  readonly forward: boolean;
  readonly out: readonly string[];
}

/**
 * Plans the write and splits it into steps. A unit that cannot say the requested data in commands (its
 * writer throws) is the request's fault: CliUntranslatableError at the node's path.
 */
export function planSteps(units: readonly TranslationUnit[], before: JsonObject, after: JsonObject): SteppedPlan {
  const calls: Call[] = [];
  const watch = (ctx: WriterContext, out: readonly string[]) => {
    calls.push({ ctx, forward: ctx.documents.before === before && ctx.documents.after === after, out: Array.isArray(out) ? out : [] });
    return out;
  };
  const watched = units.map((u) => watchUnit(u, watch));
  let plan: ReturnType<typeof planWrite>;
  try {
    plan = planWrite(watched, before, after);
  } catch (e) {
    if (e instanceof TranslationError)
      throw new CliUntranslatableError(e.path, e.message.startsWith(`${e.path}: `) ? e.message.slice(e.path.length + 2) : e.message);
    throw e;
  }
  const matched = matchSteps(calls, plan.commands, plan.undo);
  return { ...plan, steps: matched?.steps, undoBlocks: matched?.undoBlocks };
}

/**
 * The commands that undo what was sent before the command at `failedAt` failed: the undo of every step
 * that had started (the failing step's too, when some of its commands had gone through), newest first.
 */
export function undoFor(plan: SteppedPlan, failedAt: number): readonly string[] {
  if (!plan.undoBlocks) return plan.undo;
  return plan.undoBlocks
    .filter((b) => b.neededFrom < failedAt)
    .reverse()
    .flatMap((b) => b.commands);
}

function watchUnit(unit: TranslationUnit, watch: (ctx: WriterContext, out: readonly string[]) => readonly string[]): TranslationUnit {
  const registrations: Registration[] = unit.registrations.map((r) => {
    const w = r.handler.write;
    if (!w) return r;
    const wrapped: Writer = {
      ...(w.create ? { create: (a, ctx) => watch(ctx, w.create!.call(w, a, ctx)) } : {}),
      ...(w.update ? { update: (b, a, ctx) => watch(ctx, w.update!.call(w, b, a, ctx)) } : {}),
      ...(w.delete ? { delete: (b, ctx) => watch(ctx, w.delete!.call(w, b, ctx)) } : {}),
    };
    // keep the handler's own methods (readers, list) and its `keys`: only the writer is watched
    const handler = Object.assign(Object.create(Object.getPrototypeOf(r.handler) as object) as object, r.handler, { write: wrapped });
    return { ...r, handler };
  });
  return { ...unit, registrations };
}

/**
 * Groups consecutive calls with the same context (an update run as delete + create is two calls) into
 * blocks; forward blocks are the steps; each undo block is tied to the forward step of the same node, or,
 * for a node whose delete its parent's delete covered (no forward block), to that parent's step. The
 * result is checked against the plan's own lists.
 */
function matchSteps(
  calls: readonly Call[],
  commands: readonly string[],
  undo: readonly string[],
): { steps: PlanStep[]; undoBlocks: UndoBlock[] } | undefined {
  const blocks: Array<{ ctx: WriterContext; forward: boolean; out: string[] }> = [];
  for (const c of calls) {
    const last = blocks[blocks.length - 1];
    if (last && last.ctx === c.ctx) last.out.push(...c.out);
    else blocks.push({ ctx: c.ctx, forward: c.forward, out: [...c.out] });
  }
  const steps: PlanStep[] = [];
  let sent = 0;
  for (const b of blocks.filter((x) => x.forward)) {
    steps.push({ path: b.ctx.path, start: sent, commands: b.out });
    sent += b.out.length;
  }
  const byPath = new Map(steps.map((s) => [s.path, s]));
  const undoBlocks: UndoBlock[] = [];
  for (const b of blocks.filter((x) => !x.forward)) {
    let owner = byPath.get(b.ctx.path);
    if (!owner) {
      // the nearest enclosing node that has a step of its own
      for (const s of steps) if (b.ctx.path.startsWith(`${s.path}/`) && (!owner || s.path.length > owner.path.length)) owner = s;
    }
    undoBlocks.push({ path: b.ctx.path, neededFrom: owner ? owner.start : 0, commands: b.out });
  }
  const same = (a: readonly string[], c: readonly string[]) => a.length === c.length && a.every((x, i) => x === c[i]);
  if (
    !same(
      steps.flatMap((s) => s.commands),
      commands,
    )
  )
    return undefined;
  if (
    !same(
      [...undoBlocks].reverse().flatMap((s) => s.commands),
      undo,
    )
  )
    return undefined;
  return { steps, undoBlocks };
}
