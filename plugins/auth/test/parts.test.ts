/**
 * The authentication plugin's parts on their own: scrypt hashes (made by the core's `rosetta
 * hash-password`), Basic header parsing, subjects, the failure delays, the settings' faults, and the
 * authenticator's decisions for each role and method.
 */
import test from 'ava';
import { hashPassword } from '@rosetta/core/dist/src/cli/hash-password-command';
import {
  AuthConfigError,
  Authenticator,
  compileAuthSettings,
  decoyHash,
  FailureDelays,
  normaliseCertificateSubject,
  normaliseConfiguredSubject,
  parseBasic,
  parsePasswordHash,
  verifyPassword,
} from '../src';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

test('scrypt hashes from rosetta hash-password verify the right password only; bad hashes are named', async (t) => {
  const text = await hashPassword('s3cret ünïcode', { cost: 1024 });
  const hash = parsePasswordHash(text);
  if (typeof hash === 'string') return t.fail(hash);
  t.true(await verifyPassword('s3cret ünïcode', hash));
  t.true(await verifyPassword('s3cret u\u0308ni\u0308code', hash), 'NFC-normalised before hashing');
  t.false(await verifyPassword('s3cret', hash));
  t.false(await verifyPassword('', hash));
  for (const bad of [
    '',
    'plain',
    'scrypt$1000$8$1$AAAAAAAAAAA=$AAAAAAAAAAAAAAAAAAAAAA==',
    'scrypt$1048576$64$1$AAAAAAAAAAA=$AAAAAAAAAAAAAAAAAAAAAA==',
    'scrypt$1024$8$1$AAA=$AAAAAAAAAAAAAAAAAAAAAA==',
    'scrypt$1024$8$1$AAAAAAAAAAA=$AAAA',
  ]) {
    t.is(typeof parsePasswordHash(bad), 'string', bad);
  }
});

test('Basic headers: user and password split at the first colon; anything else is not credentials', (t) => {
  t.deepEqual(parseBasic(basic('admin', 'pa:ss')), { user: 'admin', password: 'pa:ss' });
  t.deepEqual(parseBasic(`basic   ${Buffer.from('a:').toString('base64')}`), { user: 'a', password: '' });
  for (const bad of ['Bearer abc', 'Basic', 'Basic !!!', `Basic ${Buffer.from('nocolon').toString('base64')}`, 'Digest x'])
    t.is(parseBasic(bad), undefined, bad);
});

test('subjects: order and attribute case do not matter; escaped commas stay in values', (t) => {
  t.is(normaliseConfiguredSubject('CN=ops, O=Example'), normaliseCertificateSubject('O=Example\nCN=ops'));
  t.is(normaliseConfiguredSubject('cn=ops,o=Example'), normaliseCertificateSubject('CN=ops\nO=Example'));
  t.not(normaliseConfiguredSubject('CN=ops,O=Other'), normaliseCertificateSubject('O=Example\nCN=ops'));
  t.is(normaliseConfiguredSubject('O=Example\\, Inc.,CN=x'), normaliseCertificateSubject('O=Example, Inc.\nCN=x'));
  t.is(normaliseConfiguredSubject('no equals sign'), undefined);
});

test('failure delays grow per address, are bounded, reset on success, and forget quiet or surplus addresses', (t) => {
  let now = 1_000_000;
  const d = new FailureDelays({ firstMs: 100, maxMs: 1000, capacity: 3, forgetAfterMs: 60_000, now: () => now });
  t.deepEqual(
    [1, 2, 3, 4, 5, 6].map(() => d.recordFailure('10.0.0.1')),
    [100, 200, 400, 800, 1000, 1000],
  );
  t.is(d.pendingMs('10.0.0.1'), 1000);
  t.is(d.pendingMs('10.0.0.2'), 0, 'per address');
  now += 400;
  t.is(d.pendingMs('10.0.0.1'), 600);
  d.recordSuccess('10.0.0.1');
  t.is(d.failures('10.0.0.1'), 0);
  d.recordFailure('a');
  d.recordFailure('b');
  d.recordFailure('c');
  d.recordFailure('d');
  t.is(d.failures('a'), 0, 'the oldest address goes past capacity');
  t.is(d.failures('d'), 1);
  now += 61_000;
  t.is(d.failures('d'), 0, 'quiet addresses are forgotten');
  for (let i = 0; i < 200; i++) d.recordFailure('e');
  t.is(d.recordFailure('e'), 1000, 'no overflow after many failures');
});

