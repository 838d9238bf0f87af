/**
 * Request-level audit of the RESTCONF contract (docs/restconf-api.md) against a real service: every query parameter with a good and a bad
 * value over HTTP, attributes on every node kind in JSON and XML, the error envelope in both encodings
 * with error-path, media types (yang.data+json), content=all, RPC input validated fully against the
 * schema before any implementation runs, RPC answers 200 with output, yang-library checked against
 * its own RFC 8525 schema, and bad input (XML nesting 10,000 deep, wrong types, unknown nodes).
 * The small module below holds what the corpus models lack: every node kind, an ordered-by user
 * leaf-list, a `when` on a defaulted leaf, and an RPC with nested constraints.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { decodeJson } from '../../src/data/json-decode';
import { validateTree } from '../../src/data/validate';
import { IANA_IF_TYPE, INTERFACES, JUKEBOX, modelYangDir, startTestService, type TestService } from './http-fixture';

const AUDIT_YANG = `
module audit {
  yang-version 1.1;
  namespace "urn:rosetta:test:audit";
  prefix au;
  container top {
    leaf mode { type enumeration { enum a; enum b; } default a; }
    leaf extra { when "../mode = 'b'"; type uint8; default 7; }
    leaf plain { type uint8; default 3; }
    leaf-list tag { type string; ordered-by user; }
    container empty-box { }
    list item {
      key name;
      ordered-by user;
      leaf name { type string; }
      leaf size { type uint16; }
    }
  }
  rpc configure {
    input {
      leaf mode { type enumeration { enum a; enum b; } }
      container target {
        presence "a target";
        leaf host { type string; mandatory true; }
      }
      list peer {
        key name;
        leaf name { type string; }
        leaf port { type uint16; must ". > 10" { error-message "port must be above 10"; } }
      }
      choice how {
        mandatory true;
        leaf fast { type empty; }
        leaf slow { type empty; }
      }
      leaf count { when "../mode = 'b'"; type uint8; }
    }
  }
}`;

let s: TestService;
test.before(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-audit-'));
  fs.writeFileSync(path.join(dir, 'audit.yang'), AUDIT_YANG);
  const plugins = path.join(dir, 'plugins.json');
  fs.writeFileSync(plugins, JSON.stringify({ watch: false, plugins: [] }));
  s = await startTestService({ yangDirs: [modelYangDir([JUKEBOX, INTERFACES, IANA_IF_TYPE]), dir], plugins }, []);
});
test.after.always(async () => {
  await s?.service.stop();
});

const TOP = '/rests/data/audit:top';
const IF = '/rests/data/ietf-interfaces:interfaces';
const XML = { 'content-type': 'application/yang-data+xml', accept: 'application/yang-data+xml' };
const firstError = (r: { json: any }) => r.json.errors.error[0];

async function seed(): Promise<void> {
  const r = await s.request('PUT', TOP, {
    body: JSON.stringify({
      'audit:top': {
        tag: ['x', 'y'],
        item: [
          { name: 'i1', size: 1 },
          { name: 'i2', size: 2 },
        ],
      },
    }),
  });
  if (r.status !== 201 && r.status !== 204) throw new Error(r.text);
}

test.serial('every query parameter: a good value is served, a bad one is 400 naming it', async (t) => {
  await seed();
  const ifs = JSON.stringify({
    'ietf-interfaces:interfaces': {
      interface: ['b', 'a', 'c'].map((n, i) => ({ name: n, type: 'iana-if-type:ethernetCsmacd', enabled: i !== 1 })),
    },
  });
  t.is((await s.request('PUT', IF, { body: ifs })).status, 201);
  const good: Array<[string, number]> = [
    ['content=config', 200],
    ['content=nonconfig', 404],
    ['content=all', 200],
    ['depth=1', 200],
    ['depth=unbounded', 200],
    ['fields=name', 200],
    ['fields=name;enabled', 200],
    ['offset=1', 200],
    ['limit=2', 200],
    ['fetch=count', 200],
    ['sortby=name(desc)', 200],
    ['sortby=ietf-interfaces:name;enabled(asc)', 200],
    ['jsonb-filter=%7B%40%2Fenabled%7D%20%3D%3D%20true', 200],
    ['with-defaults', 200],
    ['with-defaults=report-all', 200],
    ['with-defaults=explicit', 200],
    ['with-defaults=trim', 200],
    ['with-defaults=report-all-tagged', 200],
    ['hideEmptyDataNodes=true', 200],
    ['hideAttributes=true', 200],
    ['unhide=all', 200],
  ];
  for (const [q, status] of good) {
    const r = await s.request('GET', `${IF}/interface?${q}`);
    t.is(r.status, status, `${q}: ${r.text}`);
  }
  const bad: Array<[string, string]> = [
    ['content=some', 'content'],
    ['depth=0', 'depth'],
    ['depth=65536', 'depth'],
    ['depth=x', 'depth'],
    ['fields=', 'fields'],
    ['fields=name(', 'fields'],
    ['fields=nosuch', 'fields'],
    ['offset=-1', 'offset'],
    ['offset=x', 'offset'],
    ['limit=x', 'limit'],
    ['fetch=all', 'fetch'],
    ['sortby=name(up)', 'sortby'],
    ['sortby=nosuch', 'sortby'],
    ['jsonb-filter=%7B%40%2Fenabled', 'jsonb-filter'],
    ['with-defaults=sometimes', 'with-defaults'],
    ['hideEmptyDataNodes=maybe', 'hideEmptyDataNodes'],
    ['hideAttributes=1', 'hideAttributes'],
    ['checkForReferences=yes', 'checkForReferences'],
    ['insert=first', 'insert'],
    ['point=a', 'point'],
    ['apply-tags=true', 'apply-tags'],
    ['nosuch=1', 'nosuch'],
    ['depth=1&depth=2', 'depth'],
  ];
  for (const [q, name] of bad) {
    const r = await s.request('GET', `${IF}/interface?${q}`);
    t.is(r.status, 400, `${q}: ${r.text}`);
    t.true(JSON.stringify(r.json?.errors ?? r.text).includes(name), `${q} names ${name}: ${r.text}`);
  }
  // Values, not only statuses.
  let r = await s.request('GET', `${IF}/interface?fetch=count&jsonb-filter=%7B%40%2Fenabled%7D%20%3D%3D%20true`);
  t.is(r.text, '2');
  r = await s.request('GET', `${IF}/interface?sortby=name(desc)&offset=1&limit=1&fields=name`);
  t.deepEqual(r.json, { 'ietf-interfaces:interface': [{ name: 'b' }] });
  r = await s.request('GET', `${IF}?sortby=name`);
  t.is(r.status, 400, 'sortby needs a list target');
  // Lists only, except fetch=count on a container.
  t.is((await s.request('GET', `${TOP}?fetch=count`)).status, 200);
});

test.serial('with-defaults honours when: a defaulted leaf whose when is false is not reported', async (t) => {
  await seed();
  let r = await s.request('GET', `${TOP}?with-defaults=report-all&fields=mode;extra;plain`);
  t.is(r.status, 200, r.text);
  t.deepEqual(r.json, { 'audit:top': { mode: 'a', plain: 3 } }, 'extra (when mode = b) is absent while mode is a');
  t.is((await s.request('PATCH', TOP, { body: JSON.stringify({ 'audit:top': { mode: 'b' } }) })).status, 200);
  r = await s.request('GET', `${TOP}?with-defaults=report-all&fields=mode;extra;plain`);
  t.deepEqual(r.json, { 'audit:top': { mode: 'b', extra: 7, plain: 3 } });
  r = await s.request('GET', `${TOP}?with-defaults=report-all-tagged&fields=plain`);
  t.deepEqual(r.json, { 'audit:top': { plain: { '@': { 'ietf-netconf-with-defaults:default': true }, '#': 3 } } });
  t.is((await s.request('PATCH', TOP, { body: JSON.stringify({ 'audit:top': { mode: 'a' } }) })).status, 200);
});

test.serial('insert/point on PUT and POST for ordered-by user lists and leaf-lists, both point forms', async (t) => {
  await seed();
  let r = await s.request('PUT', `${TOP}/item=i0?insert=first`, { body: JSON.stringify({ 'audit:item': [{ name: 'i0' }] }) });
  t.is(r.status, 201, r.text);
  r = await s.request('POST', `${TOP}?insert=after&point=${encodeURIComponent('/audit:top/item=i1')}`, {
    body: JSON.stringify({ 'audit:item': [{ name: 'i15' }] }),
  });
  t.is(r.status, 201, r.text);
  r = await s.request('POST', `${TOP}?insert=before&point=x`, { body: JSON.stringify({ 'audit:tag': ['w'] }) });
  t.is(r.status, 201, r.text);
  r = await s.request('GET', TOP);
  t.deepEqual(
    r.json['audit:top'].item.map((e: any) => e.name),
    ['i0', 'i1', 'i15', 'i2'],
  );
  t.deepEqual(r.json['audit:top'].tag, ['w', 'x', 'y']);
  r = await s.request('POST', `${TOP}?insert=after&point=nosuch`, { body: JSON.stringify({ 'audit:item': [{ name: 'i9' }] }) });
  t.is(r.status, 400, 'a point that does not exist');
  r = await s.request('PATCH', `${TOP}?insert=first`, { body: JSON.stringify({ 'audit:top': {} }) });
  t.is(r.status, 400, 'insert with PATCH');
});

test.serial(
  'attributes on every node kind: stored by PUT, POST and PATCH, shown by GET in JSON and XML, dropped by hideAttributes',
  async (t) => {
    const A = { 'ietf-netconf-with-defaults:default': true };
    const body = {
      'audit:top': {
        '@': A,
        plain: { '@': A, '#': 4 },
        tag: [{ '@': A, '#': 'x' }, 'y'],
        item: { '@': A, '#': [{ name: 'i1', '@': A }] },
      },
    };
    let r = await s.request('PUT', TOP, { body: JSON.stringify(body) });
    t.is(r.status, 204, r.text);
    r = await s.request('PATCH', TOP, { body: JSON.stringify({ 'audit:top': { 'empty-box': { '@': A } } }) });
    t.is(r.status, 200, r.text);
    r = await s.request('POST', TOP, { body: JSON.stringify({ 'audit:tag': { '@': A, '#': ['z'] } }) });
    t.is(r.status, 201, r.text);
    r = await s.request('GET', TOP);
    const top = r.json['audit:top'];
    t.deepEqual(top['@'], A, 'container');
    t.deepEqual(top.plain, { '@': A, '#': 4 }, 'leaf');
    t.deepEqual(top.item['@'], A, 'list');
    t.deepEqual(top.item['#'][0]['@'], A, 'list entry');
    t.true(JSON.stringify(top.tag).includes('"@"'), `leaf-list and its entries: ${JSON.stringify(top.tag)}`);
    t.deepEqual(top['empty-box'], { '@': A }, 'container stored by PATCH');
    const x = await s.request('GET', TOP, { headers: { accept: 'application/yang-data+xml' } });
    t.is(x.status, 200);
    t.regex(x.text, /<plain [^>]*:default="true"[^>]*>4<\/plain>/, x.text);
    t.regex(x.text, /<top [^>]*:default="true"/);
    t.regex(
      x.text,
      /<top [^>]*xmlns:wd="urn:ietf:params:xml:ns:netconf:default:1\.0" wd:default="true"/,
      "RFC 8040 §4.8.9: RFC 6243's namespace",
    );
    t.false(x.text.includes('urn:ietf:params:xml:ns:yang:ietf-netconf-with-defaults'), x.text);
    t.regex(x.text, /<item [^>]*:default="true"><name>i1<\/name><\/item>/, 'list entry');
    t.regex(x.text, /<tag [^>]*:default="true">x<\/tag><tag>y<\/tag>/, 'leaf-list entry');
    const hidden = await s.request('GET', `${TOP}?hideAttributes=true`);
    t.false(hidden.text.includes('"@"'), hidden.text);
    // XML in: attributes on a leaf and a container, in RFC 6243's namespace; the module's is read too.
    const xmlBody =
      '<top xmlns="urn:rosetta:test:audit" xmlns:wd="urn:ietf:params:xml:ns:netconf:default:1.0" wd:default="true"><plain wd:default="true">5</plain></top>';
    r = await s.request('PUT', TOP, { body: xmlBody, headers: XML });
    t.is(r.status, 204, r.text);
    r = await s.request('GET', TOP);
    t.deepEqual(r.json['audit:top']['@'], A);
    t.deepEqual(r.json['audit:top'].plain, { '@': A, '#': 5 });
    const moduleNamespace =
      '<plain xmlns="urn:rosetta:test:audit" xmlns:d="urn:ietf:params:xml:ns:yang:ietf-netconf-with-defaults" d:default="true">5</plain>';
    r = await s.request('PUT', `${TOP}/plain`, { body: moduleNamespace, headers: XML });
    t.is(r.status, 204, r.text);
    r = await s.request('GET', `${TOP}/plain`);
    t.deepEqual(r.json, { 'audit:plain': { '@': A, '#': 5 } });
    // An undeclared attribute is 400 unknown-attribute, nothing stored.
    r = await s.request('PUT', `${TOP}/plain`, { body: JSON.stringify({ 'audit:plain': { '@': { 'audit:nope': 1 }, '#': 6 } }) });
    t.is(r.status, 400);
    t.is(firstError(r)['error-tag'], 'unknown-attribute');
    t.is((await s.request('GET', `${TOP}/plain`)).json['audit:plain']['#'], 5);
  },
);

test.serial('error envelope in JSON and XML with error-path; no stack traces', async (t) => {
  const j = await s.request('PUT', `${IF}/interface=e1`, {
    body: JSON.stringify({ 'ietf-interfaces:interface': [{ name: 'e1', type: 'iana-if-type:ethernetCsmacd', enabled: 'maybe' }] }),
  });
  t.is(j.status, 400);
  t.deepEqual(Object.keys(j.json), ['errors']);
  const e = firstError(j);
  t.true(['protocol', 'application'].includes(e['error-type']), e['error-type']);
  t.is(e['error-tag'], 'invalid-value');
  t.regex(e['error-path'], /interface\[name='e1'\]\/enabled/);
  t.notRegex(j.text, /at .*\.js:\d+/);
  const x = await s.request('PUT', `${IF}/interface=e1`, {
    body: '<interface xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><name>e1</name><type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:ethernetCsmacd</type><enabled>maybe</enabled></interface>',
    headers: XML,
  });
  t.is(x.status, 400);
  t.regex(x.headers.get('content-type') ?? '', /yang-data\+xml/);
  t.regex(x.text, /^<errors xmlns="urn:ietf:params:xml:ns:yang:ietf-restconf">/);
  t.regex(x.text, /<error-type>(protocol|application)<\/error-type>/);
  t.regex(x.text, /<error-tag>invalid-value<\/error-tag>/);
  t.regex(
    x.text,
    /<error-path xmlns:ietf-interfaces="urn:ietf:params:xml:ns:yang:ietf-interfaces">\/ietf-interfaces:interfaces\/ietf-interfaces:interface\[ietf-interfaces:name='e1'\]\/ietf-interfaces:enabled<\/error-path>/,
    x.text,
  );
  t.notRegex(x.text, /at .*\.js:\d+/);
});

test.serial('media types: application/yang.data+json in and out; missing Accept answers JSON', async (t) => {
  let r = await s.request('PUT', `${IF}/interface=m1`, {
    body: JSON.stringify({ 'ietf-interfaces:interface': [{ name: 'm1', type: 'iana-if-type:ethernetCsmacd' }] }),
    headers: { 'content-type': 'application/yang.data+json' },
  });
  t.is(r.status, 201, r.text);
  r = await s.request('GET', `${IF}/interface=m1`, { headers: { accept: 'application/yang.data+json' } });
  t.is(r.status, 200);
  t.regex(r.headers.get('content-type') ?? '', /application\/yang\.data\+json/);
  r = await s.request('GET', `${IF}/interface=m1`, { headers: { accept: 'application/xml' } });
  t.regex(r.text, /^<interface xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces">/);
  r = await s.request('GET', `${IF}/interface=m1`, { headers: { accept: 'application/json' } });
  t.is(r.json['ietf-interfaces:interface'][0].name, 'm1');
});

test.serial('content=all merges Config and Operational into one answer', async (t) => {
  const r = await s.request('GET', '/rests/data?depth=1');
  t.is(r.status, 200);
  const data = r.json['ietf-restconf:data'];
  t.truthy(data['ietf-interfaces:interfaces'], 'config');
  t.truthy(data['ietf-yang-library:yang-library'], 'state');
  const c = await s.request('GET', '/rests/data?depth=1&content=config');
  t.falsy(c.json['ietf-restconf:data']['ietf-yang-library:yang-library']);
});

test.serial(
  'RPC input is validated fully against the schema before any implementation (nested mandatory, choice, must, when, types, unknown nodes)',
  async (t) => {
    const call = (input: unknown, headers?: Record<string, string>) =>
      s.request('POST', '/rests/operations/audit:configure', {
        body: typeof input === 'string' ? input : JSON.stringify({ 'audit:input': input }),
        ...(headers ? { headers } : {}),
      });
    const cases: Array<[unknown, string, RegExp]> = [
      [{ fast: [null], target: {} }, 'missing-element', /\/input\/target\/host/],
      [{}, 'missing-element', /\/input/],
      [{ fast: [null], slow: [null] }, 'bad-element', /./],
      [{ fast: [null], peer: [{ name: 'p', port: 5 }] }, 'invalid-value', /peer\[name='p'\]\/port/],
      [{ fast: [null], count: 3 }, 'unknown-element', /count/],
      [{ fast: [null], peer: [{ name: 'p', port: 'x' }] }, 'invalid-value', /port/],
      [{ fast: [null], bogus: 1 }, 'unknown-element', /bogus|input/],
    ];
    for (const [input, tag, where] of cases) {
      const r = await call(input);
      t.is(r.status, 400, `${JSON.stringify(input)}: ${r.text}`);
      const tags = r.json.errors.error.map((e: any) => e['error-tag']);
      if (tag !== 'bad-element') t.true(tags.includes(tag), `${JSON.stringify(input)}: ${r.text}`);
      t.regex(JSON.stringify(r.json.errors.error.map((e: any) => e['error-path'] ?? '')), where, r.text);
    }
    // Valid input: checked, then 501 because nothing implements it.
    let r = await call({ mode: 'b', count: 2, fast: [null], target: { host: 'h' }, peer: [{ name: 'p', port: 830 }] });
    t.is(r.status, 501, r.text);
    r = await call('<input xmlns="urn:rosetta:test:audit"><fast/><target><host>h</host></target></input>', {
      'content-type': 'application/yang-data+xml',
    });
    t.is(r.status, 501, r.text);
    r = await call('<input xmlns="urn:rosetta:test:audit"><target/></input>', { 'content-type': 'application/yang-data+xml' });
    t.is(r.status, 400, r.text);
  },
);

test.serial('RPC answers 200 with output (JSON and XML) when implemented', async (t) => {
  let r = await s.request('POST', '/rests/operations/rosetta-plugins:reload');
  t.is(r.status, 200, r.text);
  t.true(Number.isInteger(r.json['rosetta-plugins:output'].generation));
  r = await s.request('POST', '/rests/operations/rosetta-plugins:reload', { headers: { accept: 'application/yang-data+xml' } });
  t.is(r.status, 200);
  t.regex(r.text, /^<output xmlns="[^"]+"><generation>\d+<\/generation>/);
});

test.serial('ietf-yang-library data is valid against ietf-yang-library (RFC 8525) and lists exactly the loaded modules', async (t) => {
  const r = await s.request('GET', '/rests/data/ietf-yang-library:yang-library');
  t.is(r.status, 200);
  // The module also holds RFC 7895's modules-state, with mandatory leaves: the two are valid together.
  const legacy = await s.request('GET', '/rests/data/ietf-yang-library:modules-state');
  t.is(legacy.status, 200);
  const decoded = decodeJson({ ...r.json, ...legacy.json }, s.service.schema, {});
  t.deepEqual(
    validateTree(decoded.root, s.service.schema, { type: 'data', checkLeafrefs: true }).map((f) => `${f.path}: ${f.message}`),
    [],
  );
  const lib = r.json['ietf-yang-library:yang-library'];
  const set = lib['module-set'][0];
  const implemented = [...s.service.schema.modules.values()].filter((m) => m.implemented);
  t.is(set.module.length, implemented.length);
  for (const m of implemented) {
    const entry = set.module.find((e: any) => e.name === m.name);
    t.truthy(entry, m.name);
    t.is(entry.namespace, m.namespace);
    if (m.revision) t.is(entry.revision, m.revision);
  }
  t.truthy(
    set.module.find((e: any) => e.name === 'audit'),
    'a --yang module is listed',
  );
  const state = legacy.json['ietf-yang-library:modules-state'];
  t.is(state['module-set-id'], lib['content-id']);
  t.deepEqual(
    state.module
      .filter((e: any) => e['conformance-type'] === 'implement')
      .map((e: any) => e.name)
      .sort(),
    implemented.map((m) => m.name).sort(),
  );
  t.deepEqual(
    state.module
      .filter((e: any) => e['conformance-type'] === 'import')
      .map((e: any) => `${e.name}@${e.revision}`)
      .sort(),
    (set['import-only-module'] ?? []).map((e: any) => `${e.name}@${e.revision}`).sort(),
  );
  t.deepEqual(lib.schema, [{ name: 'complete', 'module-set': ['complete'] }]);
  t.regex(lib['content-id'], /^[0-9a-f]+$/);
  const v = await s.request('GET', '/rests/yang-library-version');
  t.deepEqual(v.json, { 'ietf-restconf:yang-library-version': '2019-01-04' });
});

test.serial('bad input changes nothing: XML nested 10,000 deep, unknown nodes, wrong types, bad escapes, trailing &', async (t) => {
  await seed();
  const before = (await s.request('GET', TOP)).text;
  const deepXml = `<top xmlns="urn:rosetta:test:audit">${'<a>'.repeat(10_000)}${'</a>'.repeat(10_000)}</top>`;
  const attempts: Array<[string, string, string, Record<string, string> | undefined, number]> = [
    ['PUT', TOP, deepXml, XML, 400],
    ['PUT', TOP, `{"audit:top":${'['.repeat(10_000)}${']'.repeat(10_000)}}`, undefined, 400],
    ['PUT', TOP, JSON.stringify({ 'audit:top': { nosuch: 1 } }), undefined, 400],
    ['PUT', TOP, JSON.stringify({ 'audit:top': { plain: 300 } }), undefined, 400],
    ['PATCH', TOP, JSON.stringify({ 'audit:top': { item: [{ name: 'i1', size: -1 }] } }), undefined, 400],
    ['PUT', TOP, '<top xmlns="urn:rosetta:test:audit"><plain>1</plain>', XML, 400],
    ['PUT', TOP, '<top xmlns="urn:other"/>', XML, 400],
    ['PUT', `${TOP}/item=%ZZ`, JSON.stringify({ 'audit:item': [{ name: 'x' }] }), undefined, 400],
    ['DELETE', `${TOP}/item=i1?depth=1&`, '', undefined, 400],
  ];
  for (const [method, p, body, headers, status] of attempts) {
    const r = await s.request(method, p, { ...(body !== '' ? { body } : {}), ...(headers ? { headers } : {}) });
    t.is(r.status, status, `${method} ${p.slice(0, 60)} ${body.slice(0, 60)}: ${r.text.slice(0, 300)}`);
    t.true(r.text.includes('error-tag'), `envelope: ${r.text.slice(0, 200)}`);
  }
  t.is((await s.request('GET', TOP)).text, before, 'nothing changed');
  t.is(s.errors.filter((e) => /TypeError|RangeError|Maximum call stack/.test(e)).length, 0, s.errors.join('\n'));
});

test.serial(
  'YANG Patch (XML): prefixes declared on <edit> and <value> resolve; per-edit errors name the edit and tag; atomic',
  async (t) => {
    const body = `<yang-patch xmlns="urn:ietf:params:xml:ns:yang:ietf-yang-patch"><patch-id>px</patch-id>
    <edit xmlns:ia="urn:ietf:params:xml:ns:yang:iana-if-type"><edit-id>e1</edit-id><operation>create</operation><target>/interface=x1</target>
      <value><interface xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><name>x1</name><type>ia:ethernetCsmacd</type></interface></value></edit>
    <edit><edit-id>e2</edit-id><operation>create</operation><target>/interface=x2</target>
      <value xmlns:ib="urn:ietf:params:xml:ns:yang:iana-if-type"><interface xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><name>x2</name><type>ib:softwareLoopback</type></interface></value></edit>
  </yang-patch>`;
    const headers = { 'content-type': 'application/yang-patch+xml', accept: 'application/yang-data+xml' };
    let r = await s.request('PATCH', IF, { body, headers });
    t.is(r.status, 200, r.text);
    t.regex(r.text, /<ok\/>/);
    r = await s.request('GET', `${IF}/interface=x2/type`);
    t.deepEqual(r.json, { 'ietf-interfaces:type': 'iana-if-type:softwareLoopback' });
    // Again: both creates fail (data-exists), with the edit-id, and nothing changes.
    const again = body
      .replace('<patch-id>px</patch-id>', '<patch-id>py</patch-id>')
      .replace('<operation>create</operation><target>/interface=x2', '<operation>delete</operation><target>/interface=x2');
    r = await s.request('PATCH', IF, { body: again, headers });
    t.not(r.status, 200, r.text);
    t.regex(r.text, /<edit><edit-id>e1<\/edit-id><errors><error>.*<error-tag>data-exists<\/error-tag>/s, r.text);
    t.is((await s.request('GET', `${IF}/interface=x2`)).status, 200, 'the delete of x2 was not applied');
    // An insert without a point: the edit's own error.
    const noPoint = `<yang-patch xmlns="urn:ietf:params:xml:ns:yang:ietf-yang-patch"><patch-id>pz</patch-id>
    <edit><edit-id>i1</edit-id><operation>insert</operation><target>/item=n1</target><where>after</where>
      <value><item xmlns="urn:rosetta:test:audit"><name>n1</name></item></value></edit></yang-patch>`;
    r = await s.request('PATCH', TOP, { body: noPoint, headers });
    t.not(r.status, 200, r.text);
    t.regex(r.text, /<edit-id>i1<\/edit-id>/, r.text);
  },
);

test.serial('jsonb-filter absolute paths read the datastores content selects (state data with content=all)', async (t) => {
  const filter = encodeURIComponent('exists({$/ietf-yang-library:yang-library/content-id})');
  const all = await s.request('GET', `${IF}/interface?fetch=count&jsonb-filter=${filter}`);
  t.is(all.status, 200, all.text);
  t.true(Number(all.text) > 0, all.text);
  const config = await s.request('GET', `${IF}/interface?content=config&fetch=count&jsonb-filter=${filter}`);
  t.is(config.text, '0', 'config alone holds no yang-library');
});
