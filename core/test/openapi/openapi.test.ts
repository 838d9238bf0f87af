/**
 * The OpenAPI document of the local datastore, through a real service on the test models: it validates
 * with the standard validator (whole and limited to one module), config false nodes take no writes, an
 * unknown module is 400, and a request built from the document alone (a list entry's path with its key
 * filled, the PUT body made from the entry's schema) is accepted by the service and read back.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import test from 'ava';
import { startTestService, type TestService } from '../restconf/http-fixture';
import { example, type Json, methodsOf, resolve } from './document-walk';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.service.stop();
});

async function documentOf(query = ''): Promise<Json> {
  const res = await svc.request('GET', `/rests/openapi.json${query}`);
  if (res.status !== 200) throw new Error(`${res.status} ${res.text.slice(0, 500)}`);
  return res.json;
}

test('the whole document validates, with a path per container, list and entry and the RPCs', async (t) => {
  const doc = await documentOf();
  await t.notThrowsAsync(SwaggerParser.validate(structuredClone(doc)));
  t.is(doc.openapi, '3.0.3');
  const paths = Object.keys(doc.paths);
  for (const p of [
    '/rests/data/example-jukebox:jukebox',
    '/rests/data/example-jukebox:jukebox/library/artist',
    '/rests/data/example-jukebox:jukebox/library/artist={name}',
    '/rests/data/ietf-interfaces:interfaces/interface={name}',
    '/rests/operations/example-jukebox:play',
  ]) {
    t.true(paths.includes(p), p);
  }
  const entry = doc.paths['/rests/data/ietf-interfaces:interfaces/interface={name}'];
  t.deepEqual(methodsOf(entry), ['delete', 'get', 'patch', 'post', 'put']);
  t.true(
    entry.get.parameters.some((p: Json) => p.$ref === '#/components/parameters/query.depth'),
    'GET takes depth',
  );
  t.false(
    entry.put.parameters.some((p: Json) => p.$ref === '#/components/parameters/query.depth'),
    'PUT does not',
  );
  const play = doc.paths['/rests/operations/example-jukebox:play'].post;
  t.deepEqual(Object.keys(resolve(doc, play.requestBody.content['application/yang-data+json'].schema).properties), [
    'example-jukebox:input',
  ]);
});

test('leaf types follow RFC 7951: 64-bit counters as strings, enumerations, mandatory as required', async (t) => {
  const doc = await documentOf('?modules=ietf-interfaces');
  const entry = resolve(doc, { $ref: '#/components/schemas/ietf-interfaces.interfaces.interface' });
  t.deepEqual(entry.required, ['name', 'type'], 'operational leaves may be missing under configuration');
  const statistics = resolve(doc, entry.properties.statistics.allOf[0]);
  t.is(statistics.properties['in-octets'].allOf[0].type, 'string', 'counter64 is a string in JSON');
  t.true(entry.properties['oper-status'].readOnly);
  t.true(resolve(doc, entry.properties['oper-status'].allOf[0]).enum.includes('up'));
});

test('config false nodes have no write methods', async (t) => {
  const doc = await documentOf();
  const state = Object.entries(doc.paths).filter(([p]) => p.endsWith('/statistics'));
  t.true(state.length > 0, 'the interface statistics have a path');
  for (const [p, item] of state) t.deepEqual(methodsOf(item), ['get'], p);
});

test('?modules= limits the document to those modules, and it validates', async (t) => {
  const doc = await documentOf('?modules=example-jukebox');
  await t.notThrowsAsync(SwaggerParser.validate(structuredClone(doc)));
  const paths = Object.keys(doc.paths);
  t.true(paths.length > 3);
  t.deepEqual(
    paths.filter((p) => !p.startsWith('/rests/data/example-jukebox:') && !p.startsWith('/rests/operations/example-jukebox:')),
    [],
  );
});

test('an unknown module is 400 in the RESTCONF error envelope, naming it', async (t) => {
  const res = await svc.request('GET', '/rests/openapi.json?modules=example-jukebox,no-such-module');
  t.is(res.status, 400);
  const error = res.json.errors.error[0];
  t.is(error['error-tag'], 'invalid-value');
  t.regex(error['error-message'], /no-such-module/);
  t.is((await svc.request('GET', '/rests/openapi.json?module=x')).status, 400, 'an unknown parameter too');
  t.is((await svc.request('PUT', '/rests/openapi.json', { body: '{}' })).status, 405);
  const options = await svc.request('OPTIONS', '/rests/openapi.json');
  t.is(options.status, 200);
  t.is(options.headers.get('allow'), 'GET, HEAD, OPTIONS');
});

test('a request built from the document succeeds: PUT an entry from its schema, then GET it', async (t) => {
  const doc = await documentOf();
  const template = '/rests/data/ietf-interfaces:interfaces/interface={name}';
  const item = doc.paths[template];
  const key = item.parameters.map((p: Json) => resolve(doc, p)).find((p: Json) => p.in === 'path');
  t.is(key.name, 'name');
  const value = example(doc, key.schema);
  const body = example(doc, item.put.requestBody.content['application/yang-data+json'].schema);
  body['ietf-interfaces:interface'][0][key.name] = value;
  const path = template.replace(`{${key.name}}`, encodeURIComponent(value));
  const put = await svc.request('PUT', path, { body: JSON.stringify(body) });
  t.is(put.status, 201, put.text);
  const got = await svc.request('GET', path);
  t.is(got.status, 200, got.text);
  t.like(got.json['ietf-interfaces:interface'][0], body['ietf-interfaces:interface'][0]);
});

test('the document is cached per schema, and a selection has its own', async (t) => {
  const a = await svc.request('GET', '/rests/openapi.json');
  const b = await svc.request('GET', '/rests/openapi.json');
  const c = await svc.request('GET', '/rests/openapi.json?modules=ietf-interfaces');
  t.is(a.text, b.text);
  t.not(a.text, c.text);
});
