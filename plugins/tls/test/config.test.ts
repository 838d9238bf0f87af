/**
 * The `tls` object field by field: defaults, every field's bad values (each fault names its field),
 * protocol and cipher-suite selection with IANA -> OpenSSL names, and the PKCS#12 stores made by openssl,
 * node-forge and Java's keytool.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'ava';
import {
  ALL_SUITES,
  buildServerOptions,
  loadKeystore,
  loadTruststore,
  readTlsSettings,
  selectProtocolsAndSuites,
  selectSuites,
  TlsConfigError,
} from '../src';
import { makePki } from './support/pki';

const pki = makePki();
const good = { enabledTls: true, keystorePath: pki.keystore, keystorePassword: pki.keystorePassword };

function fieldOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (e) {
    if (e instanceof TlsConfigError) return e.field;
    throw e;
  }
  return undefined;
}

test('defaults: TLS off; protocols TLSv1.2+1.3, suites TLS_ECDHE.*/TLS_DHE_RSA.* minus MD5/RC4/DSS/NULL/DES', (t) => {
  const s = readTlsSettings(undefined);
  t.false(s.enabledTls);
  t.false(s.enabledClientAuthentication);
  t.deepEqual(s.includedProtocols, ['TLSv1.2', 'TLSv1.3']);
  t.deepEqual(s.excludedProtocols, ['TLSv1', 'TLSv1.1', 'SSL', 'SSLv2', 'SSLv2Hello', 'SSLv3']);
  t.is(buildServerOptions(undefined), undefined);
  t.is(buildServerOptions({ enabledTls: false, keystorePath: '/nonexistent' }), undefined);
  const sel = selectProtocolsAndSuites(readTlsSettings(good));
  t.true(sel.suites.length > 10);
  const tls12 = sel.suites.filter((s) => !s.versions.includes('TLSv1.3'));
  for (const s of tls12) {
    t.regex(s.iana, /^(TLS_ECDHE|TLS_DHE_RSA)/);
    t.notRegex(s.iana, /MD5|RC4|DSS|NULL|DES/);
  }
  t.true(sel.suites.some((s) => s.iana === 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384' && s.openssl === 'ECDHE-RSA-AES256-GCM-SHA384'));
  t.true(sel.ciphers.split(':').includes('ECDHE-RSA-CHACHA20-POLY1305'));
  // The default patterns name no TLS 1.3 suite (TLS_AES_..., TLS_CHACHA20_...): TLS 1.3 offers its standard set, and says so.
  t.deepEqual(sel.versions, ['TLSv1.2', 'TLSv1.3']);
  t.deepEqual(
    sel.suites.filter((s) => s.versions.includes('TLSv1.3')).map((s) => s.iana),
    ['TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256', 'TLS_AES_128_GCM_SHA256'],
  );
  t.deepEqual(sel.warnings, []);
  t.true(
    sel.notes.some((n) =>
      /TLSv1\.3 offers its standard suites TLS_AES_256_GCM_SHA384, TLS_CHACHA20_POLY1305_SHA256, TLS_AES_128_GCM_SHA256/.test(n),
    ),
  );
});

test('TLS 1.3 suites: named ones restrict TLS 1.3, exclusions win over the standard set, the protocol lists turn it off', (t) => {
  const tls13 = (sel: { suites: readonly { iana: string; versions: readonly string[] }[] }) =>
    sel.suites.filter((s) => s.versions.includes('TLSv1.3')).map((s) => s.iana);
  // Naming one TLS 1.3 suite: exactly that one, no note.
  const named = selectProtocolsAndSuites(readTlsSettings({ ...good, includedCipherSuites: ['TLS_ECDHE.*', 'TLS_AES_256_GCM_SHA384'] }));
  t.deepEqual(tls13(named), ['TLS_AES_256_GCM_SHA384']);
  t.deepEqual(named.notes, []);
  // Named but all excluded: TLS 1.3 is off, with a warning (the operator named and removed them).
  const namedExcluded = selectProtocolsAndSuites(
    readTlsSettings({ ...good, includedCipherSuites: ['TLS_ECDHE.*', 'TLS_AES_.*'], excludedCipherSuites: ['TLS_AES_.*'] }),
  );
  t.deepEqual(namedExcluded.versions, ['TLSv1.2']);
  t.true(namedExcluded.warnings.some((w) => /TLSv1\.3 is enabled but no selected cipher suite/.test(w)));
  // Exclusions apply to the standard set.
  const noChacha = selectProtocolsAndSuites(readTlsSettings({ ...good, excludedCipherSuites: ['.*CHACHA20.*'] }));
  t.deepEqual(tls13(noChacha), ['TLS_AES_256_GCM_SHA384', 'TLS_AES_128_GCM_SHA256']);
  t.false(noChacha.ciphers.includes('CHACHA20'));
  const none13 = selectProtocolsAndSuites(readTlsSettings({ ...good, excludedCipherSuites: ['TLS_AES_.*', 'TLS_CHACHA20_.*'] }));
  t.deepEqual(none13.versions, ['TLSv1.2']);
  // The protocols decide first: TLS 1.3 excluded or not included means no TLS 1.3 suite at all.
  for (const protocols of [{ excludedProtocols: ['TLSv1.3'] }, { includedProtocols: ['TLSv1.2'] }]) {
    const sel = selectProtocolsAndSuites(readTlsSettings({ ...good, ...protocols }));
    t.deepEqual(sel.versions, ['TLSv1.2']);
    t.deepEqual(tls13(sel), []);
    t.deepEqual(sel.notes, []);
  }
  // TLS 1.3 only, by protocol, with the default patterns: served by the standard set.
  const only13 = selectProtocolsAndSuites(readTlsSettings({ ...good, includedProtocols: ['TLSv1.3'] }));
  t.deepEqual(only13.versions, ['TLSv1.3']);
  t.is(only13.minVersion, 'TLSv1.3');
});

