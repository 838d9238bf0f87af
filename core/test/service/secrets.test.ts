/**
 * Secrets end to end on a real service (plugins cli, frr and callbacks; the SDK's FRR simulator as a
 * CLI device; a local HTTP server as the callbacks' remote): the callbacks access-token and a device
 * password are written through RESTCONF, then no file under the data folder holds them in clear, no
 * GET (JSON or XML, plugin on or off) answers them in clear, a bad value's error does not echo it, a
 * restart keeps them usable (the callback still authenticates, the device reconnects), a sealed value
 * written back stays the same secret, one copied to another leaf opens nowhere, and no line of
 * any of the services' JSON logs holds a secret.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import test from 'ava';
import { frrDevice, startSimulator, type SimulatedDevice } from '@rosetta/sdk/testing';
import { openDatastores } from '../../src/datastore';
import { resolveConfig } from '../../src/service/config';
import { startService, type RunningService } from '../../src/service/service';

const REPO = path.resolve(__dirname, '../../../..');
const CALLBACKS = path.join(REPO, 'plugins/callbacks');
const TOKEN = 'tok-Zq81-bearer-of-secrets';
const PASSWORD = 'Pw-7731-device-login';
const NODES = '/rests/data/network-topology:network-topology';
const SETTINGS = '/rests/data/callbacks:callbacks-settings';
const DEVICE = { 'callbacks-test:device': { name: 'r1', status: { enabled: true } } };

interface Reply {
  status: number;
  text: string;
  json: any;
}
interface Service {
  running: RunningService;
  request(method: string, p: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-secrets-'));
const dataDir = path.join(root, 'data');
const logs: string[] = [];
const seen: Array<string | undefined> = [];
let remote: http.Server;
let remotePort: number;
let device: SimulatedDevice;
/** The service running now, stopped by the hook below when a test fails half-way. */
let current: Service | undefined;

