/**
 * The CLI plugin's view of the SDK's write plan: the plan itself (each step's commands beside the
 * commands that undo it), a unit that cannot say the requested data in commands reported as the
 * request's fault, and which undo commands a write that failed midway needs.
 */
import { planWrite, TranslationError, type JsonObject, type TranslationUnit, type WritePlan } from '@rosetta/sdk';
import { CliUntranslatableError } from './errors';

/**
 * Plans the write. A unit that cannot say the requested data in commands (its writer throws) is the
 * request's fault: CliUntranslatableError at the node's path.
 */
export function planSteps(units: readonly TranslationUnit[], before: JsonObject, after: JsonObject): WritePlan {
  try {
    return planWrite(units, before, after);
  } catch (e) {
    if (e instanceof TranslationError)
      throw new CliUntranslatableError(e.path, e.message.startsWith(`${e.path}: `) ? e.message.slice(e.path.length + 2) : e.message);
    throw e;
  }
}

/**
 * The commands that undo what was sent before the command at `failedAt` failed: the undo of every step
 * that had started (the failing step's too, when some of its commands had gone through), newest first.
 */
export function undoFor(plan: WritePlan, failedAt: number): readonly string[] {
  return plan.steps
    .filter((step) => step.start < failedAt)
    .reverse()
    .flatMap((step) => step.undo ?? []);
}
