/**
 * The `auth` object of the service configuration (docs/configuration.md#auth): its shape, checked at start-up so that a
 * mistake stops the service naming the field, whether or not the authentication plugin is loaded. The
 * plugin that taps `server.authenticate` gives it meaning; the core only hands it over.
 *
 * ```json
 * "auth": {
 *   "enabled": true,
 *   "users": [
 *     { "name": "admin", "role": "write", "passwordHash": "scrypt$16384$8$1$<salt>$<key>" },
 *     { "name": "monitor", "role": "read", "certificateSubjects": ["CN=monitor,O=Example"] }
 *   ],
 *   "failedAttemptDelayMs": 500, "maxFailedAttemptDelayMs": 8000
 * }
 * ```
 * Passwords are stored only as scrypt hashes (`rosetta hash-password` makes one); a `password` field is
 * refused so that a clear password never sits in the file. The scrypt cost is bounded so a hash cannot
 * make every request spend seconds or gigabytes.
 */
import type { JsonValue } from '../hooks';
import { ConfigError } from './config-error';
import { isObject } from './config-fields';

/** `scrypt$N$r$p$salt$key`, salt and key in base64. */
export const SCRYPT_HASH = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;
/** Largest scrypt memory a hash may ask for per verification (128·N·r·p bytes). */
export const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;
const MAX_DELAY_MS = 60_000;
const USER_NAME = /^[^:\s][^:]{0,127}$/;
const FIELDS = ['enabled', 'users', 'failedAttemptDelayMs', 'maxFailedAttemptDelayMs'];
const USER_FIELDS = ['name', 'role', 'passwordHash', 'certificateSubjects'];

/** Why an scrypt hash string is unusable, or undefined when it is fine. */
export function scryptHashProblem(hash: string): string | undefined {
  const m = SCRYPT_HASH.exec(hash);
  if (!m) return 'must be an scrypt hash "scrypt$N$r$p$salt$key" (make one with `rosetta hash-password`)';
  const [n, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (n < 1024 || (n & (n - 1)) !== 0) return `scrypt N must be a power of two of at least 1024, not ${n}`;
  if (r < 1 || r > 32 || p < 1 || p > 16) return `scrypt r must be 1..32 and p 1..16, not r=${r} p=${p}`;
  if (128 * n * r * p > MAX_SCRYPT_MEMORY)
    return `scrypt cost N=${n} r=${r} p=${p} needs more than ${MAX_SCRYPT_MEMORY / 1024 / 1024} MB per check`;
  if (Buffer.from(m[4]!, 'base64').length < 8) return 'scrypt salt must be at least 8 bytes';
  const keyLength = Buffer.from(m[5]!, 'base64').length;
  if (keyLength < 16 || keyLength > 64) return `scrypt key must be 16 to 64 bytes, not ${keyLength}`;
  return undefined;
}

function checkDelay(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > MAX_DELAY_MS) {
    throw new ConfigError(field, `must be an integer number of milliseconds from 0 to ${MAX_DELAY_MS}, not ${JSON.stringify(v)}`);
  }
  return v;
}

function checkUser(raw: unknown, at: string, names: Set<string>, subjects: Set<string>): void {
  if (!isObject(raw)) throw new ConfigError(at, 'must be an object { name, role, passwordHash?, certificateSubjects? }');
  for (const k of Object.keys(raw)) {
    if (k === 'password')
      throw new ConfigError(
        `${at}.password`,
        'passwords are never stored in clear: give passwordHash (make one with `rosetta hash-password`)',
      );
    if (!USER_FIELDS.includes(k)) throw new ConfigError(`${at}.${k}`, `unknown field; known: ${USER_FIELDS.join(', ')}`);
  }
  const name = raw['name'];
  if (typeof name !== 'string' || !USER_NAME.test(name))
    throw new ConfigError(
      `${at}.name`,
      `must be a user name (1-128 characters, no ':', not starting with a space), not ${JSON.stringify(name)}`,
    );
  if (names.has(name)) throw new ConfigError(`${at}.name`, `user ${JSON.stringify(name)} is listed twice`);
  names.add(name);
  if (raw['role'] !== 'read' && raw['role'] !== 'write')
    throw new ConfigError(`${at}.role`, `must be "read" or "write", not ${JSON.stringify(raw['role'])}`);
  const hash = raw['passwordHash'];
  if (hash !== undefined) {
    const problem = typeof hash === 'string' ? scryptHashProblem(hash) : 'must be a string';
    if (problem) throw new ConfigError(`${at}.passwordHash`, problem);
  }
  const subjectList = raw['certificateSubjects'];
  if (subjectList !== undefined) {
    if (!Array.isArray(subjectList) || subjectList.length === 0)
      throw new ConfigError(`${at}.certificateSubjects`, 'must be a non-empty array of subjects such as "CN=ops,O=Example"');
    subjectList.forEach((s: unknown, i: number) => {
      const field = `${at}.certificateSubjects[${i}]`;
      if (typeof s !== 'string' || !/^\s*[A-Za-z][A-Za-z0-9.]*\s*=/.test(s) || s.length > 1024)
        throw new ConfigError(field, `must be a subject such as "CN=ops,O=Example", not ${JSON.stringify(s)}`);
      if (subjects.has(s)) throw new ConfigError(field, `subject ${JSON.stringify(s)} is mapped to two users`);
      subjects.add(s);
    });
  }
  if (hash === undefined && subjectList === undefined)
    throw new ConfigError(at, 'a user needs a passwordHash, certificateSubjects, or both');
}

/**
 * Checks the `auth` object's shape; returns it unchanged (the plugin reads it), or throws a ConfigError
 * naming the field.
 */
export function checkAuthConfig(raw: unknown): Readonly<Record<string, JsonValue>> {
  if (!isObject(raw)) throw new ConfigError('auth', 'must be an object { enabled, users, failedAttemptDelayMs, maxFailedAttemptDelayMs }');
  for (const k of Object.keys(raw))
    if (!FIELDS.includes(k)) throw new ConfigError(`auth.${k}`, `unknown field; known: ${FIELDS.join(', ')}`);
  if (raw['enabled'] !== undefined && typeof raw['enabled'] !== 'boolean') throw new ConfigError('auth.enabled', 'must be true or false');
  const users = raw['users'];
  if (!Array.isArray(users))
    throw new ConfigError('auth.users', 'must be an array of users { name, role, passwordHash?, certificateSubjects? }');
  if (users.length === 0 && raw['enabled'] !== false)
    throw new ConfigError('auth.users', 'must list at least one user while authentication is enabled');
  const names = new Set<string>();
  const subjects = new Set<string>();
  for (let i = 0; i < users.length; i++) checkUser(users[i], `auth.users[${i}]`, names, subjects);
  const first =
    raw['failedAttemptDelayMs'] === undefined ? undefined : checkDelay(raw['failedAttemptDelayMs'], 'auth.failedAttemptDelayMs');
  const max =
    raw['maxFailedAttemptDelayMs'] === undefined ? undefined : checkDelay(raw['maxFailedAttemptDelayMs'], 'auth.maxFailedAttemptDelayMs');
  if (first !== undefined && max !== undefined && max < first)
    throw new ConfigError('auth.maxFailedAttemptDelayMs', `must not be below failedAttemptDelayMs (${first})`);
  return raw as Record<string, JsonValue>;
}

/** Whether the configuration asks for authentication (an `auth` object not switched off). */
export function authenticationRequired(auth: Readonly<Record<string, JsonValue>> | undefined): boolean {
  return auth !== undefined && auth['enabled'] !== false;
}
