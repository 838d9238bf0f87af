/**
 * The install-node `cli` container (docs/devices.md#cli-settings, module cli-topology) read into typed settings. Each bad
 * member is named with the reason, never with the value of `password` or `secret`. Timers are in seconds,
 * as in the cli-topology module; defaults follow what a UniConfig user expects. The member readers are
 * the SDK's (node-settings.ts), so every southbound reports bad members alike.
 */
import {
  settingHostKey,
  settingHostKeyVerification,
  settingInteger,
  settingSecret,
  settingText,
  unknownSettings,
  type HostKeyVerification,
  type JsonValue,
} from '@rosetta/sdk';

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
  /** The pinned SHA256 fingerprint of the device's SSH host key; undefined: `hostKeyVerification` decides. */
  readonly hostKey: string | undefined;
  /** What a login accepts when no host key is pinned. */
  readonly hostKeyVerification: HostKeyVerification;
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
  'host',
  'port',
  'transport-type',
  'device-type',
  'device-version',
  'username',
  'password',
  'secret',
  'host-key',
  'host-key-verification',
  ...Object.keys(DEFAULTS),
]);

/** Checks the container's members (module prefixes already removed by the core). */
export function readCliSettings(raw: Readonly<Record<string, JsonValue>>): SettingsCheck {
  const problems: string[] = [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { ok: false, problems: ['the cli container must be an object'] };
  unknownSettings(raw, KNOWN, problems);
  const transport = raw['transport-type'] ?? 'ssh';
  if (transport === 'telnet') problems.push('transport-type: telnet is not supported; install the device with transport-type ssh');
  else if (transport !== 'ssh') problems.push(`transport-type: must be ssh, got ${JSON.stringify(transport)}`);
  const host = settingText(raw['host'], 'host', problems, true);
  if (host !== undefined && /\s/.test(host)) problems.push(`host: must be a host name or address, got ${JSON.stringify(host)}`);
  const count = (name: keyof typeof DEFAULTS, min: number, max: number): number =>
    settingInteger(raw[name], name, DEFAULTS[name], problems, min, max);
  const value: CliNodeSettings = {
    host: host ?? '',
    port: count('port', 1, 65535),
    deviceType: settingText(raw['device-type'], 'device-type', problems, false),
    deviceVersion: settingText(raw['device-version'], 'device-version', problems, false),
    username: settingText(raw['username'], 'username', problems, true) ?? '',
    password: settingSecret(raw['password'], 'password', problems, true) ?? '',
    secret: settingSecret(raw['secret'], 'secret', problems, false),
    commandTimeout: count('command-timeout', 1, 86_400),
    connectionEstablishTimeout: count('connection-establish-timeout', 1, 86_400),
    keepaliveDelay: count('keepalive-delay', 0, 86_400),
    maxConnectionAttempts: count('max-connection-attempts', 0, 1_000_000),
    maxReconnectionAttempts: count('max-reconnection-attempts', 0, 1_000_000),
    hostKey: settingHostKey(raw['host-key'], 'host-key', problems),
    hostKeyVerification: settingHostKeyVerification(raw['host-key-verification'], 'host-key-verification', problems),
  };
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}
