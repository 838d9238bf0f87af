/**
 * Deciding one request: who is it (Basic credentials, else a verified TLS client certificate whose
 * subject maps to a user), and may that user's role use the method (`read`: GET, HEAD, OPTIONS;
 * `write`: everything, RPCs included).
 *
 * Costs and timing: a password check is one scrypt derivation (tens of ms), done off the event loop and
 * compared in constant time; an unknown user name is checked against a decoy hash of a configured
 * user's cost, so it takes as long.
 * A successful check is remembered for a minute under an HMAC of the header (process-random key, bounded
 * entries), so a client sending the same credentials on every request pays scrypt once.
 *
 * Failed attempts and one address (a NAT holds many clients): attempts from an address are checked one
 * at a time, and none before the delay its last failure set has passed. An attempt waits for at most one
 * such delay, the one pending when its turn comes, and all attempts waiting for the same delay are then
 * checked one after another, a failure answered at once: so a valid login behind guessing neighbours
 * waits one delay, never the sum of theirs. A failure checked without waiting is answered after the delay
 * it sets. At most MAX_ATTEMPTS_PER_ADDRESS attempts of one address are waiting or being checked; more
 * are answered 429 with Retry-After at once, unchecked, so parallel guessing gains at most that many
 * tries per delay and queues nothing.
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
/** Attempts of one address waiting for its failure delay or being checked; more answer 429 at once. */
export const MAX_ATTEMPTS_PER_ADDRESS = 8;

/** The attempts of one address in progress: how many, and the end of the chain of their checks. */
interface AddressTurns {
  admitted: number;
  tail: Promise<void>;
}

/** What checking credentials came to: the user, a refusal after checking, or a refusal unchecked. */
type CheckOutcome = User | { readonly refused: string } | { readonly retryAfterMs: number };

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
  /** Per client address with attempts in progress (an entry lives only while it has some). */
  private readonly turns = new Map<string, AddressTurns>();

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
      if ('retryAfterMs' in outcome) {
        const seconds = Math.max(1, Math.ceil(outcome.retryAfterMs / 1000));
        return {
          allow: false,
          status: 429,
          message: `too many authentication attempts from ${ctx.remoteAddress} in progress: retry in ${seconds} s`,
          retryAfterSeconds: seconds,
        };
      }
      if ('refused' in outcome) return { allow: false, status: 401, message: outcome.refused, challenge: CHALLENGE };
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

  /** The user the credentials prove, or why they do not (see the top comment for the waits). */
  private async checkCredentials(header: string, address: string): Promise<CheckOutcome> {
    const key = header.length <= MAX_CREDENTIALS_LENGTH ? createHmac('sha256', this.cacheKey).update(header).digest('base64') : undefined;
    const cached = key === undefined ? undefined : this.verified.get(key);
    if (cached && cached.expires > this.now()) return cached.user;
    if (cached) this.verified.delete(key!);

    let turns = this.turns.get(address);
    if (turns === undefined) this.turns.set(address, (turns = { admitted: 0, tail: Promise.resolve() }));
    if (turns.admitted >= MAX_ATTEMPTS_PER_ADDRESS) {
      return { retryAfterMs: Math.max(this.delays.pendingMs(address), this.settings.failedAttemptDelayMs) };
    }
    turns.admitted++;
    let waited = false;
    let outcome: User | { refused: string; holdMs: number };
    try {
      for (;;) {
        const release = await this.nextTurn(turns);
        const pending = this.delays.pendingMs(address);
        if (pending > 0 && !waited) {
          // wait out the pending delay off the chain, so attempts waiting for the same delay wait together
          release();
          waited = true;
          await sleep(pending);
          continue;
        }
        try {
          outcome = await this.verify(header, key, address);
        } finally {
          release();
        }
        break;
      }
    } finally {
      if (--turns.admitted === 0 && this.turns.get(address) === turns) this.turns.delete(address);
    }
    if (!('refused' in outcome)) return outcome;
    if (!waited) await sleep(outcome.holdMs);
    return { refused: outcome.refused };
  }

  /** Waits for the address's checks queued before this one; resolves with the function that ends this turn. */
  private nextTurn(turns: AddressTurns): Promise<() => void> {
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = turns.tail;
    turns.tail = previous.then(() => mine);
    return previous.then(() => release);
  }

  private async verify(header: string, key: string | undefined, address: string): Promise<User | { refused: string; holdMs: number }> {
    const credentials = header.length <= MAX_CREDENTIALS_LENGTH ? parseBasic(header) : undefined;
    const user = credentials ? this.settings.users.get(credentials.user) : undefined;
    // Always one scrypt derivation, so that a malformed header, an unknown name and a wrong password
    // take the same time.
    const ok = await verifyPassword(credentials?.password ?? '', user?.passwordHash ?? this.decoy);
    if (!ok || !user?.passwordHash) {
      const holdMs = this.delays.recordFailure(address);
      this.onFailure(address, this.delays.failures(address));
      return { refused: credentials ? 'wrong user name or password' : 'the Authorization header is not Basic credentials', holdMs };
    }
    this.delays.recordSuccess(address);
    this.verified.set(key!, { user, expires: this.now() + CACHE_TTL_MS });
    while (this.verified.size > CACHE_CAPACITY) this.verified.delete(this.verified.keys().next().value!);
    return user;
  }
}
