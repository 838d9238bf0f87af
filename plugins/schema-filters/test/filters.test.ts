/**
 * The schema-filters plugin on a real service (durable datastores, real HTTP): hiding on read by
 * extension and by status, `unhide`, the query parameters seeing the filtered tree, ignoring on write,
 * dropping unknown body members (JSON and XML), the plugin switched off, and every settings field
 * with its bad values stopping start-up with the field named.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { loadConfig, ConfigError } from '@rosetta/core/dist/src/service/config';
import { FilterSettingsError, parseFilterSettings } from '../src/index';
import { startFilterService } from './support/service';

const SYSTEM = '/rests/data/filters-test:system';

/** Everything the test model can hold, written with unhide=all so that nothing is ignored. */
const FULL = {
  'filters-test:system': {
    hostname: 'r1',
    'secret-sauce': 'ketchup',
    'trace-level': 7,
    'old-name': 'router-one',
    internal: { counter: 42 },
    'serial-line': 'ttyS0',
    user: [
      { name: 'alice', role: 'admin', 'password-hint': 'cat' },
      { name: 'bob', role: 'viewer', 'password-hint': 'dog' },
    ],
  },
};

test('hidden on read by extension (prefix of the defining module, argument) and by status; unhide brings them back', async (t) => {
  const s = await startFilterService({ hiddenDataOnReadByExtensions: ['rext:hidden full'], hideDeprecatedDefinitionsOnRead: true });
  t.teardown(() => s.stop());
  t.is((await s.request('PUT', SYSTEM, FULL)).status, 201);

  const plain = await s.request('GET', SYSTEM);
  t.is(plain.status, 200);
  t.deepEqual(plain.json, {
    'filters-test:system': {
      hostname: 'r1',
      'trace-level': 7,
      'serial-line': 'ttyS0',
      user: [
        { name: 'alice', role: 'admin' },
        { name: 'bob', role: 'viewer' },
      ],
    },
  });

  // Unhiding the extension brings its nodes back; the deprecated leaf stays hidden.
  const some = await s.request('GET', `${SYSTEM}?unhide=${encodeURIComponent('rext:hidden full')}`);
  t.is(some.json['filters-test:system']['secret-sauce'], 'ketchup');
  t.deepEqual(some.json['filters-test:system'].internal, { counter: 42 });
  t.is(some.json['filters-test:system']['old-name'], undefined);
  // `all` brings back everything, the deprecated leaf included.
  t.deepEqual((await s.request('GET', `${SYSTEM}?unhide=all`)).json, FULL);
  // A bad unhide is refused by the core, naming the parameter.
  const bad = await s.request('GET', `${SYSTEM}?unhide=hidden`);
  t.is(bad.status, 400);
  t.regex(bad.text, /unhide/);

  // A hidden target is not there; unhidden it is.
  t.is((await s.request('GET', `${SYSTEM}/secret-sauce`)).status, 404);
  t.is((await s.request('GET', `${SYSTEM}/internal/counter`)).status, 404);
  t.is((await s.request('GET', `${SYSTEM}/old-name`)).status, 404);
  t.deepEqual((await s.request('GET', `${SYSTEM}/secret-sauce?unhide=all`)).json, { 'filters-test:secret-sauce': 'ketchup' });
  // One entry: its hidden leaf is left out, its key kept.
  t.deepEqual((await s.request('GET', `${SYSTEM}/user=alice`)).json, { 'filters-test:user': [{ name: 'alice', role: 'admin' }] });

  // XML answers are filtered the same way.
  const xml = await s.request('GET', SYSTEM, undefined, { accept: 'application/yang-data+xml' });
  t.is(xml.status, 200);
  t.regex(xml.text, /<hostname>r1<\/hostname>/);
  t.notRegex(xml.text, /secret-sauce|password-hint|old-name|<internal/);
});

