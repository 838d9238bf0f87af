/**
 * The callbacks plugin (docs/configuration.md#callbacks): requests for stored-configuration nodes forwarded to
 * a remote HTTP server, under `/rests/http-client/`.
 *
 * - `GET /rests/http-client/<path to a container marked cbext:call-point "<suffix>">` GETs
 *   `<scheme>://<host>:<port><suffix>` and answers `{"response": <remote JSON>}`.
 * - `POST /rests/http-client/<path to an action marked cbext:remote-action "<suffix>">` with
 *   `{"input": {"body": <JSON>}}` POSTs the body there and answers `{"response": <remote JSON>}`.
 * - The node (for an action, the node it belongs to) must be in the Config datastore: 404 otherwise.
 * - The remote server and token are `callbacks:callbacks-settings` in the Config datastore; each one
 *   missing is 400 naming it. Remote errors are 502, time-outs 504, both in the error envelope.
 * - The access token is a leaf marked `rosetta-secret:sensitive`: the core keeps it sealed (journal,
 *   snapshots, any GET without this plugin show only `$rosetta$v2$...`) and the plugin reads its clear
 *   value with `readSecret`. It is write-only: while the plugin runs, a GET of the settings leaves it
 *   out altogether (`data.afterRead`); it is sent only as `Authorization: Bearer`, never logged.
 * - Limits come from the service configuration's `callbacks` object (`timeoutMs`, `maxResponseBytes`).
 *
 * Answers are JSON only. Routes are added per plugin generation (`server.routes`), so enabling, disabling
 * or replacing the plugin in plugins.json while the service runs takes effect with the hot reload.
 */
import type { IncomingMessage } from 'node:http';
import {
  definePlugin,
  JsonBodyError,
  parseJsonBody,
  type DataNode,
  type DataRoot,
  type JsonValue,
  type LocalDataAccess,
  renderInstancePath,
} from '@rosetta/sdk';
import { CallbackError, DEFAULT_LIMITS, SETTINGS_PATH, TOKEN_PATH, callRemote, remoteServer, type RemoteLimits } from './remote';

/** The request as express hands it over: node's message plus the URL before any mount prefix was cut. */
type CallRequest = IncomingMessage & { readonly originalUrl?: string };

/** What the routes use of express's response, named here so the plugin need not depend on express. */
interface Reply {
  status(code: number): Reply;
  type(mediaType: string): Reply;
  send(body: string): unknown;
  setHeader(name: string, value: string): unknown;
}

export { CallbackError, callRemote, remoteServer, remoteUrl, DEFAULT_LIMITS, type RemoteLimits, type RemoteServer } from './remote';

const PREFIX = '/rests/http-client';
const EXTENSIONS_MODULE = 'callbacks-extensions';
/** Largest POST body the plugin reads. */
const MAX_BODY = 1024 * 1024;

/** The limits from `api.serviceConfig.callbacks` (the core has checked the fields). */
function limitsOf(raw: JsonValue | undefined): RemoteLimits {
  const obj = (typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : {}) as Record<string, JsonValue>;
  const pick = (name: keyof RemoteLimits) =>
    typeof obj[name] === 'number' && (obj[name] as number) > 0 ? (obj[name] as number) : DEFAULT_LIMITS[name];
  return { timeoutMs: pick('timeoutMs'), maxResponseBytes: pick('maxResponseBytes') };
}

function sendError(res: Reply, error: CallbackError): void {
  const fault = error.first;
  const entry: Record<string, string> = { 'error-type': 'application', 'error-tag': fault.tag, 'error-message': fault.message };
  if (fault.path !== undefined) entry['error-path'] = fault.path;
  res
    .status(error.status)
    .type('application/yang-data+json')
    .send(JSON.stringify({ errors: { error: [entry] } }));
}

