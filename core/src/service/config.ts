/**
 * The service configuration file (docs/configuration.md#configuration-file): reading it, checking every field, and the defaults.
 * A malformed file or field stops start-up with a message naming the field; an unknown field is an
 * error too, so that a typo (`keyDelimeter`) is not silently ignored.
 *
 * Choices, written down:
 * - `host` defaults to 127.0.0.1: a fresh install listens on loopback only; serving the network is
 *   a decision made in the file (`"host": "0.0.0.0"`).
 * - `bodyLimit` (bytes, default 64 MB) is the largest request body; past it the answer is 413.
 * - `defaultContent` is what GET reads when `content` is absent (`all`, RFC 8040's default).
 * - `secretsKeyFile`: the file's setting wins over ROSETTA_SECRETS_KEY_FILE, so what the file says is what
 *   runs; the variable serves deployments that keep the key out of the file's reach (a mounted secret).
 * - `fleet` bounds the work done on many devices at once: `installConcurrency` (default 32) is how many
 *   nodes a bulk install or uninstall (mount/bulk.ts) works on at the same time; `connectConcurrency`
 *   (default 8) how many reconnection attempts run at once across the service (mount/connect-pacing.ts);
 *   `commitConcurrency` (default 32) how many devices a uniconfig commit (uniconfig/commit.ts) pushes to,
 *   and its per-node operations (sync-from-network, calculate-diff, is-in-sync, dry run) work on, at once.
 * - `events` bounds the event streams (events/hub.ts): `replayMaxEvents` (default 100000) and
 *   `replayMaxAgeSeconds` (default 86400) and `replayMaxBytes` (default 1 GiB) the replay log, `subscriberBufferEvents` (default 1000) how far
 *   a subscriber may fall behind before it is ended, `keepAliveSeconds` (default 15) the SSE keep-alive,
 *   `deliveryIntervalMs` (default 10) the shortest time between two fan-outs of events to subscribers.
 * - `metrics.enabled` (default true) switches the Prometheus metrics (metrics/): off, the service keeps no
 *   registry, counts nothing per request and serves no `/metrics`, for measuring what they cost.
 *   `metrics.auth` (default false) makes a scrape pass the API's authentication; it needs an enabled `auth`.
 * - `log.level` (default `info`; `silent` writes nothing) is the least level the service's JSON log
 *   (logging/json-logger.ts) writes.
 * - `database.url` (or `--database URL`) keeps the datastores in a PostgreSQL database shared by several
 *   instances (database/) instead of the data folder's journal; the password comes from the URL, else
 *   `database.passwordFile`, else the PGPASSWORD variable, and no message ever prints it.
 * - `tls` and `auth` are checked for shape here (auth in auth-config.ts) so a mistake names its field
 *   even when the plugin that reads it is off; `tls` store paths are resolved like every path. What
 *   needs the plugin's knowledge (stores, passwords, cipher suites) the TLS plugin checks at start-up.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KEY_FILE } from '../datastore/secrets';
import { DEFAULT_CONNECT_CONCURRENCY } from '../mount/connect-pacing';
import type { JsonValue } from '../hooks';
import { DEFAULT_EVENT_SETTINGS, type EventSettings } from '../events';
import { checkAuthConfig } from './auth-config';
import { ConfigError } from './config-error';
import { checkString, isObject } from './config-fields';
import { checkDatabase, checkLog, checkMetrics, type DatabaseConfig, type LogConfig, type MetricsConfig } from './operator-config';

export { ConfigError } from './config-error';
export type { DatabaseConfig, LogConfig, MetricsConfig } from './operator-config';

/** The configuration in force, every field resolved (paths absolute). */
export interface ServiceConfig {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /**
   * The key file that seals stored secrets (datastore/secrets.ts): the file's `secretsKeyFile`, else the
   * environment's ROSETTA_SECRETS_KEY_FILE, else `<dataDir>/device-secrets.key`.
   */
  readonly secretsKeyFile: string;
  readonly yangDirs: readonly string[];
  /** Key delimiter as written in URIs (`%22`), or null when disabled. */
  readonly keyDelimiter: string | null;
  readonly bodyLimit: number;
  readonly defaultContent: 'all' | 'config';
  /** plugins.json; undefined runs without plugins. */
  readonly pluginsFile: string | undefined;
  readonly tls: Readonly<Record<string, JsonValue>> | undefined;
  /** The `auth` object, shape checked (service/auth-config.ts); the authentication plugin reads it. */
  readonly auth: Readonly<Record<string, JsonValue>> | undefined;
  /** The `schemaFilters` object, checked (extension strings `<prefix>:<name> [value]`); the schema-filters plugin reads it. */
  readonly schemaFilters: Readonly<Record<string, JsonValue>> | undefined;
  /** The `callbacks` object (`timeoutMs`, `maxResponseBytes`), checked; the callbacks plugin reads it. */
  readonly callbacks: Readonly<Record<string, JsonValue>> | undefined;
  /** How much is done on many devices at once, defaults filled in. */
  readonly fleet: FleetConfig;
  /** The event streams' replay log and subscriber bounds, defaults filled in (events/hub.ts). */
  readonly events: EventSettings;
  /** The `metrics` object, default filled in. */
  readonly metrics: MetricsConfig;
  /** The service's log (logging/json-logger.ts), defaults filled in. */
  readonly log: LogConfig;
  /** The shared PostgreSQL database the datastores live in, or undefined for the embedded journal. */
  readonly database: DatabaseConfig | undefined;
}