test('settings: each fault names its field', (t) => {
  const hash = 'scrypt$1024$8$1$AAAAAAAAAAA=$AAAAAAAAAAAAAAAAAAAAAA==';
  const bad: Array<[Record<string, unknown>, string]> = [
    [{ users: 'x' }, 'auth.users'],
    [{ users: [7] }, 'auth.users[0]'],
    [{ users: [{ name: 'a:b', role: 'read', passwordHash: hash }] }, 'auth.users[0].name'],
    [{ users: [{ name: 'a', role: 'admin', passwordHash: hash }] }, 'auth.users[0].role'],
    [{ users: [{ name: 'a', role: 'read', passwordHash: 'x' }] }, 'auth.users[0].passwordHash'],
    [
      {
        users: [
          { name: 'a', role: 'read', passwordHash: hash },
          { name: 'a', role: 'read', passwordHash: hash },
        ],
      },
      'auth.users[1].name',
    ],
    [{ users: [{ name: 'a', role: 'read', certificateSubjects: ['CN=a', 'bad'] }] }, 'auth.users[0].certificateSubjects[1]'],
    [
      {
        users: [
          { name: 'a', role: 'read', certificateSubjects: ['CN=a'] },
          { name: 'b', role: 'read', certificateSubjects: ['cn=a'] },
        ],
      },
      'auth.users[1].certificateSubjects[0]',
    ],
    [{ users: [], failedAttemptDelayMs: -1 }, 'auth.failedAttemptDelayMs'],
    [{ users: [], failedAttemptDelayMs: 500, maxFailedAttemptDelayMs: 100 }, 'auth.maxFailedAttemptDelayMs'],
  ];
  for (const [raw, field] of bad) {
    const e = t.throws(() => compileAuthSettings(raw as never), { instanceOf: AuthConfigError }, JSON.stringify(raw));
    t.is(e?.field, field, JSON.stringify(raw));
  }
});

test('decisions: roles by method, unknown users, certificate subjects, and the cache of verified credentials', async (t) => {
  const writerHash = await hashPassword('w-pass', { cost: 1024 });
  const readerHash = await hashPassword('r-pass', { cost: 1024 });
  const settings = compileAuthSettings({
    users: [
      { name: 'writer', role: 'write', passwordHash: writerHash },
      { name: 'reader', role: 'read', passwordHash: readerHash, certificateSubjects: ['CN=monitor,O=Example'] },
      { name: 'certonly', role: 'write', certificateSubjects: ['CN=robot'] },
    ],
    failedAttemptDelayMs: 0,
    maxFailedAttemptDelayMs: 0,
  });
  const auth = new Authenticator(settings);
  const ctx = (method: string, authorization?: string, subject?: string) => ({
    method,
    url: '/rests/data',
    authorization,
    remoteAddress: '127.0.0.1',
    config: {},
    clientCertificate: subject ? { subject, fingerprint256: 'AA' } : undefined,
  });
  t.like(await auth.authenticate(ctx('PUT', basic('writer', 'w-pass'))), { allow: true, user: 'writer' });
  for (const m of ['GET', 'HEAD', 'OPTIONS', 'get'])
    t.like(await auth.authenticate(ctx(m, basic('reader', 'r-pass'))), { allow: true, user: 'reader' });
  for (const m of ['PUT', 'POST', 'PATCH', 'DELETE'])
    t.like(await auth.authenticate(ctx(m, basic('reader', 'r-pass'))), { allow: false, status: 403 });
  t.like(await auth.authenticate(ctx('GET')), { allow: false, status: 401, challenge: 'Basic realm="rosetta", charset="UTF-8"' });
  t.like(await auth.authenticate(ctx('GET', basic('writer', 'r-pass'))), {
    allow: false,
    status: 401,
    message: 'wrong user name or password',
  });
  t.like(await auth.authenticate(ctx('GET', basic('nobody', 'w-pass'))), {
    allow: false,
    status: 401,
    message: 'wrong user name or password',
  });
  t.like(
    await auth.authenticate(ctx('GET', basic('certonly', ''))),
    { allow: false, status: 401 },
    'a certificate-only user has no password',
  );
  t.like(await auth.authenticate(ctx('GET', 'Bearer token')), { allow: false, status: 401 });
  t.like(await auth.authenticate(ctx('GET', `Basic ${'A'.repeat(10_000)}`)), { allow: false, status: 401 });
  t.like(await auth.authenticate(ctx('GET', undefined, 'O=Example\nCN=monitor')), { allow: true, user: 'reader' });
  t.like(await auth.authenticate(ctx('DELETE', undefined, 'O=Example\nCN=monitor')), { allow: false, status: 403 });
  t.like(await auth.authenticate(ctx('DELETE', undefined, 'CN=robot')), { allow: true, user: 'certonly' });
  t.like(await auth.authenticate(ctx('GET', undefined, 'CN=stranger')), { allow: false, status: 401 });
  // A verified header is cached: the second check costs far less than one scrypt derivation at full cost.
  const heavy = new Authenticator(compileAuthSettings({ users: [{ name: 'u', role: 'write', passwordHash: await hashPassword('p') }] }));
  let started = process.hrtime.bigint();
  t.like(await heavy.authenticate(ctx('GET', basic('u', 'p'))), { allow: true });
  const first = Number(process.hrtime.bigint() - started) / 1e6;
  started = process.hrtime.bigint();
  for (let i = 0; i < 20; i++) await heavy.authenticate(ctx('GET', basic('u', 'p')));
  const cached = Number(process.hrtime.bigint() - started) / 1e6 / 20;
  t.true(cached < first / 5, `first ${first.toFixed(1)} ms, cached ${cached.toFixed(2)} ms`);
  t.log(`scrypt N=16384 check ${first.toFixed(1)} ms; cached ${cached.toFixed(3)} ms`);
});

