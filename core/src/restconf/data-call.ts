/**
 * One request on `/rests/data`, as the data handlers see it: the parsed target, the typed query
 * options the handlers use, the negotiated media types, and the body decoding every write method
 * shares (the body's root must be the target node, or a child of it for POST).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import type { PathStep } from '../data/edit';
import { DataError, fault } from '../data/errors';
import type { InsertPosition } from '../data/list';
import type { DataNode, DataRoot } from '../data/tree';
import type { PluginScope } from '../plugins/generation';
import { valueDecodeScope, type ValueSource } from '../datastore/datastore';
import type { SchemaNode } from '../yang/schema';
import { decodeBody, readBody } from './body';
import type { RestconfContext } from './context';
import { methodNotAllowed } from './errors';
import { bodyDecodeOptions } from './filter-points';
import { requestType, type MediaType } from './media';
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

/**
 * One data request. The request and response are express's by default (the uniconfig layer's routes
 * build these); the core's data handlers take {@link PlainDataCall}, node's own types, because app.ts
 * serves the common data requests without express (see respond.ts).
 */
export interface DataCall<Req extends IncomingMessage = Request, Res extends ServerResponse = Response> {
  readonly ctx: RestconfContext;
  readonly scope: PluginScope;
  readonly req: Req;
  readonly res: Res;
  readonly target: ParsedPath;
  /** The encoded path after `/rests/data` (after `uri.parse` taps), for YANG Patch edit targets. */
  readonly rawPath: string;
  readonly query: DataQuery;
  /** The type responses are written in (negotiated from Accept). */
  readonly responseType: MediaType;
  /** Parameters as received, for the read hooks. */
  readonly rawQuery: Readonly<Record<string, string>>;
}

/** A data request with node's HTTP types: what handlers that never use express's helpers accept. */
export type PlainDataCall = DataCall<IncomingMessage, ServerResponse>;

/** Methods allowed on a resource of the Operational datastore only. */
export const READ_ONLY_METHODS = ['GET', 'HEAD', 'OPTIONS'] as const;

/** 405 for a write to a node that lives in the read-only Operational datastore (`config false`). */
export function refuseStateWrite(call: PlainDataCall, method: string): void {
  const schema = call.target.target;
  if (schema !== undefined && !schema.config) {
    throw methodNotAllowed(method, READ_ONLY_METHODS, `${call.target.path} is operational (config false) data, which is read-only`);
  }
}

/** Attribute names `apply-tags` accepts on nodes (docs/restconf-api.md#apply-tags). */
const TAG_ATTRIBUTES: ReadonlySet<string> = new Set(['operation', 'template-tags:operation']);

/**
 * Reads and decodes the body of a write. `scope` 'target': the body's members are siblings of the
 * target (PUT, PATCH); 'child': they are children of the target (POST). Config only.
 */
export async function readWriteBody(call: PlainDataCall, scope: 'target' | 'child'): Promise<DataRoot> {
  return (await readWriteBodySource(call, scope)).root;
}

/**
 * As {@link readWriteBody}, and the body text as a `ValueSource` when decoding it again in the target's
 * scope gives the same tree: a JSON body in the target's scope, decoded with nothing but the schema
 * (no apply-tags attributes, no plugin's decode policy). The journal then keeps the text.
 */
export async function readWriteBodySource(
  call: PlainDataCall,
  scope: 'target' | 'child',
): Promise<{ root: DataRoot; source?: ValueSource }> {
  const media = requestType(call.req.headers['content-type'], false);
  const text = await readBody(call.req, call.ctx.options.bodyLimit);
  const steps = call.target.steps;
  const where =
    scope === 'target' ? valueDecodeScope(steps) : { parent: call.target.target, parentPath: steps.length > 0 ? call.target.path : '' };
  const policy = bodyDecodeOptions(call.scope, {
    method: call.req.method as 'PUT' | 'POST' | 'PATCH',
    path: call.target.path,
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
export function bodyIsTarget(call: PlainDataCall, root: DataRoot): DataNode | DataRoot {
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
