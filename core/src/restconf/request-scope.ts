/**
 * A request's lease on the current plugin generation, taken once per request before anything else reads
 * a hook (by the authentication gate when authentication is on, else by the dispatcher); it is released when the response closes, so a request in flight finishes
 * on the generation it started with even across a hot reload. It is kept in `res.locals.scope`, where the
 * plugin routes (served through express, which keeps `res.locals`) find the same lease.
 */
import type { ServerResponse } from 'node:http';
import type { PluginScope } from '../plugins/generation';
import type { ScopeSource } from './context';

interface WithLocals {
  locals?: { scope?: PluginScope };
}

/**
 * Leases the current generation for the whole life of `res`, once: the authentication gate's first step
 * when authentication is on, else the dispatcher's; a second call returns the lease already held.
 */
export function leaseScope(plugins: ScopeSource, res: ServerResponse): PluginScope {
  const held = (res as WithLocals).locals?.scope;
  if (held !== undefined) return held;
  const scope = plugins.acquire();
  (res as WithLocals).locals = { scope };
  res.once('close', () => scope.release());
  return scope;
}

/** The lease the dispatcher took for `res` (a plugin route's request). */
export function requestScope(res: ServerResponse): PluginScope {
  const scope = (res as WithLocals).locals?.scope;
  if (scope === undefined) throw new Error('a RESTCONF request reached a route without its plugin lease');
  return scope;
}