/** The `fleet` object: bounds on concurrent work across nodes. */
export interface FleetConfig {
  /** Nodes a bulk install or uninstall works on at once. */
  readonly installConcurrency: number;
  /** Reconnection attempts (restored nodes, sessions lost) in flight at once across the service. */
  readonly connectConcurrency: number;
  /** Devices a uniconfig commit pushes to (rolls back, reads back) and its per-node operations ask at once. */
  readonly commitConcurrency: number;
}

export const DEFAULT_PORT = 8181;
/** The environment variable naming the secrets key file when the configuration file names none. */
export const SECRETS_KEY_FILE_ENV = 'ROSETTA_SECRETS_KEY_FILE';
export const DEFAULT_BODY_LIMIT = 64 * 1024 * 1024;

const TLS_FIELDS: Record<string, 'boolean' | 'string' | 'string[]'> = {
  enabledTls: 'boolean',
  enabledClientAuthentication: 'boolean',
  keystorePath: 'string',
  keystorePassword: 'string',
  truststorePath: 'string',
  truststorePassword: 'string',
  includedProtocols: 'string[]',
  excludedProtocols: 'string[]',
  includedCipherSuites: 'string[]',
  excludedCipherSuites: 'string[]',
};
const SCHEMA_FILTER_FIELDS: Record<string, 'boolean' | 'string[]'> = {
  ignoredDataOnWriteByExtensions: 'string[]',
  hiddenDataOnReadByExtensions: 'string[]',
  ignoreUnsupportedDefinitionsOnWrite: 'boolean',
  hideDeprecatedDefinitionsOnRead: 'boolean',
};
/** An extension as the schema filters name it: `<defining module's prefix>:<extension> [argument]`. */
const FILTER_EXTENSION = /^[A-Za-z_][A-Za-z0-9_.-]*:[A-Za-z_][A-Za-z0-9_.-]*(?: [^\s,]+)?$/;
const CALLBACK_FIELDS: Record<string, { min: number; max: number }> = {
  timeoutMs: { min: 1, max: 600_000 },
  maxResponseBytes: { min: 1, max: 1024 * 1024 * 1024 },
};

