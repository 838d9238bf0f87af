/**
 * The TLS plugin in a real service on 127.0.0.1, loaded from a plugins.json the test writes, with real
 * clients (node https/tls): server authentication, client authentication with trusted, missing and
 * untrusted certificates, a TLS 1.1-only client, cipher-suite selection, and the plugin switched off.
 */
import * as fs from 'node:fs';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SecureVersion, TLSSocket } from 'node:tls';
import test from 'ava';
import { startTestService } from '@rosetta/core/dist/test/restconf/http-fixture';
import { makePki } from './support/pki';

const pki = makePki();
const PLUGIN = path.resolve(__dirname, '../..');

function pluginsFile(enabled: boolean): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-tls-plugins-')), 'plugins.json');
  fs.writeFileSync(file, JSON.stringify({ watch: false, plugins: [{ path: PLUGIN, enabled }] }));
  return file;
}

const serverTls = { enabledTls: true, keystorePath: pki.keystore, keystorePassword: pki.keystorePassword };
const clientAuthTls = {
  ...serverTls,
  enabledClientAuthentication: true,
  truststorePath: pki.truststore,
  truststorePassword: pki.truststorePassword,
};

interface Answer {
  status: number;
  body: string;
  protocol: string | null;
  cipher: string | undefined;
}

interface ClientOptions {
  cert?: string;
  key?: string;
  minVersion?: SecureVersion;
  maxVersion?: SecureVersion;
  ciphers?: string;
  ca?: string;
}

