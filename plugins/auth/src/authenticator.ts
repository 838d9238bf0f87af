/**
 * Deciding one request: who is it (Basic credentials, else a verified TLS client certificate whose
 * subject maps to a user), and may that user's role use the method (`read`: GET, HEAD, OPTIONS;
 * `write`: everything, RPCs included).
 *
 * Costs and timing: a password check is one scrypt derivation (tens of ms), done off the event loop and
 * compared in constant time; an unknown user name is checked against a decoy hash of a configured
 * user's cost, so it takes as long.
 * A successful check is remembered for a minute under an HMAC of the header (process-random key, bounded
 * entries), so a client sending the same credentials on every request pays scrypt once. Wrong
 * credentials are answered after the per-address failure delay.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { AuthenticateContext, AuthenticateVerdict } from '@rosetta/sdk';
import { FailureDelays } from './failure-delay';
import { decoyHash, verifyPassword, type PasswordHash } from './password';
import { normaliseCertificateSubject, type AuthSettings, type User } from './users';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const CHALLENGE = 'Basic realm="rosetta", charset="UTF-8"';
const CACHE_TTL_MS = 60_000;
const CACHE_CAPACITY = 1000;
/** Longer headers are not Basic credentials anyone uses; refuse before decoding. */
const MAX_CREDENTIALS_LENGTH = 4096;

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

/** `Basic base64(user:password)` -> the pair; undefined when the header is not that. */
export function parseBasic(header: string): { user: string; password: string } | undefined {
  const m = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export class Authenticator {
  readonly delays: FailureDelays;
  private readonly decoy: PasswordHash;
  private readonly cacheKey = randomBytes(32);
  private readonly verified = new Map<string, { user: User; expires: number }>();
  /** Per client address, the end of the chain of checks in progress: one address is checked one at a time. */
  private readonly checking = new Map<string, Promise<void>>();

  /**
   * `onFailure` hears of each failed attempt with the address's count of consecutive failures (the
   * plugin logs the first and then every power of two, so an attack shows without flooding the log).
   */
  constructor(
    private readonly settings: AuthSettings,
    private readonly onFailure: (address: string, failures: number) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {
    this.decoy = decoyHash([...settings.users.values()].find((u) => u.passwordHash)?.passwordHash);
    this.delays = new FailureDelays({ firstMs: settings.failedAttemptDelayMs, maxMs: settings.maxFailedAttemptDelayMs, now });
  }

  async authenticate(ctx: AuthenticateContext): Promise<AuthenticateVerdict> {
    let user: User | undefined;
    if (ctx.authorization !== undefined) {
      const outcome = await this.checkCredentials(ctx.authorization, ctx.remoteAddress);
      if (typeof outcome === 'string') return { allow: false, status: 401, message: outcome, challenge: CHALLENGE };
      user = outcome;
    } else if (ctx.clientCertificate !== undefined) {
      const canonical = normaliseCertificateSubject(ctx.clientCertificate.subject);
      user = canonical === undefined ? undefined : this.settings.bySubject.get(canonical);
      if (!user) {
        return {
          allow: false,
          status: 401,
          message: `the client certificate (${ctx.clientCertificate.subject.replace(/\n/g, ', ')}) is not mapped to a user; send Basic credentials`,
          challenge: CHALLENGE,
        };
      }
    } else {
      return { allow: false, status: 401, message: 'authentication required', challenge: CHALLENGE };
    }
    const method = ctx.method.toUpperCase();
    if (user.role !== 'write' && !READ_METHODS.has(method)) {
      return { allow: false, status: 403, message: `user ${user.name} has the read role: ${method} is not allowed` };
    }
    return { allow: true, user: user.name };
  }

  /** The user the credentials prove, or why they do not (after the failure delay). */
  private async checkCredentials(header: string, address: string): Promise<User | string> {
    const key = header.length <= MAX_CREDENTIALS_LENGTH ? createHmac('sha256', this.cacheKey).update(header).digest('base64') : undefined;
    const cached = key === undefined ? undefined : this.verified.get(key);
    if (cached && cached.expires > this.now()) return cached.user;
    if (cached) this.verified.delete(key!);

    // Attempts from one address are checked one after another, each after the delay the last failure set,
    // so parallel guesses cost as much time as sequential ones and at most one scrypt per address runs.
    const previous = this.checking.get(address) ?? Promise.resolve();
    let finished!: () => void;
    const turn = new Promise<void>((resolve) => {
      finished = resolve;
    });
    const mine = previous.then(() => turn);
    this.checking.set(address, mine);
    await previous;
    try {
      await sleep(this.delays.pendingMs(address));
      return await this.verify(header, key, address);
    } finally {
      finished();
      if (this.checking.get(address) === mine) this.checking.delete(address);
    }
  }

  private async verify(header: string, key: string | undefined, address: string): Promise<User | string> {
    const credentials = header.length <= MAX_CREDENTIALS_LENGTH ? parseBasic(header) : undefined;
    const user = credentials ? this.settings.users.get(credentials.user) : undefined;
    // Always one scrypt derivation, so that a malformed header, an unknown name and a wrong password
    // take the same time.
    const ok = await verifyPassword(credentials?.password ?? '', user?.passwordHash ?? this.decoy);
    if (!ok || !user?.passwordHash) {
      const delay = this.delays.recordFailure(address);
      this.onFailure(address, this.delays.failures(address));
      await sleep(delay);
      return credentials ? 'wrong user name or password' : 'the Authorization header is not Basic credentials';
    }
    this.delays.recordSuccess(address);
    this.verified.set(key!, { user, expires: this.now() + CACHE_TTL_MS });
    while (this.verified.size > CACHE_CAPACITY) this.verified.delete(this.verified.keys().next().value!);
    return user;
  }
}
