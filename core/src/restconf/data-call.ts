/**
 * One request on `/rests/data`, as the data handlers see it: the parsed target, the typed query
 * options the handlers use, the negotiated media types, and the body decoding every write method
 * shares (the body's root must be the target node, or a child of it for POST).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PathStep } from '../data/edit';
import { DataError, fault } from '../data/errors';
import type { InsertPosition } from '../data/list';
import type { DataNode, DataRoot } from '../data/tree';
import type { PluginScope } from '../plugins/generation';
import { valueDecodeScope, type ValueSource } from '../datastore/datastore';
import type { SchemaNode } from '../yang/schema';
import { decodeBody, readBody } from './body';
import type { RestconfContext } from './context';
import type { DatastoreView } from './data-view';
import { methodNotAllowed } from './errors';
import { bodyDecodeOptions } from './filter-points';
import { requestType, type MediaType } from './media';
import { ALLOW } from './options';
import type { ParsedPath } from './uri';

/** The query options the data handlers act on (typed; parsed by the query module). */
export interface DataQuery {
  /**
   * Applies the read parameters (content, depth, fields, with-defaults, paging, ...) to the data
   * found at the target; a number for `fetch=count`; undefined when nothing is left. Asynchronous:
   * a long jsonb-filter gives the event loop back while it runs.
   */
  readonly applyRead: (found: DataNode | DataRoot, target: SchemaNode | undefined) => Promise<DataNode | DataRoot | number | undefined>;
  /**
   * What the read parameters (`with-defaults=report-all`) show at a target that holds no data (a
   * leaf whose value is its default): found below `holder`, the deepest node on the target's path
   * that holds data (`holderSchema` its schema, undefined for the root), down the steps `below`;
   * undefined when they show nothing there. `applyRead` then applies to it as to data found.
   * Absent: nothing is shown at a target without data.
   */
  readonly readAbsent?: (
    holder: DataNode | DataRoot,
    holderSchema: SchemaNode | undefined,
    below: readonly PathStep[],
  ) => DataNode | undefined;
  readonly content: 'config' | 'nonconfig' | 'all' | undefined;
  /**
   * Where `insert`/`point` put a new entry of the list or leaf-list `schema` (undefined without
   * `insert`); 400 when `schema` is not ordered-by user or the point does not fit it.
   */
  readonly insertInto: (schema: SchemaNode) => InsertPosition | undefined;
  readonly checkReferences: boolean;
  readonly applyTags: boolean;
  readonly hideAttributes: boolean;
}

/** One data request, as the handler of its method sees it, over the datastore view its path belongs to. */
export interface DataCall {
  /** Where the data lives: the handlers read and commit through it. */
  readonly view: DatastoreView;
  /** The schema, datastores and options of the view. */
  readonly ctx: RestconfContext;
  readonly scope: PluginScope;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly target: ParsedPath;
  /** The encoded path after the view's root (after `uri.parse` taps), for YANG Patch edit targets. */
  readonly rawPath: string;
  readonly query: DataQuery;
  /** The type responses are written in (negotiated from Accept). */
  readonly responseType: MediaType;
  /** Parameters as received, for the read hooks. */
  readonly rawQuery: Readonly<Record<string, string>>;
}

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
  const steps = call.target.steps;
  const where =
    scope === 'target' ? valueDecodeScope(steps) : { parent: call.target.target, parentPath: steps.length > 0 ? call.target.path : '' };
  const policy = bodyDecodeOptions(call.scope, {
    method: call.req.method as 'PUT' | 'POST' | 'PATCH',
    path: call.target.pathValue,
    query: call.rawQuery,
    schema: call.ctx.schema,
  });
  const decoded = decodeBody(text, media, call.ctx.schema, {
    ...(where.parent !== undefined ? { parent: where.parent, parentPath: where.parentPath } : {}),
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
