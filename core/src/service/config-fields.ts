/**
 * The checks every section of the configuration file shares (config.ts, auth-config.ts,
 * operator-config.ts): a message names the field at fault (ConfigError).
 */
import { ConfigError } from './config-error';

/** Whether `v` is a JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `v` when it is a non-empty string; else a ConfigError naming `field`. */
export function checkString(v: unknown, field: string): string {
  if (typeof v !== 'string' || v === '') throw new ConfigError(field, `must be a non-empty string, not ${JSON.stringify(v)}`);
  return v;
}