/** Starts a service on the shared data folder, the callbacks plugin on or off (its modules loaded either way). */
async function start(callbacksOn: boolean): Promise<Service> {
  const pluginsFile = path.join(root, `plugins-${callbacksOn}.json`);
  fs.writeFileSync(
    pluginsFile,
    JSON.stringify({
      watch: false,
      plugins: [
        { path: path.join(REPO, 'plugins/cli'), enabled: true },
        { path: path.join(REPO, 'plugins/frr'), enabled: true },
        { path: CALLBACKS, enabled: callbacksOn },
      ],
    }),
  );
  const config = resolveConfig(
    { port: 0, dataDir, plugins: pluginsFile, yangDirs: [path.join(CALLBACKS, 'yang'), path.join(CALLBACKS, 'test/yang')] },
    root,
  );
  // The service's own JSON log, each line whole (fields and all), is what the secrets are looked for in.
  const logTo = new PassThrough();
  createInterface({ input: logTo }).on('line', (line) => logs.push(line));
  const running = await startService({ config, openDatastores, logTo });
  return (current = {
    running,
    async request(method, p, body, headers = {}) {
      const xml = typeof body === 'string';
      const res = await fetch(running.url + p, {
        method,
        headers: {
          ...(body !== undefined ? { 'content-type': xml ? 'application/yang-data+xml' : 'application/yang-data+json' } : {}),
          ...headers,
        },
        ...(body !== undefined ? { body: xml ? body : JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.status, text, json };
    },
  });
}

/** Every file under `dir` whose bytes contain `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath ?? entry.path, entry.name);
    if (fs.readFileSync(file).includes(needle)) found.push(file);
  }
  return found;
}

async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

const connected = (s: Service) =>
  eventually(async () => {
    const r = await s.request('GET', `${NODES}/topology=cli/node=R1?content=nonconfig`);
    return r.status === 200 && r.json['network-topology:node'][0]['cli-topology:connection-status'] === 'connected';
  });

test.before(async () => {
  remote = http.createServer((req, res) => {
    seen.push(req.headers.authorization);
    req.resume();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ state: 'up' }));
  });
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  remotePort = (remote.address() as AddressInfo).port;
  device = await startSimulator(
    frrDevice({ hostname: 'r1', username: 'rosetta', password: PASSWORD, config: ['interface eth0', ' description uplink'] }),
  );
});

test.after.always(async () => {
  await current?.running.stop();
  await device?.close();
  remote?.closeAllConnections();
  await new Promise((resolve) => remote?.close(resolve));
  fs.rmSync(root, { recursive: true, force: true });
});

test.serial(
  'written secrets are sealed on disk, absent or sealed in every answer, never echoed in errors; usable after restarts',
  async (t) => {
    // 1. Write both secrets through RESTCONF.
    let s = await start(true);
    t.is((await s.request('PUT', '/rests/data/callbacks-test:device', DEVICE)).status, 201);
    const settings = {
      'callbacks:callbacks-settings': { 'remote-server': { host: '127.0.0.1', port: remotePort, scheme: 'http' }, 'access-token': TOKEN },
    };
    t.is((await s.request('PUT', SETTINGS, settings)).status, 201);
    const install = await s.request('POST', '/rests/operations/connection-manager:install-node', {
      input: {
        'node-id': 'R1',
        cli: {
          'cli-topology:host': '127.0.0.1',
          'cli-topology:port': device.port,
          'cli-topology:transport-type': 'ssh',
          'cli-topology:device-type': 'frr',
          'cli-topology:device-version': '8.4.4',
          'cli-topology:username': 'rosetta',
          'cli-topology:password': PASSWORD,
        },
      },
    });
    t.is(install.status, 204, install.text);
    const called = await s.request('GET', '/rests/http-client/callbacks-test:device/status');
    t.is(called.status, 200, called.text);
    t.is(seen.at(-1), `Bearer ${TOKEN}`);

    // 2. Answers: the plugin hides the token; the node shows only the sealed password; JSON and XML.
    const json = await s.request('GET', SETTINGS);
    t.is(json.status, 200);
    t.false(json.text.includes(TOKEN));
    t.is(json.json['callbacks:callbacks-settings']['access-token'], undefined);
    const xml = await s.request('GET', SETTINGS, undefined, { accept: 'application/yang-data+xml' });
    t.is(xml.status, 200);
    t.false(xml.text.includes(TOKEN));
    const node = await s.request('GET', `${NODES}/topology=cli/node=R1`);
    t.false(node.text.includes(PASSWORD));
    t.regex(node.json['network-topology:node'][0]['cli-topology:password'], /^\$rosetta\$v2\$/);
    const nodeXml = await s.request('GET', NODES, undefined, { accept: 'application/yang-data+xml' });
    t.false(nodeXml.text.includes(PASSWORD));

    // 3. A bad value of a sensitive leaf: the error names the leaf and its rules, not the value.
    const long = `LEAK-${'x'.repeat(4100)}`;
    const tooLong = await s.request('PUT', `${SETTINGS}/access-token`, { 'callbacks:access-token': long });
    t.is(tooLong.status, 400);
    t.false(tooLong.text.includes('LEAK-'), tooLong.text);
    t.regex(tooLong.json.errors.error[0]['error-message'], /access-token.*length 1\.\.4096.*not shown/);
    const tooLongXml = await s.request(
      'PUT',
      `${SETTINGS}/access-token`,
      `<access-token xmlns="urn:rosetta:params:xml:ns:yang:callbacks">${long}</access-token>`,
    );
    t.is(tooLongXml.status, 400);
    t.false(tooLongXml.text.includes('LEAK-'), tooLongXml.text);
    const malformed = await s.request('PUT', SETTINGS, `{"callbacks:callbacks-settings": {"access-token": LEAKED-token}}`, {
      'content-type': 'application/yang-data+json',
    });
    t.is(malformed.status, 400);
    t.false(malformed.text.includes('LEAKED'), malformed.text);
    const patch = await s.request(
      'PATCH',
      SETTINGS,
      {
        'ietf-yang-patch:yang-patch': {
          'patch-id': 'p1',
          edit: [{ 'edit-id': 'e1', operation: 'replace', target: '/access-token', value: { 'callbacks:access-token': long } }],
        },
      },
      { 'content-type': 'application/yang-patch+json' },
    );
    t.is(patch.status, 400, patch.text);
    t.false(patch.text.includes('LEAK-'), patch.text);
    // The rejected writes changed nothing.
    t.is((await s.request('GET', '/rests/http-client/callbacks-test:device/status')).status, 200);
    t.is(seen.at(-1), `Bearer ${TOKEN}`);
    await s.running.stop();

    // 4. No file of the data folder holds a secret in clear (journal records, snapshots, uniconfig files).
    t.deepEqual(filesHolding(dataDir, TOKEN), []);
    t.deepEqual(filesHolding(dataDir, PASSWORD), []);

    // 5. Restart with the plugin off: the token reads back sealed only; the device reconnects.
    s = await start(false);
    const sealed = await s.request('GET', `${SETTINGS}/access-token`);
    t.is(sealed.status, 200);
    t.false(sealed.text.includes(TOKEN));
    const sealedToken: string = sealed.json['callbacks:access-token'];
    t.regex(sealedToken, /^\$rosetta\$v2\$/);
    const sealedXml = await s.request('GET', SETTINGS, undefined, { accept: 'application/yang-data+xml' });
    t.false(sealedXml.text.includes(TOKEN));
    t.true(sealedXml.text.includes('$rosetta$v2$'));
    t.true(await connected(s), logs.join('\n'));
    // Writing the sealed form back (GET, change, PUT) keeps the same secret.
    const whole = (await s.request('GET', SETTINGS)).json;
    whole['callbacks:callbacks-settings']['remote-server'].scheme = 'http';
    t.is((await s.request('PUT', SETTINGS, whole)).status, 204);
    await s.running.stop();

    // 6. Restart with the plugin on: the callback still authenticates with the clear token.
    s = await start(true);
    t.is((await s.request('GET', '/rests/http-client/callbacks-test:device/status')).status, 200);
    t.is(seen.at(-1), `Bearer ${TOKEN}`);
    t.true(await connected(s), logs.join('\n'));
    // A sealed device password copied into the token opens nowhere: nothing is sent.
    const password = (await s.request('GET', `${NODES}/topology=cli/node=R1/cli-topology:password`)).json['cli-topology:password'];
    t.regex(password, /^\$rosetta\$v2\$/);
    t.is((await s.request('PUT', `${SETTINGS}/access-token`, { 'callbacks:access-token': password })).status, 204);
    const before = seen.length;
    const refused = await s.request('GET', '/rests/http-client/callbacks-test:device/status');
    t.is(refused.status, 400, refused.text);
    t.regex(refused.text, /cannot be opened/);
    t.is(seen.length, before);
    await s.running.stop();

    t.deepEqual(filesHolding(dataDir, TOKEN), []);
    t.deepEqual(filesHolding(dataDir, PASSWORD), []);
    // 7. No log line of any of the three services holds a secret; each line is JSON.
    const all = logs.join('\n');
    t.true(logs.length > 0);
    for (const line of logs) t.notThrows(() => JSON.parse(line), line);
    for (const secret of [TOKEN, PASSWORD, 'LEAK-', 'LEAKED']) t.false(all.includes(secret), secret);
  },
);