function checkSchemaFilters(raw: unknown): Record<string, JsonValue> {
  const filters = checkFields(raw, 'schemaFilters', SCHEMA_FILTER_FIELDS);
  for (const field of ['ignoredDataOnWriteByExtensions', 'hiddenDataOnReadByExtensions']) {
    const list = (filters[field] ?? []) as string[];
    list.forEach((s, i) => {
      if (!FILTER_EXTENSION.test(s))
        throw new ConfigError(
          `schemaFilters.${field}[${i}]`,
          `${JSON.stringify(s)} is not '<prefix>:<extension>' or '<prefix>:<extension> <argument>' (e.g. "rext:hidden full")`,
        );
    });
  }
  return filters;
}

function checkCallbacks(raw: unknown): Record<string, JsonValue> {
  if (!isObject(raw)) throw new ConfigError('callbacks', 'must be an object');
  for (const [k, v] of Object.entries(raw)) {
    const range = CALLBACK_FIELDS[k];
    if (range === undefined) throw new ConfigError(`callbacks.${k}`, `unknown field; known: ${Object.keys(CALLBACK_FIELDS).join(', ')}`);
    if (typeof v !== 'number' || !Number.isInteger(v) || v < range.min || v > range.max) {
      throw new ConfigError(`callbacks.${k}`, `must be an integer from ${range.min} to ${range.max}, not ${JSON.stringify(v)}`);
    }
  }
  return raw as Record<string, JsonValue>;
}

const FLEET_FIELDS: Record<keyof FleetConfig, { min: number; max: number; default: number }> = {
  installConcurrency: { min: 1, max: 4096, default: 32 },
  connectConcurrency: { min: 1, max: 4096, default: DEFAULT_CONNECT_CONCURRENCY },
  commitConcurrency: { min: 1, max: 4096, default: 32 },
};

function checkFleet(raw: unknown): FleetConfig {
  const fleet: Record<string, number> = {};
  for (const [k, spec] of Object.entries(FLEET_FIELDS)) fleet[k] = spec.default;
  if (raw === undefined) return fleet as unknown as FleetConfig;
  if (!isObject(raw)) throw new ConfigError('fleet', 'must be an object');
  for (const [k, v] of Object.entries(raw)) {
    const range = FLEET_FIELDS[k as keyof FleetConfig];
    if (range === undefined) throw new ConfigError(`fleet.${k}`, `unknown field; known: ${Object.keys(FLEET_FIELDS).join(', ')}`);
    if (typeof v !== 'number' || !Number.isInteger(v) || v < range.min || v > range.max)
      throw new ConfigError(`fleet.${k}`, `must be an integer from ${range.min} to ${range.max}, not ${JSON.stringify(v)}`);
    fleet[k] = v;
  }
  return fleet as unknown as FleetConfig;
}

const EVENTS_FIELDS: Record<keyof EventSettings, { min: number; max: number }> = {
  replayMaxEvents: { min: 1, max: 100_000_000 },
  replayMaxAgeSeconds: { min: 1, max: 10 * 365 * 86_400 },
  replayMaxBytes: { min: 1024 * 1024, max: 2 ** 50 },
  subscriberBufferEvents: { min: 1, max: 1_000_000 },
  keepAliveSeconds: { min: 1, max: 3600 },
  deliveryIntervalMs: { min: 0, max: 1000 },
};

function checkEvents(raw: unknown): EventSettings {
  const events: Record<string, number> = { ...DEFAULT_EVENT_SETTINGS };
  if (raw === undefined) return events as unknown as EventSettings;
  if (!isObject(raw)) throw new ConfigError('events', 'must be an object');
  for (const [k, v] of Object.entries(raw)) {
    const range = EVENTS_FIELDS[k as keyof EventSettings];
    if (range === undefined) throw new ConfigError(`events.${k}`, `unknown field; known: ${Object.keys(EVENTS_FIELDS).join(', ')}`);
    if (typeof v !== 'number' || !Number.isInteger(v) || v < range.min || v > range.max)
      throw new ConfigError(`events.${k}`, `must be an integer from ${range.min} to ${range.max}, not ${JSON.stringify(v)}`);
    events[k] = v;
  }
  return events as unknown as EventSettings;
}

