/**
 * Routes added by plugins (`server.routes`), following hot reload: each plugin generation gets its own
 * router, built from that generation's taps the first time one of its requests arrives, and a request
 * is routed through the router of the generation it leased. Enabling, disabling or replacing a plugin
 * that adds routes (the callbacks plugin's `/rests/http-client/`) therefore takes effect with the swap,
 * like every other hook: new requests see the new routes, requests in flight finish on the old ones.
 *
 * The lease is the one the RESTCONF routes use (kept in `res.locals.scope`, released when the response
 * closes), so a request that falls through to RESTCONF is not leased twice.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { LocalDataAccess, RosettaHooks } from '../hooks';
import type { PluginScope } from '../plugins/generation';
import type { RestconfContext } from './context';

/** The request's lease on the current plugin generation, taken once and released when the response closes. */
function leaseOf(ctx: RestconfContext, res: Response): PluginScope {
  const locals = res.locals as { scope?: PluginScope };
  if (locals.scope === undefined) {
    const scope = ctx.plugins.acquire();
    locals.scope = scope;
    res.once('close', () => scope.release());
  }
  return locals.scope;
}

/**
 * Express middleware serving the `server.routes` of each request's plugin generation (`local`: what
 * those routes may read of the local data). A generation whose route taps throw serves no plugin
 * route; the failure is logged once.
 */
export function pluginRoutes(ctx: RestconfContext, local: LocalDataAccess): (req: Request, res: Response, next: NextFunction) => void {
  // Keyed by the generation's hooks object: a retired generation's router goes with it.
  const routers = new WeakMap<RosettaHooks, express.Router>();
  return (req, res, next) => {
    let scope: PluginScope;
    try {
      scope = leaseOf(ctx, res);
    } catch (e) {
      next(e);
      return;
    }
    const hook = scope.hooks.server.routes;
    if (!hook.isUsed()) { next(); return; }
    let router = routers.get(scope.hooks);
    if (router === undefined) {
      router = express.Router();
      try {
        hook.call({ routes: router, local });
      } catch (e) {
        ctx.log.error(`plugin routes of generation ${scope.generation} could not be added, none are served: ${e instanceof Error ? e.message : String(e)}`);
        router = express.Router();
      }
      routers.set(scope.hooks, router);
    }
    router(req, res, next);
  };
}
