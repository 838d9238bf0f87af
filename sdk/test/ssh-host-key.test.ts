/**
 * SSH host key pinning (ssh-host-key.ts): fingerprints in ssh-keygen's form, the install-node member's
 * checks, and the verifier a login uses with and without a pinned key.
 */
import test from 'ava';
import { createHash } from 'node:crypto';
import { HostKeyCheck, HostKeyTrust, hostKeyFingerprint, settingHostKey, settingHostKeyVerification } from '../src';

const blob = Buffer.from('ssh-ed25519 key blob for the test');
const fingerprint = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;

test('a fingerprint is SHA256: and the unpadded base64 of the key blob, 43 characters', (t) => {
  t.is(hostKeyFingerprint(blob), fingerprint);
  t.regex(fingerprint, /^SHA256:[A-Za-z0-9+/]{43}$/);
});

test('the host-key member: a fingerprint or nothing; anything else is a problem naming the member', (t) => {
  const problems: string[] = [];
  t.is(settingHostKey(undefined, 'host-key', problems), undefined);
  t.is(settingHostKey(fingerprint, 'host-key', problems), fingerprint);
  t.deepEqual(problems, []);
  for (const bad of ['MD5:aa:bb', `SHA256:${'a'.repeat(42)}`, `sha256:${'a'.repeat(43)}`, 42, '']) {
    t.is(settingHostKey(bad, 'host-key', problems), undefined);
  }
  t.is(problems.length, 5);
  t.true(problems.every((p) => p.startsWith('host-key: must be a SHA256 host key fingerprint')));
});

test('the verifier: any key without a pin, only the pinned one with; the presented key is remembered and a refusal names both', (t) => {
  const open = new HostKeyCheck(undefined);
  t.true(open.verify(blob));
  t.is(open.presented, fingerprint);
  t.is(open.refusal('r1'), undefined);
  const pinned = new HostKeyCheck(fingerprint);
  t.true(pinned.verify(blob));
  t.is(pinned.refusal('r1'), undefined);
  const other = new HostKeyCheck(`SHA256:${'A'.repeat(43)}`);
  t.false(other.verify(blob));
  t.regex(
    other.refusal('r1:22')!,
    new RegExp(`^r1:22: the device presented host key ${fingerprint.replace(/[+/]/g, '\\$&')}, not the pinned SHA256:A{43}`),
  );
});

test('host-key-verification: accept-any by default, trust-on-first-use when asked; anything else is a problem naming the member', (t) => {
  const problems: string[] = [];
  t.is(settingHostKeyVerification(undefined, 'host-key-verification', problems), 'accept-any');
  t.is(settingHostKeyVerification('accept-any', 'host-key-verification', problems), 'accept-any');
  t.is(settingHostKeyVerification('trust-on-first-use', 'host-key-verification', problems), 'trust-on-first-use');
  t.deepEqual(problems, []);
  settingHostKeyVerification('tofu', 'host-key-verification', problems);
  t.deepEqual(problems, ['host-key-verification: must be one of accept-any, trust-on-first-use, got "tofu"']);
});

test('trust across logins: trust-on-first-use holds later logins to the first key; accept-any never does; a pin always wins', (t) => {
  const otherBlob = Buffer.from('another device key');
  const tofu = new HostKeyTrust(undefined, 'trust-on-first-use');
  const first = tofu.login();
  t.true(first.verify(blob));
  tofu.loggedIn(first);
  const impostor = tofu.login();
  t.false(impostor.verify(otherBlob), 'a reconnect to another key is refused');
  t.true(impostor.refusal('r1:22')!.includes(`not ${fingerprint}, the key trusted at its first login`), impostor.refusal('r1:22'));
  tofu.loggedIn(impostor); // a refused login is never reported as logged in; even so it does not replace the trust
  t.true(tofu.login().verify(blob), 'the first key still connects');

  const failedFirst = new HostKeyTrust(undefined, 'trust-on-first-use');
  t.true(failedFirst.login().verify(otherBlob), 'a login that did not succeed trusts nothing');
  const realFirst = failedFirst.login();
  t.true(realFirst.verify(blob));
  failedFirst.loggedIn(realFirst);
  t.false(failedFirst.login().verify(otherBlob));

  const open = new HostKeyTrust(undefined, 'accept-any');
  const c = open.login();
  c.verify(blob);
  open.loggedIn(c);
  t.true(open.login().verify(otherBlob));

  const pinned = new HostKeyTrust(fingerprint, 'trust-on-first-use');
  t.false(pinned.login().verify(otherBlob));
  t.true(pinned.login().verify(blob));
});
