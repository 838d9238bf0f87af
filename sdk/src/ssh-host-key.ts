/**
 * SSH host keys of southbound devices: the SHA256 fingerprint of a key as OpenSSH prints it
 * (`ssh-keygen -lf`, `SHA256:` and unpadded base64), and the check a session makes at login: with a
 * pinned fingerprint (install-node `host-key`) only that key is accepted. Without one, the node's
 * `host-key-verification` decides: `accept-any` (the default, as OpenDaylight's connectors do) accepts
 * every key; `trust-on-first-use` accepts the key of the first login and only that key afterwards (as
 * OpenSSH's known_hosts does; the core stores it as the node's host-key, so it holds across restarts).
 * Either way the key the device presented is remembered so that the node's status can show it.
 */
import { createHash } from 'node:crypto';
import type { JsonValue } from '@rosetta/core';

/** A fingerprint as `ssh-keygen -lf` prints it. */
export const HOST_KEY_FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}$/;

/** The fingerprint of a host key blob (what ssh2 hands a host verifier). */
export function hostKeyFingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

/** The install-node `host-key` member: a fingerprint, or undefined when absent or bad (a problem is pushed). */
export function settingHostKey(v: JsonValue | undefined, name: string, problems: string[]): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !HOST_KEY_FINGERPRINT.test(v)) {
    problems.push(
      `${name}: must be a SHA256 host key fingerprint as ssh-keygen -lf prints it (SHA256: and 43 base64 characters), got ${JSON.stringify(v).slice(0, 60)}`,
    );
    return undefined;
  }
  return v;
}

/** What a login without a pinned host key accepts (install-node `host-key-verification`). */
export type HostKeyVerification = 'accept-any' | 'trust-on-first-use';

const VERIFICATIONS: readonly HostKeyVerification[] = ['accept-any', 'trust-on-first-use'];

/** The install-node `host-key-verification` member (default accept-any); anything else pushes a problem. */
export function settingHostKeyVerification(v: JsonValue | undefined, name: string, problems: string[]): HostKeyVerification {
  if (v === undefined) return 'accept-any';
  if (typeof v === 'string' && (VERIFICATIONS as readonly string[]).includes(v)) return v as HostKeyVerification;
  problems.push(`${name}: must be one of ${VERIFICATIONS.join(', ')}, got ${JSON.stringify(v).slice(0, 60)}`);
  return 'accept-any';
}

/**
 * A device's host key across its logins: the check for each login, and under trust-on-first-use the
 * key of the first login that succeeded, which every later login must present (reconnects included).
 */
export class HostKeyTrust {
  private trusted: string | undefined;

  constructor(
    private readonly pinned: string | undefined,
    private readonly verification: HostKeyVerification,
  ) {}

  /** The check for the next login. */
  login(): HostKeyCheck {
    if (this.pinned !== undefined) return new HostKeyCheck(this.pinned);
    return this.trusted !== undefined ? new HostKeyCheck(this.trusted, true) : new HostKeyCheck(undefined);
  }

  /** A login with `check` succeeded: under trust-on-first-use its key is trusted from now on. */
  loggedIn(check: HostKeyCheck): void {
    if (this.verification === 'trust-on-first-use' && this.pinned === undefined) this.trusted ??= check.presented;
  }
}

/** One login's host key check (see the module comment). */
export class HostKeyCheck {
  /** The fingerprint of the key the device presented at this login, once it did. */
  presented: string | undefined;

  /** `pinned`: the only key accepted (undefined: any); `trustedAtFirstLogin`: it was learnt, not given (for refusals). */
  constructor(
    readonly pinned: string | undefined,
    private readonly trustedAtFirstLogin = false,
  ) {}

  /** ssh2's `hostVerifier`: remembers the key, accepts it when nothing is pinned or it is the pinned one. */
  readonly verify = (key: Buffer): boolean => {
    this.presented = hostKeyFingerprint(key);
    return this.pinned === undefined || this.presented === this.pinned;
  };

  /** Why the login was refused, when it was for the host key (the device presented another one). */
  refusal(where: string): string | undefined {
    if (this.pinned === undefined || this.presented === undefined || this.presented === this.pinned) return undefined;
    return `${where}: the device presented host key ${this.presented}, not ${this.trustedAtFirstLogin ? `${this.pinned}, the key trusted at its first login` : `the pinned ${this.pinned}`} (a different device, or its key was changed; install it again with the new host-key once that is verified)`;
  }
}
