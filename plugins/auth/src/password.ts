/**
 * scrypt password hashes as the configuration stores them: `scrypt$N$r$p$salt$key` (salt and key in
 * base64; `rosetta hash-password` makes them). Verification derives the key from the offered password
 * with the hash's own parameters and compares with crypto.timingSafeEqual, off the event loop
 * (crypto.scrypt runs in libuv's thread pool).
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** A parsed hash. */
export interface PasswordHash {
  readonly N: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly key: Buffer;
}

const FORMAT = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;
/** The most memory one verification may take; larger costs are refused when the hash is read. */
const MAX_MEMORY = 256 * 1024 * 1024;

/** Parses a stored hash; returns a reason string when it is unusable. */
export function parsePasswordHash(text: string): PasswordHash | string {
  const m = FORMAT.exec(text);
  if (!m) return 'not an scrypt hash "scrypt$N$r$p$salt$key"';
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (N < 1024 || (N & (N - 1)) !== 0) return `scrypt N must be a power of two of at least 1024, not ${N}`;
  if (r < 1 || r > 32 || p < 1 || p > 16) return `scrypt r must be 1..32 and p 1..16, not r=${r} p=${p}`;
  if (128 * N * r * p > MAX_MEMORY) return `scrypt cost N=${N} r=${r} p=${p} is too large`;
  const salt = Buffer.from(m[4]!, 'base64');
  const key = Buffer.from(m[5]!, 'base64');
  if (salt.length < 8) return 'scrypt salt must be at least 8 bytes';
  if (key.length < 16 || key.length > 64) return `scrypt key must be 16 to 64 bytes, not ${key.length}`;
  return { N, r, p, salt, key };
}

function derive(password: string, hash: PasswordHash): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFC'),
      hash.salt,
      hash.key.length,
      { N: hash.N, r: hash.r, p: hash.p, maxmem: MAX_MEMORY + 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

/** Whether `password` matches `hash`, compared in constant time. */
export async function verifyPassword(password: string, hash: PasswordHash): Promise<boolean> {
  const derived = await derive(password, hash);
  return derived.length === hash.key.length && timingSafeEqual(derived, hash.key);
}

/**
 * A hash no password matches, at the cost of `like` (a configured user's hash) or the default cost:
 * checked for unknown user names so that a wrong name takes as long as a wrong password and names
 * cannot be told apart by timing.
 */
export function decoyHash(like?: PasswordHash): PasswordHash {
  return { N: like?.N ?? 16384, r: like?.r ?? 8, p: like?.p ?? 1, salt: randomBytes(16), key: randomBytes(like?.key.length ?? 32) };
}
