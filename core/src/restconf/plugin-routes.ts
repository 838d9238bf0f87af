/**
 * Routes added by plugins (`server.routes`), following hot reload, served through express: the one place
 * express remains, as the adapter that gives plugin handlers the request and response API they were
 * written against. Each plugin generation gets its own router, built from that generation's taps the
 * first time one of its requests needs it, and a request is routed through the router of the generation
 * it leased. Enabling, disabling or replacing a plugin that adds routes (the callbacks plugin's
 * `/rests/http-client/`) therefore takes effect with the swap, like every other hook: new requests see
 * the new routes, requests in flight finish on the old ones.
 *
 * The dispatcher asks {@link PluginRoutes.claims} whether a route of the request's generation names its
 * path, so a generation whose taps register no route for a path (the usual case: five plugins tapping
 * every hook, none adding `/rests/data` routes) keeps that path off express. A path is named when one of
 * the router's layers matches it the way express would (a `get`, `post`, `all`, ... route on that path,
 * a `use` on that path or a prefix of it); a `use` without a path names every request. A request the
 * plugin's handlers pass on (`next()`) goes back to the dispatcher's own resources.
 *
 * The lease is the dispatcher's (request-scope.ts), found in `res.locals.scope`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { LocalDataAccess, RosettaHooks } from '../hooks';
import type { PluginScope } from '../plugins/generation';
import type { RestconfContext } from './context';
import { requestScope } from './request-scope';

/**
 * One layer of an express 5 router (the `router` package): `match(path)` answers false or the match,
 * and may throw on a malformed percent-encoding in a parameter. Not in express's published types.
 */
interface MatchingLayer {
  match?(path: string): unknown;
}

/** A generation's router and the layers its route taps registered, in order. */
interface GenerationRoutes {
  readonly router: express.Router;
  readonly layers: readonly MatchingLayer[];
}

/** The routes plugins add, per generation: the path test and the adapter serving them. */
export interface PluginRoutes {
  /**
   * Whether a route of `scope`'s generation may take a request for `pathname` (the request path without
   * its query, as received). Builds the generation's router the first time it is asked, never again.
   * Errs towards true: a layer it cannot test, or whose test throws, claims the path.
   */
  readonly claims: (scope: PluginScope, pathname: string) => boolean;
  /**
   * Serves a request through the routes of its generation (its lease already taken): `next` when none
   * answers it, `fail` with what a route passed on as an error.
   */
  readonly serve: (req: IncomingMessage, res: ServerResponse, next: () => void, fail: (err: unknown) => void) => void;
}

/** Whether any of `layers` matches `pathname` as express's router would match it. */
function anyLayerMatches(layers: readonly MatchingLayer[], pathname: string): boolean {
  for (const layer of layers) {
    if (typeof layer.match !== 'function') return true;
    try {
      if (layer.match(pathname) !== false) return true;
    } catch {
      return true; // a bad parameter encoding: express answers it, so the request goes there
    }
  }
  return false;
}

/**
 * The `server.routes` of each plugin generation (`local`: what those routes may read of the local data).
 * A generation whose route taps throw serves no plugin route; the failure is logged once.
 */
export function createPluginRoutes(ctx: RestconfContext, local: LocalDataAccess): PluginRoutes {
  // Keyed by the generation's hooks object: a retired generation's router goes with it.
  const generations = new WeakMap<RosettaHooks, GenerationRoutes>();
  const routesOf = (scope: PluginScope): GenerationRoutes => {
    let built = generations.get(scope.hooks);
    if (built === undefined) {
      let router = express.Router();
      try {
        scope.hooks.server.routes.call({ routes: router, local });
      } catch (e) {
        ctx.log.error(
          `plugin routes of generation ${scope.generation} could not be added, none are served: ${e instanceof Error ? e.message : String(e)}`,
        );
        router = express.Router();
      }
      built = { router, layers: (router as unknown as { stack: MatchingLayer[] }).stack };
      generations.set(scope.hooks, built);
    }
    return built;
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', false);
  app.use((req: Request, res: Response, next: NextFunction) => {
    routesOf(requestScope(res)).router(req, res, next);
  });
  const handle = app as unknown as (req: IncomingMessage, res: ServerResponse, done: (err?: unknown) => void) => void;
  return {
    claims: (scope, pathname) => scope.hooks.server.routes.isUsed() && anyLayerMatches(routesOf(scope).layers, pathname),
    serve: (req, res, next, fail) =>
      handle(req, res, (err) => {
        if (err !== undefined && err !== null) fail(err);
        else next();
      }),
  };
}
