/**
 * The users of the configuration's `auth` object, compiled for lookups: by name (Basic credentials) and
 * by certificate subject (TLS client authentication). The core checks the object's shape at start-up;
 * this reads it again defensively and reports a fault naming the field instead of guessing.
 *
 * Subjects compare as sets of `attribute=value` pairs, attribute names case-insensitive, so
 * `"CN=ops,O=Example"` in the file matches a certificate whose subject is `O=Example` then `CN=ops`
 * in either order. A comma inside a value is written `\,`.
 */
import type { JsonValue } from '@rosetta/sdk';
import { parsePasswordHash, type PasswordHash } from './password';

export type Role = 'read' | 'write';

export interface User {
  readonly name: string;
  readonly role: Role;
  readonly passwordHash: PasswordHash | undefined;
}

export interface AuthSettings {
  readonly users: ReadonlyMap<string, User>;
  /** Normalised subject -> user. */
  readonly bySubject: ReadonlyMap<string, User>;
  readonly failedAttemptDelayMs: number;
  readonly maxFailedAttemptDelayMs: number;
}

export const DEFAULT_FAILED_ATTEMPT_DELAY_MS = 500;
export const DEFAULT_MAX_FAILED_ATTEMPT_DELAY_MS = 8000;

/** A fault in the `auth` object, naming the field. */
export class AuthConfigError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field}: ${problem}`);
    this.name = 'AuthConfigError';
  }
}

function normalisePairs(pairs: readonly string[]): string | undefined {
  const out: string[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) return undefined;
    out.push(`${pair.slice(0, eq).trim().toUpperCase()}=${pair.slice(eq + 1).trim()}`);
  }
  return out.length === 0 ? undefined : out.sort().join('\n');
}

/** `CN=ops,O=Example` (commas in values escaped `\,`) in canonical form, or undefined when malformed. */
export function normaliseConfiguredSubject(subject: string): string | undefined {
  const pairs = subject.split(/(?<!\\),/).map((p) => p.replace(/\\,/g, ','));
  return normalisePairs(pairs);
}

/** A certificate subject as the core hands it (one `attribute=value` per line) in canonical form. */
export function normaliseCertificateSubject(subject: string): string | undefined {
  return normalisePairs(subject.split('\n').filter((l) => l !== ''));
}

function delay(raw: JsonValue | undefined, field: string, fallback: number): number {
  if (raw === undefined) return fallback;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0 || raw > 60_000)
    throw new AuthConfigError(field, 'must be an integer from 0 to 60000 (ms)');
  return raw;
}

/** Compiles the `auth` object; throws AuthConfigError naming the field. */
export function compileAuthSettings(config: Readonly<Record<string, JsonValue>>): AuthSettings {
  const list = config['users'];
  if (!Array.isArray(list)) throw new AuthConfigError('auth.users', 'must be an array');
  const users = new Map<string, User>();
  const bySubject = new Map<string, User>();
  list.forEach((raw, i) => {
    const at = `auth.users[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new AuthConfigError(at, 'must be an object');
    const name = raw['name'];
    const role = raw['role'];
    if (typeof name !== 'string' || name === '' || name.includes(':'))
      throw new AuthConfigError(`${at}.name`, 'must be a non-empty name without ":"');
    if (users.has(name)) throw new AuthConfigError(`${at}.name`, `user ${JSON.stringify(name)} is listed twice`);
    if (role !== 'read' && role !== 'write') throw new AuthConfigError(`${at}.role`, 'must be "read" or "write"');
    let passwordHash: PasswordHash | undefined;
    if (raw['passwordHash'] !== undefined) {
      const parsed = typeof raw['passwordHash'] === 'string' ? parsePasswordHash(raw['passwordHash']) : 'must be a string';
      if (typeof parsed === 'string') throw new AuthConfigError(`${at}.passwordHash`, parsed);
      passwordHash = parsed;
    }
    const user: User = { name, role, passwordHash };
    users.set(name, user);
    const subjects = raw['certificateSubjects'] ?? [];
    if (!Array.isArray(subjects)) throw new AuthConfigError(`${at}.certificateSubjects`, 'must be an array of subjects');
    subjects.forEach((s, j) => {
      const canonical = typeof s === 'string' ? normaliseConfiguredSubject(s) : undefined;
      if (canonical === undefined)
        throw new AuthConfigError(`${at}.certificateSubjects[${j}]`, 'must be a subject such as "CN=ops,O=Example"');
      if (bySubject.has(canonical))
        throw new AuthConfigError(`${at}.certificateSubjects[${j}]`, 'this subject is mapped to another user too');
      bySubject.set(canonical, user);
    });
  });
  const failedAttemptDelayMs = delay(config['failedAttemptDelayMs'], 'auth.failedAttemptDelayMs', DEFAULT_FAILED_ATTEMPT_DELAY_MS);
  const maxFailedAttemptDelayMs = delay(
    config['maxFailedAttemptDelayMs'],
    'auth.maxFailedAttemptDelayMs',
    Math.max(DEFAULT_MAX_FAILED_ATTEMPT_DELAY_MS, failedAttemptDelayMs),
  );
  if (maxFailedAttemptDelayMs < failedAttemptDelayMs)
    throw new AuthConfigError('auth.maxFailedAttemptDelayMs', 'must not be below failedAttemptDelayMs');
  return { users, bySubject, failedAttemptDelayMs, maxFailedAttemptDelayMs };
}
