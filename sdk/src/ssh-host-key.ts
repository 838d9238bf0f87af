/**
 * SSH host keys of southbound devices: the SHA256 fingerprint of a key as OpenSSH prints it
 * (`ssh-keygen -lf`, `SHA256:` and unpadded base64), and the check a session makes at login: with a
 * pinned fingerprint (install-node `host-key`) only that key is accepted, without one any key is (as
 * OpenDaylight's connectors do), and either way the key the device presented is remembered so that the
 * node's status can show it for pinning.
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
    problems.push(`${name}: must be a SHA256 host key fingerprint as ssh-keygen -lf prints it (SHA256: and 43 base64 characters), got ${JSON.stringify(v).slice(0, 60)}`);
    return undefined;
  }
  return v;
}

/** One login's host key check (see the module comment). */
export class HostKeyCheck {
  /** The fingerprint of the key the device presented at this login, once it did. */
  presented: string | undefined;

  constructor(readonly pinned: string | undefined) {}

  /** ssh2's `hostVerifier`: remembers the key, accepts it when nothing is pinned or it is the pinned one. */
  readonly verify = (key: Buffer): boolean => {
    this.presented = hostKeyFingerprint(key);
    return this.pinned === undefined || this.presented === this.pinned;
  };

  /** Why the login was refused, when it was for the host key (the device presented another one). */
  refusal(where: string): string | undefined {
    if (this.pinned === undefined || this.presented === undefined || this.presented === this.pinned) return undefined;
    return `${where}: the device presented host key ${this.presented}, not the pinned ${this.pinned} (a different device, or its key was changed; install it again with the new host-key once that is verified)`;
  }
}
