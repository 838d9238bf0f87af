/**
 * RESTCONF URIs against real models: module-qualified first segment, bare later segments, composite,
 * empty, identityref and percent-encoded keys, the %22 key delimiter, %2F, mount points, RPC and
 * action paths, and every error with its status and tag.
 */
import test from 'ava';
import { RestconfError } from '../../src/restconf/errors';
import { parseDataPath, parseDevicePath, parseOperationPath, type ParsedPath } from '../../src/restconf/uri';
import { ietfSchema, ocSchema } from './fixture';
import { cpuStopwatch } from '../cpu-time';

const DELIM = { keyDelimiter: '%22' } as const;
const NO_DELIM = { keyDelimiter: null } as const;

function names(p: ParsedPath): string[] {
  return p.steps.map(
    (s) =>
      `${s.schema.module.name}:${s.schema.name}${s.keys ? `=${s.keys.map(String).join(',')}` : ''}${s.value !== undefined ? `=${String(s.value)}` : ''}`,
  );
}

function fails(t: import('ava').ExecutionContext, fn: () => unknown, status: number, tag: string, text?: RegExp): RestconfError {
  const err = t.throws(fn, { instanceOf: RestconfError }) as RestconfError;
  t.is(err.status, status, err.message);
  t.is(err.errors[0]!.tag, tag);
  if (text) t.regex(err.message, text);
  return err;
}

test('root and a plain container path', (t) => {
  const ctx = ietfSchema();
  const root = parseDataPath('', ctx, DELIM);
  t.deepEqual(root.steps, []);
  t.is(root.path, '/');
  t.is(root.target, undefined);
  t.deepEqual(parseDataPath('/', ctx, DELIM).steps, []);
  const p = parseDataPath('/ietf-interfaces:interfaces', ctx, DELIM);
  t.deepEqual(names(p), ['ietf-interfaces:interfaces']);
  t.is(p.path, '/ietf-interfaces:interfaces');
  t.is(p.target!.kind, 'container');
  // a trailing slash is ignored
  t.deepEqual(names(parseDataPath('ietf-interfaces:interfaces/', ctx, DELIM)), ['ietf-interfaces:interfaces']);
});

test('list entry, augmented child with its module, leaf', (t) => {
  const ctx = ietfSchema();
  const p = parseDataPath('/ietf-interfaces:interfaces/interface=eth0/ietf-ip:ipv4/mtu', ctx, DELIM);
  t.deepEqual(names(p), ['ietf-interfaces:interfaces', 'ietf-interfaces:interface=eth0', 'ietf-ip:ipv4', 'ietf-ip:mtu']);
  t.is(p.path, "/ietf-interfaces:interfaces/interface[name='eth0']/ietf-ip:ipv4/mtu");
  t.is(p.target!.kind, 'leaf');
  // the same with the augment prefix left out (the only 'ipv4' under interface)
  t.deepEqual(names(parseDataPath('/ietf-interfaces:interfaces/interface=eth0/ipv4/mtu', ctx, DELIM)), names(p));
  // an explicit module on a same-module node is fine too
  t.deepEqual(names(parseDataPath('/ietf-interfaces:interfaces/ietf-interfaces:interface=eth0', ctx, DELIM)).length, 2);
  // a whole list as the target
  const list = parseDataPath('/ietf-interfaces:interfaces/interface', ctx, DELIM);
  t.is(list.target!.kind, 'list');
  t.is(list.steps[1]!.keys, undefined);
});

test('keys are typed; composite, empty and uint keys', (t) => {
  const ctx = ietfSchema();
  const p = parseDataPath('/example-jukebox:jukebox/playlist=Foo%20One/song=5', ctx, DELIM);
  t.deepEqual(p.steps[1]!.keys, ['Foo One']);
  t.deepEqual(p.steps[2]!.keys, [5]);
  t.is(p.path, "/example-jukebox:jukebox/playlist[name='Foo One']/song[index='5']");
  const pair = parseDataPath('/rc-extra:box/pair=x,-3', ctx, DELIM);
  t.deepEqual(pair.steps[1]!.keys, ['x', -3]);
  const empty = parseDataPath('/rc-extra:box/pair=,7', ctx, DELIM);
  t.deepEqual(empty.steps[1]!.keys, ['', 7]);
  const lone = parseDataPath('/ietf-interfaces:interfaces/interface=', ctx, DELIM);
  t.deepEqual(lone.steps[1]!.keys, ['']);
  // reserved characters percent-encoded inside a key
  const reserved = parseDataPath('/ietf-interfaces:interfaces/interface=a%3Ab%2Cc%3Dd%40e%20%C3%A9', ctx, DELIM);
  t.deepEqual(reserved.steps[1]!.keys, ['a:b,c=d@e é']);
});

