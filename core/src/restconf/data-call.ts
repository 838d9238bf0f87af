/**
 * What every data handler shares about a request: the refusal of writes to operational data, and the
 * reading and decoding of a write body (where its members are decoded is the view's say, so faults are
 * named as the view's clients have always seen them), whose root must be the target node (or a child of
 * it for POST). The call and query types live beside the view that builds them (data-view.ts).
 */
import { DataError, fault } from '../data/errors';
import type { DataNode, DataRoot } from '../data/tree';
import type { ValueSource } from '../datastore/datastore';
import { decodeBody, readBody } from './body';
import type { DataCall } from './data-view';
import { methodNotAllowed } from './errors';
import { bodyDecodeOptions } from './filter-points';
import { requestType } from './media';
import { ALLOW } from './options';

export type { DataCall, DataQuery } from './data-view';

/** 405 for a write to a node that lives in the read-only Operational datastore (`config false`). */
export function refuseStateWrite(call: DataCall, method: string): void {
  const schema = call.target.target;
  if (schema !== undefined && !schema.config) {
    throw methodNotAllowed(method, ALLOW.state, `${call.target.path} is operational (config false) data, which is read-only`);
  }
}

/** Attribute names `apply-tags` accepts on nodes (docs/restconf-api.md#apply-tags). */
const TAG_ATTRIBUTES: ReadonlySet<string> = new Set(['operation', 'template-tags:operation']);

/**
 * Reads and decodes the body of a write. `scope` 'target': the body's members are siblings of the
 * target (PUT, PATCH); 'child': they are children of the target (POST). Config only.
 */
export async function readWriteBody(call: DataCall, scope: 'target' | 'child'): Promise<DataRoot> {
  return (await readWriteBodySource(call, scope)).root;
}

/**
 * As {@link readWriteBody}, and the body text as a `ValueSource` when decoding it again in the target's
 * scope gives the same tree: a JSON body in the target's scope, decoded with nothing but the schema
 * (no apply-tags attributes, no plugin's decode policy). The journal then keeps the text.
 */
export async function readWriteBodySource(call: DataCall, scope: 'target' | 'child'): Promise<{ root: DataRoot; source?: ValueSource }> {
  const media = requestType(call.req.headers['content-type'], false);
  const text = await readBody(call.req, call.ctx.options.bodyLimit);
  const device = call.view.device;
  const policy = bodyDecodeOptions(call.scope, {
    method: call.req.method as 'PUT' | 'POST' | 'PATCH',
    path: call.target.pathValue,
    query: call.rawQuery,
    schema: call.ctx.schema,
    ...(device !== undefined ? { device } : {}),
  });
  const decoded = decodeBody(text, media, call.ctx.schema, {
    ...call.view.bodyScope(call, scope),
    allowState: false,
    ...(call.query.applyTags ? { extraAttributes: TAG_ATTRIBUTES } : {}),
    ...policy,
  });
  const plain = scope === 'target' && media.encoding === 'json' && !call.query.applyTags && Object.keys(policy).length === 0;
  return plain ? { root: decoded.root, source: { json: text, schema: call.ctx.schema } } : { root: decoded.root };
}

/**
 * The one node of a PUT/PATCH body, which must be the target node itself (400 otherwise). For the
 * datastore root the whole decoded root is the value.
 */
export function bodyIsTarget(call: DataCall, root: DataRoot): DataNode | DataRoot {
  const target = call.target.target;
  if (target === undefined) return root;
  const only = root.children.length === 1 ? root.children[0]! : undefined;
  if (only === undefined || only.schema !== target) {
    const named = root.children.map((c) => `${c.schema.module.name}:${c.schema.name}`).join(', ') || 'nothing';
    throw new DataError(
      fault(
        'invalid-value',
        call.target.path,
        `the body must hold exactly the target node '${target.module.name}:${target.name}' (the last URI segment), not ${named}`,
      ),
    );
  }
  return only;
}
