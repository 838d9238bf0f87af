/**
 * `"metrics": {"auth": true}`: the scrape asks for the credentials the RESTCONF API asks for, while
 * the probes stay open; without it /metrics is open beside an authenticated API. The option without an
 * enabled auth object is refused at start-up, naming the field.
 */
import * as path from 'node:path';
import test from 'ava';
import { hashPassword } from '../../src/cli/hash-password-command';
import { ConfigError, resolveConfig } from '../../src/service/config';
import { startTestService } from '../../src/service/test-service';

const AUTH_PLUGIN = path.resolve(__dirname, '../../../../plugins/auth');
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function authConfig() {
  return { users: [{ name: 'admin', role: 'write', passwordHash: await hashPassword('admin-pass', { cost: 1024 }) }] };
}

test('metrics.auth: /metrics answers 401 without credentials and 200 with the API user; health and ready stay open', async (t) => {
  const s = await startTestService({
    label: 'metrics-auth',
    plugins: [{ path: AUTH_PLUGIN }],
    config: { auth: await authConfig(), metrics: { auth: true } },
  });
  try {
    const none = await s.request('GET', '/metrics');
    t.is(none.status, 401);
    t.is(none.headers.get('www-authenticate'), 'Basic realm="rosetta", charset="UTF-8"');
    t.notRegex(none.text, /rosetta_http_requests_total/);
    t.is((await s.request('GET', '/metrics', undefined, { authorization: basic('admin', 'wrong') })).status, 401);
    const admin = await s.request('GET', '/metrics', undefined, { authorization: basic('admin', 'admin-pass') });
    t.is(admin.status, 200);
    t.regex(admin.text, /^rosetta_http_requests_total\{/m);
    t.is((await s.request('GET', '/rests/health')).status, 200);
    t.is((await s.request('GET', '/rests/ready')).status, 200);
    t.is((await s.request('GET', '/rests/yang-library-version')).status, 401);
  } finally {
    await s.stop();
  }
});

test('without metrics.auth, /metrics stays open beside an authenticated API', async (t) => {
  const s = await startTestService({ label: 'metrics-open', plugins: [{ path: AUTH_PLUGIN }], config: { auth: await authConfig() } });
  try {
    t.is((await s.request('GET', '/rests/yang-library-version')).status, 401);
    const open = await s.request('GET', '/metrics');
    t.is(open.status, 200);
    t.regex(open.text, /^rosetta_http_requests_total\{/m);
  } finally {
    await s.stop();
  }
});

test('metrics.auth without an enabled auth object is refused, naming the field', (t) => {
  const e = t.throws(() => resolveConfig({ metrics: { auth: true } }, '/tmp'), { instanceOf: ConfigError });
  t.regex(e!.message, /metrics\.auth/);
  t.throws(() => resolveConfig({ metrics: { auth: 'yes' } }, '/tmp'), { instanceOf: ConfigError, message: /metrics\.auth/ });
  t.is(resolveConfig({}, '/tmp').metrics.auth, false);
});
