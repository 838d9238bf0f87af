/**
 * A request's lease on the current plugin generation: taken once per request (kept in
 * `res.locals.scope`), released when the response closes. The express routes and the plugin routes
 * share it, so a request that passes from one to the other is never leased twice.
 */
import type { Response } from 'express';
import type { PluginScope } from '../plugins/generation';
import type { RestconfContext } from './context';

export function requestScope(ctx: RestconfContext, res: Response): PluginScope {
  const locals = res.locals as { scope?: PluginScope };
  if (locals.scope === undefined) {
    const scope = ctx.plugins.acquire();
    locals.scope = scope;
    res.once('close', () => scope.release());
  }
  return locals.scope;
}