test('fields, depth, fetch=count and pagination see the filtered tree', async (t) => {
  const s = await startFilterService({ hiddenDataOnReadByExtensions: ['rext:hidden full'] });
  t.teardown(() => s.stop());
  t.is((await s.request('PUT', SYSTEM, FULL)).status, 201);

  const fields = await s.request('GET', `${SYSTEM}?fields=${encodeURIComponent('hostname;secret-sauce;internal')}`);
  t.deepEqual(fields.json, { 'filters-test:system': { hostname: 'r1' } });
  const fieldsUnhidden = await s.request('GET', `${SYSTEM}?fields=${encodeURIComponent('hostname;secret-sauce')}&unhide=all`);
  t.deepEqual(fieldsUnhidden.json, { 'filters-test:system': { hostname: 'r1', 'secret-sauce': 'ketchup' } });

  const depth = await s.request('GET', `${SYSTEM}?depth=2`);
  t.deepEqual(Object.keys(depth.json['filters-test:system']).sort(), ['hostname', 'old-name', 'serial-line', 'trace-level', 'user']);

  // fetch=count on an entry counts its child nodes: name and role, not the hidden hint.
  t.is((await s.request('GET', `${SYSTEM}/user=alice?fetch=count`)).text, '2');
  t.is((await s.request('GET', `${SYSTEM}/user=alice?fetch=count&unhide=all`)).text, '3');

  const page = await s.request('GET', `${SYSTEM}/user?offset=1&limit=1`);
  t.deepEqual(page.json, { 'filters-test:user': [{ name: 'bob', role: 'viewer' }] });
});

test("matching is by the defining module's prefix and by argument", async (t) => {
  // `x` is the prefix the test module imports the extension module under, not the module's own.
  const s = await startFilterService({ hiddenDataOnReadByExtensions: ['x:hidden full', 'rext:hidden debug', 'rext:other full'] });
  t.teardown(() => s.stop());
  t.is((await s.request('PUT', SYSTEM, FULL)).status, 201);
  const got = (await s.request('GET', SYSTEM)).json['filters-test:system'];
  t.is(got['secret-sauce'], 'ketchup'); // 'x:hidden full' names no module's own prefix
  t.is(got['trace-level'], undefined); // 'rext:hidden debug' matches argument debug only
  t.is(got.hostname, 'r1');
  // A choice's case carries its extension to the data under it; no argument matches any.
  const any = await startFilterService({ hiddenDataOnReadByExtensions: ['rext:hidden'] });
  t.teardown(() => any.stop());
  t.is((await any.request('PUT', SYSTEM, FULL)).status, 201);
  t.deepEqual((await any.request('GET', SYSTEM)).json, {
    'filters-test:system': {
      hostname: 'r1',
      'old-name': 'router-one',
      user: [
        { name: 'alice', role: 'admin' },
        { name: 'bob', role: 'viewer' },
      ],
    },
  });
});

test('ignored on write: dropped from PUT, POST and PATCH bodies unless unhidden', async (t) => {
  const s = await startFilterService({ ignoredDataOnWriteByExtensions: ['rext:hidden full', 'rext:hidden debug'] });
  t.teardown(() => s.stop());
  t.is((await s.request('PUT', SYSTEM, FULL)).status, 201);
  t.deepEqual((await s.request('GET', SYSTEM)).json, {
    'filters-test:system': {
      hostname: 'r1',
      'old-name': 'router-one',
      'serial-line': 'ttyS0',
      user: [
        { name: 'alice', role: 'admin' },
        { name: 'bob', role: 'viewer' },
      ],
    },
  });
  // PATCH with unhide of one extension accepts that one only.
  const patch = await s.request('PATCH', `${SYSTEM}?unhide=${encodeURIComponent('rext:hidden debug')}`, {
    'filters-test:system': { 'trace-level': 3, 'secret-sauce': 'mayo' },
  });
  t.is(patch.status, 200);
  let got = (await s.request('GET', SYSTEM)).json['filters-test:system'];
  t.is(got['trace-level'], 3);
  t.is(got['secret-sauce'], undefined);
  // POST of a new entry: its ignored leaf is dropped.
  t.is((await s.request('POST', SYSTEM, { 'filters-test:user': [{ name: 'carol', 'password-hint': 'owl' }] })).status, 201);
  t.deepEqual((await s.request('GET', `${SYSTEM}/user=carol`)).json, { 'filters-test:user': [{ name: 'carol' }] });
  // unhide=all on PUT stores everything.
  t.is((await s.request('PUT', `${SYSTEM}?unhide=all`, FULL)).status, 204);
  got = (await s.request('GET', SYSTEM)).json['filters-test:system'];
  t.is(got['secret-sauce'], 'ketchup');
  t.deepEqual(got.internal, { counter: 42 });
  // Ignored in XML bodies too.
  const xml = `<system xmlns="urn:rosetta:test:filters-test"><hostname>r2</hostname><secret-sauce>salt</secret-sauce><internal><counter>1</counter></internal></system>`;
  t.is((await s.request('PUT', SYSTEM, xml)).status, 204);
  t.deepEqual((await s.request('GET', SYSTEM)).json, { 'filters-test:system': { hostname: 'r2' } });
  // Unknown members are still refused: ignoreUnsupportedDefinitionsOnWrite is off.
  const unknown = await s.request('PATCH', SYSTEM, { 'filters-test:system': { bogus: 1 } });
  t.is(unknown.status, 400);
  t.is(unknown.json.errors.error[0]['error-tag'], 'unknown-element');
});

