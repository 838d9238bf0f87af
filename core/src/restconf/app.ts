/**
 * The RESTCONF HTTP application (express): routes under `/rests/` and `/.well-known/host-meta`, one
 * handler per method, and the one error path that turns whatever a handler threw into the RFC 8040
 * envelope in the negotiated encoding. Each request leases the current plugin generation for its
 * whole life (released when the response is done), runs `uri.parse` over its path, and reads its
 * query through the query module. Paths crossing `yang-ext:mount` go to mount-routes.ts.
 * `createRestconfHandler` puts direct-data.ts in front: it serves the common data requests without
 * express and hands everything else to this app.
 */
import type { RequestListener } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { PluginScope } from '../plugins/generation';
import type { UriParseContext } from '../hooks';
import type { RestconfContext } from './context';
import { requestScope } from './request-scope';
import { handleDelete } from './delete';
import { ALLOW, HOST_META, apiRoot, wadl, yangLibraryVersion } from './discovery';
import { methodNotAllowed, unknownResource } from './errors';
import { requestType, responseType } from './media';
import { invokeOperation, listOperations } from './operations';
import { handlePlainPatch } from './patch';
import { handlePost } from './post';
import { handlePut } from './put';
import { handleGet } from './read';
import { dataQuery, rawQueryOf } from './data-query';
import { parseDataPath, parseOperationPath, type ParsedPath } from './uri';
import { handleYangPatch } from './yang-patch';
import { handleMountData, handleMountOperation } from './mount-routes';
import type { DataCall } from './data-call';
import { badUri } from './uri-segments';
import { sendError } from './respond';
import { answerDataOptions, withDirectData, type DirectDataOptions } from './direct-data';

/** The encoded path of a request (no query), from `/rests/` on, after `uri.parse` taps. */
function rewrittenPath(ctx: RestconfContext, scope: PluginScope, req: Request): UriParseContext {
  const original = req.originalUrl.split('?')[0]!;
  const uri: UriParseContext = { original, path: original, keyDelimiter: ctx.options.keyDelimiter };
  return scope.hooks.uri.parse.isUsed() ? scope.hooks.uri.parse.call(uri) : uri;
}

/** The part of a path after `prefix` (`/rests/data`), or undefined when it is not under it. */
function after(path: string, prefix: string): string | undefined {
  if (path === prefix) return '';
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
}

type Handler = (req: Request, res: Response) => Promise<void> | void;

function wrap(handler: Handler) {
  return (req: Request, res: Response, next: NextFunction) => {
    Promise.resolve()
      .then(() => handler(req, res))
      .catch(next);
  };
}