function readJsonBody(req: CallRequest): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        req.pause();
        reject(new CallbackError(413, 'too-big', `the request body is larger than ${MAX_BODY} bytes`));
        return;
      }
      chunks.push(c);
    });
    req.on('error', () => reject(new CallbackError(400, 'malformed-message', 'the request body could not be read')));
    req.on('end', () => {
      try {
        resolve(parseJsonBody(Buffer.concat(chunks).toString('utf8')));
      } catch (e) {
        // a member given twice is named; any other fault is answered with the shape the body must have
        const repeated = e instanceof JsonBodyError && e.kind === 'repeated-member';
        reject(new CallbackError(400, 'malformed-message', repeated ? e.message : 'the body must be JSON: {"input": {"body": {...}}}'));
      }
    });
  });
}

/** The `input.body` of a remote action's request, or 400. */
function actionBody(raw: unknown): JsonValue {
  const input = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>)['input'] : undefined;
  const body =
    typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>)['body'] : undefined;
  if (body === undefined) throw new CallbackError(400, 'malformed-message', 'the body must be {"input": {"body": {...}}}');
  return body as JsonValue;
}

async function serve(local: LocalDataAccess, limits: RemoteLimits, req: CallRequest, res: Reply): Promise<void> {
  const full: string = String(req.originalUrl ?? req.url).split('?')[0]!;
  const rest = full.startsWith(`${PREFIX}/`) ? full.slice(PREFIX.length) : '';
  if (req.method !== 'GET' && req.method !== 'POST') {
    res.setHeader('Allow', 'GET, POST');
    throw new CallbackError(
      405,
      'operation-not-supported',
      `${req.method} is not served under ${PREFIX}: GET a call-point, POST a remote action`,
    );
  }
  if (rest === '' || rest === '/') throw new CallbackError(404, 'invalid-value', `name a call-point or a remote action after ${PREFIX}/`);
  const target = local.resolve(rest);
  const path = renderInstancePath(target.path);
  const wanted = req.method === 'GET' ? 'call-point' : 'remote-action';
  const mark = target.extensions.find((e) => e.module === EXTENSIONS_MODULE && e.name === wanted);
  const kindOk = req.method === 'GET' ? target.kind === 'container' : target.kind === 'action';
  if (mark === undefined || !kindOk || mark.arg === undefined) {
    const what = req.method === 'GET' ? 'a container marked cbext:call-point' : 'an action marked cbext:remote-action';
    throw new CallbackError(400, 'invalid-value', `${path} is not ${what}`, path);
  }
  if (!target.stored) throw new CallbackError(404, 'data-missing', `${path} is not in the stored configuration`, path);
  const body = req.method === 'POST' ? actionBody(await readJsonBody(req)) : undefined;
  const server = remoteServer(local.readConfig(SETTINGS_PATH), local.readSecret(TOKEN_PATH));
  const response = await callRemote(server, mark.arg, req.method, body, limits);
  res.status(200).type('application/yang-data+json').send(JSON.stringify({ response }));
}

/** The settings tree without the access token (copy-on-write: stored trees are never changed). */
function withoutToken(root: DataRoot): DataRoot {
  const at = root.children.findIndex((c) => c.schema.module.name === 'callbacks' && c.schema.name === 'callbacks-settings');
  const settings = root.children[at];
  if (settings === undefined || settings.kind !== 'container') return root;
  const children = settings.children.filter((c: DataNode) => c.schema.name !== 'access-token');
  if (children.length === settings.children.length) return root;
  const copy = [...root.children];
  copy[at] = { ...settings, children };
  return { ...root, children: copy };
}

export default definePlugin({
  setup(api) {
    const limits = limitsOf(api.serviceConfig?.['callbacks']);
    api.hooks.server.routes.tap('callbacks', ({ routes, local }) => {
      if (local === undefined) {
        api.log.error(`no local data access given to the routes: ${PREFIX} is not served`);
        return;
      }
      routes.use(PREFIX, (req: CallRequest, res: Reply, next: (err?: unknown) => void) => {
        serve(local, limits, req, res).catch((e: unknown) => {
          if (e instanceof CallbackError) sendError(res, e);
          else next(e); // the core's RESTCONF errors (unknown node, bad key) and anything unexpected
        });
      });
    });
    api.hooks.data.afterRead.tapPromise('callbacks', async (data, read) => (read.device === undefined ? withoutToken(data) : data));
  },
});
