import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import test from 'ava';
import { ConfigError, loadConfig, resolveConfig } from '../../src/service/config';
import { assembleSchema, SchemaAssemblyError, OWN_YANG_DIR } from '../../src/service/schema';
import { startCommand } from '../../src/cli/start-command';
import { INTERFACES, modelYangDir, memoryDatastores, startTestService } from '../restconf/http-fixture';

test('config: defaults, and each bad field is named', (t) => {
  const c = resolveConfig({}, '/base');
  t.is(c.port, 8181);
  t.is(c.host, '127.0.0.1');
  t.is(c.dataDir, '/base/data');
  t.is(c.keyDelimiter, '%22');
  t.is(c.bodyLimit, 64 * 1024 * 1024);
  t.is(resolveConfig({ keyDelimiter: null }, '/b').keyDelimiter, null);
  t.is(c.fleet.installConcurrency, 32);
  t.is(resolveConfig({ fleet: { installConcurrency: 8 } }, '/b').fleet.installConcurrency, 8);
  t.is(c.fleet.commitConcurrency, 32);
  t.is(c.fleet.connectConcurrency, 8);
  t.is(resolveConfig({ fleet: { commitConcurrency: 7 } }, '/b').fleet.commitConcurrency, 7);
  const bad: Array<[unknown, string]> = [
    [{ port: 70000 }, 'port'],
    [{ port: 'x' }, 'port'],
    [{ keyDelimeter: '%22' }, 'keyDelimeter'],
    [{ yangDirs: 'x' }, 'yangDirs'],
    [{ yangDirs: [1] }, 'yangDirs[0]'],
    [{ keyDelimiter: '/' }, 'keyDelimiter'],
    [{ bodyLimit: -1 }, 'bodyLimit'],
    [{ tls: { enabledTls: 'yes' } }, 'tls.enabledTls'],
    [{ tls: { bogus: 1 } }, 'tls.bogus'],
    [{ schemaFilters: { x: true } }, 'schemaFilters.x'],
    [{ defaultContent: 'nonconfig' }, 'defaultContent'],
    [{ fleet: 4 }, 'fleet'],
    [{ fleet: { installConcurency: 4 } }, 'fleet.installConcurency'],
    [{ fleet: { installConcurrency: 0 } }, 'fleet.installConcurrency'],
    [{ fleet: { installConcurrency: 2.5 } }, 'fleet.installConcurrency'],
    [{ fleet: { commitConcurrency: 0 } }, 'fleet.commitConcurrency'],
    [[], '(root)'],
  ];
  for (const [raw, field] of bad) {
    const e = t.throws(() => resolveConfig(raw, '/b'), { instanceOf: ConfigError });
    t.is(e!.field, field, JSON.stringify(raw));
  }
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-cfg-')), 'c.json');
  fs.writeFileSync(file, '{"port": 1,');
  t.throws(() => loadConfig(file), { message: /not valid JSON/ });
  t.throws(() => loadConfig('/nonexistent/config.json'), { message: /cannot read/ });
  fs.writeFileSync(file, '{"port": 9, "dataDir": "d", "yangDirs": ["y"]}');
  const ok = loadConfig(file, { yangDirs: ['z'] }, '/cwd');
  t.is(ok.dataDir, path.join(path.dirname(file), 'd'));
  t.deepEqual(ok.yangDirs, [path.join(path.dirname(file), 'y'), '/cwd/z']);
});

