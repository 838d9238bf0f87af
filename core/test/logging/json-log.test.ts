/**
 * The service's JSON log, read back from the stream it writes to: every line parses as JSON with
 * level, time and msg; each request answers an X-Request-Id (the client's when it is a safe token)
 * that its access line and the lines it causes inside the service carry; the configured level filters;
 * and an install-node carrying a device password leaves the password in no line.
 */
import { PassThrough } from 'node:stream';
import test from 'ava';
import { frrDevice, startSimulator } from '@rosetta/sdk/testing';
import { type AccessLine, accessMessage, accessWriterOf, createJsonLogger } from '../../src/logging/json-logger';
import { runInRequest } from '../../src/logging/request-context';
import { startTestService } from '../../src/service/test-service';
import { pluginsFile } from '../mount/fixture';

interface Line {
  readonly level: string;
  readonly time: number;
  readonly msg: string;
  readonly reqId?: string;
  readonly [field: string]: unknown;
}

/** A stream to log to and the lines written so far, each parsed (a line that is not JSON fails the parse). */
function collector(): { stream: PassThrough; text: () => string; lines: () => Line[] } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => {
    text += d.toString();
  });
  return {
    stream,
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Line),
  };
}

const settle = () => new Promise((r) => setImmediate(r));

test('a line is JSON with level, time, msg and the caller fields; the request id comes from the context while the request runs; levels filter', async (t) => {
  const out = collector();
  const log = createJsonLogger({ level: 'warn', destination: out.stream });
  log.info('dropped below warn');
  log.warn('kept', { nodeId: 'n1' });
  let later: Promise<void> = Promise.resolve();
  const request = runInRequest('req-42', () => {
    log.error('inside a request');
    // Work the request leaves behind (a session's timer, a retry loop) inherits its context.
    later = new Promise((resolve) => setTimeout(resolve, 5)).then(() => log.error('after the request'));
  });
  request.end();
  await later;
  await settle();
  const lines = out.lines();
  t.deepEqual(
    lines.map((l) => [l.level, l.msg, l.nodeId, l.reqId]),
    [
      ['warn', 'kept', 'n1', undefined],
      ['error', 'inside a request', undefined, 'req-42'],
      ['error', 'after the request', undefined, undefined],
    ],
  );
  t.true(lines.every((l) => typeof l.time === 'number'));
  const silent = collector();
  createJsonLogger({ level: 'silent', destination: silent.stream }).error('nothing');
  await settle();
  t.is(silent.text(), '');
});

test('the fast access line is the line pino writes for the same fields, and keeps to the level', async (t) => {
  const out = collector();
  const log = createJsonLogger({ level: 'info', destination: out.stream });
  const lines: AccessLine[] = [
    { reqId: 'a1b2c3d400000001', method: 'GET', route: '/rests/data', status: 200, durationMs: 0.4, nodeId: undefined },
    { reqId: 'client.id:7', method: 'PUT', route: 'uniconfig', status: 0, durationMs: 12, nodeId: 'R1 "edge"\\\n\u2028' },
  ];
  for (const line of lines) {
    accessWriterOf(log)(line, 'info');
    log.info(accessMessage(line), { ...line });
  }
  await settle();
  const written = out.lines().map(({ time, ...rest }) => {
    t.is(typeof time, 'number');
    return rest;
  });
  t.is(written.length, 4);
  t.deepEqual(written[0], written[1]);
  t.deepEqual(written[2], written[3]);
  t.is(written[2]!.nodeId, 'R1 "edge"\\\n\u2028');
  t.is(written[2]!.msg, 'PUT uniconfig aborted in 12 ms');
  // the keys in the same order as pino's
  const raw = out.text().split('\n');
  t.is(raw[0]!.replace(/"time":\d+/, ''), raw[1]!.replace(/"time":\d+/, ''));
  // each line at its level, kept to the logger's
  const quiet = collector();
  accessWriterOf(createJsonLogger({ level: 'warn', destination: quiet.stream }))(lines[0]!, 'info');
  accessWriterOf(log)(lines[0]!, 'debug');
  const chatty = collector();
  accessWriterOf(createJsonLogger({ level: 'debug', destination: chatty.stream }))(lines[0]!, 'debug');
  await settle();
  t.is(quiet.text(), '');
  t.is(out.lines().length, 4);
  t.like(chatty.lines(), [{ level: 'debug', reqId: 'a1b2c3d400000001', status: 200 }]);
  // a logger that is not the JSON logger gets the same fields through its info, and no debug lines
  const seen: unknown[] = [];
  const plain = accessWriterOf({ info: (m, f) => seen.push([m, f]), error: () => {} });
  plain(lines[0]!, 'info');
  plain(lines[1]!, 'debug');
  t.deepEqual(seen, [['GET /rests/data 200 in 0.4 ms', { ...lines[0] }]]);
});