test('identityref keys carry their module; leaf-list values', (t) => {
  const ctx = ietfSchema();
  const p = parseDataPath('/rc-extra:box/typed=iana-if-type:ethernetCsmacd', ctx, DELIM);
  t.deepEqual(p.steps[1]!.keys, ['iana-if-type:ethernetCsmacd']);
  fails(t, () => parseDataPath('/rc-extra:box/typed=iana-if-type:noSuchType', ctx, DELIM), 400, 'invalid-value', /noSuchType/);
  const ll = parseDataPath('/rc-extra:box/plain=42', ctx, DELIM);
  t.is(ll.steps[1]!.value, 42);
  t.is(ll.path, "/rc-extra:box/plain[.='42']");
  fails(t, () => parseDataPath('/rc-extra:box/plain=70000', ctx, DELIM), 400, 'invalid-value');
  fails(t, () => parseDataPath('/rc-extra:box/plain=1,2', ctx, DELIM), 400, 'invalid-value', /one value/);
});

test('OpenConfig: identityref key with its module, composite key', (t) => {
  const ctx = ocSchema();
  const p = parseDataPath(
    '/openconfig-network-instance:network-instances/network-instance=default/protocols/protocol=openconfig-policy-types:STATIC,static',
    ctx,
    DELIM,
  );
  t.deepEqual(p.steps.at(-1)!.keys, ['openconfig-policy-types:STATIC', 'static']);
  t.is(
    p.path,
    "/openconfig-network-instance:network-instances/network-instance[name='default']/protocols/protocol[identifier='openconfig-policy-types:STATIC'][name='static']",
  );
  fails(
    t,
    () =>
      parseDataPath('/openconfig-network-instance:network-instances/network-instance=default/protocols/protocol=STATIC,static', ctx, DELIM),
    400,
    'invalid-value',
  );
  fails(
    t,
    () =>
      parseDataPath(
        '/openconfig-network-instance:network-instances/network-instance=default/protocols/protocol=openconfig-policy-types:STATIC',
        ctx,
        DELIM,
      ),
    400,
    'invalid-value',
    /2 key/,
  );
  const oci = parseDataPath('/openconfig-interfaces:interfaces/interface=%22Ethernet1/1%22/config/mtu', ctx, DELIM);
  t.deepEqual(oci.steps[1]!.keys, ['Ethernet1/1']);
  t.is(oci.target!.name, 'mtu');
});

test('the %22 key delimiter takes / , = literally; null disables it', (t) => {
  const ctx = ietfSchema();
  const p = parseDataPath('/ietf-interfaces:interfaces/interface=%22ge-0/0/1%22/description', ctx, DELIM);
  t.deepEqual(p.steps[1]!.keys, ['ge-0/0/1']);
  t.is(p.target!.name, 'description');
  const comma = parseDataPath('/rc-extra:box/pair=%22a,b=c%22,3', ctx, DELIM);
  t.deepEqual(comma.steps[1]!.keys, ['a,b=c', 3]);
  const inner = parseDataPath('/ietf-interfaces:interfaces/interface=%22a%22b%22', ctx, DELIM);
  t.deepEqual(inner.steps[1]!.keys, ['a"b']);
  fails(t, () => parseDataPath('/ietf-interfaces:interfaces/interface=%22ge-0/0/1', ctx, DELIM), 400, 'invalid-value', /never closes/);
  // disabled: %22 is just an escaped quote and '/' splits segments
  const off = parseDataPath('/ietf-interfaces:interfaces/interface=%22eth0%22', ctx, NO_DELIM);
  t.deepEqual(off.steps[1]!.keys, ['"eth0"']);
  fails(t, () => parseDataPath('/ietf-interfaces:interfaces/interface=%22ge-0/0/1%22', ctx, NO_DELIM), 400, 'invalid-value', /'0'/);
  fails(t, () => parseDataPath('/ietf-interfaces:interfaces/interface=%22ge/xy', ctx, NO_DELIM), 404, 'invalid-value', /'xy'/);
  // another configured delimiter
  t.deepEqual(parseDataPath("/ietf-interfaces:interfaces/interface='a/b'", ctx, { keyDelimiter: "'" }).steps[1]!.keys, ['a/b']);
});

