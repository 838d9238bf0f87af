/**
 * The install-node `cli` container (DESIGN.md §5.7, module cli-topology) read into typed settings. Each bad
 * member is named with the reason, never with the value of `password` or `secret`. Timers are in seconds,
 * as in the cli-topology module; defaults follow what a UniConfig user expects.
 */
import type { JsonValue } from '@rosetta/sdk';

export interface CliNodeSettings {
  readonly host: string;
  readonly port: number;
  readonly deviceType: string | undefined;
  readonly deviceVersion: string | undefined;
  readonly username: string;
  readonly password: string;
  /** The enable secret, for devices that land in unprivileged (`>`) mode. */
  readonly secret: string | undefined;
  /** Longest wait for one command's prompt (s). */
  readonly commandTimeout: number;
  /** TCP + SSH + login + first prompt of one attempt (s). */
  readonly connectionEstablishTimeout: number;
  /** Idle time before a keepalive (an empty command) is sent (s); 0 disables. */
  readonly keepaliveDelay: number;
  /** Attempts at install before the device is reported unreachable (0: keep trying). */
  readonly maxConnectionAttempts: number;
  /** Attempts after a drop before the node becomes `unable-to-connect` (0: keep trying). */
  readonly maxReconnectionAttempts: number;
}

export type SettingsCheck = { readonly ok: true; readonly value: CliNodeSettings } | { readonly ok: false; readonly problems: string[] };

export const DEFAULTS = {
  port: 22,
  'command-timeout': 60,
  'connection-establish-timeout': 30,
  'keepalive-delay': 60,
  'max-connection-attempts': 1,
  'max-reconnection-attempts': 0,
} as const;

const KNOWN = new Set([
  'host', 'port', 'transport-type', 'device-type', 'device-version', 'username', 'password', 'secret',
  ...Object.keys(DEFAULTS),
]);

/** Checks the container's members (module prefixes already removed by the core). */
export function readCliSettings(raw: Readonly<Record<string, JsonValue>>): SettingsCheck {
  const problems: string[] = [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { ok: false, problems: ['the cli container must be an object'] };
  for (const k of Object.keys(raw)) if (!KNOWN.has(k)) problems.push(`${k}: unknown setting (known: ${[...KNOWN].join(', ')})`);
  const transport = raw['transport-type'] ?? 'ssh';
  if (transport === 'telnet') problems.push('transport-type: telnet is not supported; install the device with transport-type ssh');
  else if (transport !== 'ssh') problems.push(`transport-type: must be ssh, got ${JSON.stringify(transport)}`);
  const host = text(raw['host'], 'host', problems, true);
  if (host !== undefined && /\s/.test(host)) problems.push(`host: must be a host name or address, got ${JSON.stringify(host)}`);
  const value: CliNodeSettings = {
    host: host ?? '',
    port: count(raw['port'], 'port', DEFAULTS.port, problems, 1, 65535),
    deviceType: text(raw['device-type'], 'device-type', problems, false),
    deviceVersion: text(raw['device-version'], 'device-version', problems, false),
    username: text(raw['username'], 'username', problems, true) ?? '',
    password: secretText(raw['password'], 'password', problems, true) ?? '',
    secret: secretText(raw['secret'], 'secret', problems, false),
    commandTimeout: count(raw['command-timeout'], 'command-timeout', DEFAULTS['command-timeout'], problems, 1, 86_400),
    connectionEstablishTimeout: count(raw['connection-establish-timeout'], 'connection-establish-timeout', DEFAULTS['connection-establish-timeout'], problems, 1, 86_400),
    keepaliveDelay: count(raw['keepalive-delay'], 'keepalive-delay', DEFAULTS['keepalive-delay'], problems, 0, 86_400),
    maxConnectionAttempts: count(raw['max-connection-attempts'], 'max-connection-attempts', DEFAULTS['max-connection-attempts'], problems, 0, 1_000_000),
    maxReconnectionAttempts: count(raw['max-reconnection-attempts'], 'max-reconnection-attempts', DEFAULTS['max-reconnection-attempts'], problems, 0, 1_000_000),
  };
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}

/** An integer given as a number or a numeric string (RFC 7951 sends 64-bit integers as strings). */
function count(v: JsonValue | undefined, name: string, fallback: number, problems: string[], min: number, max: number): number {
  if (v === undefined) return fallback;
  const n = typeof v === 'string' && /^\s*\d{1,10}\s*$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    problems.push(`${name}: must be an integer from ${min} to ${max}, got ${JSON.stringify(v).slice(0, 40)}`);
    return fallback;
  }
  return n;
}

function text(v: JsonValue | undefined, name: string, problems: string[], required: boolean): string | undefined {
  if (v === undefined) {
    if (required) problems.push(`${name}: required`);
    return undefined;
  }
  if (typeof v !== 'string' || v === '' || v.length > 1024) {
    problems.push(`${name}: must be a non-empty string of at most 1024 characters`);
    return undefined;
  }
  return v;
}

/** Like `text`, but the value never appears in a message; an empty password is allowed. */
function secretText(v: JsonValue | undefined, name: string, problems: string[], required: boolean): string | undefined {
  if (v === undefined) {
    if (required) problems.push(`${name}: required`);
    return undefined;
  }
  if (typeof v !== 'string' || v.length > 1024 || /[\r\n]/.test(v)) {
    problems.push(`${name}: must be a string of at most 1024 characters without line breaks`);
    return undefined;
  }
  return v;
}