const KNOWN = [
  'port',
  'host',
  'dataDir',
  'secretsKeyFile',
  'yangDirs',
  'keyDelimiter',
  'bodyLimit',
  'defaultContent',
  'plugins',
  'tls',
  'auth',
  'schemaFilters',
  'callbacks',
  'fleet',
  'events',
  'metrics',
  'log',
  'database',
];

function checkPort(v: unknown, field: string): number {
  if (typeof v === 'string' && /^\d+$/.test(v)) v = Number(v);
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 65535)
    throw new ConfigError(field, `must be an integer from 0 to 65535, not ${JSON.stringify(v)}`);
  return v;
}

function checkFields(obj: unknown, field: string, spec: Record<string, 'boolean' | 'string' | 'string[]'>): Record<string, JsonValue> {
  if (!isObject(obj)) throw new ConfigError(field, 'must be an object');
  for (const [k, v] of Object.entries(obj)) {
    const kind = spec[k];
    if (kind === undefined) throw new ConfigError(`${field}.${k}`, `unknown field; known: ${Object.keys(spec).join(', ')}`);
    const ok = kind === 'string[]' ? Array.isArray(v) && v.every((s) => typeof s === 'string') : typeof v === kind;
    if (!ok) throw new ConfigError(`${field}.${k}`, `must be ${kind === 'string[]' ? 'an array of strings' : `a ${kind}`}`);
  }
  return obj as Record<string, JsonValue>;
}

/** What the command line may override. */
export interface ConfigOverrides {
  readonly port?: number;
  readonly dataDir?: string;
  /** Appended to the file's `yangDirs`. */
  readonly yangDirs?: readonly string[];
  readonly pluginsFile?: string;
  /** `--database URL`: over the file's `database.url`. */
  readonly databaseUrl?: string;
}

/**
 * Checks a parsed configuration object and resolves it. Relative paths in the file are relative to
 * `baseDir` (the file's folder); overrides are relative to the working directory. Throws ConfigError.
 */
