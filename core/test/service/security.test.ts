/**
 * The core's side of TLS and authentication, without the plugins: the `auth` object's shape check (each
 * fault names its field), store paths resolved like every path, loopback detection, the authentication
 * gate's fail-closed answers (no verdict, a tap that throws, no tap), and `rosetta hash-password`.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import test from 'ava';
import { hashPasswordCommand, hashPassword } from '../../src/cli/hash-password-command';
import { createHooks } from '../../src/hooks';
import type { PluginScope } from '../../src/plugins/generation';
import { scryptHashProblem } from '../../src/service/auth-config';
import { authenticatingHandler, checkSecurityAtStart, isLoopbackHost } from '../../src/service/authentication';
import { ConfigError, resolveConfig } from '../../src/service/config';

const HASH = 'scrypt$16384$8$1$c2FsdHNhbHRzYWx0$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U=';

test('auth object: shape faults name the field; a good object is handed over unchanged', (t) => {
  const good = {
    users: [
      { name: 'admin', role: 'write', passwordHash: HASH },
      { name: 'm', role: 'read', certificateSubjects: ['CN=m'] },
    ],
    failedAttemptDelayMs: 100,
  };
  t.deepEqual(resolveConfig({ auth: good }, '/b').auth, good);
  t.is(resolveConfig({}, '/b').auth, undefined);
  const bad: Array<[unknown, string]> = [
    [[], 'auth'],
    [{ users: {} }, 'auth.users'],
    [{ users: [] }, 'auth.users'],
    [{ users: [], extra: 1 }, 'auth.extra'],
    [{ users: [null] }, 'auth.users[0]'],
    [{ users: [{ name: '', role: 'read', passwordHash: HASH }] }, 'auth.users[0].name'],
    [{ users: [{ name: 'a', role: 'read', passwordHash: HASH, password: 'x' }] }, 'auth.users[0].password'],
    [{ users: [{ name: 'a', role: 'read', passwordHash: HASH, groups: [] }] }, 'auth.users[0].groups'],
    [{ users: [{ name: 'a', role: 'Write', passwordHash: HASH }] }, 'auth.users[0].role'],
    [{ users: [{ name: 'a', role: 'read', passwordHash: 'scrypt$16384$8$1$c2FsdA==$a2V5' }] }, 'auth.users[0].passwordHash'],
    [
      { users: [{ name: 'a', role: 'read', passwordHash: HASH.replace('16384', '1048576').replace('$8$', '$32$') }] },
      'auth.users[0].passwordHash',
    ],
    [{ users: [{ name: 'a', role: 'read', certificateSubjects: [] }] }, 'auth.users[0].certificateSubjects'],
    [{ users: [{ name: 'a', role: 'read', certificateSubjects: ['ops'] }] }, 'auth.users[0].certificateSubjects[0]'],
    [
      {
        users: [
          { name: 'a', role: 'read', certificateSubjects: ['CN=x'] },
          { name: 'b', role: 'read', certificateSubjects: ['CN=x'] },
        ],
      },
      'auth.users[1].certificateSubjects[0]',
    ],
    [
      {
        users: [
          { name: 'a', role: 'read', passwordHash: HASH },
          { name: 'a', role: 'write', passwordHash: HASH },
        ],
      },
      'auth.users[1].name',
    ],
    [{ users: [{ name: 'a', role: 'read', passwordHash: HASH }], enabled: 1 }, 'auth.enabled'],
    [{ users: [{ name: 'a', role: 'read', passwordHash: HASH }], failedAttemptDelayMs: 1.5 }, 'auth.failedAttemptDelayMs'],
    [
      { users: [{ name: 'a', role: 'read', passwordHash: HASH }], failedAttemptDelayMs: 900, maxFailedAttemptDelayMs: 800 },
      'auth.maxFailedAttemptDelayMs',
    ],
  ];
  for (const [auth, field] of bad) {
    const e = t.throws(() => resolveConfig({ auth }, '/b'), { instanceOf: ConfigError }, JSON.stringify(auth));
    t.is(e?.field, field, JSON.stringify(auth));
  }
  t.notThrows(() => resolveConfig({ auth: { enabled: false, users: [] } }, '/b'), 'no users needed while switched off');
});

test('tls object: store paths are relative to the configuration file; client auth needs TLS', (t) => {
  const c = resolveConfig({ tls: { enabledTls: true, keystorePath: 'keys/ks.p12', truststorePath: '/abs/ts.p12' } }, '/etc/rosetta');
  t.is(c.tls?.['keystorePath'], '/etc/rosetta/keys/ks.p12');
  t.is(c.tls?.['truststorePath'], '/abs/ts.p12');
  t.is(t.throws(() => resolveConfig({ tls: { keystorePath: '' } }, '/b'), { instanceOf: ConfigError })?.field, 'tls.keystorePath');
  t.is(
    t.throws(() => resolveConfig({ tls: { enabledClientAuthentication: true } }, '/b'), { instanceOf: ConfigError })?.field,
    'tls.enabledClientAuthentication',
  );
});

test('start-up checks: TLS or auth asked for without their plugin, and the non-loopback warning', (t) => {
  const config = (raw: Record<string, unknown>) => resolveConfig(raw, '/b');
  const auth = { users: [{ name: 'a', role: 'read', passwordHash: HASH }] };
  t.is(
    t.throws(() => checkSecurityAtStart(config({ tls: { enabledTls: true } }), false, false), { instanceOf: ConfigError })?.field,
    'tls.enabledTls',
  );
  t.is(t.throws(() => checkSecurityAtStart(config({ auth }), false, false), { instanceOf: ConfigError })?.field, 'auth');
  t.is(t.throws(() => checkSecurityAtStart(config({}), false, true), { instanceOf: ConfigError })?.field, 'auth');
  t.is(checkSecurityAtStart(config({ auth }), false, true), undefined);
  t.is(checkSecurityAtStart(config({}), false, false), undefined, 'loopback by default');
  t.regex(checkSecurityAtStart(config({ host: '0.0.0.0' }), true, false) ?? '', /WITHOUT AUTHENTICATION/);
  t.regex(checkSecurityAtStart(config({ host: '::', auth: { ...auth, enabled: false } }), false, true) ?? '', /WITHOUT AUTHENTICATION/);
  for (const h of ['127.0.0.1', '127.8.9.10', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) t.true(isLoopbackHost(h), h);
  for (const h of ['0.0.0.0', '::', '10.0.0.1', '128.0.0.1', 'example.com', '127.0.0.1.example.com']) t.false(isLoopbackHost(h), h);
});

async function gate(
  tap: ((hooks: ReturnType<typeof createHooks>) => void) | undefined,
): Promise<{ url: string; close: () => void; log: string[] }> {
  const hooks = createHooks();
  tap?.(hooks);
  const scope: PluginScope = { generation: 1, hooks, unitsFor: () => ({ units: [] }) as never, release: () => undefined };
  const log: string[] = [];
  const app: http.RequestListener = (_req, res) => res.end('reached');
  const handler = authenticatingHandler(app, { acquire: () => scope }, { users: [] }, { info: () => undefined, error: (m) => log.push(m) });
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close(), log };
}

test('the gate fails closed: no verdict 401, a throwing tap 500, no tap 503; allowed requests reach the app', async (t) => {
  const cases: Array<[((h: ReturnType<typeof createHooks>) => void) | undefined, number]> = [
    [(h) => h.server.authenticate.tapPromise('pass', async () => undefined), 401],
    [
      (h) =>
        h.server.authenticate.tapPromise('broken', async () => {
          throw new Error('boom');
        }),
      500,
    ],
    [undefined, 503],
    [(h) => h.server.authenticate.tapPromise('deny', async () => ({ allow: false, status: 403, message: 'no' })), 403],
    [
      (h) =>
        h.server.authenticate.tapPromise('allow', async (ctx) => (ctx.authorization === 'yes' ? { allow: true, user: 'u' } : undefined)),
      200,
    ],
  ];
  for (const [tap, status] of cases) {
    const g = await gate(tap);
    try {
      const res = await fetch(`${g.url}/rests/data`, { headers: { authorization: 'yes' } });
      const text = await res.text();
      t.is(res.status, status, text);
      if (status === 200) t.is(text, 'reached');
      else t.regex(text, /"error-tag":"(access-denied|operation-failed)"/);
      if (status === 401) t.regex(res.headers.get('www-authenticate') ?? '', /^Basic realm="rosetta"/);
      if (status === 500) t.true(g.log.some((m) => /authentication plugin failed: boom/.test(m)));
    } finally {
      g.close();
    }
  }
  const app: http.RequestListener = (_q, s) => s.end();
  const quiet = { info: () => undefined, error: () => undefined };
  const unused = {
    acquire: (): PluginScope => {
      throw new Error('not used');
    },
  };
  t.is(authenticatingHandler(app, unused, undefined, quiet), app, 'no auth object: the app itself');
  t.is(authenticatingHandler(app, unused, { enabled: false, users: [] }, quiet), app, 'auth switched off: the app itself');
});

test('rosetta hash-password: reads the first line of standard input and prints a hash the configuration accepts', async (t) => {
  const out: string[] = [];
  const err: string[] = [];
  const [log, error] = [console.log, console.error];
  console.log = (m: string) => out.push(m);
  console.error = (m: string) => err.push(m);
  try {
    t.is(await hashPasswordCommand(['--cost', '1024'], Readable.from(['correct horse\n', 'ignored\n'])), 0);
    t.is(await hashPasswordCommand([], Readable.from([''])), 2);
    t.is(await hashPasswordCommand(['--cost', '1000'], Readable.from(['x\n'])), 2);
    t.is(await hashPasswordCommand(['--cost', 'lots'], Readable.from(['x\n'])), 2);
    t.is(await hashPasswordCommand(['--password', 'x']), 2, 'no password on the command line');
  } finally {
    console.log = log;
    console.error = error;
  }
  t.is(out.length, 1);
  t.regex(out[0]!, /^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
  t.is(scryptHashProblem(out[0]!), undefined);
  t.notRegex(out.join('') + err.join(''), /correct horse/, 'the password is never echoed');
  t.not(await hashPassword('same', { cost: 1024 }), await hashPassword('same', { cost: 1024 }), 'salted');
});
