/**
 * The `tls` object of the service configuration, read with its defaults. Every fault is a TlsConfigError
 * naming the field as the operator wrote it (`tls.includedProtocols[2]`), so start-up stops saying where.
 * The core has already refused unknown fields and wrong JSON types; this file checks again (a plugin
 * version may meet an older core) and adds what needs the plugin's knowledge: required fields.
 */

/** A configuration fault in the `tls` object: the dotted field and what is wrong. */
export class TlsConfigError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field}: ${problem}`);
    this.name = 'TlsConfigError';
  }
}

/** The `tls` object with defaults filled in. */
export interface TlsSettings {
  readonly enabledTls: boolean;
  readonly enabledClientAuthentication: boolean;
  readonly keystorePath: string | undefined;
  readonly keystorePassword: string;
  readonly truststorePath: string | undefined;
  readonly truststorePassword: string;
  readonly includedProtocols: readonly string[];
  readonly excludedProtocols: readonly string[];
  readonly includedCipherSuites: readonly string[];
  readonly excludedCipherSuites: readonly string[];
}

export const DEFAULT_INCLUDED_PROTOCOLS = ['TLSv1.2', 'TLSv1.3'];
export const DEFAULT_EXCLUDED_PROTOCOLS = ['TLSv1', 'TLSv1.1', 'SSL', 'SSLv2', 'SSLv2Hello', 'SSLv3'];
export const DEFAULT_INCLUDED_CIPHER_SUITES = ['TLS_ECDHE.*', 'TLS_DHE_RSA.*'];
export const DEFAULT_EXCLUDED_CIPHER_SUITES = ['.*MD5.*', '.*RC4.*', '.*DSS.*', '.*NULL.*', '.*DES.*'];

const BOOLEANS = ['enabledTls', 'enabledClientAuthentication'] as const;
const STRINGS = ['keystorePath', 'keystorePassword', 'truststorePath', 'truststorePassword'] as const;
const LISTS = ['includedProtocols', 'excludedProtocols', 'includedCipherSuites', 'excludedCipherSuites'] as const;
const KNOWN: readonly string[] = [...BOOLEANS, ...STRINGS, ...LISTS];

function list(raw: Readonly<Record<string, unknown>>, name: (typeof LISTS)[number], fallback: readonly string[]): readonly string[] {
  const v = raw[name];
  if (v === undefined) return fallback;
  if (!Array.isArray(v)) throw new TlsConfigError(`tls.${name}`, 'must be an array of strings');
  v.forEach((s: unknown, i: number) => {
    if (typeof s !== 'string' || s.trim() === '')
      throw new TlsConfigError(`tls.${name}[${i}]`, `must be a non-empty string, not ${JSON.stringify(s)}`);
  });
  return v as string[];
}

/** Reads the `tls` object (undefined: TLS off). Throws TlsConfigError naming the field. */
export function readTlsSettings(raw: Readonly<Record<string, unknown>> | undefined): TlsSettings {
  const given = raw ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new TlsConfigError('tls', 'must be an object');
  for (const k of Object.keys(given))
    if (!KNOWN.includes(k)) throw new TlsConfigError(`tls.${k}`, `unknown field; known: ${KNOWN.join(', ')}`);
  for (const k of BOOLEANS) {
    if (given[k] !== undefined && typeof given[k] !== 'boolean') throw new TlsConfigError(`tls.${k}`, 'must be true or false');
  }
  for (const k of STRINGS) {
    if (given[k] !== undefined && typeof given[k] !== 'string') throw new TlsConfigError(`tls.${k}`, 'must be a string');
  }
  const settings: TlsSettings = {
    enabledTls: given['enabledTls'] === true,
    enabledClientAuthentication: given['enabledClientAuthentication'] === true,
    keystorePath: given['keystorePath'] as string | undefined,
    keystorePassword: (given['keystorePassword'] as string | undefined) ?? '',
    truststorePath: given['truststorePath'] as string | undefined,
    truststorePassword: (given['truststorePassword'] as string | undefined) ?? '',
    includedProtocols: list(given, 'includedProtocols', DEFAULT_INCLUDED_PROTOCOLS),
    excludedProtocols: list(given, 'excludedProtocols', DEFAULT_EXCLUDED_PROTOCOLS),
    includedCipherSuites: list(given, 'includedCipherSuites', DEFAULT_INCLUDED_CIPHER_SUITES),
    excludedCipherSuites: list(given, 'excludedCipherSuites', DEFAULT_EXCLUDED_CIPHER_SUITES),
  };
  if (settings.enabledClientAuthentication && !settings.enabledTls) {
    throw new TlsConfigError('tls.enabledClientAuthentication', 'client authentication needs tls.enabledTls: true');
  }
  if (settings.enabledTls && !settings.keystorePath) {
    throw new TlsConfigError('tls.keystorePath', 'required with enabledTls: the PKCS#12 file holding the server key pair');
  }
  if (settings.enabledClientAuthentication && !settings.truststorePath) {
    throw new TlsConfigError(
      'tls.truststorePath',
      'required with enabledClientAuthentication: the PKCS#12 file of trusted client certificates',
    );
  }
  return settings;
}
