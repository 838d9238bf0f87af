/**
 * Routes added by plugins (`server.routes`), following hot reload: each plugin generation gets its own
 * router, built from that generation's taps the first time one of its requests needs it, and a request
 * is routed through the router of the generation it leased. Enabling, disabling or replacing a plugin
 * that adds routes (the callbacks plugin's `/rests/http-client/`) therefore takes effect with the swap,
 * like every other hook: new requests see the new routes, requests in flight finish on the old ones.
 *
 * The same per-generation router answers the direct data path's question "can a plugin route take this
 * request?" ({@link PluginRoutes.claims}), so a generation whose taps register no route for a path (the
 * usual case: five plugins tapping every hook, none adding `/rests/data` routes) keeps that path off
 * express. A path matches when one of the router's layers matches it the way express would (a `get`,
 * `post`, `all`, ... route on that path, a `use` on that path or a prefix of it); a `use` without a path
 * matches every request, so a plugin that adds one takes every request through express.
 *
 * The lease is the one the RESTCONF routes use (kept in `res.locals.scope`, released when the response
 * closes), so a request that falls through to RESTCONF is not leased twice.
 */
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

/** The routes plugins add, per generation: the express middleware serving them and the path test. */
export interface PluginRoutes {
  /** Express middleware serving the routes of each request's plugin generation. */
  readonly middleware: (req: Request, res: Response, next: NextFunction) => void;
  /**
   * Whether a route of `scope`'s generation may take a request for `pathname` (the request path without
   * its query, as received). Builds the generation's router the first time it is asked, never again.
   * Errs towards true: a layer it cannot test, or whose test throws, claims the path.
   */
  readonly claims: (scope: PluginScope, pathname: string) => boolean;
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
  return {
    middleware: (req, res, next) => {
      let scope: PluginScope;
      try {
        scope = requestScope(ctx, res);
      } catch (e) {
        next(e);
        return;
      }
      if (!scope.hooks.server.routes.isUsed()) {
        next();
        return;
      }
      routesOf(scope).router(req, res, next);
    },
    claims: (scope, pathname) => scope.hooks.server.routes.isUsed() && anyLayerMatches(routesOf(scope).layers, pathname),
  };
}

/**
 * Express middleware serving the `server.routes` of each request's plugin generation; for a service
 * with a direct data path use {@link createPluginRoutes}, whose `claims` keeps the two in step.
 */
export function pluginRoutes(ctx: RestconfContext, local: LocalDataAccess): (req: Request, res: Response, next: NextFunction) => void {
  return createPluginRoutes(ctx, local).middleware;
}
