/**
 * PUT on `/rests/data/...`: creates or replaces the target (RFC 8040 §4.5). Replace never merges: a
 * replaced list entry or container keeps nothing of what it held. 201 when the target was absent,
 * 204 when it was replaced. `insert`/`point` place a new entry of an `ordered-by user` list.
 */
import type { Edit } from '../data/edit';
import { bodyIsTarget, readWriteBodySource, refuseStateWrite, type DataCall } from './data-call';
import { sendEmpty } from './respond';

export async function handlePut(call: DataCall): Promise<void> {
  if (call.target.steps.length === 0 && call.view.root !== undefined) return call.view.root.write(call, 'PUT');
  refuseStateWrite(call, 'PUT');
  const { root, source } = await readWriteBodySource(call, 'target');
  const value = bodyIsTarget(call, root);
  const insert = call.target.target === undefined ? undefined : call.query.insertInto(call.target.target);
  const edit: Edit = { operation: 'replace', target: call.target.steps, value, ...(insert ? { insert } : {}) };
  const outcome = await call.view.commit(call, {
    operation: 'replace',
    steps: call.target.steps,
    path: call.target.path,
    edits: [edit],
    checkReferences: call.query.checkReferences,
    // The journal may keep the body text rather than encode the value again (a large PUT's last big cost).
    ...(source !== undefined ? { source } : {}),
  });
  sendEmpty(call.res, outcome.existed ? 204 : 201);
}