test('schema: own modules plus extra folders; collisions with own modules are errors', (t) => {
  const { schema, extraModules } = assembleSchema([modelYangDir([INTERFACES])]);
  t.truthy(schema.modules.get('ietf-interfaces')?.implemented);
  t.truthy(schema.modules.get('network-topology')?.implemented);
  t.is(extraModules.length, 1);
  // The same text as our own is taken once.
  const same = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-yang-'));
  fs.copyFileSync(path.join(OWN_YANG_DIR, 'yang-ext@2013-07-09.yang'), path.join(same, 'yang-ext@2013-07-09.yang'));
  t.notThrows(() => assembleSchema([same]));
  // A network-topology of the same name and revision with other text.
  const clash = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-yang-'));
  fs.writeFileSync(
    path.join(clash, 'network-topology@2013-10-21.yang'),
    'module network-topology { namespace "urn:TBD:params:xml:ns:yang:network-topology"; prefix nt; revision 2013-10-21; container network-topology; }',
  );
  t.throws(() => assembleSchema([clash]), {
    instanceOf: SchemaAssemblyError,
    message: /network-topology.*defines it differently: \/import ietf-inet-types: defined at /,
  });
  const broken = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-yang-'));
  fs.writeFileSync(path.join(broken, 'b.yang'), 'module b { namespace "urn:b"; prefix b; leaf x { type nosuchtype; } }');
  t.throws(() => assembleSchema([broken]), { instanceOf: SchemaAssemblyError, message: /b\.yang:\d+:\d+/ });
  t.throws(() => assembleSchema(['/nonexistent-yang-dir']), { message: /cannot read YANG folder/ });
});

test('stop lets a request in flight finish and refuses new connections', async (t) => {
  const s = await startTestService();
  const url = new URL(s.service.url);
  const body = JSON.stringify({ 'ietf-interfaces:interface': [{ name: 'slow', type: 'iana-if-type:ethernetCsmacd' }] });
  const answer = new Promise<string>((resolve) => {
    const sock = net.connect(Number(url.port), url.hostname, () => {
      sock.write(
        `PUT /rests/data/ietf-interfaces:interfaces/interface=slow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
      );
    });
    let out = '';
    sock
      .on('data', (d) => {
        out += d;
      })
      .on('close', () => resolve(out));
    setTimeout(() => sock.write(body.slice(10)), 300);
  });
  await new Promise((r) => setTimeout(r, 100));
  const stopped = s.service.stop();
  t.regex(await answer, /^HTTP\/1.1 201/);
  await stopped;
  await t.throwsAsync(fetch(`${s.service.url}/rests/yang-library-version`));
  t.truthy(s.service.datastores.config.current().children.length > 0);
});

test('rosetta start: bad flags exit 2 naming the problem; a good start serves and stops on SIGTERM', async (t) => {
  const errors: string[] = [];
  const logs: string[] = [];
  const origError = console.error;
  const origLog = console.log;
  console.error = (m: string) => errors.push(m);
  console.log = (m: string) => logs.push(m);
  try {
    t.is(await startCommand(['--port', 'x']), 2);
    t.regex(errors.pop()!, /--port/);
    t.is(await startCommand(['--nope']), 2);
    t.regex(errors.pop()!, /--nope/);
    t.is(await startCommand(['--yang', '/nonexistent-yang']), 2);
    t.regex(errors.pop()!, /--yang/);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-data-'));
    // Once started, the command's lines are the service's JSON log: each line's msg is read.
    const logTo = new PassThrough();
    createInterface({ input: logTo }).on('line', (line) => logs.push(JSON.parse(line).msg));
    const running = startCommand(['--port', '0', '--data-dir', dataDir, '--yang', modelYangDir([INTERFACES])], memoryDatastores, logTo);
    while (!logs.some((l) => l.includes('listening'))) await new Promise((r) => setTimeout(r, 20));
    const where = /listening on (\S+)\/rests/.exec(logs.find((l) => l.includes('listening'))!)![1]!;
    t.regex(where, /^http:\/\/127\.0\.0\.1:\d+$/);
    t.truthy(logs.some((l) => l.includes(`data in ${dataDir}`)));
    t.truthy(logs.some((l) => /modules loaded: .*ietf-interfaces@2018-02-20/.test(l)));
    t.is((await fetch(`${where}/rests/yang-library-version`)).status, 200);
    process.emit('SIGTERM', 'SIGTERM');
    t.is(await running, 0);
    await new Promise((r) => setImmediate(r)); // the last line through the stream
    t.truthy(logs.includes('rosetta: stopped'));
  } finally {
    console.error = origError;
    console.log = origLog;
  }
});
