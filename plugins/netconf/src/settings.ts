/**
 * The install-node `netconf` container (DESIGN.md §5.7) read into typed settings. Each bad member is named
 * with the reason; defaults follow OpenDaylight's netconf-node-topology where it has the same setting.
 * Units: the `*-timeout` settings are milliseconds; `keepalive-delay` is seconds (as in OpenDaylight).
 */
import type { JsonValue } from '@rosetta/sdk';

export interface NetconfNodeSettings {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  readonly tcpOnly: boolean;
  /** TCP + SSH + hello of one attempt (ms). */
  readonly initialConnectionTimeout: number;
  /** One request's reply (ms). */
  readonly requestTransactionTimeout: number;
  /** Attempts at install time before reporting the device unreachable (0: keep trying). */
  readonly maxConnectionAttempts: number;
  /** Attempts after a connection is lost before `unable-to-connect` (0: keep trying). */
  readonly maxReconnectionAttempts: number;
  /** Wait before the second attempt (ms); each later wait is 1.5 times the previous, up to a minute. */
  readonly betweenAttemptsTimeout: number;
  /** Idle time before a keepalive RPC (s); 0 disables. */
  readonly keepaliveDelay: number;
  /** Where downloaded modules are cached; undefined: the plugin's default. */
  readonly schemaCacheDirectory: string | undefined;
  /** Open an RFC 5277 subscription to this stream when the device offers `:notification`. */
  readonly notificationStream: string | undefined;
}

export type SettingsCheck = { ok: true; value: NetconfNodeSettings } | { ok: false; problems: string[] };

const DEFAULTS = {
  'tcp-only': false,
  'initial-connection-timeout': 20_000,
  'request-transaction-timeout': 60_000,
  'max-connection-attempts': 1,
  'max-reconnection-attempts': 0,
  'between-attempts-timeout': 2_000,
  'keepalive-delay': 120,
};

const KNOWN = new Set(['host', 'port', 'username', 'password', 'schema-cache-directory', 'notification-stream', ...Object.keys(DEFAULTS)]);

function count(v: JsonValue | undefined, name: string, fallback: number, problems: string[], min = 0, max = 2 ** 31): number {
  if (v === undefined) return fallback;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    problems.push(`${name}: must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
    return fallback;
  }
  return n;
}

function text(v: JsonValue | undefined, name: string, problems: string[], required: boolean): string | undefined {
  if (v === undefined) {
    if (required) problems.push(`${name}: required`);
    return undefined;
  }
  if (typeof v !== 'string' || v === '') { problems.push(`${name}: must be a non-empty string`); return undefined; }
  return v;
}

/** Checks the container's members (module prefixes already removed by the core). */
export function readNodeSettings(raw: Readonly<Record<string, JsonValue>>): SettingsCheck {
  const problems: string[] = [];
  for (const k of Object.keys(raw)) if (!KNOWN.has(k)) problems.push(`${k}: unknown setting`);
  const host = text(raw['host'], 'host', problems, true);
  const port = count(raw['port'], 'port', 830, problems, 1, 65535);
  const username = text(raw['username'], 'username', problems, true);
  const password = typeof raw['password'] === 'string' ? raw['password'] : (problems.push('password: required string'), '');
  const tcpOnly = raw['tcp-only'] ?? DEFAULTS['tcp-only'];
  if (typeof tcpOnly !== 'boolean') problems.push('tcp-only: must be true or false');
  const value: NetconfNodeSettings = {
    host: host ?? '',
    port,
    username: username ?? '',
    password,
    tcpOnly: tcpOnly === true,
    initialConnectionTimeout: count(raw['initial-connection-timeout'], 'initial-connection-timeout', DEFAULTS['initial-connection-timeout'], problems, 1),
    requestTransactionTimeout: count(raw['request-transaction-timeout'], 'request-transaction-timeout', DEFAULTS['request-transaction-timeout'], problems, 1),
    maxConnectionAttempts: count(raw['max-connection-attempts'], 'max-connection-attempts', DEFAULTS['max-connection-attempts'], problems),
    maxReconnectionAttempts: count(raw['max-reconnection-attempts'], 'max-reconnection-attempts', DEFAULTS['max-reconnection-attempts'], problems),
    betweenAttemptsTimeout: count(raw['between-attempts-timeout'], 'between-attempts-timeout', DEFAULTS['between-attempts-timeout'], problems),
    keepaliveDelay: count(raw['keepalive-delay'], 'keepalive-delay', DEFAULTS['keepalive-delay'], problems),
    schemaCacheDirectory: text(raw['schema-cache-directory'], 'schema-cache-directory', problems, false),
    notificationStream: text(raw['notification-stream'], 'notification-stream', problems, false),
  };
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}