test('each request gets an id in X-Request-Id, a safe client id is kept, and its access line carries it: at debug for a quick successful read, at info for a failure', async (t) => {
  const out = collector();
  const s = await startTestService({ plugins: [], label: 'json-log', logTo: out.stream, config: { log: { level: 'debug' } } });
  try {
    const mine = await s.request('GET', '/rests/data/ietf-yang-library:yang-library', undefined, { 'x-request-id': 'client-id.7' });
    t.is(mine.status, 200);
    t.is(mine.headers.get('x-request-id'), 'client-id.7');
    const unsafe = await s.request('GET', '/rests/health', undefined, { 'x-request-id': 'bad id "quoted"' });
    const given = unsafe.headers.get('x-request-id') ?? '';
    t.regex(given, /^[0-9a-f]{16}$/);
    const missing = await s.request('GET', '/rests/data/network-topology:network-topology/topology=cli/node=absent-9');
    t.is(missing.status, 404);
    const missingId = missing.headers.get('x-request-id') ?? '';
    t.not(missingId, given);
  } finally {
    await s.stop();
  }
  const lines = out.lines();
  const access = (id: string) => lines.find((l) => l.reqId === id && l.route !== undefined);
  t.like(access('client-id.7'), { level: 'debug', method: 'GET', route: '/rests/data', status: 200 });
  t.is(typeof access('client-id.7')?.durationMs, 'number');
  t.like(
    lines.find((l) => l.route === '/rests/data' && l.status === 404),
    { level: 'info', nodeId: 'absent-9', method: 'GET' },
  );
  t.false(lines.some((l) => l.msg.includes('bad id')));
  // a successful probe writes no access line (a load balancer would bury the log in them)
  t.false(lines.some((l) => l.route === '/rests/health'));
});

test('the configured level filters the service log: at warn no access line is written', async (t) => {
  const out = collector();
  const s = await startTestService({ plugins: [], label: 'json-log-warn', logTo: out.stream, config: { log: { level: 'warn' } } });
  try {
    t.is((await s.request('GET', '/rests/health')).status, 200);
  } finally {
    await s.stop();
  }
  t.true(out.lines().every((l) => l.level === 'warn' || l.level === 'error' || l.level === 'fatal'));
  t.false(out.lines().some((l) => l.route !== undefined));
});

test('an install-node: the mount layer and device session lines it causes carry its request id and node id; its password is in no line', async (t) => {
  const PASSWORD = 'Pw-json-log-8812';
  const device = await startSimulator(frrDevice({ hostname: 'r9', username: 'rosetta', password: PASSWORD, config: ['interface eth0'] }));
  const out = collector();
  const s = await startTestService({ plugins: pluginsFile(['plugins/cli', 'plugins/frr']), label: 'json-log-install', logTo: out.stream });
  let reqId = '';
  try {
    const install = await s.request(
      'POST',
      '/rests/operations/connection-manager:install-node',
      {
        input: {
          'node-id': 'log-node-9',
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
      },
      { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` },
    );
    t.is(install.status, 204, install.text);
    reqId = install.headers.get('x-request-id') ?? '';
    t.not(reqId, '');
  } finally {
    await s.stop();
    await device.close();
  }
  const lines = out.lines();
  const caused = lines.filter((l) => l.reqId === reqId);
  t.true(
    caused.some((l) => l.nodeId === 'log-node-9' && /installed/.test(l.msg)),
    JSON.stringify(caused),
  );
  // The CLI plugin's device session, opened for the request, logs through PluginApi.log with the same id.
  t.true(
    caused.some((l) => l.plugin === '@rosetta/plugin-cli' && l.nodeId === 'log-node-9' && /connected/.test(l.msg)),
    JSON.stringify(caused),
  );
  t.like(
    caused.find((l) => l.route !== undefined),
    { route: '/rests/operations', status: 204 },
  );
  t.false(out.text().includes(PASSWORD));
  t.false(out.text().includes(Buffer.from(`admin:${PASSWORD}`).toString('base64')));
});
