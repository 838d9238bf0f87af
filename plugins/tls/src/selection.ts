/**
 * Which protocol versions and cipher suites the server offers: included minus excluded (exclusion wins),
 * cipher patterns being regular expressions matched against whole IANA suite names (as Java's
 * `String.matches` does, so configurations written for a JSSE server mean the same here). The result is
 * in Node's terms: min/max version, `secureOptions` bits for versions in between that are left out, and
 * one `ciphers` string (OpenSSL names for TLS 1.2 and older, IANA names for TLS 1.3, as Node expects).
 *
 * TLS 1.3 suites are chosen apart, as OpenSSL (`ciphersuites` beside `cipher_list`) and nginx do. Their
 * names (`TLS_AES_128_GCM_SHA256`, ...) carry no key exchange or authentication: in TLS 1.3 the key
 * exchange is always ephemeral and every suite is an AEAD, so the patterns an operator writes to pick
 * key exchanges (the defaults `TLS_ECDHE.*`, `TLS_DHE_RSA.*`) cannot speak about them. The rule:
 * - when `includedCipherSuites` names at least one TLS 1.3 suite, TLS 1.3 offers exactly the named ones
 *   minus `excludedCipherSuites` (an operator who restricts TLS 1.3 gets that restriction);
 * - when it names none, TLS 1.3 offers the runtime's standard set (OpenSSL's default: AES-256-GCM,
 *   CHACHA20-POLY1305, AES-128-GCM) minus `excludedCipherSuites`, and start-up says so. So the defaults
 *   serve TLS 1.2 and TLS 1.3 as `includedProtocols` says; TLS 1.3 is turned off through the protocols
 *   (`excludedProtocols: ["TLSv1.3"]`) or by excluding its suites.
 * A protocol version that no selected suite can serve is dropped with a warning. Refused, naming the
 * field: an included pattern that matches no suite name (a typo), and patterns that select no usable
 * suite (the TLS 1.3 standard set completes a selection, never replaces an empty one).
 */
import { constants } from 'node:crypto';
import { DEFAULT_CIPHERS, getCiphers, type SecureVersion } from 'node:tls';
import { SUITE_TABLE } from './suite-table';
import { TlsConfigError, type TlsSettings } from './settings';

/** One cipher suite: its IANA name, OpenSSL name, and the protocol versions it works in. */
export interface Suite {
  readonly iana: string;
  readonly openssl: string;
  readonly versions: readonly SecureVersion[];
}

const VERSIONS: readonly SecureVersion[] = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];
/** Names a JSSE configuration may carry; SSL ones are accepted only to be excluded. */
const KNOWN_PROTOCOLS = [...VERSIONS, 'SSL', 'SSLv2', 'SSLv2Hello', 'SSLv3'];
const NO_VERSION_OPTION: Record<SecureVersion, number> = {
  TLSv1: constants.SSL_OP_NO_TLSv1,
  'TLSv1.1': constants.SSL_OP_NO_TLSv1_1,
  'TLSv1.2': constants.SSL_OP_NO_TLSv1_2,
  'TLSv1.3': constants.SSL_OP_NO_TLSv1_3,
};

function versionsOf(protocol: string): readonly SecureVersion[] {
  if (protocol === 'TLSv1.3') return ['TLSv1.3'];
  if (protocol === 'TLSv1.2') return ['TLSv1.2'];
  return ['TLSv1', 'TLSv1.1', 'TLSv1.2'];
}

/** Every suite the table knows, in table order. */
export const ALL_SUITES: readonly Suite[] = SUITE_TABLE.trim()
  .split('\n')
  .map((line) => {
    const [iana, openssl, protocol] = line.split(' ') as [string, string, string];
    return { iana, openssl, versions: versionsOf(protocol) };
  });