test('ignoreUnsupportedDefinitionsOnWrite drops unknown members and elements, nested ones included', async (t) => {
  const s = await startFilterService({ ignoreUnsupportedDefinitionsOnWrite: true });
  t.teardown(() => s.stop());
  const put = await s.request('PUT', SYSTEM, {
    'filters-test:system': {
      hostname: 'r1',
      bogus: { deep: [1, 2, { x: 3 }] },
      'other-module:thing': 1,
      user: [{ name: 'a', colour: 'red' }],
    },
  });
  t.is(put.status, 201);
  t.deepEqual((await s.request('GET', SYSTEM)).json, { 'filters-test:system': { hostname: 'r1', user: [{ name: 'a' }] } });
  const xml =
    `<system xmlns="urn:rosetta:test:filters-test"><hostname>r3</hostname><bogus><a>1</a><b/></bogus>` +
    `<other xmlns="urn:nowhere"><c>2</c></other><user><name>z</name><colour>blue</colour></user></system>`;
  t.is((await s.request('PUT', SYSTEM, xml)).status, 204);
  t.deepEqual((await s.request('GET', SYSTEM)).json, { 'filters-test:system': { hostname: 'r3', user: [{ name: 'z' }] } });
  // Bad values of known leaves are still refused.
  const bad = await s.request('PATCH', SYSTEM, { 'filters-test:system': { 'trace-level': 'loud', bogus: 1 } });
  t.is(bad.status, 400);
  t.is(bad.json.errors.error[0]['error-tag'], 'invalid-value');
  // Nothing is hidden on read: no read filter is configured.
  t.is((await s.request('PATCH', SYSTEM, { 'filters-test:system': { 'secret-sauce': 's' } })).status, 200);
  t.is((await s.request('GET', `${SYSTEM}/secret-sauce`)).status, 200);
});

test('the plugin switched off: the same settings change nothing', async (t) => {
  const s = await startFilterService(
    {
      hiddenDataOnReadByExtensions: ['rext:hidden full'],
      hideDeprecatedDefinitionsOnRead: true,
      ignoredDataOnWriteByExtensions: ['rext:hidden debug'],
      ignoreUnsupportedDefinitionsOnWrite: true,
    },
    false,
  );
  t.teardown(() => s.stop());
  t.is((await s.request('PUT', SYSTEM, FULL)).status, 201);
  t.deepEqual((await s.request('GET', SYSTEM)).json, FULL);
  const unknown = await s.request('PATCH', SYSTEM, { 'filters-test:system': { bogus: 1 } });
  t.is(unknown.status, 400);
  t.is(unknown.json.errors.error[0]['error-tag'], 'unknown-element');
});

test('no schemaFilters object: the plugin on filters nothing and says so', async (t) => {
  const s = await startFilterService(undefined);
  t.teardown(() => s.stop());
  t.is((await s.request('PUT', SYSTEM, FULL)).status, 201);
  t.deepEqual((await s.request('GET', SYSTEM)).json, FULL);
  t.true(s.logs.some((l) => /nothing is filtered/.test(l)));
});

/** Writes a configuration file and loads it as `rosetta start --config` does. */
function configError(t: import('ava').ExecutionContext, schemaFilters: unknown, field: string): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-filters-config-'));
  const file = path.join(dir, 'rosetta.json');
  fs.writeFileSync(file, JSON.stringify({ schemaFilters }));
  const error = t.throws(() => loadConfig(file), { instanceOf: ConfigError });
  t.is(error?.field, field, `${JSON.stringify(schemaFilters)} -> ${error?.message}`);
  fs.rmSync(dir, { recursive: true, force: true });
  // The plugin's own check names the same field.
  const own = t.throws(() => parseFilterSettings(schemaFilters), { instanceOf: FilterSettingsError });
  t.is(own?.field, field);
}

