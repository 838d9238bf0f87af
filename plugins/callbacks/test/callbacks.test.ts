/**
 * The callbacks plugin on a real service, with a real HTTP server in this process as the remote
 * server: call-points and remote actions, the settings and each missing one, the token sent as a
 * bearer token and never read back, remote errors (502) and time-outs (504), nodes not stored,
 * nodes not marked, a body holding one member twice, the plugin switched off, and the `callbacks`
 * configuration fields.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { ConfigError, loadConfig } from '@rosetta/core/dist/src/service/config';
import { startCallbackService, type CallbackService } from './support/service';

interface Seen {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
}

/** The remote server: /devices/status answers JSON, /slow never answers, /fail answers 500, /actions/* echo. */
async function startRemote(): Promise<{ port: number; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, body });
      if (req.url === '/devices/status') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ state: 'up', uptime: 1234 }));
        return;
      }
      if (req.url === '/slow') {
        hanging.push(res);
        return;
      }
      if (req.url === '/fail') {
        res.statusCode = 500;
        res.end('database on fire');
        return;
      }
      if (req.url?.startsWith('/actions/')) {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ accepted: true, got: JSON.parse(body) }));
        return;
      }
      res.statusCode = 404;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise((resolve) => {
        for (const r of hanging) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const DEVICE = {
  'callbacks-test:device': {
    name: 'r1',
    status: { enabled: true },
    'slow-status': { enabled: true },
    'broken-status': { enabled: true },
    plain: { enabled: true },
    server: [{ id: 'a' }],
  },
};
const TOKEN = 'tok-3f9a-very-secret';

async function configure(s: CallbackService, port: number): Promise<void> {
  const settings = {
    'callbacks:callbacks-settings': { 'remote-server': { host: '127.0.0.1', port, scheme: 'http' }, 'access-token': TOKEN },
  };
  const put = await s.request('PUT', '/rests/data/callbacks:callbacks-settings', settings);
  if (put.status !== 201 && put.status !== 204) throw new Error(`settings: ${put.status} ${put.text}`);
}

test('call-point GET and remote-action POST reach the remote server with the bearer token', async (t) => {
  const remote = await startRemote();
  const s = await startCallbackService({ timeoutMs: 500 });
  t.teardown(async () => {
    await s.stop();
    await remote.close();
  });
  t.is((await s.request('PUT', '/rests/data/callbacks-test:device', DEVICE)).status, 201);
  await configure(s, remote.port);

  const got = await s.request('GET', '/rests/http-client/callbacks-test:device/status');
  t.is(got.status, 200, got.text);
  t.deepEqual(got.json, { response: { state: 'up', uptime: 1234 } });
  t.deepEqual(remote.seen.at(-1), { method: 'GET', url: '/devices/status', authorization: `Bearer ${TOKEN}`, body: '' });

  const posted = await s.request('POST', '/rests/http-client/callbacks-test:device/server=a/restart', {
    input: { body: { when: 'now', force: true } },
  });
  t.is(posted.status, 200, posted.text);
  t.deepEqual(posted.json, { response: { accepted: true, got: { when: 'now', force: true } } });
  t.is(remote.seen.at(-1)?.method, 'POST');
  t.is(remote.seen.at(-1)?.url, '/actions/restart');
  t.is(remote.seen.at(-1)?.authorization, `Bearer ${TOKEN}`);

  // The token is write-only: left out of every read of the settings, never in the log.
  const settings = await s.request('GET', '/rests/data/callbacks:callbacks-settings');
  t.is(settings.status, 200);
  t.deepEqual(settings.json, {
    'callbacks:callbacks-settings': { 'remote-server': { host: '127.0.0.1', port: remote.port, scheme: 'http' } },
  });
  t.is((await s.request('GET', '/rests/data/callbacks:callbacks-settings/access-token')).status, 404);
  t.false((await s.request('GET', '/rests/data?content=config')).text.includes(TOKEN));
  t.false(s.logs.some((l) => l.includes(TOKEN)));
});

test('remote errors are 502, time-outs 504, in the error envelope', async (t) => {
  const remote = await startRemote();
  const s = await startCallbackService({ timeoutMs: 300 });
  t.teardown(async () => {
    await s.stop();
    await remote.close();
  });
  t.is((await s.request('PUT', '/rests/data/callbacks-test:device', DEVICE)).status, 201);
  await configure(s, remote.port);

  const failed = await s.request('GET', '/rests/http-client/callbacks-test:device/broken-status');
  t.is(failed.status, 502);
  t.is(failed.json.errors.error[0]['error-tag'], 'operation-failed');
  t.regex(failed.json.errors.error[0]['error-message'], /answered 500: database on fire/);

  const started = Date.now();
  const slow = await s.request('GET', '/rests/http-client/callbacks-test:device/slow-status');
  t.is(slow.status, 504);
  t.regex(slow.json.errors.error[0]['error-message'], /within 300 ms/);
  // /slow never answers: only the 300 ms timeout ends the request (the bound leaves room for a loaded machine)
  t.true(Date.now() - started < 10_000, `answered after ${Date.now() - started} ms`);

  // A remote server that is not there: 502 naming the failure.
  await configure(s, 1);
  const refused = await s.request('GET', '/rests/http-client/callbacks-test:device/status');
  t.is(refused.status, 502);
  t.regex(refused.json.errors.error[0]['error-message'], /ECONNREFUSED/);
});

test('settings must be configured first: each missing one is 400 naming it', async (t) => {
  const remote = await startRemote();
  const s = await startCallbackService(undefined);
  t.teardown(async () => {
    await s.stop();
    await remote.close();
  });
  t.is((await s.request('PUT', '/rests/data/callbacks-test:device', DEVICE)).status, 201);
  const url = '/rests/http-client/callbacks-test:device/status';
  const expectMissing = async (name: string) => {
    const r = await s.request('GET', url);
    t.is(r.status, 400, name);
    t.is(r.json.errors.error[0]['error-path'], `/callbacks:callbacks-settings/${name}`);
    t.regex(r.json.errors.error[0]['error-message'], new RegExp(name));
  };
  await expectMissing('remote-server/host');
  await s.request('PUT', '/rests/data/callbacks:callbacks-settings', {
    'callbacks:callbacks-settings': { 'remote-server': { host: '127.0.0.1' } },
  });
  await expectMissing('remote-server/port');
  await s.request('PATCH', '/rests/data/callbacks:callbacks-settings', {
    'callbacks:callbacks-settings': { 'remote-server': { port: remote.port } },
  });
  await expectMissing('remote-server/scheme');
  await s.request('PATCH', '/rests/data/callbacks:callbacks-settings', {
    'callbacks:callbacks-settings': { 'remote-server': { scheme: 'http' } },
  });
  await expectMissing('access-token');
  await s.request('PATCH', '/rests/data/callbacks:callbacks-settings', { 'callbacks:callbacks-settings': { 'access-token': TOKEN } });
  t.is((await s.request('GET', url)).status, 200);
  // Bad settings values are refused by the model.
  t.is(
    (
      await s.request('PATCH', '/rests/data/callbacks:callbacks-settings', {
        'callbacks:callbacks-settings': { 'remote-server': { scheme: 'gopher' } },
      })
    ).status,
    400,
  );
  t.is(
    (
      await s.request('PATCH', '/rests/data/callbacks:callbacks-settings', {
        'callbacks:callbacks-settings': { 'remote-server': { port: 0 } },
      })
    ).status,
    400,
  );
  t.is(remote.seen.length, 1);
});

test('only stored, marked nodes are served; bad requests are refused before any remote call', async (t) => {
  const remote = await startRemote();
  const s = await startCallbackService(undefined);
  t.teardown(async () => {
    await s.stop();
    await remote.close();
  });
  await configure(s, remote.port);
  // Not stored yet.
  const absent = await s.request('GET', '/rests/http-client/callbacks-test:device/status');
  t.is(absent.status, 404);
  t.is(absent.json.errors.error[0]['error-tag'], 'data-missing');
  t.is((await s.request('PUT', '/rests/data/callbacks-test:device', DEVICE)).status, 201);
  t.is((await s.request('POST', '/rests/http-client/callbacks-test:device/server=zz/restart', { input: { body: {} } })).status, 404);
  // Not marked, wrong method, unknown node, bad body.
  t.is((await s.request('GET', '/rests/http-client/callbacks-test:device/plain')).status, 400);
  t.is((await s.request('POST', '/rests/http-client/callbacks-test:device/server=a/local-only', { input: { body: {} } })).status, 400);
  t.is((await s.request('POST', '/rests/http-client/callbacks-test:device/status', { input: { body: {} } })).status, 400);
  t.is((await s.request('GET', '/rests/http-client/callbacks-test:device/server=a/restart')).status, 400);
  t.is((await s.request('DELETE', '/rests/http-client/callbacks-test:device/status')).status, 405);
  const unknown = await s.request('GET', '/rests/http-client/callbacks-test:device/nothing-here');
  t.is(unknown.status, 404);
  t.truthy(unknown.json.errors);
  t.is((await s.request('GET', '/rests/http-client/')).status, 404);
  const noInput = await s.request('POST', '/rests/http-client/callbacks-test:device/server=a/restart', { body: {} });
  t.is(noInput.status, 400);
  t.is(noInput.json.errors.error[0]['error-tag'], 'malformed-message');
  const notJson = await s.request('POST', '/rests/http-client/callbacks-test:device/server=a/restart', '{"input": ', {
    'content-type': 'application/json',
  });
  t.is(notJson.status, 400);
  // a member given twice would otherwise send the last one silently
  const twice = await s.request(
    'POST',
    '/rests/http-client/callbacks-test:device/server=a/restart',
    '{"input":{"body":{"a":1},"body":{"a":2}}}',
    {
      'content-type': 'application/json',
    },
  );
  t.is(twice.status, 400);
  t.is(twice.json.errors.error[0]['error-tag'], 'malformed-message');
  t.regex(twice.json.errors.error[0]['error-message'], /member "body" appears twice in one object, at \/input\/body/);
  t.is(remote.seen.length, 0);
});

test('the plugin switched off: no http-client routes, the token reads back sealed only (rosetta-secret:sensitive)', async (t) => {
  const s = await startCallbackService(undefined, false);
  t.teardown(() => s.stop());
  t.is((await s.request('PUT', '/rests/data/callbacks-test:device', DEVICE)).status, 201);
  await configure(s, 9);
  t.is((await s.request('GET', '/rests/http-client/callbacks-test:device/status')).status, 404);
  const token = await s.request('GET', '/rests/data/callbacks:callbacks-settings/access-token');
  t.is(token.status, 200);
  t.regex(token.json['callbacks:access-token'], /^\$rosetta\$v2\$/);
  t.false(token.text.includes(TOKEN));
});

test('callbacks configuration fields and their bad values stop start-up naming the field', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-callbacks-config-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const check = (callbacks: unknown, field: string) => {
    const file = path.join(dir, 'rosetta.json');
    fs.writeFileSync(file, JSON.stringify({ callbacks }));
    const error = t.throws(() => loadConfig(file), { instanceOf: ConfigError });
    t.is(error?.field, field, JSON.stringify(callbacks));
  };
  check('fast', 'callbacks');
  check([], 'callbacks');
  check({ timeout: 5 }, 'callbacks.timeout');
  check({ timeoutMs: 0 }, 'callbacks.timeoutMs');
  check({ timeoutMs: 1.5 }, 'callbacks.timeoutMs');
  check({ timeoutMs: '1000' }, 'callbacks.timeoutMs');
  check({ timeoutMs: 600_001 }, 'callbacks.timeoutMs');
  check({ maxResponseBytes: -1 }, 'callbacks.maxResponseBytes');
  check({ maxResponseBytes: null }, 'callbacks.maxResponseBytes');
  const file = path.join(dir, 'good.json');
  fs.writeFileSync(file, JSON.stringify({ callbacks: { timeoutMs: 2500, maxResponseBytes: 1024 } }));
  t.deepEqual(loadConfig(file).callbacks, { timeoutMs: 2500, maxResponseBytes: 1024 });
});
