/**
 * The outermost wrapper of the service's listener: every request gets an id (the client's
 * `X-Request-Id` when it is a short safe token, else a new one), answered in the `X-Request-Id`
 * header and carried through all the work the request causes (logging/request-context.ts), so that
 * every log line it causes carries `reqId`. When the response closes, one listener counts the request
 * in the metrics (when they are on) and writes one access line: method, route template (the labels the
 * metrics count by, metrics/http-labels.ts), status, duration in ms, and the node id when the path
 * names one. Neither the query, the headers nor the body is logged: they may hold credentials and
 * install-node's device passwords.
 *
 * The access line of a quick successful read (GET, HEAD, OPTIONS) is written at `debug`; every other
 * request's at `info`: every change and operation, every failure (4xx, 5xx, or the client went away),
 * and any request of a second or more (`"log": {"level": "debug"}` writes them all). A line per read
 * cost a single-entry GET 10-18% of its service CPU on a 2-core machine, writing included, against a
 * goal of 5% for logs and metrics together; what an operator looks for in the log is what changed and
 * what went wrong or slow, and the metrics count every request.
 */
import type { RequestListener } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from '../logger';
import { accessWriterOf } from '../logging/json-logger';
import { REQUEST_ID_HEADER, requestIdFor, runInRequest } from '../logging/request-context';
import type { ServiceMetrics } from '../metrics';
import { methodLabel, routeLabel } from '../metrics/http-labels';

/**
 * Routes whose successful answers write no access line: a load balancer's probes and Prometheus's
 * scrapes come every few seconds, forever, and would bury the lines an operator reads. Their failures
 * are still written.
 */
const QUIET_WHEN_OK: ReadonlySet<string> = new Set(['/rests/health', '/rests/ready', '/metrics']);

/** A request at least this long (ms) is logged at `info` however it ended. */
const SLOW_MS = 1000;

/** Methods that read: their quick successes are logged at `debug`. */
const READS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

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

/** Wraps `inner` (see the top of this file); `metrics` absent: nothing is counted. */
export function withRequestLog(log: Logger, inner: RequestListener, metrics?: ServiceMetrics): RequestListener {
  const writeAccess = accessWriterOf(log);
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
      const durationMs = performance.now() - started;
      metrics?.countRequest(method, route, res.statusCode, durationMs / 1000);
      const status = res.writableFinished ? res.statusCode : 0;
      if (status >= 200 && status < 400 && QUIET_WHEN_OK.has(route)) return;
      const level = READS.has(method) && status !== 0 && status < 400 && durationMs < SLOW_MS ? 'debug' : 'info';
      writeAccess({ reqId, method, route, status, durationMs: Math.round(durationMs * 10) / 10, nodeId: nodeIdOf(url) }, level);
    });
    end = runInRequest(reqId, () => inner(req, res)).end;
    if (closed) end();
  };
}
