/**
 * POST on `/rests/data[/...]` (RFC 8040 §4.4.1): creates the one child the body holds under the
 * target; 201 with the `Location` of the new resource, 409 `data-exists` when it is there already.
 * POST on an action node is an action invocation (operations.ts), routed before this handler.
 */
import type { Edit, PathStep } from '../data/edit';
import { DataError, fault } from '../data/errors';
import { entryKeyValues } from '../data/path';
import type { DataNode } from '../data/tree';
import { readWriteBody, refuseStateWrite, type DataCall } from './data-call';
import { encodeLocation, resourceSegment } from './location';
import { requestPath } from './data-query';
import { sendEmpty } from './respond';

/** The step naming the new child, and the value to create there. */
function childStep(node: DataNode, path: string): { step: PathStep; value: DataNode } {
  if (node.kind === 'list') {
    if (node.entries.length !== 1)
      throw new DataError(
        fault('invalid-value', path, `POST creates one entry of list '${node.schema.name}', ${node.entries.length} given`),
      );
    const entry = node.entries[0]!;
    if (node.schema.keys.length === 0)
      throw new DataError(fault('invalid-value', path, `entries of keyless list '${node.schema.name}' cannot be created by POST`));
    return { step: { schema: node.schema, keys: entryKeyValues(entry) }, value: entry };
  }
  if (node.kind === 'leaf-list' && node.values.length === 1) return { step: { schema: node.schema, value: node.values[0]! }, value: node };
  return { step: { schema: node.schema }, value: node };
}

export async function handlePost(call: DataCall): Promise<void> {
  refuseStateWrite(call, 'POST');
  const target = call.target.target;
  if (target !== undefined && target.kind !== 'container' && !(target.kind === 'list' && call.target.steps.at(-1)?.keys !== undefined)) {
    throw new DataError(
      fault(
        'invalid-value',
        call.target.path,
        `POST creates a child of a container or list entry; '${target.name}' is a ${target.kind}${target.kind === 'list' ? ' (name one entry with its keys)' : ''}`,
      ),
    );
  }
  const root = await readWriteBody(call, 'child');
  if (root.children.length !== 1) {
    throw new DataError(
      fault('invalid-value', call.target.path, `the body of a POST must hold exactly one child of the target, not ${root.children.length}`),
    );
  }
  const { step, value } = childStep(root.children[0]!, call.target.path);
  const steps = [...call.target.steps, step];
  const insert = call.query.insertInto(step.schema);
  const edit: Edit = { operation: 'create', target: steps, value, ...(insert ? { insert } : {}) };
  await call.view.commit(call, {
    operation: 'create',
    steps,
    path: call.target.path,
    edits: [edit],
    checkReferences: call.query.checkReferences,
  });
  const base = requestPath(call.req).replace(/\/+$/, '');
  call.res.setHeader('Location', encodeLocation(`${base}/${resourceSegment(step, target?.module.name, call.ctx.options.keyDelimiter)}`));
  sendEmpty(call.res, 201);
}