test('cipher patterns are whole-name regular expressions; exclusion wins; TLS 1.3 names pass through', (t) => {
  t.deepEqual(
    selectSuites({ includedCipherSuites: ['TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'], excludedCipherSuites: [] }).map((s) => s.openssl),
    ['ECDHE-RSA-AES128-GCM-SHA256'],
  );
  t.deepEqual(selectSuites({ includedCipherSuites: ['ECDHE'], excludedCipherSuites: [] }), [], 'a pattern must match the whole name');
  t.deepEqual(selectSuites({ includedCipherSuites: ['TLS_ECDHE_RSA.*GCM.*'], excludedCipherSuites: ['.*GCM.*'] }), []);
  const withTls13 = selectProtocolsAndSuites(
    readTlsSettings({ ...good, includedCipherSuites: ['TLS_AES_.*', 'TLS_CHACHA20_.*', 'TLS_ECDHE_RSA.*'] }),
  );
  t.deepEqual(withTls13.versions, ['TLSv1.2', 'TLSv1.3']);
  t.true(withTls13.ciphers.split(':').includes('TLS_AES_256_GCM_SHA384'));
  const only13 = selectProtocolsAndSuites(readTlsSettings({ ...good, includedCipherSuites: ['TLS_AES_.*'] }));
  t.deepEqual(only13.versions, ['TLSv1.3']);
  t.is(only13.minVersion, 'TLSv1.3');
  // Every table entry maps one IANA name to one OpenSSL name.
  t.is(new Set(ALL_SUITES.map((s) => s.iana)).size, ALL_SUITES.length);
});

test('protocols: holes between min and max become SSL_OP_NO_* bits; legacy versions lower the security level', (t) => {
  const sel = selectProtocolsAndSuites(
    readTlsSettings({
      ...good,
      includedProtocols: ['TLSv1.1', 'TLSv1.3'],
      excludedProtocols: [],
      includedCipherSuites: ['TLS_AES_.*', 'TLS_ECDHE_RSA.*'],
    }),
  );
  t.deepEqual(sel.versions, ['TLSv1.1', 'TLSv1.3']);
  t.is(sel.minVersion, 'TLSv1.1');
  t.is(sel.maxVersion, 'TLSv1.3');
  t.not(sel.secureOptions & require('node:crypto').constants.SSL_OP_NO_TLSv1_2, 0);
  t.regex(sel.ciphers, /@SECLEVEL=0$/);
});

