/**
 * The operator's endpoints and the HTTP metrics, in front of everything else the service does with a
 * request:
 * - `GET /metrics`: the service's registry in the Prometheus text format (metrics/);
 * - `GET /rests/health`: liveness, 200 `{"status":"UP"}` whenever the process answers at all;
 * - `GET /rests/ready`: 200 when the service is ready for traffic, 503 naming what is not (service/readiness.ts).
 * They sit ahead of authentication and of the schema-change gate (service/live-schema.ts): probes and
 * scrapers carry no credentials, and readiness must answer while a schema swap holds the other requests.
 * A service may still guard the scrape (`guardScrape`: the API's authentication gate, when the
 * configuration asks for it), since metrics tell how the network is run; the probes stay open.
 * (Every request, these included, is counted in the metrics when its response closes, by the request
 * log's one close listener: restconf/request-log.ts.)
 * With metrics switched off (no registry given, or one a reload paused) `/metrics` is not ours: it
 * reaches the service like any other path (a 404), so a scraper learns the switch is off.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ServiceMetrics } from '../metrics';
import type { RestconfContext } from './context';
import { methodNotAllowed } from './errors';
import { ALLOW, answerOptions } from './options';
import { sendError, sendText } from './respond';

/** Whether the service is ready, and each part's state (service/readiness.ts answers it). */
export type ReadinessProbe = () => { readonly ready: boolean; readonly checks: Readonly<Record<string, string>> };

/** The path of a URL without its query or one trailing slash, when it is one of ours. */
function endpointOf(url: string, scraped: boolean): '/metrics' | '/rests/health' | '/rests/ready' | undefined {
  const q = url.indexOf('?');
  let path = q < 0 ? url : url.slice(0, q);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (path === '/metrics') return scraped ? path : undefined;
  return path === '/rests/health' || path === '/rests/ready' ? path : undefined;
}

/**
 * Turns of the event loop, one per waiter: scrapes that share one generation are released together,
 * and answering fifty of them at once held the API's requests behind the burst. Each waiter gets its
 * own turn (a setImmediate scheduled after the previous waiter's ran), so the loop reads and answers
 * other requests between two scrapes' answers.
 */
class LoopTurns {
  private last: Promise<void> = Promise.resolve();

  next(): Promise<void> {
    const turn = this.last.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
    this.last = turn;
    return turn;
  }
}

/** Wraps the service's listener `inner` (see the top of this file). */
export function withOperability(
  ctx: RestconfContext,
  metrics: ServiceMetrics | undefined,
  readiness: ReadinessProbe,
  inner: RequestListener,
  guardScrape?: (scrape: RequestListener) => RequestListener,
): RequestListener {
  const scrapeTurns = new LoopTurns();
  const answer = async (req: IncomingMessage, res: ServerResponse, endpoint: '/metrics' | '/rests/health' | '/rests/ready') => {
    const method = req.method ?? '';
    if (method === 'OPTIONS') return answerOptions(res, ALLOW.readOnly);
    if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, ALLOW.readOnly, `${endpoint} is read-only`);
    const head = method === 'HEAD';
    if (endpoint === '/metrics' && metrics !== undefined) {
      const { body, contentType } = await metrics.scrape();
      await scrapeTurns.next();
      res.statusCode = 200;
      res.setHeader('Content-Type', contentType);
      res.setHeader('Content-Length', body.length);
      res.end(head ? undefined : body);
      return;
    }
    if (endpoint === '/rests/health') return sendText(res, 200, 'application/json', '{"status":"UP"}', head);
    const { ready, checks } = readiness();
    sendText(res, ready ? 200 : 503, 'application/json', JSON.stringify({ status: ready ? 'UP' : 'DOWN', checks }), head);
  };
  const answerOrFail = (req: IncomingMessage, res: ServerResponse, endpoint: '/metrics' | '/rests/health' | '/rests/ready') => {
    answer(req, res, endpoint).catch((err: unknown) => {
      try {
        sendError(ctx, req, res, err);
      } catch {
        res.destroy();
      }
    });
  };
  const open: RequestListener = (req, res) => answerOrFail(req, res, '/metrics');
  const scrape = guardScrape === undefined ? open : guardScrape(open);
  return (req, res) => {
    const endpoint = endpointOf(req.url ?? '', metrics?.recording === true);
    if (endpoint === undefined) return inner(req, res);
    if (endpoint === '/metrics') return scrape(req, res);
    answerOrFail(req, res, endpoint);
  };
}