/** Builds the express app serving RESTCONF for `ctx`; `extraRoutes` (the `server.routes` taps) go first. */
export function createRestconfApp(ctx: RestconfContext, extraRoutes?: (router: express.Router) => void): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', false);
  if (extraRoutes) {
    const router = express.Router();
    extraRoutes(router);
    app.use(router);
  }

  app.all(
    '/.well-known/host-meta',
    wrap((req, res) => {
      if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(req.method, ALLOW.readOnly, 'host-meta is read-only');
      res.status(200).type('application/xrd+xml').send(HOST_META);
    }),
  );

  app.all(
    '/rests',
    wrap((req, res) => {
      if (req.method === 'OPTIONS') {
        res.status(200).setHeader('Allow', ALLOW.readOnly.join(', '));
        res.type('application/vnd.sun.wadl+xml').send(wadl(`${req.protocol}://${req.headers.host ?? 'localhost'}/rests/`));
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed(req.method, ALLOW.readOnly, 'the API root is read-only');
      const media = responseType(req.headers.accept);
      res.status(200).type(media.type).send(apiRoot(media));
    }),
  );

  app.all(
    '/rests/yang-library-version',
    wrap((req, res) => {
      if (req.method === 'OPTIONS') {
        res.status(200).setHeader('Allow', ALLOW.readOnly.join(', '));
        res.end();
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD')
        throw methodNotAllowed(req.method, ALLOW.readOnly, 'yang-library-version is read-only');
      const media = responseType(req.headers.accept);
      res.status(200).type(media.type).send(yangLibraryVersion(media));
    }),
  );

  // `use` with a plain prefix: wildcard routes would decode the path themselves and fail on bad escapes.
  app.use(
    '/rests/operations',
    wrap(async (req, res) => {
      const scope = requestScope(ctx, res);
      const uri = rewrittenPath(ctx, scope, req);
      const raw = after(uri.path, '/rests/operations');
      if (raw === undefined) throw unknownResource(`${uri.path} is not a RESTCONF resource`);
      rejectQuery(req);
      const parsed = parseOperationPath(raw, ctx.schema, { keyDelimiter: uri.keyDelimiter });
      if (parsed.mount !== undefined) return handleMountOperation(ctx, scope, req, res, parsed, uri.keyDelimiter);
      const media = responseType(req.headers.accept);
      if (parsed.operation === undefined) {
        if (req.method === 'OPTIONS') {
          res.status(200).setHeader('Allow', ALLOW.readOnly.join(', '));
          res.end();
          return;
        }
        if (req.method !== 'GET' && req.method !== 'HEAD')
          throw methodNotAllowed(req.method, ALLOW.readOnly, 'the operations listing is read-only');
        res.status(200).type(media.type).send(listOperations(ctx, media));
        return;
      }
      if (req.method === 'OPTIONS') {
        res.status(200).setHeader('Allow', ALLOW.operation.join(', '));
        res.end();
        return;
      }
      if (req.method !== 'POST') throw methodNotAllowed(req.method, ALLOW.operation, 'operations are invoked with POST');
      await invokeOperation(ctx, scope, req, res, parsed, media);
    }),
  );

  app.use(
    '/rests/data',
    wrap(async (req, res) => {
      const scope = requestScope(ctx, res);
      const uri = rewrittenPath(ctx, scope, req);
      const raw = after(uri.path, '/rests/data');
      if (raw === undefined) throw unknownResource(`${uri.path} is not a RESTCONF resource`);
      const parsed = parseDataPath(raw, ctx.schema, { keyDelimiter: uri.keyDelimiter });
      if (parsed.mount !== undefined) return handleMountData(ctx, scope, req, res, parsed, uri.keyDelimiter);
      const method = req.method;
      if (method === 'OPTIONS') {
        answerDataOptions(parsed, res);
        return;
      }
      if (parsed.operation !== undefined) {
        if (method !== 'POST') throw methodNotAllowed(method, ALLOW.operation, 'actions are invoked with POST');
        rejectQuery(req);
        await invokeOperation(ctx, scope, req, res, parsed, responseType(req.headers.accept));
        return;
      }
      // The handlers write URIs (a POST's Location) with the key delimiter this request was read with.
      const uriCtx =
        uri.keyDelimiter === ctx.options.keyDelimiter ? ctx : { ...ctx, options: { ...ctx.options, keyDelimiter: uri.keyDelimiter } };
      const call = dataCall(uriCtx, scope, req, res, parsed, raw);
      switch (method) {
        case 'GET':
        case 'HEAD':
          return handleGet(call, method === 'HEAD');
        case 'PUT':
          return handlePut(call);
        case 'POST':
          return handlePost(call);
        case 'DELETE':
          return handleDelete(call);
        case 'PATCH':
          return requestType(req.headers['content-type'], true).yangPatch ? handleYangPatch(call) : handlePlainPatch(call);
        default:
          throw methodNotAllowed(method, ALLOW.config, `${method} is not a RESTCONF method`);
      }
    }),
  );

  app.use(
    wrap((req) => {
      throw unknownResource(`${req.originalUrl.split('?')[0]!.slice(0, 200)} is not a RESTCONF resource`);
    }),
  );

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => sendError(ctx, req, res, err));
  return app;
}

/**
 * The request listener serving RESTCONF for `ctx`: the direct data path (direct-data.ts) in front of
 * the express app built by {@link createRestconfApp} with `extraRoutes`.
 */
export function createRestconfHandler(
  ctx: RestconfContext,
  options: DirectDataOptions & { extraRoutes?: (router: express.Router) => void },
): RequestListener {
  const app = createRestconfApp(ctx, options.extraRoutes);
  return withDirectData(ctx, app as unknown as RequestListener, options);
}

/** The data handlers' view of a request (query parsed, response type negotiated up front). */
function dataCall(ctx: RestconfContext, scope: PluginScope, req: Request, res: Response, parsed: ParsedPath, rawPath: string): DataCall {
  const responseTypeOf = responseType(req.headers.accept);
  const query = dataQuery(req, ctx);
  return { ctx, scope, req, res, target: parsed, rawPath, query, responseType: responseTypeOf, rawQuery: rawQueryOf(req) };
}

/** Operations take no query parameters (RFC 8040 §4.8 lists none for them). */
function rejectQuery(req: Request): void {
  const q = req.originalUrl.indexOf('?');
  if (q < 0) return;
  const name = req.originalUrl
    .slice(q + 1)
    .split('&')
    .find((p) => p !== '')
    ?.split('=')[0];
  if (name !== undefined) throw badUri(`query parameter '${decodeURIComponentSafe(name)}' is not allowed on operations`);
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
