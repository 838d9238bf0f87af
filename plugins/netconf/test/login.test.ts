/**
 * The SSH login: with a password the session offers it first, so a device that takes passwords (all of
 * them) answers one authentication request, not a refusal of method `none` before it. A device that
 * refuses the password still gets `none` as before, and the failure names the authentication.
 */
import test from 'ava';
import { Server, type Connection } from 'ssh2';
import type { AddressInfo } from 'node:net';
import { simulatorHostKey } from '@rosetta/sdk/testing';
import { NetconfSession, NetconfSessionError } from '../src';

/** An SSH server recording the methods of each authentication request; it accepts `accepted` passwords. */
async function recordingServer(accepted: string) {
  const methods: string[] = [];
  const server = new Server({ hostKeys: [simulatorHostKey()] }, (client: Connection) => {
    client.on('error', () => undefined);
    client.on('authentication', (ctx) => {
      methods.push(ctx.method);
      if (ctx.method === 'password' && ctx.password === accepted) ctx.accept();
      else ctx.reject(['password']);
    });
    // no netconf subsystem: the login is what is counted
    client.on('ready', () => client.on('session', (accept) => accept().on('subsystem', (_a, reject) => reject())));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { methods, port: (server.address() as AddressInfo).port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const open = (port: number, password: string) =>
  NetconfSession.open({
    host: '127.0.0.1',
    port,
    username: 'admin',
    password,
    connectTimeoutMs: 10_000,
    requestTimeoutMs: 10_000,
    keepaliveMs: 0,
  });

test('a login with the right password is one authentication request', async (t) => {
  const server = await recordingServer('pw');
  t.teardown(server.close);
  const refused = await t.throwsAsync(open(server.port, 'pw'), { instanceOf: NetconfSessionError });
  t.regex(refused.message, /netconf subsystem/, 'logged in, then refused the subsystem');
  t.deepEqual(server.methods, ['password']);
});

test('a refused password is an authentication failure after trying none as well', async (t) => {
  const server = await recordingServer('pw');
  t.teardown(server.close);
  const refused = await t.throwsAsync(open(server.port, 'wrong'), { instanceOf: NetconfSessionError });
  t.regex(refused.message, /authentication .* failed/);
  t.deepEqual(server.methods, ['password', 'none']);
});
