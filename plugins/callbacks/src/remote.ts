/**
 * One request to the remote server of the callbacks: the settings it needs (read from
 * `callbacks:callbacks-settings`, each missing one named), and the HTTP exchange itself, bounded in
 * time and in the size of the answer. The access token travels only in the Authorization header; it
 * is never put in a message or a log line.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { FaultError, type JsonObject, type JsonValue } from '@rosetta/sdk';

/** Where the remote server is and the token it expects. */
export interface RemoteServer {
  readonly scheme: 'http' | 'https';
  readonly host: string;
  readonly port: number;
  readonly accessToken: string;
}

/** Limits from the `callbacks` object of the service configuration. */
export interface RemoteLimits {
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
}

export const DEFAULT_LIMITS: RemoteLimits = { timeoutMs: 10_000, maxResponseBytes: 10 * 1024 * 1024 };

/**
 * A failure to tell the client, as the one fault type: its status is the remote call's (502 for a remote
 * server that failed, 504 for one that did not answer), not always its tag's.
 */
export class CallbackError extends FaultError {
  constructor(status: number, tag: string, message: string, path?: string) {
    super({ type: 'application', tag, message, ...(path !== undefined ? { path } : {}) }, { status });
    this.name = 'CallbackError';
  }
}

export const SETTINGS_PATH = '/callbacks:callbacks-settings';

/** Where the token is: a leaf marked rosetta-secret:sensitive, stored sealed, read in clear with `readSecret`. */
export const TOKEN_PATH = `${SETTINGS_PATH}/access-token`;

/**
 * The remote server from the stored settings (`{"callbacks:callbacks-settings": {...}}` or undefined)
 * and the token's clear value (undefined when it is missing or its sealed form does not open). A missing
 * setting is 400 naming it: the settings must be configured before a callback is used.
 */
export function remoteServer(stored: JsonObject | undefined, accessToken: string | undefined): RemoteServer {
  const settings = (stored?.['callbacks:callbacks-settings'] ?? {}) as Record<string, JsonValue>;
  const server = (settings['remote-server'] ?? {}) as Record<string, JsonValue>;
  const missing = (name: string) =>
    new CallbackError(
      400,
      'invalid-value',
      `callbacks are not configured: set ${SETTINGS_PATH}/${name} first (PUT /rests/data/callbacks:callbacks-settings)`,
      `${SETTINGS_PATH}/${name}`,
    );
  if (typeof server['host'] !== 'string') throw missing('remote-server/host');
  if (typeof server['port'] !== 'number') throw missing('remote-server/port');
  if (server['scheme'] !== 'http' && server['scheme'] !== 'https') throw missing('remote-server/scheme');
  if (settings['access-token'] === undefined) throw missing('access-token');
  if (accessToken === undefined) {
    throw new CallbackError(
      400,
      'invalid-value',
      `the stored ${TOKEN_PATH} cannot be opened with this data folder's key: set it again`,
      TOKEN_PATH,
    );
  }
  return { scheme: server['scheme'], host: server['host'], port: server['port'], accessToken };
}

/** The URL of `suffix` on the server (an IPv6 address is bracketed; the suffix starts with '/'). */
export function remoteUrl(server: RemoteServer, suffix: string): URL {
  const host = server.host.includes(':') && !server.host.startsWith('[') ? `[${server.host}]` : server.host;
  return new URL(`${server.scheme}://${host}:${server.port}${suffix.startsWith('/') ? suffix : `/${suffix}`}`);
}

/**
 * Sends one request and answers the remote JSON object (`{}` for an empty body). Remote errors
 * (a status outside 2xx, a refused connection, an answer that is not a JSON object or is too large)
 * are 502; no answer within the time limit is 504.
 */
export function callRemote(
  server: RemoteServer,
  suffix: string,
  method: 'GET' | 'POST',
  body: JsonValue | undefined,
  limits: RemoteLimits,
): Promise<JsonObject> {
  let url: URL;
  try {
    url = remoteUrl(server, suffix);
  } catch {
    return Promise.reject(
      new CallbackError(502, 'operation-failed', `the remote server settings and the suffix '${suffix}' do not make a URL`),
    );
  }
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const where = `${method} ${url.origin}${url.pathname}`;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (err: CallbackError | undefined, value?: JsonObject) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(value!);
    };
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(
      url,
      {
        method,
        headers: {
          accept: 'application/json',
          authorization: `Bearer ${server.accessToken}`,
          ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limits.maxResponseBytes) {
            req.destroy();
            finish(new CallbackError(502, 'operation-failed', `${where}: the answer is larger than ${limits.maxResponseBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('error', () => finish(new CallbackError(502, 'operation-failed', `${where}: the answer was cut off`)));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status > 299) {
            finish(
              new CallbackError(
                502,
                'operation-failed',
                `${where}: the remote server answered ${status}${text.trim() === '' ? '' : `: ${text.slice(0, 200)}`}`,
              ),
            );
            return;
          }
          if (text.trim() === '') {
            finish(undefined, {});
            return;
          }
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
            finish(new CallbackError(502, 'operation-failed', `${where}: the remote server's answer is not a JSON object`));
            return;
          }
          finish(undefined, parsed as JsonObject);
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish(new CallbackError(504, 'operation-failed', `${where}: no answer from the remote server within ${limits.timeoutMs} ms`));
    }, limits.timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) =>
      finish(new CallbackError(502, 'operation-failed', `${where}: ${e.code ?? 'request failed'}`)),
    );
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
