/**
 * The HTTP entry of the uniconfig layer, mounted before RESTCONF's own routes: requests on a uniconfig
 * node's `configuration` (data-route.ts) and the operations of uniconfig-manager, dryrun-manager and
 * snapshot-manager, and reads of the uniconfig topology in a transaction (topology-view.ts). Everything
 * else passes on untouched. The `UNICONFIGTXID` cookie picks the
 * transaction (422 `invalid-transaction` when it names none); `create-transaction` answers 201 with the
 * cookie. Errors go to RESTCONF's error handler, so they carry the usual envelope.
 */
import type { NextFunction, Request, Response } from 'express';
import { dataSchemaChildren } from '../data/children';
import { DataError, fault } from '../data/errors';
import { decodeJson } from '../data/json-decode';
import { toJsonValue } from '../data/json-encode';
import type { ContainerNode } from '../data/tree';
import { encodeXml } from '../data/xml-encode';
import type { JsonObject, UriParseContext } from '../hooks';
import type { PluginScope } from '../plugins/generation';
import { decodeBody, readBody } from '../restconf/body';
import type { RestconfContext } from '../restconf/context';
import { ALLOW } from '../restconf/discovery';
import { badQuery, methodNotAllowed, RestconfError } from '../restconf/errors';
import { requestType, responseType } from '../restconf/media';
import type { OperationSchema } from '../yang/schema';
import { configurationPath, handleConfiguration } from './data-route';
import type { UniconfigEngine } from './engine';
import type { UniconfigOperations } from './operations';
import { hasTransactionCookie, serveTopologyView, topologyViewPath } from './topology-view';
import { COOKIE_NAME, DEFAULT_IDLE_SECONDS, MAX_IDLE_SECONDS, type TransactionRegistry } from './transactions';

/** The modules whose operations this layer serves. */
const OPERATION_MODULES: ReadonlySet<string> = new Set(['uniconfig-manager', 'dryrun-manager', 'snapshot-manager']);

export interface RouteParts {
  readonly ctx: RestconfContext;
  readonly engine: UniconfigEngine;
  readonly registry: TransactionRegistry;
  readonly operations: UniconfigOperations;
}

/** The scope of a request, shared with RESTCONF's routes through `res.locals` when the request passes on. */
function scopeOf(ctx: RestconfContext, res: Response): PluginScope {
  const locals = res.locals as { scope?: PluginScope };
  if (locals.scope === undefined) {
    const scope = ctx.plugins.acquire();
    locals.scope = scope;
    res.once('close', () => scope.release());
  }
  return locals.scope;
}

function queryText(req: Request): string {
  const q = req.originalUrl.indexOf('?');
  return q < 0 ? '' : req.originalUrl.slice(q + 1);
}

/** The express middleware (see the top of this file). */
export function uniconfigMiddleware(parts: RouteParts) {
  const { ctx } = parts;
  return (req: Request, res: Response, next: NextFunction): void => {
    const original = req.originalUrl.split('?')[0]!;
    if (!original.startsWith('/rests/data/') && !original.startsWith('/rests/operations/')) {
      next();
      return;
    }
    const work = async (): Promise<boolean> => {
      const scope = scopeOf(ctx, res);
      let uri: UriParseContext = { original, path: original, keyDelimiter: ctx.options.keyDelimiter };
      if (scope.hooks.uri.parse.isUsed()) uri = scope.hooks.uri.parse.call(uri);
      if (uri.path.startsWith('/rests/data/')) {
        const raw = uri.path.slice('/rests/data'.length);
        const uriCtx: RestconfContext = { ...ctx, options: { ...ctx.options, keyDelimiter: uri.keyDelimiter } };
        const where = configurationPath(raw, uri.keyDelimiter);
        if (where === undefined) {
          // a read of the topology in a transaction shows the transaction's views (topology-view.ts)
          if (
            (req.method !== 'GET' && req.method !== 'HEAD') ||
            !hasTransactionCookie(req.headers.cookie) ||
            !topologyViewPath(raw, uri.keyDelimiter)
          )
            return false;
          const tx = parts.registry.fromCookieHeader(req.headers.cookie);
          if (tx === undefined) return false;
          await serveTopologyView(uriCtx, parts.engine, scope, tx, req, res, raw);
          return true;
        }
        const tx = parts.registry.fromCookieHeader(req.headers.cookie);
        await handleConfiguration(uriCtx, parts.engine, scope, tx, req, res, where);
        return true;
      }
      const op = operationOf(ctx, uri.path.slice('/rests/operations/'.length));
      if (op === undefined) return false;
      await runOperation(parts, scope, req, res, op);
      return true;
    };
    work().then((handled) => {
      if (!handled) next();
    }, next);
  };
}

