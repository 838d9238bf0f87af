/**
 * Reading the members of an install-node protocol container (`cli`, `netconf`: RFC 7951 JSON that a
 * southbound plugin checks itself) into typed values. Each reader returns the value, or pushes one
 * problem naming the member and the rule onto `problems` and returns the fallback, so a plugin reports
 * every bad member at once. Messages quote at most 40 characters of a bad value and never quote a secret.
 */
import { FaultError, unusableRequest, type JsonValue } from '@rosetta/core';

/**
 * A protocol container the plugin refuses (the problems, joined): the client's mistake, so the core
 * answers 400 `invalid-value`, not the 502 of a device that cannot be reached.
 */
export class NodeSettingsError extends FaultError {
  constructor(protocol: string, nodeId: string, problems: readonly string[]) {
    super(...unusableRequest(`${protocol} settings of ${nodeId}: ${problems.join('; ')}`));
    this.name = 'NodeSettingsError';
  }
}

/** Longest text member accepted (host names, user names, paths, secrets). */
export const MAX_SETTING_TEXT = 1024;

/**
 * An integer member from `min` to `max`, given as a number or a numeric string (RFC 7951 sends 64-bit
 * integers as strings); `fallback` when absent or bad.
 */
export function settingInteger(
  v: JsonValue | undefined,
  name: string,
  fallback: number,
  problems: string[],
  min: number,
  max: number,
): number {
  if (v === undefined) return fallback;
  // at most 10 digits: anything longer is out of range anyway, and Number() never sees a huge string
  const n = typeof v === 'string' && /^\s*\d{1,10}\s*$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    problems.push(`${name}: must be an integer from ${min} to ${max}, got ${JSON.stringify(v).slice(0, 40)}`);
    return fallback;
  }
  return n;
}

/** A non-empty string member of at most {@link MAX_SETTING_TEXT} characters; undefined when absent or bad. */
export function settingText(v: JsonValue | undefined, name: string, problems: string[], required: boolean): string | undefined {
  if (v === undefined) {
    if (required) problems.push(`${name}: required`);
    return undefined;
  }
  if (typeof v !== 'string' || v === '' || v.length > MAX_SETTING_TEXT) {
    problems.push(`${name}: must be a non-empty string of at most ${MAX_SETTING_TEXT} characters`);
    return undefined;
  }
  return v;
}

/**
 * A secret member (password, enable secret): like {@link settingText}, but its value never appears in a
 * message, an empty string is allowed, and line breaks are not (a CLI would take them as Enter).
 */
export function settingSecret(v: JsonValue | undefined, name: string, problems: string[], required: boolean): string | undefined {
  if (v === undefined) {
    if (required) problems.push(`${name}: required`);
    return undefined;
  }
  if (typeof v !== 'string' || v.length > MAX_SETTING_TEXT || /[\r\n]/.test(v)) {
    problems.push(`${name}: must be a string of at most ${MAX_SETTING_TEXT} characters without line breaks`);
    return undefined;
  }
  return v;
}

/** A boolean member; `fallback` when absent or bad. */
export function settingFlag(v: JsonValue | undefined, name: string, fallback: boolean, problems: string[]): boolean {
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') {
    problems.push(`${name}: must be true or false`);
    return fallback;
  }
  return v;
}

/** One problem per member of `raw` that `known` does not name. */
export function unknownSettings(raw: Readonly<Record<string, JsonValue>>, known: ReadonlySet<string>, problems: string[]): void {
  for (const k of Object.keys(raw)) if (!known.has(k)) problems.push(`${k}: unknown setting (known: ${[...known].join(', ')})`);
}