export function resolveConfig(
  raw: unknown,
  baseDir: string,
  overrides: ConfigOverrides = {},
  cwd = process.cwd(),
  env: Readonly<Record<string, string | undefined>> = process.env,
): ServiceConfig {
  if (!isObject(raw)) throw new ConfigError('(root)', 'the configuration must be a JSON object');
  for (const k of Object.keys(raw)) if (!KNOWN.includes(k)) throw new ConfigError(k, `unknown field; known: ${KNOWN.join(', ')}`);
  const port = overrides.port ?? (raw['port'] === undefined ? DEFAULT_PORT : checkPort(raw['port'], 'port'));
  const host = raw['host'] === undefined ? '127.0.0.1' : checkString(raw['host'], 'host');
  const dataDir =
    overrides.dataDir !== undefined
      ? path.resolve(cwd, overrides.dataDir)
      : path.resolve(baseDir, raw['dataDir'] === undefined ? 'data' : checkString(raw['dataDir'], 'dataDir'));
  const fromEnv = env[SECRETS_KEY_FILE_ENV];
  const secretsKeyFile =
    raw['secretsKeyFile'] !== undefined
      ? path.resolve(baseDir, checkString(raw['secretsKeyFile'], 'secretsKeyFile'))
      : fromEnv !== undefined && fromEnv !== ''
        ? path.resolve(cwd, fromEnv)
        : path.join(dataDir, KEY_FILE);
  let yangDirs: string[] = [];
  if (raw['yangDirs'] !== undefined) {
    const list = raw['yangDirs'];
    if (!Array.isArray(list)) throw new ConfigError('yangDirs', 'must be an array of folder paths');
    yangDirs = list.map((d, i) => path.resolve(baseDir, checkString(d, `yangDirs[${i}]`)));
  }
  yangDirs.push(...(overrides.yangDirs ?? []).map((d) => path.resolve(cwd, d)));
  let keyDelimiter: string | null = '%22';
  if (raw['keyDelimiter'] !== undefined) {
    const kd = raw['keyDelimiter'];
    if (kd !== null && (typeof kd !== 'string' || kd === '' || /[/,=?#]/.test(kd))) {
      throw new ConfigError('keyDelimiter', 'must be a non-empty string without / , = ? # (e.g. "%22"), or null to disable it');
    }
    keyDelimiter = kd;
  }
  let bodyLimit = DEFAULT_BODY_LIMIT;
  if (raw['bodyLimit'] !== undefined) {
    const b = raw['bodyLimit'];
    if (typeof b !== 'number' || !Number.isInteger(b) || b < 1) throw new ConfigError('bodyLimit', 'must be a positive integer (bytes)');
    bodyLimit = b;
  }
  let defaultContent: 'all' | 'config' = 'all';
  if (raw['defaultContent'] !== undefined) {
    if (raw['defaultContent'] !== 'all' && raw['defaultContent'] !== 'config')
      throw new ConfigError('defaultContent', 'must be "all" or "config"');
    defaultContent = raw['defaultContent'];
  }
  let pluginsFile: string | undefined;
  if (overrides.pluginsFile !== undefined) pluginsFile = path.resolve(cwd, overrides.pluginsFile);
  else if (raw['plugins'] !== undefined) pluginsFile = path.resolve(baseDir, checkString(raw['plugins'], 'plugins'));
  let tls = raw['tls'] === undefined ? undefined : checkFields(raw['tls'], 'tls', TLS_FIELDS);
  // store paths, like every path in the file, are relative to the file's folder
  for (const k of ['keystorePath', 'truststorePath']) {
    const store = tls?.[k];
    if (typeof store === 'string') tls = { ...tls, [k]: path.resolve(baseDir, checkString(store, `tls.${k}`)) };
  }
  if (tls?.['enabledClientAuthentication'] === true && tls['enabledTls'] !== true) {
    throw new ConfigError('tls.enabledClientAuthentication', 'client authentication needs tls.enabledTls: true');
  }
  const auth = raw['auth'] === undefined ? undefined : checkAuthConfig(raw['auth']);
  const schemaFilters = raw['schemaFilters'] === undefined ? undefined : checkSchemaFilters(raw['schemaFilters']);
  const callbacks = raw['callbacks'] === undefined ? undefined : checkCallbacks(raw['callbacks']);
  const fleet = checkFleet(raw['fleet']);
  const events = checkEvents(raw['events']);
  const metrics = checkMetrics(raw['metrics'], auth);
  const log = checkLog(raw['log']);
  const database = checkDatabase(raw['database'], baseDir, overrides.databaseUrl);
  return {
    port,
    host,
    dataDir,
    secretsKeyFile,
    yangDirs,
    keyDelimiter,
    bodyLimit,
    defaultContent,
    pluginsFile,
    tls,
    auth,
    schemaFilters,
    callbacks,
    fleet,
    events,
    metrics,
    log,
    database,
  };
}

/** Reads and resolves a configuration file; undefined `file` gives the defaults. Throws ConfigError. */
export function loadConfig(file: string | undefined, overrides: ConfigOverrides = {}, cwd = process.cwd()): ServiceConfig {
  if (file === undefined) return resolveConfig({}, cwd, overrides, cwd);
  const abs = path.resolve(cwd, file);
  let text: string;
  try {
    text = fs.readFileSync(abs, 'utf8');
  } catch (e) {
    throw new ConfigError('--config', `cannot read ${abs}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ConfigError('(root)', `${abs} is not valid JSON: ${(e as Error).message}`);
  }
  return resolveConfig(raw, path.dirname(abs), overrides, cwd);
}