/** The RPC a path names when it is one of ours (`module:rpc`, nothing after). */
function operationOf(ctx: RestconfContext, text: string): OperationSchema | undefined {
  const m = /^([A-Za-z_][A-Za-z0-9_.-]*):([A-Za-z_][A-Za-z0-9_.-]*)\/?$/.exec(text);
  if (m === null || !OPERATION_MODULES.has(m[1]!)) return undefined;
  return ctx.schema.rpcs.find((r) => r.module.name === m[1] && r.name === m[2]);
}

/** Decodes the input, runs the operation, writes the answer. */
async function runOperation(parts: RouteParts, scope: PluginScope, req: Request, res: Response, op: OperationSchema): Promise<void> {
  const { ctx } = parts;
  const name = `${op.module.name}:${op.name}`;
  if (req.method === 'OPTIONS') {
    res.status(200).setHeader('Allow', ALLOW.operation.join(', '));
    res.end();
    return;
  }
  if (req.method !== 'POST') throw methodNotAllowed(req.method, ALLOW.operation, 'operations are invoked with POST');
  const params = new URLSearchParams(queryText(req));
  const media = responseType(req.headers.accept);
  if (name === 'uniconfig-manager:create-transaction') {
    let idle = DEFAULT_IDLE_SECONDS;
    for (const [key, value] of params) {
      if (key !== 'timeout') throw badQuery(key, 'create-transaction takes only the timeout parameter');
      if (!/^\d{1,6}$/.test(value) || Number(value) < 1 || Number(value) > MAX_IDLE_SECONDS)
        throw badQuery('timeout', `must be a whole number of seconds from 1 to ${MAX_IDLE_SECONDS}`);
      idle = Number(value);
    }
    await readInput(req, ctx, op, `/${name}`);
    const tx = parts.registry.create(idle);
    res.setHeader('Set-Cookie', `${COOKIE_NAME}=${tx.id};Path=/rests/`);
    res
      .status(201)
      .type(media.type)
      .send(encodeOutput(ctx, op, { 'transaction-id': tx.id }, media.encoding));
    return;
  }
  const firstParam = [...params.keys()][0];
  if (firstParam !== undefined) throw badQuery(firstParam, 'is not allowed on operations');
  const tx = parts.registry.fromCookieHeader(req.headers.cookie);
  const input = await readInput(req, ctx, op, `/${name}`);
  const output = await parts.operations.run(name, scope, tx, input);
  if (output === undefined) throw RestconfError.of('operation-not-supported', `'${name}' is not implemented`, { type: 'application' });
  if (output === null) {
    res.status(204).end();
    return;
  }
  res
    .status(200)
    .type(media.type)
    .send(encodeOutput(ctx, op, output, media.encoding));
}

/** The input members (checked against the schema: 400 naming the fault; mandatory leaves present). */
async function readInput(req: Request, ctx: RestconfContext, op: OperationSchema, path: string): Promise<JsonObject> {
  const text = await readBody(req, ctx.options.bodyLimit);
  let input: ContainerNode = { kind: 'container', schema: op.input, children: [] };
  if (text.trim() !== '') {
    const decoded = decodeBody(text, requestType(req.headers['content-type'], false), ctx.schema, { parent: op, parentPath: path });
    const node = decoded.root.children[0];
    if (decoded.root.children.length !== 1 || node?.schema !== op.input)
      throw new DataError(fault('invalid-value', path, `the body must hold '${op.module.name}:input' only`));
    input = node as ContainerNode;
  }
  const missing = dataSchemaChildren(op.input.children).filter(
    (c) => c.kind === 'leaf' && c.mandatory && !input.children.some((n) => n.schema === c),
  );
  if (missing.length > 0)
    throw new DataError(missing.map((c) => fault('missing-element', `${path}/input/${c.name}`, `mandatory input '${c.name}' is missing`)));
  const members = toJsonValue(input, { attributes: false }) as Record<string, JsonObject>;
  return Object.values(members)[0] ?? {};
}

/**
 * The output in the negotiated encoding. JSON is written straight from the members (this layer builds
 * them to the output schema: strings, booleans and lists keyed as declared), which keeps a 10,000-change
 * calculate-diff from being decoded and encoded again; XML goes through the schema for namespaces.
 */
function encodeOutput(ctx: RestconfContext, op: OperationSchema, output: JsonObject, encoding: 'json' | 'xml'): string {
  if (encoding === 'json') return JSON.stringify({ [`${op.module.name}:output`]: output });
  const node = decodeJson({ [`${op.module.name}:output`]: output }, ctx.schema, { parent: op, parentPath: `/${op.module.name}:${op.name}` })
    .node!;
  return encodeXml(node, ctx.schema);
}