test('%2F anywhere and bad percent-encoding are 400', (t) => {
  const ctx = ietfSchema();
  fails(t, () => parseDataPath('/ietf-interfaces:interfaces/interface=ge-0%2F0', ctx, DELIM), 400, 'invalid-value', /%2F/);
  fails(t, () => parseDataPath('/ietf-interfaces:interfaces/interface=%22ge-0%2f0%22', ctx, DELIM), 400, 'invalid-value');
  fails(t, () => parseDataPath('/ietf-interfaces%2Finterfaces', ctx, DELIM), 400, 'invalid-value');
  fails(t, () => parseDataPath('/ietf-interfaces:interfaces/interface=%G0', ctx, DELIM), 400, 'invalid-value', /percent/);
  fails(t, () => parseDataPath('/ietf-interfaces:interfaces/interface=abc%', ctx, DELIM), 400, 'invalid-value', /percent/);
  fails(t, () => parseDataPath('/ietf-interfaces:interfaces/interface=%C3%28', ctx, DELIM), 400, 'invalid-value', /percent/);
});

test('unknown segments are 404 naming the first unknown one', (t) => {
  const ctx = ietfSchema();
  let err = fails(t, () => parseDataPath('/ietf-interfaces:interfaces/bogus/more', ctx, DELIM), 404, 'invalid-value', /'bogus'/);
  t.deepEqual(err.errors[0]!.info, { 'bad-element': 'bogus' });
  err = fails(t, () => parseDataPath('/no-such-module:x', ctx, DELIM), 404, 'invalid-value', /no module 'no-such-module'/);
  fails(t, () => parseDataPath('/ietf-interfaces:nothing', ctx, DELIM), 404, 'invalid-value', /'ietf-interfaces:nothing'/);
  // wrong module on a child
  fails(t, () => parseDataPath('/ietf-interfaces:interfaces/example-jukebox:interface=x', ctx, DELIM), 404, 'invalid-value');
  // below a leaf
  fails(t, () => parseDataPath('/ietf-interfaces:interfaces/interface=eth0/mtu', ctx, DELIM), 404, 'invalid-value', /'mtu'/);
  fails(t, () => parseDataPath('/ietf-interfaces:interfaces/interface=eth0/description/x', ctx, DELIM), 404, 'invalid-value', /leaf/);
  // an rpc is no data resource
  fails(t, () => parseDataPath('/example-jukebox:play', ctx, DELIM), 404, 'invalid-value');
});

test('malformed segments and misplaced keys are 400', (t) => {
  const ctx = ietfSchema();
  fails(t, () => parseDataPath('/interfaces', ctx, DELIM), 400, 'invalid-value', /module/);
  fails(t, () => parseDataPath('/ietf-interfaces:interfaces//interface', ctx, DELIM), 400, 'invalid-value', /empty/);
  fails(t, () => parseDataPath('/ietf-interfaces:interfaces=x', ctx, DELIM), 400, 'invalid-value', /container/);
  fails(t, () => parseDataPath('/ietf-interfaces:interfaces/interface/name', ctx, DELIM), 400, 'invalid-value', /key values/);
  fails(t, () => parseDataPath('/rc-extra:box/pair=x', ctx, DELIM), 400, 'invalid-value', /2 key/);
  fails(t, () => parseDataPath('/rc-extra:box/pair=x,1,2', ctx, DELIM), 400, 'invalid-value', /3 value/);
  fails(t, () => parseDataPath('/rc-extra:box/pair=x,notanumber', ctx, DELIM), 400, 'invalid-value', /notanumber/);
  fails(t, () => parseDataPath('/ietf-interfaces:interfaces/interface=eth0/enabled=true', ctx, DELIM), 400, 'invalid-value', /no key/);
  fails(t, () => parseDataPath('/ietf interfaces:x', ctx, DELIM), 400, 'invalid-value');
  const err = fails(t, () => parseDataPath('/example-jukebox:jukebox/playlist=a/song=x', ctx, DELIM), 400, 'invalid-value');
  t.is(err.errors[0]!.path, "/example-jukebox:jukebox/playlist[name='a']/song");
});

