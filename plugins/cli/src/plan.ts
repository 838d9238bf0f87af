/**
 * The CLI plugin's view of the SDK's write plan: the plan itself (each step's commands beside the
 * commands that undo it) and which undo commands a write that failed midway needs.
 */
import { planWrite, type JsonObject, type TranslationUnit, type WritePlan } from '@rosetta/sdk';

/**
 * Plans the write. A unit that cannot say the requested data in commands (its writer throws) is the
 * request's fault: the SDK's TranslationError, 400 `invalid-value` at the node's path, passed on as it is.
 */
export function planSteps(units: readonly TranslationUnit[], before: JsonObject, after: JsonObject): WritePlan {
  return planWrite(units, before, after);
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
