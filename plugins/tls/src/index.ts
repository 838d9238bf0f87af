/**
 * The TLS plugin: answers the core's `server.create` hook with an HTTPS server built from the
 * configuration's `tls` object (docs/configuration.md#tls) when `enabledTls` is true, and passes (plain HTTP) when it
 * is not. Any fault in the object (a missing or unreadable store, a wrong password, an empty trust store
 * with client authentication on, a protocol or cipher configuration that leaves nothing usable) throws
 * an error naming the field, which stops the service's start-up: TLS is never silently weaker than asked.
 *
 * Client authentication: the server asks for a certificate and refuses the handshake unless the client
 * presents one that chains to a trust-store certificate (self-signed client certificates are trusted by
 * being in the store themselves).
 */
import * as https from 'node:https';
import { createSecureContext } from 'node:tls';
import { definePlugin, type JsonValue, type PluginLogger } from '@rosetta/sdk';
import { selectProtocolsAndSuites } from './selection';
import { readTlsSettings, TlsConfigError } from './settings';
import { loadKeystore, loadTruststore } from './stores';

export { readTlsSettings, TlsConfigError, type TlsSettings } from './settings';
export { ALL_SUITES, selectProtocolsAndSuites, selectSuites, selectVersions, type Selection, type Suite } from './selection';
export { loadKeystore, loadTruststore, type TrustedCertificate } from './stores';

/**
 * The `https.createServer` options for a `tls` object, or undefined when TLS is off. Throws
 * TlsConfigError naming the field at fault.
 */
export function buildServerOptions(
  raw: Readonly<Record<string, JsonValue>> | undefined,
  log?: PluginLogger,
): https.ServerOptions | undefined {
  const settings = readTlsSettings(raw);
  if (!settings.enabledTls) return undefined;
  const selection = selectProtocolsAndSuites(settings);
  for (const w of selection.warnings) log?.warn(w);
  for (const n of selection.notes) log?.info(n);
  const pfx = loadKeystore(settings.keystorePath!, settings.keystorePassword);
  let ca: string[] | undefined;
  if (settings.truststorePath !== undefined) {
    const trusted = loadTruststore(settings.truststorePath, settings.truststorePassword);
    if (trusted.length === 0 && settings.enabledClientAuthentication) {
      throw new TlsConfigError(
        'tls.truststorePath',
        `${settings.truststorePath} holds no certificate: with client authentication on, no client could connect`,
      );
    }
    ca = trusted.map((t) => t.pem);
    log?.info(`trusting ${trusted.length} client certificate(s): ${trusted.map((t) => t.alias ?? t.subject).join('; ')}`);
  }
  const options: https.ServerOptions = {
    pfx,
    passphrase: settings.keystorePassword,
    minVersion: selection.minVersion,
    maxVersion: selection.maxVersion,
    secureOptions: selection.secureOptions,
    // the server's order is the table's (strongest first); 'auto' DH parameters make DHE suites usable
    ciphers: selection.ciphers,
    honorCipherOrder: true,
    dhparam: 'auto',
    requestCert: settings.enabledClientAuthentication,
    rejectUnauthorized: settings.enabledClientAuthentication,
    ...(ca ? { ca } : {}),
  };
  try {
    createSecureContext(options);
  } catch (e) {
    // The patterns named suites, but this Node's OpenSSL offers none of them.
    throw new TlsConfigError(
      'tls.includedCipherSuites',
      `no usable cipher suite in this runtime (${(e as Error).message}); selected: ${selection.suites.map((s) => s.iana).join(', ')}`,
    );
  }
  log?.info(
    `HTTPS with ${selection.versions.join(', ')}; ${selection.suites.length} cipher suites; client authentication ${settings.enabledClientAuthentication ? 'required' : 'off'}`,
  );
  return options;
}

/** Handshake refusals logged per minute at most; a client retrying in a loop must not flood the log. */
const REFUSALS_LOGGED_PER_MINUTE = 20;

export default definePlugin({
  setup(api) {
    api.hooks.server.create.tap('tls', (ctx) => {
      const options = buildServerOptions(ctx.tls, api.log);
      if (!options) return undefined;
      const server = https.createServer(options, ctx.handler);
      // Why a client was refused (no certificate, untrusted certificate, protocol version) is what an
      // operator needs when a client cannot connect.
      let windowStart = 0;
      let logged = 0;
      server.on('tlsClientError', (err: NodeJS.ErrnoException, socket) => {
        const now = Date.now();
        if (now - windowStart > 60_000) {
          windowStart = now;
          logged = 0;
        }
        if (++logged <= REFUSALS_LOGGED_PER_MINUTE)
          api.log.warn(`TLS handshake with ${socket.remoteAddress ?? 'a client'} refused: ${err.code ?? err.message}`);
        else if (logged === REFUSALS_LOGGED_PER_MINUTE + 1) api.log.warn('more TLS handshakes refused this minute; not logging them');
      });
      return server;
    });
  },
});
