/**
 * The outermost wrapper of the service's listener: every request gets an id (the client's
 * `X-Request-Id` when it is a short safe token, else a new one), answered in the `X-Request-Id`
 * header and carried through all the work the request causes (logging/request-context.ts), so that
 * every log line it causes carries `reqId`. When the response closes, one access line says how it
 * went: method, route template (the same templates the metrics count by, metrics/http-labels.ts),
 * status, duration in ms, and the node id when the path names one. Neither the query, the headers nor
 * the body is logged: they may hold credentials and install-node's device passwords.
 */
import type { RequestListener } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../logger';
import { REQUEST_ID_HEADER, requestIdFor, runInRequest } from '../logging/request-context';
import { methodLabel, routeLabel } from '../metrics/http-labels';

/**
 * Routes whose successful answers write no access line: a load balancer's probes and Prometheus's
 * scrapes come every few seconds, forever, and would bury the lines an operator reads. Their failures
 * are still written.
 */
const QUIET_WHEN_OK: ReadonlySet<string> = new Set(['/rests/health', '/rests/ready', '/metrics']);

/** A `node=<id>` path segment, the node a request acts on (a mount point or a uniconfig node). */
const NODE_SEGMENT = /\/node=([^/?]+)/;

/** The node id the request's path names, if any. */
export function nodeIdOf(url: string): string | undefined {
  const q = url.indexOf('?');
  const match = NODE_SEGMENT.exec(q < 0 ? url : url.slice(0, q));
  if (match === null) return undefined;
  try {
    return decodeURIComponent(match[1] as string);
  } catch {
    return match[1];
  }
}

/** Wraps `inner` (see the top of this file). */
export function withRequestLog(log: Logger, inner: RequestListener): RequestListener {
  return (req, res) => {
    const started = performance.now();
    const reqId = requestIdFor(req.headers[REQUEST_ID_HEADER]);
    res.setHeader('X-Request-Id', reqId);
    const url = req.url ?? '';
    let closed = false;
    let end: (() => void) | undefined;
    // 'close' runs outside the request's async context: the id is given to this line explicitly.
    res.once('close', () => {
      closed = true;
      end?.();
      const method = methodLabel(req.method);
      const route = routeLabel(url);
      const durationMs = Math.round((performance.now() - started) * 10) / 10;
      const status = res.writableFinished ? res.statusCode : 0;
      if (status >= 200 && status < 400 && QUIET_WHEN_OK.has(route)) return;
      log.info(`${method} ${route} ${status === 0 ? 'aborted' : status} in ${durationMs} ms`, {
        reqId,
        method,
        route,
        status,
        durationMs,
        nodeId: nodeIdOf(url),
      });
    });
    end = runInRequest(reqId, () => inner(req, res)).end;
    if (closed) end();
  };
}