test('every settings field and its bad values stop start-up naming the field', (t) => {
  configError(t, [], 'schemaFilters');
  configError(t, 'on', 'schemaFilters');
  configError(t, { hideHidden: true }, 'schemaFilters.hideHidden');
  configError(t, { ignoredDataOnWriteByExtensions: 'rext:hidden full' }, 'schemaFilters.ignoredDataOnWriteByExtensions');
  configError(t, { ignoredDataOnWriteByExtensions: ['rext:hidden full', 'hidden'] }, 'schemaFilters.ignoredDataOnWriteByExtensions[1]');
  configError(t, { ignoredDataOnWriteByExtensions: [7] }, 'schemaFilters.ignoredDataOnWriteByExtensions');
  configError(t, { hiddenDataOnReadByExtensions: ['rext:hidden full debug'] }, 'schemaFilters.hiddenDataOnReadByExtensions[0]');
  configError(t, { hiddenDataOnReadByExtensions: [':hidden'] }, 'schemaFilters.hiddenDataOnReadByExtensions[0]');
  configError(t, { hiddenDataOnReadByExtensions: ['rext:hidden a,b'] }, 'schemaFilters.hiddenDataOnReadByExtensions[0]');
  configError(t, { ignoreUnsupportedDefinitionsOnWrite: 'yes' }, 'schemaFilters.ignoreUnsupportedDefinitionsOnWrite');
  configError(t, { hideDeprecatedDefinitionsOnRead: 1 }, 'schemaFilters.hideDeprecatedDefinitionsOnRead');
  // Good values are taken as given.
  t.deepEqual(parseFilterSettings({ hiddenDataOnReadByExtensions: ['rext:hidden', 'a:b c'] }).hiddenOnRead, [
    { prefix: 'rext', name: 'hidden', argument: undefined },
    { prefix: 'a', name: 'b', argument: 'c' },
  ]);
});

test('a read of one entry of a large list costs the path, not the list', async (t) => {
  const s = await startFilterService({ hiddenDataOnReadByExtensions: ['rext:hidden full'] });
  t.teardown(() => s.stop());
  const users = Array.from({ length: 20_000 }, (_, i) => ({ name: `u${i}`, role: 'r', 'password-hint': 'h' }));
  t.is((await s.request('PUT', `${SYSTEM}?unhide=all`, { 'filters-test:system': { hostname: 'big', user: users } })).status, 201);
  const whole = await s.request('GET', `${SYSTEM}/user`);
  t.is(whole.json['filters-test:user'].length, 20_000);
  t.false(whole.text.includes('password-hint'));
  const started = process.hrtime.bigint();
  for (let i = 0; i < 50; i++) {
    const one = await s.request('GET', `${SYSTEM}/user=u${i * 397}`);
    t.deepEqual(one.json, { 'filters-test:user': [{ name: `u${i * 397}`, role: 'r' }] });
  }
  const perRead = Number(process.hrtime.bigint() - started) / 50 / 1e6;
  t.log(`one entry of 20,000 through the filter: ${perRead.toFixed(2)} ms per GET`);
  t.true(perRead < 50, `${perRead} ms per GET`);
});