function get(url: string, options: ClientOptions = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${url}/rests/yang-library-version`,
      { agent: false, ca: options.ca ?? pki.serverCert, ...options, ...(options.ca ? {} : {}) },
      (res) => {
        const socket = res.socket as TLSSocket;
        const protocol = socket.getProtocol();
        const cipher = socket.getCipher()?.standardName;
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (d: string) => {
            body += d;
          })
          .on('end', () => resolve({ status: res.statusCode ?? 0, body, protocol, cipher }));
      },
    );
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error('timed out')));
    req.end();
  });
}

async function withService<T>(raw: Record<string, unknown>, run: (url: string, errors: string[]) => Promise<T>): Promise<T> {
  const s = await startTestService(raw, []);
  try {
    return await run(s.service.url, s.errors);
  } finally {
    await s.service.stop();
  }
}

test('TLS on with defaults: HTTPS from the key store, TLS 1.3 and TLS 1.2 with selected suites; plain HTTP is not answered', async (t) => {
  await withService({ plugins: pluginsFile(true), tls: serverTls }, async (url) => {
    t.regex(url, /^https:\/\/127\.0\.0\.1:\d+$/);
    // A TLS 1.3-only client is served with the defaults (includedProtocols lists TLSv1.3).
    const tls13 = await get(url, { minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' });
    t.is(tls13.status, 200);
    t.regex(tls13.body, /yang-library-version/);
    t.is(tls13.protocol, 'TLSv1.3');
    t.is(tls13.cipher, 'TLS_AES_256_GCM_SHA384');
    // Each standard TLS 1.3 suite is negotiable; one outside the standard set is not offered.
    t.is((await get(url, { minVersion: 'TLSv1.3', ciphers: 'TLS_CHACHA20_POLY1305_SHA256' })).cipher, 'TLS_CHACHA20_POLY1305_SHA256');
    t.is((await get(url, { minVersion: 'TLSv1.3', ciphers: 'TLS_AES_128_GCM_SHA256' })).cipher, 'TLS_AES_128_GCM_SHA256');
    await t.throwsAsync(get(url, { minVersion: 'TLSv1.3', ciphers: 'TLS_AES_128_CCM_SHA256' }), { message: /handshake|cipher|alert/i });
    // A TLS 1.2-only client gets TLS 1.2 with the strongest suite the RSA key allows.
    const answer = await get(url, { maxVersion: 'TLSv1.2' });
    t.is(answer.status, 200);
    t.is(answer.protocol, 'TLSv1.2');
    t.is(answer.cipher, 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384', 'the strongest suite the RSA key allows');
    // A client offering only a DHE suite (included by TLS_DHE_RSA.*) is served too.
    t.is((await get(url, { ciphers: 'DHE-RSA-AES128-GCM-SHA256', maxVersion: 'TLSv1.2' })).cipher, 'TLS_DHE_RSA_WITH_AES_128_GCM_SHA256');
    // A client that does not trust the server's certificate refuses it (the key store's certificate is served).
    await t.throwsAsync(get(url, { ca: pki.clients.alice.cert }), { message: /self[- ]signed|unable to verify/i });
    const plain = await fetch(`${url.replace('https:', 'http:')}/rests/yang-library-version`).then(
      (r) => r.status,
      (e: Error) => e.message,
    );
    t.not(plain, 200);
  });
});

test('client authentication: trusted alice and bob are served; no certificate or an untrusted one is refused', async (t) => {
  await withService({ plugins: pluginsFile(true), tls: clientAuthTls }, async (url, errors) => {
    t.is((await get(url, pki.clients.alice)).status, 200);
    t.is((await get(url, pki.clients.bob)).status, 200);
    await t.throwsAsync(get(url), { message: /certificate|handshake|alert|disconnected|socket hang up/i }, 'no client certificate');
    await t.throwsAsync(
      get(url, pki.clients.mallory),
      { message: /certificate|handshake|alert|disconnected|socket hang up/i },
      'untrusted certificate',
    );
    // TLS 1.3 clients learn of the refusal after the handshake: still no answer.
    await t.throwsAsync(get(url, { ...pki.clients.mallory, minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' }));
    await new Promise((r) => setTimeout(r, 50));
    t.true(
      errors.some((e) => /\[@rosetta\/plugin-tls\] TLS handshake with 127\.0\.0\.1 refused: ERR_SSL_/.test(e)),
      errors.join('\n'),
    );
  });
  if (pki.keytoolTruststore) {
    await withService({ plugins: pluginsFile(true), tls: { ...clientAuthTls, truststorePath: pki.keytoolTruststore } }, async (url) => {
      t.is((await get(url, pki.clients.alice)).status, 200, 'a Java keytool trust store works');
      await t.throwsAsync(get(url, pki.clients.bob), undefined, 'bob is not in the keytool store');
    });
  }
});

test('a TLS 1.1-only client is refused by default, and served only when TLS 1.1 is configured', async (t) => {
  const tls11 = { minVersion: 'TLSv1.1' as const, maxVersion: 'TLSv1.1' as const, ciphers: 'DEFAULT:@SECLEVEL=0' };
  await withService({ plugins: pluginsFile(true), tls: serverTls }, async (url) => {
    await t.throwsAsync(get(url, tls11), { message: /protocol|version|alert|handshake/i });
  });
  // The control: the same client succeeds against a server configured for TLS 1.1, so the refusal above is the configuration's.
  await withService(
    { plugins: pluginsFile(true), tls: { ...serverTls, includedProtocols: ['TLSv1.1', 'TLSv1.2'], excludedProtocols: ['SSLv3'] } },
    async (url, errors) => {
      const answer = await get(url, tls11);
      t.is(answer.status, 200);
      t.is(answer.protocol, 'TLSv1.1');
      t.true(
        errors.some((e) => /TLSv1\.1 enabled: these are deprecated/.test(e)),
        errors.join('\n'),
      );
    },
  );
});

test('cipher suites: the one included suite is negotiated; a client offering only excluded suites is refused', async (t) => {
  const tls = {
    ...serverTls,
    includedCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256', 'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA'],
    excludedCipherSuites: ['.*CBC.*'],
  };
  await withService({ plugins: pluginsFile(true), tls }, async (url) => {
    t.is((await get(url, { maxVersion: 'TLSv1.2' })).cipher, 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256');
    // The patterns name no TLS 1.3 suite: TLS 1.3 serves its standard set (selection.ts says why).
    t.is((await get(url)).cipher, 'TLS_AES_256_GCM_SHA384');
    await t.throwsAsync(get(url, { ciphers: 'ECDHE-RSA-AES256-SHA', maxVersion: 'TLSv1.2' }), { message: /handshake|cipher|alert/i });
  });
  await withService(
    { plugins: pluginsFile(true), tls: { ...serverTls, includedCipherSuites: ['TLS_AES_256_GCM_SHA384'] } },
    async (url) => {
      const answer = await get(url);
      t.is(answer.protocol, 'TLSv1.3');
      t.is(answer.cipher, 'TLS_AES_256_GCM_SHA384');
    },
  );
});

test('plugin off and bad fields: start-up refuses, naming the field', async (t) => {
  // TLS asked for but the plugin is disabled: never plain HTTP instead.
  await t.throwsAsync(startTestService({ plugins: pluginsFile(false), tls: serverTls }, []), {
    message: /^tls\.enabledTls: .*no TLS plugin/,
  });
  // No plugins.json at all: the same.
  await t.throwsAsync(startTestService({ tls: serverTls }, []), { message: /^tls\.enabledTls:/ });
  // The plugin enabled with TLS off, or disabled with TLS off: plain HTTP.
  for (const enabled of [true, false]) {
    await withService({ plugins: pluginsFile(enabled), tls: { enabledTls: false } }, async (url) => {
      t.regex(url, /^http:/);
      t.is((await fetch(`${url}/rests/yang-library-version`)).status, 200);
    });
  }
  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [{ ...serverTls, keystorePassword: 'wrong' }, /^tls\.keystorePassword: wrong password/],
    [{ ...serverTls, keystorePath: path.join(pki.dir, 'nothing.p12') }, /^tls\.keystorePath: cannot read .*ENOENT/],
    [{ ...clientAuthTls, truststorePath: pki.emptyTruststore }, /^tls\.truststorePath: .*holds no certificate/],
    [{ ...clientAuthTls, truststorePassword: 'nope' }, /^tls\.truststorePassword: wrong password/],
    [{ ...serverTls, excludedCipherSuites: ['TLS_.*'] }, /^tls\.includedCipherSuites: no usable cipher suite/],
    [{ ...serverTls, includedProtocols: ['TLSv1.4'] }, /^tls\.includedProtocols\[0\]: unknown protocol/],
    [{ ...serverTls, enabledTls: 'true' }, /^tls\.enabledTls: must be a boolean/],
    [{ enabledClientAuthentication: true }, /^tls\.enabledClientAuthentication: client authentication needs tls\.enabledTls/],
  ];
  for (const [tls, message] of bad)
    await t.throwsAsync(startTestService({ plugins: pluginsFile(true), tls }, []), { message }, JSON.stringify(tls));
});