test('parallel attempts from one address wait out one pending delay together, not one after another', async (t) => {
  const settings = compileAuthSettings({
    users: [{ name: 'u', role: 'write', passwordHash: await hashPassword('right', { cost: 1024 }) }],
    failedAttemptDelayMs: 300,
    maxFailedAttemptDelayMs: 3000,
  });
  const auth = new Authenticator(settings);
  const ctx = (authorization: string, remoteAddress: string) => ({
    method: 'GET',
    url: '/',
    authorization,
    remoteAddress,
    config: {},
    clientCertificate: undefined,
  });
  const started = Date.now();
  const answers = await Promise.all([1, 2, 3].map((i) => auth.authenticate(ctx(basic('u', `guess${i}`), '10.1.1.1'))));
  const elapsed = Date.now() - started;
  t.true(answers.every((a) => !a.allow));
  // The first failure's 300 ms, which the other two waited for; queued they would take 300 + 600 + 1200
  // (the upper bound leaves a loaded machine room below that).
  t.true(elapsed >= 295 && elapsed < 1800, `three parallel guesses took ${elapsed} ms`);
  t.is(auth.delays.failures('10.1.1.1'), 3, 'each was checked and counted');
  // The next attempt waits for the delay the third failure set (1200 ms): guessing in parallel does not stop the growth.
  const next = Date.now();
  await auth.authenticate(ctx(basic('u', 'guess4'), '10.1.1.1'));
  t.true(Date.now() - next >= 1150, `the next guess answered after ${Date.now() - next} ms`);
  // Another address is not held up by them: it is answered before the guess that waits out the fourth failure's 2400 ms.
  const answered: string[] = [];
  const [, fromElsewhere] = await Promise.all([
    auth.authenticate(ctx(basic('u', 'guess5'), '10.1.1.1')).then(() => answered.push('guess')),
    auth.authenticate(ctx(basic('u', 'right'), '10.2.2.2')).then((a) => {
      answered.push('elsewhere');
      return a;
    }),
  ]);
  t.true(fromElsewhere.allow);
  t.deepEqual(answered, ['elsewhere', 'guess'], 'another address answered first');
});

test('an unknown user name costs the same scrypt work as a wrong password (no user enumeration by timing)', async (t) => {
  const settings = compileAuthSettings({
    users: [{ name: 'u', role: 'write', passwordHash: await hashPassword('right', { cost: 8192 }) }],
    failedAttemptDelayMs: 0,
    maxFailedAttemptDelayMs: 0,
  });
  const auth = new Authenticator(settings);
  const once = async (user: string, i: number): Promise<number> => {
    const started = process.hrtime.bigint();
    await auth.authenticate({
      method: 'GET',
      url: '/',
      authorization: basic(user, `wrong${i}`),
      remoteAddress: '10.0.0.9',
      config: {},
      clientCertificate: undefined,
    });
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  await once('u', -1); // warm up
  // Interleaved, so that a machine getting busier or quieter weighs on both alike.
  let wrongPassword = 0;
  let unknownUser = 0;
  for (let i = 0; i < 8; i++) {
    wrongPassword += (await once('u', i)) / 8;
    unknownUser += (await once('nobody', i)) / 8;
  }
  t.log(`wrong password ${wrongPassword.toFixed(1)} ms, unknown user ${unknownUser.toFixed(1)} ms`);
  // Lower bounds only (a busy machine makes both slower, never faster): without the decoy an unknown name
  // answers in well under a millisecond, while a scrypt derivation at this cost takes several.
  t.true(wrongPassword > 2, 'a real scrypt derivation ran for the wrong password');
  t.true(unknownUser > 2, 'a real scrypt derivation ran for the unknown name');
  // and it is the same work: the decoy has the configured hash's scrypt parameters and key length
  const user = settings.users.get('u')!.passwordHash!;
  const decoy = decoyHash(user);
  t.deepEqual([decoy.N, decoy.r, decoy.p, decoy.key.length], [user.N, user.r, user.p, user.key.length]);
});
