/**
 * The direct path for the common RESTCONF data requests: GET, HEAD, PUT, DELETE, OPTIONS and plain
 * PATCH on `/rests/data[/...]`, served straight from node's HTTP server without express. Express
 * swaps the prototypes of every request and response and walks its router and middleware; measured
 * on a one-entry GET that costs more than the RESTCONF work itself (about 100 us of the request's
 * CPU, against 40 us for a bare `http` answer).
 *
 * The same methods under `yang-ext:mount` go straight to mount-routes.ts (a device read is latency the
 * client waits for on top of the device's own).
 *
 * Everything else goes to the express app unchanged: other resources, POST (creation and actions),
 * YANG Patch, paths another layer claims (`claimed`: the uniconfig
 * configuration routes), and the paths a route added by a plugin (`server.routes`) of the request's
 * generation may take (`pluginRouteClaims`; without it, every request of a generation that has route
 * taps). A request handed over carries its plugin lease in `res.locals`, where the express routes look
 * for it, so it is leased once.
 *
 * What a request sees is what the express route gives it: the same `uri.parse` taps, path parser,
 * query parser, handlers (which write through respond.ts) and error envelope.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { UriParseContext } from '../hooks';
import type { PluginScope } from '../plugins/generation';
import type { RestconfContext } from './context';
import type { PlainDataCall } from './data-call';
import { dataQuery, rawQueryOf } from './data-query';
import { handleDelete } from './delete';
import { ACCEPT_PATCH, ALLOW } from './discovery';
import { unknownResource } from './errors';
import { bareType, responseType } from './media';
import { handleMountData } from './mount-routes';
import { handlePlainPatch } from './patch';
import { handlePut } from './put';
import { handleGet } from './read';
import { sendError } from './respond';
import { parseDataPath, type ParsedPath } from './uri';

/** When the direct path gives a request to the express app. */
export interface DirectDataOptions {
  /**
   * True: everything goes through express. Otherwise a request goes there when a route added by its
   * plugin generation may take it: see `pluginRouteClaims`.
   */
  readonly pluginRoutes: boolean;
  /**
   * Whether a `server.routes` route of `scope`'s generation may take a request for `pathname` (the path
   * as received, without the query): restconf/plugin-routes.ts `PluginRoutes.claims`. Absent: any
   * generation with route taps takes every request through express (plugin routes may claim any path).
   */
  readonly pluginRouteClaims?: (scope: PluginScope, pathname: string) => boolean;
  /**
   * Whether another layer serves this data path (after `/rests/data`, `uri.parse` taps applied); the
   * request is given for claims that depend on its headers (the uniconfig transaction cookie).
   */
  readonly claimed?: (rawPath: string, keyDelimiter: string | null, req: IncomingMessage) => boolean;
}

const DIRECT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
const DATA_PREFIX = '/rests/data';

/** Whether a request URL (origin form, as received) names `/rests/data` or something under it. */
function isDataUrl(url: string): boolean {
  if (!url.startsWith(DATA_PREFIX)) return false;
  const next = url.charCodeAt(DATA_PREFIX.length);
  return Number.isNaN(next) || next === 0x2f /* / */ || next === 0x3f /* ? */;
}

/** YANG Patch bodies (PATCH with a yang-patch media type) go to express's route. */
function isYangPatch(contentType: string | undefined): boolean {
  return contentType !== undefined && bareType(contentType).startsWith('application/yang-patch');
}

/**
 * The `Allow` (and `Accept-Patch`) answer of OPTIONS on a data resource, shared with the express
 * route: read-only for operational data, the operation methods on actions, every method otherwise.
 */
export function answerDataOptions(parsed: ParsedPath, res: ServerResponse): void {
  const allow = parsed.operation ? ALLOW.operation : parsed.target !== undefined && !parsed.target.config ? ALLOW.state : ALLOW.config;
  res.statusCode = 200;
  res.setHeader('Allow', allow.join(', '));
  if (allow === ALLOW.config) res.setHeader('Accept-Patch', ACCEPT_PATCH);
  res.end();
}

