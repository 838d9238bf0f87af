/**
 * Plain PATCH on `/rests/data/...` (RFC 8040 §4.6.1): merges the body into the target, creating what
 * is missing and deleting nothing; 200. With `apply-tags=true`, nodes tagged with an `operation`
 * attribute are edited by that operation instead (see apply-tags.ts). YANG Patch bodies are routed
 * to yang-patch.ts before this handler.
 */
import type { Edit } from '../data/edit';
import { tagEdits } from './apply-tags';
import { bodyIsTarget, readWriteBody, refuseStateWrite, type DataCall } from './data-call';
import { sendEmpty } from './respond';

export async function handlePlainPatch(call: DataCall): Promise<void> {
  if (call.target.steps.length === 0 && call.view.root !== undefined) return call.view.root.write(call, 'PATCH');
  refuseStateWrite(call, 'PATCH');
  const root = await readWriteBody(call, 'target');
  const value = bodyIsTarget(call, root);
  let edits: Edit[] = [{ operation: 'merge', target: call.target.steps, value }];
  let precheck: ((previous: import('../data/tree').DataRoot) => void) | undefined;
  if (call.query.applyTags) ({ edits, precheck } = tagEdits(call.target.steps, value));
  await call.view.commit(call, {
    operation: 'patch',
    steps: call.target.steps,
    path: call.target.path,
    edits,
    checkReferences: call.query.checkReferences,
    ...(precheck ? { precheck } : {}),
  });
  sendEmpty(call.res, 200);
}