/** What the server offers, in Node's terms. */
export interface Selection {
  readonly versions: readonly SecureVersion[];
  readonly minVersion: SecureVersion;
  readonly maxVersion: SecureVersion;
  /** SSL_OP_NO_* bits for versions between min and max that are not offered. */
  readonly secureOptions: number;
  readonly suites: readonly Suite[];
  /** The `ciphers` option. */
  readonly ciphers: string;
  /** Things an operator should know (a protocol dropped for want of suites). */
  readonly warnings: readonly string[];
  /** What start-up tells the operator about choices made for them (the TLS 1.3 standard set). */
  readonly notes: readonly string[];
}

function compilePatterns(patterns: readonly string[], field: string): RegExp[] {
  return patterns.map((p, i) => {
    try {
      return new RegExp(`^(?:${p})$`);
    } catch (e) {
      throw new TlsConfigError(`${field}[${i}]`, `not a regular expression: ${(e as Error).message}`);
    }
  });
}

/** The enabled protocol versions, lowest first. Throws TlsConfigError naming the field. */
export function selectVersions(settings: Pick<TlsSettings, 'includedProtocols' | 'excludedProtocols'>): SecureVersion[] {
  settings.excludedProtocols.forEach((p, i) => {
    if (!KNOWN_PROTOCOLS.includes(p))
      throw new TlsConfigError(
        `tls.excludedProtocols[${i}]`,
        `unknown protocol ${JSON.stringify(p)}; known: ${KNOWN_PROTOCOLS.join(', ')}`,
      );
  });
  const excluded = new Set(settings.excludedProtocols);
  const enabled = new Set<SecureVersion>();
  settings.includedProtocols.forEach((p, i) => {
    const field = `tls.includedProtocols[${i}]`;
    if (!KNOWN_PROTOCOLS.includes(p))
      throw new TlsConfigError(field, `unknown protocol ${JSON.stringify(p)}; known: ${KNOWN_PROTOCOLS.join(', ')}`);
    if (excluded.has(p)) return;
    if (!(VERSIONS as readonly string[]).includes(p))
      throw new TlsConfigError(field, `${p} is broken and not offered by this service; list it in excludedProtocols or remove it`);
    enabled.add(p as SecureVersion);
  });
  const versions = VERSIONS.filter((v) => enabled.has(v));
  if (versions.length === 0) throw new TlsConfigError('tls.includedProtocols', 'no protocol is left once excludedProtocols are taken out');
  return versions;
}

/**
 * Suites this runtime's OpenSSL offers (its default list: OpenSSL accepts NULL or anonymous suites in a
 * cipher string and then never negotiates them, so being named is not enough).
 */
const OFFERED = new Set(getCiphers());

/**
 * Suites whose IANA name matches an included pattern and no excluded one, among those the runtime
 * offers. Throws TlsConfigError on a bad pattern.
 */
export function selectSuites(settings: Pick<TlsSettings, 'includedCipherSuites' | 'excludedCipherSuites'>): Suite[] {
  const included = compilePatterns(settings.includedCipherSuites, 'tls.includedCipherSuites');
  const excluded = compilePatterns(settings.excludedCipherSuites, 'tls.excludedCipherSuites');
  return ALL_SUITES.filter(
    (s) => OFFERED.has(s.openssl.toLowerCase()) && included.some((r) => r.test(s.iana)) && !excluded.some((r) => r.test(s.iana)),
  );
}

/** An included pattern that matches no suite name at all is a typo, not a choice: refused naming it. */
function refuseUnknownPatterns(settings: Pick<TlsSettings, 'includedCipherSuites'>): void {
  compilePatterns(settings.includedCipherSuites, 'tls.includedCipherSuites').forEach((r, i) => {
    if (!ALL_SUITES.some((s) => r.test(s.iana))) {
      throw new TlsConfigError(
        `tls.includedCipherSuites[${i}]`,
        `${JSON.stringify(settings.includedCipherSuites[i])} matches no cipher suite name (IANA names, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)`,
      );
    }
  });
}

/** The runtime's standard TLS 1.3 suites (OpenSSL's default `ciphersuites`), by IANA name. */
const TLS13_STANDARD: ReadonlySet<string> = new Set(DEFAULT_CIPHERS.split(':').filter((c) => c.startsWith('TLS_')));

