/**
 * The authentication gate in front of every route, and the start-up checks that keep the service from
 * running less securely than its configuration says.
 *
 * The gate wraps the whole request handler (RESTCONF and plugins' routes alike) when the configuration's
 * `auth` object is present and enabled. It asks the `server.authenticate` hook of the current plugin
 * generation and fails closed: no verdict is 401, no tap (the plugin was disabled at run time) is 503,
 * a tap that throws is 500; in none of those cases does the request reach a route. A tap may also
 * answer 429 (too many attempts: `resource-denied` with `Retry-After`).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { AuthenticateContext, AuthenticateVerdict, JsonValue } from '../hooks';
import type { Logger } from '../logger';
import type { ScopeSource } from '../restconf/context';
import { leaseScope } from '../restconf/request-scope';
import { setRequestUser } from '../restconf/request-user';
import { renderErrorsJson, renderErrorsXml, type ErrorType } from '../restconf/errors';
import { errorResponseType } from '../restconf/media';
import { authenticationRequired } from './auth-config';
import { ConfigError, type ServiceConfig } from './config';

/** The challenge sent with a 401 when the plugin names none. */
const BASIC_CHALLENGE = 'Basic realm="rosetta", charset="UTF-8"';

/** True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(?:\.\d{1,3}){3}$/.test(h) || /^::ffff:127(?:\.\d{1,3}){3}$/.test(h);
}

/**
 * Start-up checks between the configuration and the plugins actually loaded, each naming the field:
 * TLS asked for but no plugin made an HTTPS server; authentication asked for but no plugin taps the hook;
 * an authentication plugin loaded with no `auth` object to tell it the users. Returns the warning to
 * print loudly when the service will serve a non-loopback address without authentication.
 */
export function checkSecurityAtStart(config: ServiceConfig, serverIsTls: boolean, authenticatorLoaded: boolean): string | undefined {
  if (config.tls?.['enabledTls'] === true && !serverIsTls) {
    throw new ConfigError(
      'tls.enabledTls',
      'TLS is enabled but no TLS plugin is loaded: enable plugins/tls in plugins.json (or set enabledTls to false)',
    );
  }
  const required = authenticationRequired(config.auth);
  if (required && !authenticatorLoaded) {
    throw new ConfigError(
      'auth',
      'authentication is enabled but no authentication plugin is loaded: enable plugins/auth in plugins.json (or set auth.enabled to false)',
    );
  }
  if (authenticatorLoaded && config.auth === undefined) {
    throw new ConfigError('auth', 'an authentication plugin is loaded but the configuration has no auth object listing the users');
  }
  if (required || isLoopbackHost(config.host)) return undefined;
  const banner = '!'.repeat(100);
  return (
    `${banner}\n!! WARNING: listening on ${config.host}, reachable from the network, WITHOUT AUTHENTICATION.\n` +
    '!! Anyone who can reach this port can read and change the configuration of every managed device.\n' +
    '!! Enable plugins/auth in plugins.json with an "auth" object in the configuration, or set "host" to 127.0.0.1.\n' +
    banner
  );
}

function deny(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  type: ErrorType,
  tag: string,
  message: string,
  challenge?: string,
  retryAfterSeconds?: number,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const media = errorResponseType(req.headers.accept);
  const entry = [{ type, tag, message }];
  const body = media.encoding === 'xml' ? renderErrorsXml(entry, () => undefined) : renderErrorsJson(entry);
  res.statusCode = status;
  res.setHeader('Content-Type', media.type);
  res.setHeader('Cache-Control', 'no-store');
  if (challenge !== undefined) res.setHeader('WWW-Authenticate', challenge);
  if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfterSeconds))));
  // the body was never read: close rather than let a large upload keep the connection busy
  if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) res.setHeader('Connection', 'close');
  res.end(body);
}

function verifiedCertificate(req: IncomingMessage): AuthenticateContext['clientCertificate'] {
  const socket = req.socket as Partial<TLSSocket>;
  if (socket.authorized !== true || typeof socket.getPeerCertificate !== 'function') return undefined;
  const peer = socket.getPeerCertificate();
  if (!peer?.raw) return undefined;
  try {
    const x509 = new X509Certificate(peer.raw);
    return { subject: x509.subject, fingerprint256: x509.fingerprint256 };
  } catch {
    return undefined;
  }
}

/** Wraps `app` with the gate when authentication is required; otherwise returns `app` itself. */
export function authenticatingHandler(
  app: RequestListener,
  plugins: ScopeSource,
  auth: Readonly<Record<string, JsonValue>> | undefined,
  log: Logger,
): RequestListener {
  if (!authenticationRequired(auth)) return app;
  const config = auth!;
  let reportedMissing = false;
  return (req, res) => {
    // The request's one lease, taken here so the gate and the handling see the same generation; the dispatcher keeps it.
    const scope = leaseScope(plugins, res);
    const hook = scope.hooks.server.authenticate;
    if (!hook.isUsed()) {
      if (!reportedMissing)
        log.error('authentication is configured but no authentication plugin is loaded: every request is refused (503)');
      reportedMissing = true;
      deny(req, res, 503, 'application', 'operation-failed', 'authentication is configured but no authentication plugin is loaded');
      return;
    }
    reportedMissing = false;
    const context: AuthenticateContext = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      authorization: req.headers.authorization,
      remoteAddress: req.socket.remoteAddress ?? 'unknown',
      clientCertificate: verifiedCertificate(req),
      config,
    };
    hook.promise(context).then(
      (verdict: AuthenticateVerdict | undefined) => {
        if (verdict?.allow === true) {
          setRequestUser(req, verdict.user);
          app(req, res);
          return;
        }
        if (verdict === undefined) deny(req, res, 401, 'protocol', 'access-denied', 'authentication required', BASIC_CHALLENGE);
        else if (verdict.status === 403) deny(req, res, 403, 'protocol', 'access-denied', verdict.message);
        else if (verdict.status === 429)
          deny(req, res, 429, 'protocol', 'resource-denied', verdict.message, undefined, verdict.retryAfterSeconds);
        else deny(req, res, 401, 'protocol', 'access-denied', verdict.message, verdict.challenge ?? BASIC_CHALLENGE);
      },
      (err: unknown) => {
        log.error(`authentication plugin failed: ${err instanceof Error ? err.message : String(err)}`);
        deny(req, res, 500, 'application', 'operation-failed', 'authentication failed on the server');
      },
    );
  };
}