test('every field: bad values are refused naming the field', (t) => {
  const bad: Array<[Record<string, unknown>, string]> = [
    [{ ...good, enabledTls: 'yes' }, 'tls.enabledTls'],
    [{ ...good, enabledClientAuthentication: 1 }, 'tls.enabledClientAuthentication'],
    [{ enabledClientAuthentication: true }, 'tls.enabledClientAuthentication'],
    [{ enabledTls: true }, 'tls.keystorePath'],
    [{ ...good, keystorePath: 7 }, 'tls.keystorePath'],
    [{ ...good, keystorePath: path.join(pki.dir, 'missing.p12') }, 'tls.keystorePath'],
    [{ ...good, keystorePath: path.join(pki.dir, 'server.crt') }, 'tls.keystorePath'],
    [{ ...good, keystorePath: pki.truststore, keystorePassword: pki.truststorePassword }, 'tls.keystorePath'],
    [{ ...good, keystorePassword: 'wrong' }, 'tls.keystorePassword'],
    [{ ...good, keystorePassword: ['x'] }, 'tls.keystorePassword'],
    [{ ...good, enabledClientAuthentication: true }, 'tls.truststorePath'],
    [{ ...good, enabledClientAuthentication: true, truststorePath: path.join(pki.dir, 'missing.p12') }, 'tls.truststorePath'],
    [{ ...good, enabledClientAuthentication: true, truststorePath: path.join(pki.dir, 'alice.crt') }, 'tls.truststorePath'],
    [
      { ...good, enabledClientAuthentication: true, truststorePath: pki.emptyTruststore, truststorePassword: 'ts-secret' },
      'tls.truststorePath',
    ],
    [{ ...good, enabledClientAuthentication: true, truststorePath: pki.truststore, truststorePassword: 'wrong' }, 'tls.truststorePassword'],
    [{ ...good, truststorePassword: false }, 'tls.truststorePassword'],
    [{ ...good, includedProtocols: 'TLSv1.2' }, 'tls.includedProtocols'],
    [{ ...good, includedProtocols: ['TLSv1.2', 'TLSv9'] }, 'tls.includedProtocols[1]'],
    [{ ...good, includedProtocols: ['SSLv3'], excludedProtocols: [] }, 'tls.includedProtocols[0]'],
    [{ ...good, includedProtocols: ['TLSv1.1'] }, 'tls.includedProtocols'],
    [{ ...good, excludedProtocols: ['TLSv1.2', 'TLSv1.3'] }, 'tls.includedProtocols'],
    [{ ...good, excludedProtocols: ['TLSv1', 3] }, 'tls.excludedProtocols[1]'],
    [{ ...good, excludedProtocols: ['PCT1'] }, 'tls.excludedProtocols[0]'],
    [{ ...good, includedCipherSuites: ['TLS_(ECDHE'] }, 'tls.includedCipherSuites[0]'],
    [{ ...good, includedCipherSuites: ['TLS_NO_SUCH_SUITE'] }, 'tls.includedCipherSuites[0]'],
    [{ ...good, includedCipherSuites: ['TLS_ECDHE.*', 'TLS_ECDHE_RSA_WTH_AES_128_GCM_SHA256'] }, 'tls.includedCipherSuites[1]'],
    [{ ...good, excludedCipherSuites: ['TLS_ECDHE.*', 'TLS_DHE.*'] }, 'tls.includedCipherSuites'],
    [{ ...good, includedCipherSuites: [''] }, 'tls.includedCipherSuites[0]'],
    [{ ...good, excludedCipherSuites: ['.*'] }, 'tls.includedCipherSuites'],
    [{ ...good, excludedCipherSuites: ['[a-'] }, 'tls.excludedCipherSuites[0]'],
    [
      { ...good, includedCipherSuites: ['TLS_ECDHE_RSA_WITH_NULL_SHA', 'TLS_RSA_WITH_NULL_MD5'], excludedCipherSuites: [] },
      'tls.includedCipherSuites',
    ],
    [{ ...good, keystore: 'x' }, 'tls.keystore'],
  ];
  for (const [raw, field] of bad)
    t.is(
      fieldOf(() => buildServerOptions(raw as never)),
      field,
      JSON.stringify(raw),
    );
});

test('trust stores: aliases and certificates from openssl and keytool files; a key store holding no key is refused', (t) => {
  const trusted = loadTruststore(pki.truststore, pki.truststorePassword);
  t.deepEqual(
    trusted.map((c) => c.alias),
    ['alice', 'bob'],
  );
  t.regex(trusted[0]!.subject, /CN=alice/);
  t.regex(trusted[0]!.pem, /^-----BEGIN CERTIFICATE-----/);
  t.deepEqual(loadTruststore(pki.emptyTruststore, 'ts-secret'), []);
  if (pki.keytoolTruststore) {
    const java = loadTruststore(pki.keytoolTruststore, 'ts-secret');
    t.deepEqual(
      java.map((c) => c.alias),
      ['alice'],
    );
    t.is(java[0]!.pem, trusted[0]!.pem);
  }
  t.true(loadKeystore(pki.keystore, pki.keystorePassword).length > 1000);
  t.is(
    fieldOf(() => loadTruststore(path.join(pki.dir, 'server.key'), 'x')),
    'tls.truststorePath',
  );
  // Garbage of every length never throws anything but a named fault.
  const junk = path.join(pki.dir, 'junk.p12');
  const bytes = fs.readFileSync(pki.truststore);
  for (const cut of [0, 1, 2, 10, 100, 500, bytes.length - 1]) {
    fs.writeFileSync(junk, bytes.subarray(0, cut));
    t.is(
      fieldOf(() => loadTruststore(junk, 'ts-secret')),
      'tls.truststorePath',
      `cut at ${cut}`,
    );
    t.is(
      fieldOf(() => loadKeystore(junk, 'ks-secret')),
      'tls.keystorePath',
      `cut at ${cut}`,
    );
  }
});
