/**
 * DELETE on `/rests/data/...`: removes exactly the target node (a list entry, a leaf-list value, a
 * container, a leaf, a whole list); 204, or 404 `data-missing` when there is nothing there.
 */
import { refuseStateWrite, type DataCall } from './data-call';
import { sendEmpty } from './respond';

export async function handleDelete(call: DataCall): Promise<void> {
  refuseStateWrite(call, 'DELETE');
  await call.view.commit(call, {
    operation: 'delete',
    steps: call.target.steps,
    path: call.target.path,
    edits: [{ operation: 'delete', target: call.target.steps }],
    checkReferences: call.query.checkReferences,
  });
  sendEmpty(call.res, 204);
}