test('mount points split the path; the device part parses against another schema', (t) => {
  const ctx = ietfSchema();
  const outer = parseDataPath(
    '/rc-extra:box/server=r1/yang-ext:mount/openconfig-interfaces:interfaces/interface=%22Ethernet1/1%22',
    ctx,
    DELIM,
  );
  t.truthy(outer.mount);
  t.deepEqual(names(outer), ['rc-extra:box', 'rc-extra:server=r1']);
  t.is(outer.mount!.devicePath, 'openconfig-interfaces:interfaces/interface=%22Ethernet1/1%22');
  t.is(outer.mount!.outerPath, "/rc-extra:box/server[name='r1']");
  const device = parseDevicePath(outer.mount!.devicePath, ocSchema(), DELIM, 'data', `${outer.path}/yang-ext:mount`);
  t.deepEqual(device.steps[1]!.keys, ['Ethernet1/1']);
  t.is(device.path, "/rc-extra:box/server[name='r1']/yang-ext:mount/openconfig-interfaces:interfaces/interface[name='Ethernet1/1']");
  // mount at the end: the device root
  t.is(parseDataPath('/rc-extra:box/server=r1/yang-ext:mount', ctx, DELIM).mount!.devicePath, '');
  t.is(parseDataPath('/rc-extra:box/server=r1/yang-ext:mount/', ctx, DELIM).mount!.devicePath, '');
  // unknown outer segment before the mount still 404
  fails(t, () => parseDataPath('/rc-extra:box/nope=r1/yang-ext:mount/x:y', ctx, DELIM), 404, 'invalid-value', /'nope=r1'/);
  // an unknown device segment is 404 too, with the outer path in the message
  fails(
    t,
    () => parseDevicePath('openconfig-interfaces:interfaces/bogus', ocSchema(), DELIM, 'data', '/outer'),
    404,
    'invalid-value',
    /\/outer/,
  );
});

test('RPC paths, device RPC paths and action paths', (t) => {
  const ctx = ietfSchema();
  const rpc = parseOperationPath('/example-jukebox:play', ctx, DELIM);
  t.is(rpc.operation!.name, 'play');
  t.is(rpc.operation!.kind, 'rpc');
  t.is(rpc.path, '/example-jukebox:play');
  t.deepEqual(parseOperationPath('', ctx, DELIM).steps, []);
  fails(t, () => parseOperationPath('/example-jukebox:nope', ctx, DELIM), 404, 'invalid-value', /no rpc 'nope'/);
  fails(t, () => parseOperationPath('/nomod:play', ctx, DELIM), 404, 'invalid-value', /no module/);
  fails(t, () => parseOperationPath('/example-jukebox:play/input', ctx, DELIM), 404, 'invalid-value');
  fails(t, () => parseOperationPath('/play', ctx, DELIM), 400, 'invalid-value');
  const mounted = parseOperationPath('/rc-extra:box/server=r1/yang-ext:mount/rc-extra:ping', ctx, DELIM);
  t.is(mounted.mount!.devicePath, 'rc-extra:ping');
  t.is(parseDevicePath(mounted.mount!.devicePath, ctx, DELIM, 'operations').operation!.name, 'ping');
  const action = parseDataPath('/rc-extra:box/server=r1/restart', ctx, DELIM);
  t.is(action.operation!.kind, 'action');
  t.is(action.target!.name, 'restart');
  fails(t, () => parseDataPath('/rc-extra:box/server=r1/restart/input', ctx, DELIM), 404, 'invalid-value');
});

test('garbage input: never throws anything but RestconfError, linear time', (t) => {
  const ctx = ietfSchema();
  const samples = [
    '%',
    '%%',
    '=',
    '/=/',
    ':',
    'a:',
    ':b',
    'ietf-interfaces:interfaces/interface=%22',
    '%22%22%22',
    '\u0000',
    'a'.repeat(1000),
    '/'.repeat(50),
    'ietf-interfaces:interfaces/interface=,,,,',
  ];
  for (const s of samples) {
    try {
      parseDataPath(s, ctx, DELIM);
    } catch (e) {
      t.true(e instanceof RestconfError, `${s}: ${String(e)}`);
    }
  }
  // a long key of delimiters and commas: linear, so well under a second
  const long = `/ietf-interfaces:interfaces/interface=%22${'%22a'.repeat(200_000)}`;
  const cpuMs = cpuStopwatch();
  t.throws(() => parseDataPath(long, ctx, DELIM), { instanceOf: RestconfError });
  const longKey = `/ietf-interfaces:interfaces/interface=${'x,'.repeat(200_000)}x`;
  t.throws(() => parseDataPath(longKey, ctx, DELIM), { instanceOf: RestconfError });
  const ms = cpuMs();
  t.true(ms < 1000, `${ms} ms of CPU`);
});
