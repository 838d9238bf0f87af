/**
 * The mount layer's pieces without a server: device schemas from module text (the test models of IETF
 * modules; a module that does not compile and its importers left out with the reason, the rest
 * served; one compiled schema per module set), the NETCONF XML codec, sealed secrets, and the mapping of
 * southbound errors by shape.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { deviceCodec, deviceFault, DeviceSchemaCache, type MountError, SecretBox } from '../../src/mount';
import { DataError } from '../../src/data/errors';
import { OWN_YANG_DIR } from '../../src/service/schema';
import { testModel } from '../test-models';

const source = (file: string) => {
  const base = path.basename(file, '.yang');
  const [name, revision] = base.split('@');
  return { name: name!, ...(revision ? { revision } : {}), text: fs.readFileSync(file, 'utf8') };
};
const IETF = [
  testModel('ietf-interfaces@2018-02-20.yang'),
  testModel('ietf-ip@2018-02-22.yang'),
  path.join(OWN_YANG_DIR, 'ietf-inet-types@2013-07-15.yang'),
  path.join(OWN_YANG_DIR, 'ietf-yang-types@2013-07-15.yang'),
].map(source);
const BROKEN = {
  name: 'acme-broken',
  revision: '2024-01-01',
  text: 'module acme-broken { namespace "urn:b"; prefix b; revision 2024-01-01; leaf x { type no-such-type; } }',
};
const IMPORTER = {
  name: 'acme-user',
  text: 'module acme-user { namespace "urn:u"; prefix u; import acme-broken { prefix b; } container c { leaf y { type string; } } }',
};

test('a device module set compiles; a broken module and its importer are left out with the reason', (t) => {
  const cache = new DeviceSchemaCache();
  const good = cache.forSources(IETF, [OWN_YANG_DIR]);
  t.deepEqual(good.failed, []);
  t.truthy(good.schema.modules.get('ietf-ip')?.implemented);
  t.is(cache.forSources([...IETF].reverse(), [OWN_YANG_DIR]), good, 'the same module set shares one schema');

  const mixed = cache.forSources([...IETF, BROKEN, IMPORTER], [OWN_YANG_DIR]);
  const failed = new Map(mixed.failed.map((f) => [f.module, f.reason]));
  t.regex(failed.get('acme-broken@2024-01-01') ?? '', /no-such-type/);
  t.true(failed.has('acme-user'), JSON.stringify(mixed.failed));
  t.truthy(mixed.schema.modules.get('ietf-interfaces'));
  t.is(mixed.schema.modules.get('acme-user'), undefined);
  t.is(mixed.schema.diagnostics.filter((d) => d.severity === 'error').length, 0);

  const garbage = cache.forSources([{ name: 'junk', text: 'module junk { ' }, ...IETF], [OWN_YANG_DIR]);
  t.true(garbage.failed.some((f) => f.module === 'junk'));
});

test('the codec turns get replies into RFC 7951 JSON with content filtering; malformed replies are DataErrors (rpc and action replies: netconf-mount.test)', (t) => {
  const schema = new DeviceSchemaCache().forSources(IETF, [OWN_YANG_DIR]).schema;
  const codec = deviceCodec(schema);
  const data = `<data xmlns="urn:ietf:params:xml:ns:netconf:base:1.0" xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">
    <interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface><name>eth0</name><description>up</description><enabled>true</enabled></interface></interfaces>
    <interfaces-state xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><interface><name>eth0</name><oper-status>up</oper-status></interface></interfaces-state></data>`;
  const all = codec.fromXml(data);
  t.deepEqual((all['ietf-interfaces:interfaces'] as any).interface[0], { name: 'eth0', description: 'up', enabled: true });
  // members are made when first read, and the answer reads as plain frozen JSON every way
  const expected = {
    'ietf-interfaces:interfaces': { interface: [{ name: 'eth0', description: 'up', enabled: true }] },
    'ietf-interfaces:interfaces-state': { interface: [{ name: 'eth0', 'oper-status': 'up' }] },
  };
  const fresh = codec.fromXml(data);
  t.deepEqual(Object.keys(fresh), Object.keys(expected));
  t.deepEqual(JSON.parse(JSON.stringify(fresh)), expected);
  t.deepEqual({ ...codec.fromXml(data) }, expected);
  t.deepEqual(Object.fromEntries(Object.entries(codec.fromXml(data))), expected);
  t.is(fresh['ietf-interfaces:interfaces'], fresh['ietf-interfaces:interfaces'], 'made once');
  t.true(Object.isFrozen(fresh));
  t.throws(
    () => {
      (fresh as Record<string, unknown>)['ietf-interfaces:interfaces'] = {};
    },
    { instanceOf: TypeError },
  );
  const config = codec.fromXml(data, { content: 'config' });
  t.deepEqual(Object.keys(config), ['ietf-interfaces:interfaces']);
  const state = codec.fromXml(data, { content: 'nonconfig' });
  t.deepEqual(Object.keys(state), ['ietf-interfaces:interfaces-state']);
  t.deepEqual(codec.fromXml('<data xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"/>'), {});
  t.throws(() => codec.fromXml('<data><interfaces xmlns="urn:nope"/></data>'), { instanceOf: DataError });
  t.throws(() => codec.fromXml('not xml at all'), { instanceOf: DataError });
  t.throws(() => codec.fromXml('<data><unclosed>'), { instanceOf: DataError });
  // in pieces as it arrives (each cut after an end tag): the same answers, content cut and all
  for (const content of [undefined, 'config', 'nonconfig'] as const) {
    const reader = codec.dataReader(content === undefined ? {} : { content });
    const cuts = [...data.matchAll(/<\/[^>]*>/g)].map((m) => m.index! + m[0].length).filter((_, i) => i % 2 === 0);
    let from = 0;
    for (const cut of cuts.slice(0, -1)) {
      reader.push(data.slice(from, cut));
      from = cut;
    }
    const answer = reader.end(data.slice(from));
    t.deepEqual(
      JSON.parse(JSON.stringify(answer)),
      JSON.parse(JSON.stringify(codec.fromXml(data, content === undefined ? {} : { content }))),
      `content ${content}`,
    );
    t.true(Object.isFrozen(answer));
  }
  t.throws(() => codec.dataReader().push('<rpc-reply><data>'), { message: /element is <data>/ });
  t.throws(
    () => {
      const r = codec.dataReader();
      r.push('<data><interfaces xmlns="urn:nope"></interfaces>');
      r.end('</data>');
    },
    { instanceOf: DataError },
  );
});

test('secrets: sealed values open only with the same data folder key (mode 0600)', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-secrets-'));
  const box = SecretBox.open(dir);
  const sealed = box.seal('p@ss');
  t.false(sealed.includes('p@ss'));
  t.true(SecretBox.isSealed(sealed));
  t.not(box.seal('p@ss'), sealed, 'a fresh IV each time');
  t.is(SecretBox.open(dir).open(sealed), 'p@ss');
  t.is(fs.statSync(path.join(dir, 'device-secrets.key')).mode & 0o777, 0o600);
  const other = SecretBox.open(fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-secrets-')));
  t.is(other.open(sealed), undefined);
  t.is(box.open('$rosetta$aes-256-gcm$x$y'), undefined);
  t.is(box.open('plain'), undefined);
});

test('southbound errors map by shape: rpc-errors keep tag and path, refused commands name the command, the rest is 502', (t) => {
  const rpc = deviceFault(
    'N1',
    Object.assign(new Error('x'), { faults: [{ tag: 'data-exists', path: '/m:a', message: 'exists', type: 'protocol' }] }),
  ) as MountError;
  t.is(rpc.status, 409);
  t.deepEqual(rpc.entries[0], { type: 'protocol', tag: 'data-exists', message: "device 'N1': exists", path: '/m:a' });
  const cli = deviceFault(
    'R1',
    Object.assign(new Error('x'), {
      status: 502,
      tag: 'operation-failed',
      command: 'ip route 1.1.1.1/32 foo',
      deviceMessage: '% Unknown command',
    }),
  ) as MountError;
  t.is(cli.status, 502);
  t.regex(cli.entries[0]!.message, /refused 'ip route 1\.1\.1\.1\/32 foo': % Unknown command/);
  const timeout = deviceFault(
    'R1',
    Object.assign(new Error('no prompt'), { status: 504, tag: 'operation-failed', command: 'show x' }),
  ) as MountError;
  t.is(timeout.status, 504);
  const plain = deviceFault('R1', new Error('socket closed')) as MountError;
  t.is(plain.status, 502);
  t.is(plain.entries[0]!.tag, 'southbound_no_connection');
  t.is((deviceFault('R1', 'weird') as MountError).status, 502);
  t.is((deviceFault('R1', null) as MountError).status, 502);
});