test('YANG Patch edit values follow the same write policy: ignored definitions and unknown members dropped, unhide honoured', async (t) => {
  const s = await startFilterService({ ignoredDataOnWriteByExtensions: ['rext:hidden full'], ignoreUnsupportedDefinitionsOnWrite: true });
  t.teardown(() => s.stop());
  const patch = (edits: unknown[]) => ({ 'ietf-yang-patch:yang-patch': { 'patch-id': 'p1', edit: edits } });
  const yangPatch = (p: string, body: unknown) =>
    s.request('PATCH', p, JSON.stringify(body), { 'content-type': 'application/yang-patch+json' });
  const sent = await yangPatch(
    SYSTEM,
    patch([
      {
        'edit-id': 'e1',
        operation: 'merge',
        target: '/',
        value: { 'filters-test:system': { hostname: 'r1', 'secret-sauce': 'ketchup', bogus: 1, internal: { counter: 1 } } },
      },
      {
        'edit-id': 'e2',
        operation: 'create',
        target: '/user=alice',
        value: { 'filters-test:user': [{ name: 'alice', 'password-hint': 'cat', colour: 'red' }] },
      },
    ]),
  );
  t.is(sent.status, 200, sent.text);
  t.deepEqual(sent.json, { 'ietf-yang-patch:yang-patch-status': { 'patch-id': 'p1', ok: [null] } });
  t.deepEqual((await s.request('GET', SYSTEM)).json, { 'filters-test:system': { hostname: 'r1', user: [{ name: 'alice' }] } });
  // unhide on the PATCH request brings the ignored definitions back into the edits.
  const unhidden = await yangPatch(
    `${SYSTEM}?unhide=all`,
    patch([{ 'edit-id': 'e1', operation: 'merge', target: '/', value: { 'filters-test:system': { 'secret-sauce': 'mayo', bogus: 2 } } }]),
  );
  t.is(unhidden.status, 200, unhidden.text);
  t.is((await s.request('GET', `${SYSTEM}/secret-sauce`)).json['filters-test:secret-sauce'], 'mayo');
  // XML edit values too.
  const xml =
    `<yang-patch xmlns="urn:ietf:params:xml:ns:yang:ietf-yang-patch"><patch-id>p2</patch-id><edit><edit-id>e1</edit-id>` +
    `<operation>merge</operation><target>/</target><value><system xmlns="urn:rosetta:test:filters-test"><hostname>r9</hostname>` +
    `<secret-sauce>salt</secret-sauce><bogus>1</bogus></system></value></edit></yang-patch>`;
  const x = await s.request('PATCH', SYSTEM, xml, { 'content-type': 'application/yang-patch+xml' });
  t.is(x.status, 200, x.text);
  const got = (await s.request('GET', SYSTEM)).json['filters-test:system'];
  t.is(got.hostname, 'r9');
  t.is(got['secret-sauce'], 'mayo');
});

test("YANG Patch with the plugin off: unknown members are refused in the failing edit's status", async (t) => {
  const s = await startFilterService({ ignoreUnsupportedDefinitionsOnWrite: true }, false);
  t.teardown(() => s.stop());
  const body = {
    'ietf-yang-patch:yang-patch': {
      'patch-id': 'p1',
      edit: [{ 'edit-id': 'e1', operation: 'merge', target: '/', value: { 'filters-test:system': { hostname: 'r1', bogus: 1 } } }],
    },
  };
  const sent = await s.request('PATCH', SYSTEM, JSON.stringify(body), { 'content-type': 'application/yang-patch+json' });
  t.is(sent.status, 400, sent.text);
  t.is(sent.json['ietf-yang-patch:yang-patch-status']['edit-status'].edit[0]['edit-id'], 'e1');
  t.is(sent.json['ietf-yang-patch:yang-patch-status']['edit-status'].edit[0].errors.error[0]['error-tag'], 'unknown-element');
  t.is((await s.request('GET', SYSTEM)).status, 404);
});

test('a GET of the datastore root is filtered, not emptied', async (t) => {
  const s = await startFilterService({ hiddenDataOnReadByExtensions: ['rext:hidden full'] });
  t.teardown(() => s.stop());
  t.is((await s.request('PUT', SYSTEM, FULL)).status, 201);
  const root = await s.request('GET', '/rests/data?content=config');
  t.is(root.status, 200, root.text);
  const system = root.json['ietf-restconf:data']['filters-test:system'];
  t.is(system.hostname, 'r1');
  t.is(system['secret-sauce'], undefined);
  t.is(system.internal, undefined);
  t.deepEqual(system.user, [
    { name: 'alice', role: 'admin' },
    { name: 'bob', role: 'viewer' },
  ]);
  // schema.loaded ran for the local schema: the plugin says what its settings hide there.
  t.true(
    s.logs.some((l) => /local schema: 3 definition\(s\) hidden on read, 0 ignored on write/.test(l)),
    s.logs.join('\n'),
  );
});

test('a listed extension that no local definition carries is announced at start-up (a likely typo)', async (t) => {
  const s = await startFilterService({ hiddenDataOnReadByExtensions: ['rext:hiden full', 'rext:hidden full'] });
  t.teardown(() => s.stop());
  t.true(
    s.logs.some((l) => /schemaFilters\.hiddenDataOnReadByExtensions: 'rext:hiden full' matches no definition of the local schema/.test(l)),
    s.logs.join('\n'),
  );
  t.false(s.logs.some((l) => /'rext:hidden full' matches no definition/.test(l)));
});
