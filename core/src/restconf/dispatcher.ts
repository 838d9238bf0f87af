/**
 * The one dispatcher of RESTCONF requests, on node's HTTP server (express swaps the prototypes of every
 * request and response and walks its router; measured on a one-entry GET that cost more than the
 * RESTCONF work itself, about 100 us of CPU against 40 us for a bare `http` answer). For each request, in
 * this order:
 * 0. with a store other instances write too (PostgreSQL), catch up with what they acknowledged;
 * 1. lease the current plugin generation (request-scope.ts), held until the response closes;
 * 2. for `/rests/data` and `/rests/operations`, run `uri.parse` taps, then ask the route table
 *    (route-table.ts: the uniconfig layer's views and operations) for the path;
 * 3. routes plugins add (`server.routes`, plugin-routes.ts) take the paths they name, through express,
 *    their adapter; a request they pass on comes back here;
 * 4. the core's resources: host-meta, the API root, yang-library-version, the fixed resources other layers
 *    add (the OpenAPI document, openapi/), operations, data, and the
 *    event streams (streams.ts).
 * A data request then runs in its datastore view (data-view.ts: the local datastores, a mounted device
 * (mount-view.ts), a uniconfig node): OPTIONS is answered by options.ts, an action by the view, any other method by the
 * one handler of that method (read.ts, put.ts, post.ts, patch.ts, yang-patch.ts, delete.ts).
 * Whatever a step throws is answered by respond.ts as the RFC 8040 error envelope.
 *
 * Resource prefixes are matched as express matched them before (case-insensitively, at a segment
 * boundary, a trailing slash allowed on the fixed resources), so clients see the same 404s and 405s.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { UriParseContext } from '../hooks';
import type { PluginScope } from '../plugins/generation';
import type { RestconfContext } from './context';
import type { DatastoreView } from './data-view';
import { TreeView, rejectQuery } from './tree-view';
import { handleDelete } from './delete';
import { HOST_META, apiRoot, requestOrigin, wadl, yangLibraryVersion } from './discovery';
import { methodNotAllowed, unknownResource } from './errors';
import { responseType } from './media';
import { invokeOperation, listOperations } from './operations';
import { ALLOW, answerOptions, dataAllow } from './options';
import { handlePlainPatch } from './patch';
import type { PluginRoutes } from './plugin-routes';
import { handlePost } from './post';
import { handlePut } from './put';
import { handleGet } from './read';
import { leaseScope } from './request-scope';
import { STREAMS, serveStream } from './streams';
import { sendError, sendText } from './respond';
import { RouteTable, type RoutedRequest } from './route-table';
import { handleMountOperation, MountView } from './mount-view';
import { parseOperationPath } from './uri';
import { handleYangPatch } from './yang-patch';
import { forwardToOwner } from './forward';
import { Elsewhere } from '../fault';

export interface DispatcherOptions {
  /** The routes other layers add ahead of the core's (the uniconfig layer's). */
  readonly routes?: RouteTable;
  /** The routes plugins add, per plugin generation. */
  readonly pluginRoutes?: PluginRoutes;
  /**
   * Read-only resources other layers serve beside the core's (the OpenAPI document), by lower-case path:
   * the dispatcher answers OPTIONS and refuses other methods, `serve` answers GET and HEAD and throws its
   * faults like the core's resources do.
   */
  readonly resources?: ReadonlyMap<string, (req: IncomingMessage, res: ServerResponse) => void>;
}

const DATA = '/rests/data';
const OPERATIONS = '/rests/operations';

/** Whether `path` is `prefix` or under it, compared as express compared (case-insensitively). */
function under(path: string, prefix: string): boolean {
  if (path.length < prefix.length) return false;
  if (!path.startsWith(prefix) && path.slice(0, prefix.length).toLowerCase() !== prefix) return false;
  return path.length === prefix.length || path.charCodeAt(prefix.length) === 0x2f; /* / */
}

/** Whether `path` is exactly `resource`, or it with one trailing slash (case-insensitively). */
function names(path: string, resource: string): boolean {
  const bare = path.endsWith('/') ? path.slice(0, -1) : path;
  return bare.length === resource.length && bare.toLowerCase() === resource;
}

/** The part of a path after `prefix`, or undefined when it is not under it (case as written). */
function after(path: string, prefix: string): string | undefined {
  if (path === prefix) return '';
  return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
}

