/**
 * The shapes the compact models lack, on the RESTCONF tests' extra module (core/test/restconf/fixture.ts):
 * an action under a list entry, a two-key list, a choice flattened into optional properties, a
 * user-ordered list's insert and point, operational data read-only, and a schema swap answered with a
 * new document. Each document also validates with the standard validator.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import test from 'ava';
import { openApiDocument, openApiText } from '../../src/openapi';
import { ietfSchema, ocSchema } from '../restconf/fixture';

type Json = any;

const doc: Json = openApiDocument(ietfSchema(), ['rc-extra', 'example-jukebox']);

test('the document validates', async (t) => {
  await t.notThrowsAsync(SwaggerParser.validate(structuredClone(doc)));
});

test('an action is POST under its list entry, with the entry key as path parameter and its input as body', (t) => {
  const action = doc.paths['/rests/data/rc-extra:box/server={name}/restart'];
  t.deepEqual(Object.keys(action).sort(), ['parameters', 'post']);
  t.deepEqual(action.parameters, [{ $ref: '#/components/parameters/key.rc-extra.box.server.name' }]);
  const body = doc.components.schemas[action.post.requestBody.content['application/yang-data+json'].schema.$ref.split('/').pop()];
  t.deepEqual(Object.keys(body.properties), ['rc-extra:input']);
  t.truthy(doc.paths['/rests/operations/rc-extra:ping'].post);
});

test('a two-key list entry names both keys; a choice is flattened into optional properties', (t) => {
  t.truthy(doc.paths['/rests/data/rc-extra:box/pair={a},{b}']);
  const entry = doc.components.schemas['rc-extra.box.pair'];
  t.deepEqual(entry.required, ['a', 'b']);
  t.is(entry.properties.b.type, 'integer');
  const box = doc.components.schemas['rc-extra.box'];
  t.truthy(box.properties['auto-speed']);
  t.truthy(box.properties['manual-speed']);
  t.is(box.required, undefined);
  t.true(box.properties.stats.readOnly, 'operational data is read-only');
  t.deepEqual(Object.keys(doc.paths['/rests/data/rc-extra:box/stats']), ['get']);
});

test('insert and point are offered only on user-ordered list entries', (t) => {
  const refs = (p: string, method: string) => doc.paths[p][method].parameters.map((x: Json) => x.$ref.split('.').pop());
  const playlist = Object.keys(doc.paths).find((p) => /\/playlist=\{name\}\/song=\{index\}$/.test(p))!;
  t.truthy(playlist, 'the jukebox playlist songs (ordered-by user)');
  t.true(refs(playlist, 'put').includes('insert'));
  t.false(refs('/rests/data/rc-extra:box/server={name}', 'put').includes('insert'));
});

test('a document is cached per schema object: another schema gets its own', (t) => {
  const a = openApiText(ietfSchema(), ['example-jukebox']);
  t.is(openApiText(ietfSchema(), ['example-jukebox']), a);
  const other = openApiText(ocSchema());
  t.not(other, a);
  t.true(other.includes('/rests/data/openconfig-interfaces:interfaces/interface={name}'));
});
