/**
 * The install-node `netconf` container (docs/devices.md#netconf-settings) read into typed settings. Each bad member is named
 * with the reason; defaults follow OpenDaylight's netconf-node-topology where it has the same setting.
 * Units: the `*-timeout` settings are milliseconds; `keepalive-delay` is seconds (as in OpenDaylight).
 * The member readers are the SDK's (node-settings.ts), so every southbound reports bad members alike.
 */
import {
  settingFlag,
  settingHostKey,
  settingHostKeyVerification,
  settingInteger,
  settingSecret,
  settingText,
  unknownSettings,
  type HostKeyVerification,
  type JsonValue,
} from '@rosetta/sdk';

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
  /** The pinned SHA256 fingerprint of the device's SSH host key; undefined: `hostKeyVerification` decides. */
  readonly hostKey: string | undefined;
  /** What a login accepts when no host key is pinned. */
  readonly hostKeyVerification: HostKeyVerification;
}

export type SettingsCheck = { ok: true; value: NetconfNodeSettings } | { ok: false; problems: string[] };

/** The integer members' defaults (ms for the timeouts, s for keepalive-delay). */
const COUNT_DEFAULTS = {
  'initial-connection-timeout': 20_000,
  'request-transaction-timeout': 60_000,
  'max-connection-attempts': 1,
  'max-reconnection-attempts': 0,
  'between-attempts-timeout': 2_000,
  'keepalive-delay': 120,
};

const KNOWN = new Set([
  'host',
  'port',
  'username',
  'password',
  'tcp-only',
  'schema-cache-directory',
  'notification-stream',
  'host-key',
  'host-key-verification',
  ...Object.keys(COUNT_DEFAULTS),
]);

/** Checks the container's members (module prefixes already removed by the core). */
export function readNodeSettings(raw: Readonly<Record<string, JsonValue>>): SettingsCheck {
  const problems: string[] = [];
  unknownSettings(raw, KNOWN, problems);
  const count = (name: keyof typeof COUNT_DEFAULTS, min = 0): number =>
    settingInteger(raw[name], name, COUNT_DEFAULTS[name], problems, min, 2 ** 31);
  const value: NetconfNodeSettings = {
    host: settingText(raw['host'], 'host', problems, true) ?? '',
    port: settingInteger(raw['port'], 'port', 830, problems, 1, 65535),
    username: settingText(raw['username'], 'username', problems, true) ?? '',
    password: settingSecret(raw['password'], 'password', problems, true) ?? '',
    tcpOnly: settingFlag(raw['tcp-only'], 'tcp-only', false, problems),
    initialConnectionTimeout: count('initial-connection-timeout', 1),
    requestTransactionTimeout: count('request-transaction-timeout', 1),
    maxConnectionAttempts: count('max-connection-attempts'),
    maxReconnectionAttempts: count('max-reconnection-attempts'),
    betweenAttemptsTimeout: count('between-attempts-timeout'),
    keepaliveDelay: count('keepalive-delay'),
    schemaCacheDirectory: settingText(raw['schema-cache-directory'], 'schema-cache-directory', problems, false),
    notificationStream: settingText(raw['notification-stream'], 'notification-stream', problems, false),
    hostKey: settingHostKey(raw['host-key'], 'host-key', problems),
    hostKeyVerification: settingHostKeyVerification(raw['host-key-verification'], 'host-key-verification', problems),
  };
  if (value.tcpOnly && value.hostKey !== undefined) problems.push('host-key: a plain TCP session (tcp-only) has no SSH host key to pin');
  if (value.tcpOnly && value.hostKeyVerification === 'trust-on-first-use')
    problems.push('host-key-verification: a plain TCP session (tcp-only) has no SSH host key to trust');
  return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
}