/** Whether any included pattern names a TLS 1.3 suite (whether or not an exclusion then removes it). */
function namesTls13(settings: Pick<TlsSettings, 'includedCipherSuites'>): boolean {
  const included = compilePatterns(settings.includedCipherSuites, 'tls.includedCipherSuites');
  return ALL_SUITES.some((s) => s.versions.includes('TLSv1.3') && included.some((r) => r.test(s.iana)));
}

/**
 * The TLS 1.3 suites offered when the included patterns name none: the standard set minus exclusions
 * (see the top of this file), in table order.
 */
function standardTls13(settings: Pick<TlsSettings, 'excludedCipherSuites'>): Suite[] {
  const excluded = compilePatterns(settings.excludedCipherSuites, 'tls.excludedCipherSuites');
  return ALL_SUITES.filter(
    (s) =>
      s.versions.includes('TLSv1.3') &&
      TLS13_STANDARD.has(s.iana) &&
      OFFERED.has(s.openssl.toLowerCase()) &&
      !excluded.some((r) => r.test(s.iana)),
  );
}

/** Protocols and suites together; throws TlsConfigError when they leave nothing usable. */
export function selectProtocolsAndSuites(settings: TlsSettings): Selection {
  const wanted = selectVersions(settings);
  refuseUnknownPatterns(settings);
  let matched = selectSuites(settings);
  // The standard TLS 1.3 set completes a selection; it never stands in for patterns that select nothing.
  if (matched.length === 0) {
    throw new TlsConfigError(
      'tls.includedCipherSuites',
      'no usable cipher suite: the included patterns minus excludedCipherSuites leave none that this runtime offers',
    );
  }
  const warnings: string[] = [];
  const notes: string[] = [];
  if (wanted.includes('TLSv1.3') && !namesTls13(settings)) {
    const standard = standardTls13(settings);
    matched = [...matched, ...standard];
    if (standard.length > 0) {
      notes.push(
        `TLSv1.3 offers its standard suites ${standard.map((s) => s.iana).join(', ')}: includedCipherSuites names no TLS 1.3 suite ` +
          '(their names carry no key exchange, which TLS 1.3 always makes ephemeral); name TLS 1.3 suites there to choose among them, or exclude TLSv1.3',
      );
    }
  }
  const versions = wanted.filter((v) => {
    const served = matched.some((s) => s.versions.includes(v));
    if (!served) warnings.push(`${v} is enabled but no selected cipher suite works in it; ${v} is not offered`);
    return served;
  });
  if (versions.length === 0) {
    throw new TlsConfigError(
      'tls.includedCipherSuites',
      `no usable cipher suite: the included patterns minus excludedCipherSuites leave none that this runtime offers for ${wanted.join(', ')}`,
    );
  }
  const suites = matched.filter((s) => s.versions.some((v) => versions.includes(v)));
  const minVersion = versions[0]!;
  const maxVersion = versions[versions.length - 1]!;
  let secureOptions = 0;
  for (const v of VERSIONS.slice(VERSIONS.indexOf(minVersion), VERSIONS.indexOf(maxVersion) + 1)) {
    if (!versions.includes(v)) secureOptions |= NO_VERSION_OPTION[v];
  }
  // OpenSSL 3 refuses TLS 1.0/1.1 (SHA-1 signatures) above security level 0: an operator who enabled
  // them on purpose gets them.
  const legacy = versions.includes('TLSv1') || versions.includes('TLSv1.1');
  if (legacy)
    warnings.push(`${versions.filter((v) => v === 'TLSv1' || v === 'TLSv1.1').join(' and ')} enabled: these are deprecated (RFC 8996)`);
  const ciphers = suites.map((s) => s.openssl).join(':') + (legacy ? ':@SECLEVEL=0' : '');
  return { versions, minVersion, maxVersion, secureOptions, suites, ciphers, warnings, notes };
}