/** The RESTCONF request listener for `ctx` (see the top of this file). */
export function createRestconfHandler(ctx: RestconfContext, options: DispatcherOptions = {}): RequestListener {
  const routes = options.routes ?? new RouteTable();
  const plugins = options.pluginRoutes;
  const local = new TreeView(ctx);

  /** sendError, which must not throw out of a promise callback (that would be an unhandled rejection). */
  const answerError = (req: IncomingMessage, res: ServerResponse, err: unknown): void => {
    // a device or a transaction another instance holds: that instance answers (restconf/forward.ts)
    if (err instanceof Elsewhere && !res.headersSent) {
      forwardToOwner(err, req, res).catch((failure: unknown) => answerError(req, res, failure));
      return;
    }
    try {
      sendError(ctx, req, res, err);
    } catch (failure) {
      ctx.log.error(
        `${req.method} ${(req.url ?? '').slice(0, 300)}: the error answer failed: ${failure instanceof Error ? failure.message : String(failure)}`,
      );
      res.destroy();
    }
  };

  /** The path after `uri.parse` taps. */
  const rewritten = (scope: PluginScope, original: string): UriParseContext => {
    const uri: UriParseContext = { original, path: original, keyDelimiter: ctx.options.keyDelimiter };
    return scope.hooks.uri.parse.isUsed() ? scope.hooks.uri.parse.call(uri) : uri;
  };

  /** The context a request's handlers run with: URIs they write use the key delimiter it was read with. */
  const withDelimiter = (keyDelimiter: string | null): RestconfContext =>
    keyDelimiter === ctx.options.keyDelimiter ? ctx : { ...ctx, options: { ...ctx.options, keyDelimiter } };

  /** A data request in `view` (its target resolved there). */
  const serveData = async (
    view: DatastoreView,
    scope: PluginScope,
    req: IncomingMessage,
    res: ServerResponse,
    raw: string,
    keyDelimiter: string | null,
  ): Promise<void> => {
    let target = view.resolve(raw, keyDelimiter);
    if (target.mount !== undefined) {
      view = MountView.of(ctx, scope, target, keyDelimiter);
      target = view.resolve(target.mount.devicePath, keyDelimiter);
    }
    const method = req.method ?? '';
    if (method === 'OPTIONS') return answerOptions(res, dataAllow(target, view.configOnly));
    if (target.operation !== undefined) return view.invokeAction(scope, req, res, target);
    const call = view.call(scope, req, res, target, raw);
    switch (method) {
      case 'GET':
        return handleGet(call, false);
      case 'HEAD':
        return handleGet(call, true);
      case 'PUT':
        return handlePut(call);
      case 'POST':
        return handlePost(call);
      case 'DELETE':
        return handleDelete(call);
      case 'PATCH':
        return view.isYangPatch(req) ? handleYangPatch(call) : handlePlainPatch(call);
      default:
        throw methodNotAllowed(method, ALLOW.config, `${method} is not a RESTCONF method`);
    }
  };

  /** `/rests/operations[/...]`: the listing, local RPCs, device RPCs under a mount point. */
  const serveOperations = async (
    scope: PluginScope,
    req: IncomingMessage,
    res: ServerResponse,
    raw: string,
    keyDelimiter: string | null,
  ): Promise<void> => {
    rejectQuery(req);
    const parsed = parseOperationPath(raw, ctx.schema, { keyDelimiter });
    if (parsed.mount !== undefined) return handleMountOperation(ctx, scope, req, res, parsed, keyDelimiter);
    const method = req.method ?? '';
    const media = responseType(req.headers.accept);
    if (parsed.operation === undefined) {
      if (method === 'OPTIONS') return answerOptions(res, ALLOW.readOnly);
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, ALLOW.readOnly, 'the operations listing is read-only');
      return sendText(res, 200, media.type, listOperations(ctx, media), method === 'HEAD');
    }
    if (method === 'OPTIONS') return answerOptions(res, ALLOW.operation);
    if (method !== 'POST') throw methodNotAllowed(method, ALLOW.operation, 'operations are invoked with POST');
    await invokeOperation(ctx, scope, req, res, parsed, media);
  };

  /** A resource the route table serves, or undefined when it serves none of this path. */
  const routed = (request: RoutedRequest, res: ServerResponse, resource: string): Promise<void> | undefined => {
    if (resource === DATA) {
      const view = request.raw === '' ? undefined : routes.dataView(request);
      return view && serveData(view, request.scope, request.req, res, request.raw, request.keyDelimiter);
    }
    const endpoint = request.raw === '' ? undefined : routes.operation(request);
    if (endpoint === undefined) return undefined;
    const method = request.req.method ?? '';
    if (method === 'OPTIONS') {
      answerOptions(res, ALLOW.operation);
      return Promise.resolve();
    }
    if (method !== 'POST') throw methodNotAllowed(method, ALLOW.operation, 'operations are invoked with POST');
    return endpoint.invoke(request, res);
  };

  /** The resources that describe the server: host-meta, the API root, yang-library-version, other layers' fixed resources; else 404. */
  const serveFixed = (req: IncomingMessage, res: ServerResponse, path: string): void => {
    const method = req.method ?? '';
    if (names(path, '/.well-known/host-meta')) {
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, ALLOW.readOnly, 'host-meta is read-only');
      sendText(res, 200, 'application/xrd+xml', HOST_META, method === 'HEAD');
      return;
    }
    if (names(path, '/rests')) {
      if (method === 'OPTIONS') {
        const base = `${requestOrigin(req)}/rests/`;
        answerOptions(res, ALLOW.readOnly, { type: 'application/vnd.sun.wadl+xml', text: wadl(base) });
        return;
      }
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, ALLOW.readOnly, 'the API root is read-only');
      const media = responseType(req.headers.accept);
      sendText(res, 200, media.type, apiRoot(media), method === 'HEAD');
      return;
    }
    if (names(path, '/rests/yang-library-version')) {
      if (method === 'OPTIONS') {
        answerOptions(res, ALLOW.readOnly);
        return;
      }
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, ALLOW.readOnly, 'yang-library-version is read-only');
      const media = responseType(req.headers.accept);
      sendText(res, 200, media.type, yangLibraryVersion(media), method === 'HEAD');
      return;
    }
    for (const [resource, serve] of options.resources ?? []) {
      if (!names(path, resource)) continue;
      if (method === 'OPTIONS') {
        answerOptions(res, ALLOW.readOnly);
        return;
      }
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, ALLOW.readOnly, `${resource} is read-only`);
      serve(req, res);
      return;
    }
    throw unknownResource(`${path.slice(0, 200)} is not a RESTCONF resource`);
  };

  /** The core's resources. */
  const serveCore = async (
    scope: PluginScope,
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    parsedUri: UriParseContext | undefined,
  ): Promise<void> => {
    // Data first: the resources are disjoint, and data requests are nearly all of them.
    const resource = under(path, DATA) ? DATA : under(path, OPERATIONS) ? OPERATIONS : undefined;
    if (resource === undefined) {
      if (under(path, STREAMS)) return serveStream(ctx, req, res, path.slice(STREAMS.length));
      return serveFixed(req, res, path);
    }
    const uri = parsedUri ?? rewritten(scope, path);
    const raw = after(uri.path, resource);
    if (raw === undefined) throw unknownResource(`${uri.path} is not a RESTCONF resource`);
    if (resource === OPERATIONS) return serveOperations(scope, req, res, raw, uri.keyDelimiter);
    return serveData(
      uri.keyDelimiter === ctx.options.keyDelimiter ? local : new TreeView(withDelimiter(uri.keyDelimiter)),
      scope,
      req,
      res,
      raw,
      uri.keyDelimiter,
    );
  };

  const serve: RequestListener = (req, res) => {
    const url = req.url ?? '';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const scope = leaseScope(ctx.plugins, res);
    const fail = (err: unknown) => answerError(req, res, err);
    let uri: UriParseContext | undefined;
    try {
      // Routes of other layers on the data and operations resources come first.
      if (path.startsWith(`${DATA}/`) || path.startsWith(`${OPERATIONS}/`)) {
        uri = rewritten(scope, path);
        const resource = uri.path.startsWith(`${DATA}/`) ? DATA : uri.path.startsWith(`${OPERATIONS}/`) ? OPERATIONS : undefined;
        if (resource !== undefined) {
          const request: RoutedRequest = {
            ctx: withDelimiter(uri.keyDelimiter),
            scope,
            req,
            raw: uri.path.slice(resource.length),
            keyDelimiter: uri.keyDelimiter,
          };
          const served = routed(request, res, resource);
          if (served !== undefined) {
            served.catch(fail);
            return;
          }
        }
      }
      if (plugins?.claims(scope, path)) {
        const parsedUri = uri;
        plugins.serve(req, res, () => serveCore(scope, req, res, path, parsedUri).catch(fail), fail);
        return;
      }
      serveCore(scope, req, res, path, uri).catch(fail);
    } catch (err) {
      fail(err);
    }
  };
  // A store other instances write too: every request first sees what they acknowledged before it came.
  // (The datastores are reopened when the schema changes: asked for each request.)
  return (req, res) => {
    const config = ctx.datastores.config;
    if (config.catchUp === undefined) return serve(req, res);
    config.catchUp().then(
      () => serve(req, res),
      (err: unknown) => answerError(req, res, err),
    );
  };
}