/** Runs the handler of a direct request (its method is one of DIRECT_METHODS, not OPTIONS). */
function serve(call: PlainDataCall, method: string): Promise<void> {
  switch (method) {
    case 'GET':
      return handleGet(call, false);
    case 'HEAD':
      return handleGet(call, true);
    case 'PUT':
      return handlePut(call);
    case 'DELETE':
      return handleDelete(call);
    default:
      return handlePlainPatch(call);
  }
}

/** sendError, which must not throw out of a promise callback (that would be an unhandled rejection). */
function answerError(ctx: RestconfContext, req: IncomingMessage, res: ServerResponse, err: unknown): void {
  try {
    sendError(ctx, req, res, err);
  } catch (failure) {
    ctx.log.error(
      `${req.method} ${(req.url ?? '').slice(0, 300)}: the error answer failed: ${failure instanceof Error ? failure.message : String(failure)}`,
    );
    res.destroy();
  }
}

/**
 * Wraps `app` (the express app serving everything) with the direct path. The returned listener is
 * what the HTTP server (behind the authentication and schema gates) calls for every request.
 */
export function withDirectData(ctx: RestconfContext, app: RequestListener, options: DirectDataOptions): RequestListener {
  if (options.pluginRoutes) return app;
  const claimed = options.claimed;
  const pluginRouteClaims = options.pluginRouteClaims ?? ((scope: PluginScope) => scope.hooks.server.routes.isUsed());

  const handOver = (req: IncomingMessage, res: ServerResponse, scope: PluginScope): void => {
    (res as { locals?: object }).locals = { scope };
    app(req, res);
  };

  return (req, res) => {
    const method = req.method ?? '';
    const url = req.url ?? '';
    if (!DIRECT_METHODS.has(method) || !isDataUrl(url) || (method === 'PATCH' && isYangPatch(req.headers['content-type']))) {
      app(req, res);
      return;
    }
    // Leased for the whole life of the request, as the express routes do (released once it is answered).
    const scope = ctx.plugins.acquire();
    res.once('close', () => scope.release());
    const query = url.indexOf('?');
    const original = query < 0 ? url : url.slice(0, query);
    if (pluginRouteClaims(scope, original)) {
      handOver(req, res, scope);
      return;
    }
    let uri: UriParseContext = { original, path: original, keyDelimiter: ctx.options.keyDelimiter };
    let parsed: ParsedPath;
    let raw: string;
    try {
      if (scope.hooks.uri.parse.isUsed()) uri = scope.hooks.uri.parse.call(uri);
      const rest = uri.path === DATA_PREFIX ? '' : uri.path.startsWith(`${DATA_PREFIX}/`) ? uri.path.slice(DATA_PREFIX.length) : undefined;
      if (rest === undefined) throw unknownResource(`${uri.path} is not a RESTCONF resource`);
      raw = rest;
      if (claimed !== undefined && raw !== '' && claimed(raw, uri.keyDelimiter, req)) {
        handOver(req, res, scope);
        return;
      }
      parsed = parseDataPath(raw, ctx.schema, { keyDelimiter: uri.keyDelimiter });
    } catch (err) {
      answerError(ctx, req, res, err);
      return;
    }
    if (parsed.mount !== undefined) {
      handleMountData(ctx, scope, req, res, parsed, uri.keyDelimiter).catch((err: unknown) => answerError(ctx, req, res, err));
      return;
    }
    // Actions have their own route behind express.
    if (parsed.operation !== undefined) {
      handOver(req, res, scope);
      return;
    }
    if (method === 'OPTIONS') {
      answerDataOptions(parsed, res);
      return;
    }
    let call: PlainDataCall;
    try {
      // Accept before the query, as in the express route: a 406 wins over a bad parameter.
      const negotiated = responseType(req.headers.accept);
      call = {
        ctx,
        scope,
        req,
        res,
        target: parsed,
        rawPath: raw,
        query: dataQuery(req, ctx),
        responseType: negotiated,
        rawQuery: rawQueryOf(req),
      };
    } catch (err) {
      answerError(ctx, req, res, err);
      return;
    }
    serve(call, method).catch((err: unknown) => answerError(ctx, req, res, err));
  };
}
