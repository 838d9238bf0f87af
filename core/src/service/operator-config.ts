/**
 * The configuration's sections for running the service rather than serving the API: `metrics` (the
 * Prometheus registry, and whether a scrape needs the API's credentials), `log` (the JSON log's least
 * level) and `database` (the PostgreSQL database the datastores live in; its URL is checked here for
 * shape, database/settings.ts reads the password). config.ts resolves the whole file with them.
 */
import * as path from 'node:path';
import { databaseUrlProblem } from '../database/settings';
import type { JsonValue } from '../hooks';
import { LOG_LEVELS, type LogLevel } from '../logging/json-logger';
import { authenticationRequired } from './auth-config';
import { ConfigError } from './config-error';
import { checkString, isObject } from './config-fields';

/** The `database` object (database/settings.ts reads the URL and the password). */
export interface DatabaseConfig {
  /** `postgresql://user[:password]@host[:port]/dbname`, as written. */
  readonly url: string;
  /** A file holding the password (its first line), absolute; used when the URL carries none. */
  readonly passwordFile: string | undefined;
  /** Entries from which a top-level list is also kept entry by entry, for jsonb-filter in the database. */
  readonly largeListEntries?: number;
  /** Milliseconds of each instance's read lease on the journals (database/read-lease.ts); 0: every read asks the database. */
  readonly readLeaseMs?: number;
}

/** The `metrics` object. */
export interface MetricsConfig {
  /** Whether the service keeps its Prometheus registry and serves `/metrics`. */
  readonly enabled: boolean;
  /** Whether `/metrics` asks for the credentials the RESTCONF API asks for (the `auth` object's users). */
  readonly auth: boolean;
}

/** The `log` object. */
export interface LogConfig {
  /** The least level written (`silent`: nothing). */
  readonly level: LogLevel;
}

export function checkMetrics(raw: unknown, auth: Readonly<Record<string, JsonValue>> | undefined): MetricsConfig {
  if (raw === undefined) return { enabled: true, auth: false };
  if (!isObject(raw)) throw new ConfigError('metrics', 'must be an object');
  for (const [k, v] of Object.entries(raw)) {
    if (k !== 'enabled' && k !== 'auth') throw new ConfigError(`metrics.${k}`, 'unknown field; known: enabled, auth');
    if (typeof v !== 'boolean') throw new ConfigError(`metrics.${k}`, `must be true or false, not ${JSON.stringify(v)}`);
  }
  // a scrape guarded by credentials nobody can check would be refused forever: say so at start-up
  if (raw['auth'] === true && !authenticationRequired(auth))
    throw new ConfigError('metrics.auth', 'asks for the API credentials on /metrics, but the configuration has no enabled auth object');
  return { enabled: raw['enabled'] !== false, auth: raw['auth'] === true };
}

export function checkLog(raw: unknown): LogConfig {
  if (raw === undefined) return { level: 'info' };
  if (!isObject(raw)) throw new ConfigError('log', 'must be an object');
  for (const [k, v] of Object.entries(raw)) {
    if (k !== 'level') throw new ConfigError(`log.${k}`, 'unknown field; known: level');
    if (!LOG_LEVELS.includes(v as LogLevel))
      throw new ConfigError('log.level', `must be one of ${LOG_LEVELS.join(', ')}, not ${JSON.stringify(v)}`);
  }
  return { level: (raw['level'] as LogLevel | undefined) ?? 'info' };
}

export function checkDatabase(raw: unknown, baseDir: string, overrideUrl: string | undefined): DatabaseConfig | undefined {
  if (raw === undefined && overrideUrl === undefined) return undefined;
  if (raw !== undefined && !isObject(raw)) throw new ConfigError('database', 'must be an object');
  const fields = (raw ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(fields))
    if (k !== 'url' && k !== 'passwordFile' && k !== 'largeListEntries' && k !== 'readLeaseMs')
      throw new ConfigError(`database.${k}`, 'unknown field; known: url, passwordFile, largeListEntries, readLeaseMs');
  const url = overrideUrl ?? fields['url'];
  const field = overrideUrl !== undefined ? '--database' : 'database.url';
  if (typeof url !== 'string' || url === '') throw new ConfigError(field, 'must be a postgresql:// URL');
  const problem = databaseUrlProblem(url);
  if (problem !== undefined) throw new ConfigError(field, problem);
  const passwordFile =
    fields['passwordFile'] === undefined ? undefined : path.resolve(baseDir, checkString(fields['passwordFile'], 'database.passwordFile'));
  const large = fields['largeListEntries'];
  if (large !== undefined && (typeof large !== 'number' || !Number.isInteger(large) || large < 1))
    throw new ConfigError('database.largeListEntries', `must be a whole number of entries, 1 or more, not ${JSON.stringify(large)}`);
  const lease = fields['readLeaseMs'];
  if (
    lease !== undefined &&
    (typeof lease !== 'number' || !Number.isInteger(lease) || lease < 0 || (lease > 0 && lease < 300) || lease > 60_000)
  )
    throw new ConfigError(
      'database.readLeaseMs',
      `must be 0 (no lease) or whole milliseconds from 300 to 60000, not ${JSON.stringify(lease)}`,
    );
  return {
    url,
    passwordFile,
    ...(large !== undefined ? { largeListEntries: large } : {}),
    ...(lease !== undefined ? { readLeaseMs: lease } : {}),
  };
}
