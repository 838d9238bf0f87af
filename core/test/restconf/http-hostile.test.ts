/**
 * Request-level tests of hostile input, on a real service serving one small module written here: a
 * character no YANG string may hold is refused wherever a string is stored (400 naming the leaf), input
 * nested at any depth answers 400 (never 500), list keys and URIs are held to limits that keep every
 * entry addressable (docs/restconf-api.md#request-limits), repeated Authorization or Content-Type
 * headers are 400 before authentication, an empty Content-Type is 415, and a JSON object holding one
 * member twice is 400 wherever a body is read (never the last one silently kept).
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { createHooks } from '../../src/hooks';
import type { PluginScope } from '../../src/plugins/generation';
import type { RestconfContext } from '../../src/restconf/context';
import { KEY_LIMIT, URI_LIMIT, withRequestLimits } from '../../src/restconf/request-limits';
import { authenticatingHandler } from '../../src/service/authentication';
import { holdsNonXmlCharacter } from '../../src/yang/types/characters';
import { resolveConfig } from '../../src/service/config';
import { startService, type RunningService } from '../../src/service/service';
import { suiteStore } from './http-fixture';

const MODULE = `
module hostile {
  yang-version 1.1;
  namespace "urn:rosetta:test:hostile";
  prefix h;
  import ietf-yang-metadata { prefix md; }

  md:annotation note { type string; }

  container box {
    leaf name { type string; }
    leaf-list tag { type string; }
    leaf mixed { type union { type uint8; type string; } }
    anydata blob;
    container inner { leaf a { type string; } }
    list item {
      key id;
      leaf id { type string; }
      leaf n { type uint8; }
    }
  }

  rpc echo {
    input { leaf text { type string; } }
  }
}
`;

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

/** One request over a raw connection: headers exactly as given (repeated ones too), no Host added by fetch. */
function send(url: string, method: string, p: string, body?: string, headers: string[] = []): Promise<Answer> {
  const { hostname, port, host } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method, path: p, headers: ['Host', host, ...headers] }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
      });
      res.on('end', () => {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_TYPE = ['Content-Type', 'application/yang-data+json'];
const XML_TYPE = ['Content-Type', 'application/yang-data+xml'];
const DATA = '/rests/data';
const BOX = `${DATA}/hostile:box`;

let running: RunningService;
const errors: string[] = [];

test.before(async () => {
  const yangDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-hostile-yang-'));
  fs.writeFileSync(path.join(yangDir, 'hostile.yang'), MODULE);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-hostile-data-'));
  const store = await suiteStore(dataDir);
  const config = resolveConfig({ port: 0, host: '127.0.0.1', dataDir, yangDirs: [yangDir], ...store.config }, os.tmpdir());
  running = await startService({
    config,
    openDatastores: store.openDatastores,
    log: { info: () => undefined, error: (m) => errors.push(m) },
  });
});

test.after.always(async () => {
  await running?.stop();
});

const request = (method: string, p: string, body?: string, headers: string[] = body === undefined ? [] : JSON_TYPE) =>
  send(running.url, method, p, body, headers);

/** The answer is 400 with one error of `tag` at `errorPath`; the service logged nothing (no 500). */
function refused(t: ExecutionContext, answer: Answer, tag: string, errorPath: string | undefined, label: string): void {
  t.is(answer.status, 400, `${label}: ${answer.text.slice(0, 300)}`);
  const error =
    answer.json?.errors?.error?.[0] ?? answer.json?.['ietf-yang-patch:yang-patch-status']?.['edit-status']?.edit?.[0]?.errors?.error?.[0];
  t.is(error?.['error-tag'], tag, label);
  if (errorPath !== undefined) t.is(error?.['error-path'], errorPath, label);
}

// ---------------------------------------------------------------------------------------------------
// Characters YANG strings cannot hold

test.serial('characters XML forbids are refused in every stored string, JSON and XML, 400 naming the leaf', async (t) => {
  const put = (box: Record<string, unknown>) => request('PUT', BOX, JSON.stringify({ 'hostile:box': box }));
  for (const bad of ['a\u0000b', 'a\u0001b', 'tab\u000bvt', 'a\ufffe', 'a\uffff', 'lone \ud800 high', 'lone \udc00 low', '\ud800']) {
    const label = JSON.stringify(bad);
    refused(t, await put({ name: bad }), 'invalid-value', '/hostile:box/name', `leaf ${label}`);
    refused(t, await put({ tag: ['fine', bad] }), 'invalid-value', '/hostile:box/tag', `leaf-list ${label}`);
    refused(t, await put({ mixed: bad }), 'invalid-value', '/hostile:box/mixed', `union ${label}`);
    refused(t, await put({ blob: { inner: [bad] } }), 'invalid-value', '/hostile:box/blob', `anydata value ${label}`);
    refused(t, await put({ blob: { [bad]: 1 } }), 'invalid-value', '/hostile:box/blob', `anydata member ${label}`);
    refused(t, await put({ '@': { 'hostile:note': bad } }), 'bad-attribute', '/hostile:box', `attribute ${label}`);
    refused(t, await put({ item: [{ id: bad }] }), 'invalid-value', undefined, `key in a body ${label}`);
    refused(
      t,
      await request('POST', '/rests/operations/hostile:echo', JSON.stringify({ 'hostile:input': { text: bad } })),
      'invalid-value',
      '/hostile:echo/input/text',
      `rpc input ${label}`,
    );
  }
  // escaped in JSON text, raw in XML text
  refused(t, await request('PUT', BOX, '{"hostile:box":{"name":"x\\u0000"}}'), 'invalid-value', '/hostile:box/name', 'JSON escape');
  const xml = (inner: string) => request('PUT', BOX, `<box xmlns="urn:rosetta:test:hostile">${inner}</box>`, XML_TYPE);
  refused(t, await xml('<name>a\u0001b</name>'), 'invalid-value', '/hostile:box/name', 'XML leaf');
  refused(t, await xml('<blob><x>a\u0002b</x></blob>'), 'invalid-value', '/hostile:box/blob', 'XML anydata');
  refused(t, await xml('<item><id>a\u0003</id></item>'), 'invalid-value', undefined, 'XML key');
  // keys given in the URI
  for (const method of ['GET', 'PUT', 'DELETE']) {
    const body = method === 'PUT' ? JSON.stringify({ 'hostile:item': [{ id: 'a\u0000b' }] }) : undefined;
    const answer = await request(method, `${BOX}/item=a%00b`, body);
    refused(t, answer, 'invalid-value', undefined, `URI key ${method}`);
    t.regex(answer.json.errors.error[0]['error-message'], /U\+0000/);
  }
  // nothing was stored, and the XML error envelope stays well-formed XML
  t.is((await request('GET', BOX)).status, 404);
  const inXml = await request('GET', `${BOX}/item=a%01b`, undefined, ['Accept', 'application/yang-data+xml']);
  t.is(inXml.status, 400);
  t.false(holdsNonXmlCharacter(inXml.text));
  t.regex(inXml.text, /\\u0001/);
  // what XML allows is kept: tab, line ends, astral characters, the last BMP characters before U+FFFE
  const fine = 'tab\there\r\nnew line \ud83d\ude00 \ufffd \ue000';
  t.is((await put({ name: fine, item: [{ id: fine }] })).status, 201);
  const read = await request('GET', BOX);
  t.is(read.json['hostile:box'].name, fine);
  t.is(read.json['hostile:box'].item[0].id, fine);
  t.is((await request('DELETE', BOX)).status, 204);
  t.deepEqual(errors, []);
});

// ---------------------------------------------------------------------------------------------------
// Nesting

test.serial('input nested at any depth answers 400, never 500: every body-taking method, JSON and XML, fields', async (t) => {
  for (const depth of [1000, 5000, 100_000]) {
    const nest = (inner: string) => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
    const xmlNest = `${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}`;
    const label = `depth ${depth}`;
    refused(t, await request('PUT', BOX, `{"hostile:box":{"name":${nest('1')}}}`), 'invalid-value', '/hostile:box/name', `PUT ${label}`);
    refused(
      t,
      await request('PUT', BOX, `{"hostile:box":{"blob":${nest('')}}}`),
      'malformed-message',
      '/hostile:box/blob',
      `anydata ${label}`,
    );
    refused(
      t,
      await request('PATCH', BOX, `{"hostile:box":{"name":${nest('"x"')}}}`),
      'invalid-value',
      '/hostile:box/name',
      `PATCH ${label}`,
    );
    refused(t, await request('POST', BOX, `{"hostile:item":[{"id":${nest('"x"')}}]}`), 'invalid-value', undefined, `POST ${label}`);
    refused(
      t,
      await request('POST', '/rests/operations/hostile:echo', `{"hostile:input":{"text":${nest('"x"')}}}`),
      'invalid-value',
      '/hostile:echo/input/text',
      `rpc ${label}`,
    );
    refused(
      t,
      await request(
        'PATCH',
        BOX,
        `{"ietf-yang-patch:yang-patch":{"patch-id":"p","edit":[{"edit-id":"1","operation":"merge","target":"/name","value":{"hostile:name":${nest('"x"')}}}]}}`,
        ['Content-Type', 'application/yang-patch+json'],
      ),
      'invalid-value',
      undefined,
      `YANG Patch ${label}`,
    );
    refused(t, await request('PUT', BOX, `{"hostile:box":${nest('')}}`), 'invalid-value', '/hostile:box', `container ${label}`);
    refused(
      t,
      await request('PUT', BOX, `<box xmlns="urn:rosetta:test:hostile"><blob>${xmlNest}</blob></box>`, XML_TYPE),
      'malformed-message',
      undefined,
      `XML ${label}`,
    );
  }
  refused(t, await request('GET', `${BOX}?fields=${'item('.repeat(1000)}id${')'.repeat(1000)}`), 'invalid-value', undefined, 'fields');
  t.is((await request('GET', BOX)).status, 404, 'nothing was stored');
  t.deepEqual(errors, []);
});

// ---------------------------------------------------------------------------------------------------
// A member given twice

test.serial('a JSON object holding one member twice is 400 malformed-message naming it, in every body; nothing is stored', async (t) => {
  const YANG_PATCH = ['Content-Type', 'application/yang-patch+json'];
  const patch = (edit: string) => `{"ietf-yang-patch:yang-patch":{"patch-id":"p","edit":[${edit}]}}`;
  const cases: Array<[string, string, string, string, string[] | undefined, string]> = [
    [
      'top level',
      'PUT',
      BOX,
      '{"hostile:box":{"name":"a"},"hostile:box":{"name":"b"}}',
      undefined,
      '"hostile:box" appears twice in one object, at /hostile:box',
    ],
    [
      'container',
      'PUT',
      BOX,
      '{"hostile:box":{"name":"a","tag":["t"],"name":"b"}}',
      undefined,
      '"name" appears twice in one object, at /hostile:box/name',
    ],
    [
      'nested container',
      'PATCH',
      BOX,
      '{"hostile:box":{"inner":{"a":"1","a":"2"}}}',
      undefined,
      '"a" appears twice in one object, at /hostile:box/inner/a',
    ],
    [
      'list entry',
      'POST',
      BOX,
      '{"hostile:item":[{"id":"k1"},{"id":"k2","n":1,"n":2}]}',
      undefined,
      '"n" appears twice in one object, at /hostile:item/1/n',
    ],
    ['escaped name', 'PUT', BOX, '{"hostile:box":{"name":"a","\\u006eame":"b"}}', undefined, '"name" appears twice'],
    [
      'RPC input',
      'POST',
      '/rests/operations/hostile:echo',
      '{"hostile:input":{"text":"a","text":"b"}}',
      undefined,
      '"text" appears twice in one object, at /hostile:input/text',
    ],
    [
      'YANG Patch edit value',
      'PATCH',
      BOX,
      patch('{"edit-id":"1","operation":"merge","target":"/name","value":{"hostile:name":"a","hostile:name":"b"}}'),
      YANG_PATCH,
      '"hostile:name" appears twice in one object, at /ietf-yang-patch:yang-patch/edit/0/value/hostile:name',
    ],
    [
      'YANG Patch envelope',
      'PATCH',
      BOX,
      patch('{"edit-id":"1","operation":"merge","operation":"delete","target":"/name","value":{"hostile:name":"a"}}'),
      YANG_PATCH,
      '"operation" appears twice in one object, at /ietf-yang-patch:yang-patch/edit/0/operation',
    ],
  ];
  for (const [label, method, target, body, headers, said] of cases) {
    const answer = await request(method, target, body, headers);
    refused(t, answer, 'malformed-message', undefined, label);
    const message: string = answer.json?.errors?.error?.[0]?.['error-message'] ?? '';
    t.true(message.includes(said), `${label}: ${message}`);
    t.regex(message, /line 1, column \d+/, label);
  }
  t.is((await request('GET', BOX)).status, 404, 'nothing was stored');
  t.deepEqual(errors, []);
});

test.serial('values holding ": and names with odd whitespace around their colon are accepted: no repeat is imagined', async (t) => {
  const tricky = ['a":b', 'x": y', '": ', ':', ' :', '\\":', '"'];
  const body = JSON.stringify({
    'hostile:box': { name: 'n": 1', tag: tricky, blob: { 'k":': 1, 'k": ': { '": x': ':' } }, item: [{ id: '":' }, { id: '" :' }] },
  });
  t.is((await request('PUT', BOX, body)).status, 201);
  const read = (await request('GET', BOX)).json['hostile:box'];
  t.deepEqual(read.tag, tricky);
  t.deepEqual(read.blob, { 'k":': 1, 'k": ': { '": x': ':' } });
  t.deepEqual(
    read.item.map((i: { id: string }) => i.id),
    ['":', '" :'],
  );
  // pretty-printed with whitespace (spaces, tabs, line ends) between a name and its colon
  const odd =
    '{\n  "hostile:box" : {\n    "name"\t:\r\n "v" ,\n    "inner"  :{ "a" : "1" } ,\n    "item" :[ { "id"\n: "k" , "n" : 1 } ]\n  }\n}\n';
  t.is((await request('PUT', BOX, odd)).status, 204);
  const again = (await request('GET', BOX)).json['hostile:box'];
  t.is(again.name, 'v');
  t.deepEqual(again.inner, { a: '1' });
  const edit =
    '{ "ietf-yang-patch:yang-patch" : { "patch-id" : "p", "edit" : [ { "edit-id" : "1", "operation" : "merge", "target" : "/name", "value" : { "hostile:name" : "w\\": 1" } } ] } }';
  t.is((await request('PATCH', BOX, edit, ['Content-Type', 'application/yang-patch+json'])).status, 200);
  t.is((await request('GET', BOX)).json['hostile:box'].name, 'w": 1');
  // the input is read and accepted; no plugin implements the RPC
  t.is((await request('POST', '/rests/operations/hostile:echo', '{ "hostile:input" : { "text" : "t\\":" } }')).status, 501);
  t.is((await request('DELETE', BOX)).status, 204);
  t.deepEqual(errors, []);
});

// ---------------------------------------------------------------------------------------------------
// Limits on keys and URIs

test.serial('a key past the key limit is refused in bodies and URIs; one at the limit has a Location that works', async (t) => {
  const huge = await request('POST', BOX, JSON.stringify({ 'hostile:item': [{ id: 'k'.repeat(1 << 20) }] }));
  refused(t, huge, 'invalid-value', '/hostile:box/item/id', '1 MiB key');
  t.regex(huge.json.errors.error[0]['error-message'], new RegExp(`at most ${KEY_LIMIT} bytes`));
  t.true(huge.text.length < 1000, 'the answer does not quote the key');
  refused(
    t,
    await request('POST', BOX, JSON.stringify({ 'hostile:item': [{ id: 'k'.repeat(KEY_LIMIT + 1) }] })),
    'invalid-value',
    '/hostile:box/item/id',
    'one byte over',
  );
  // bytes, not characters: 171 euro signs are 513 bytes
  refused(
    t,
    await request('POST', BOX, JSON.stringify({ 'hostile:item': [{ id: '€'.repeat(171) }] })),
    'invalid-value',
    '/hostile:box/item/id',
    '171 x 3 bytes',
  );
  refused(
    t,
    await request('PUT', BOX, `<box xmlns="urn:rosetta:test:hostile"><item><id>${'k'.repeat(KEY_LIMIT + 1)}</id></item></box>`, XML_TYPE),
    'invalid-value',
    '/hostile:box/item/id',
    'XML key one byte over',
  );
  refused(t, await request('GET', `${BOX}/item=${'k'.repeat(KEY_LIMIT + 1)}`), 'invalid-value', undefined, 'URI key one byte over');

  // Every key at the limit, even one needing the most escaping, has a Location that GET and DELETE read.
  for (const id of ['k'.repeat(KEY_LIMIT), '€'.repeat(KEY_LIMIT / 4), `${'/'.repeat(KEY_LIMIT / 2)}`, '\u00ff'.repeat(KEY_LIMIT / 2)]) {
    const created = await request('POST', BOX, JSON.stringify({ 'hostile:item': [{ id }] }));
    t.is(created.status, 201, created.text.slice(0, 200));
    const location = created.headers.location!;
    t.true(location.length <= URI_LIMIT);
    t.is((await request('GET', location)).json?.['hostile:item']?.[0]?.id, id);
    t.is((await request('DELETE', location)).status, 204);
  }
  t.deepEqual(errors, []);
});

test.serial('a URI past the limit is 414 in the RESTCONF envelope, before anything else reads it', async (t) => {
  const within = await request('GET', `${BOX}?depth=1&x=${'a'.repeat(URI_LIMIT - BOX.length - 20)}`);
  t.is(within.status, 400, 'within the limit, the unknown parameter is what is refused');
  for (const method of ['GET', 'PUT', 'POST', 'DELETE']) {
    const answer = await request(method, `${BOX}/item=${'a'.repeat(URI_LIMIT)}`, method === 'PUT' || method === 'POST' ? '{}' : undefined);
    t.is(answer.status, 414, `${method}: ${answer.text.slice(0, 200)}`);
    t.is(answer.json?.errors?.error?.[0]?.['error-tag'], 'too-big');
    t.regex(answer.json.errors.error[0]['error-message'], new RegExp(`limit is ${URI_LIMIT}`));
  }
});

// ---------------------------------------------------------------------------------------------------
// Headers

test.serial('two Authorization or two Content-Type headers are 400; an empty Content-Type is 415, a missing one is JSON', async (t) => {
  const twice = await request('GET', BOX, undefined, ['Authorization', 'Basic YTpi', 'Authorization', 'Basic Yzpk']);
  refused(t, twice, 'malformed-message', undefined, 'two Authorization');
  t.regex(twice.json.errors.error[0]['error-message'], /Authorization header more than once/);
  const types = await request('PUT', BOX, JSON.stringify({ 'hostile:box': { name: 'x' } }), [...JSON_TYPE, ...XML_TYPE]);
  refused(t, types, 'malformed-message', undefined, 'two Content-Type');
  const body = JSON.stringify({ 'hostile:box': { name: 'x' } });
  for (const method of ['PUT', 'POST', 'PATCH']) {
    const target = method === 'POST' ? DATA : BOX;
    const empty = await request(method, target, body, ['Content-Type', '']);
    t.is(empty.status, 415, `${method} empty Content-Type: ${empty.text}`);
  }
  t.is((await request('POST', '/rests/operations/hostile:echo', '{"hostile:input":{}}', ['Content-Type', ''])).status, 415);
  // RFC 8040 has no rule for a missing Content-Type; the service reads JSON, which clients rely on
  t.true([201, 204].includes((await request('PUT', BOX, body, [])).status));
  t.is((await request('GET', BOX)).json['hostile:box'].name, 'x');
  t.is((await request('DELETE', BOX)).status, 204);
  t.deepEqual(errors, []);
});

test('two Authorization headers are refused before the authentication plugin is asked', async (t) => {
  const hooks = createHooks();
  const asked: Array<string | undefined> = [];
  hooks.server.authenticate.tapPromise('count', async (context) => {
    asked.push(context.authorization);
    return { allow: true, user: 'u' };
  });
  const scope: PluginScope = { generation: 1, hooks, unitsFor: () => ({ units: [] }) as never, release: () => undefined };
  const quiet = { info: () => undefined, error: () => undefined };
  const ctx = { log: quiet, schema: { modules: new Map() } } as unknown as RestconfContext;
  const app: http.RequestListener = (_req, res) => res.end('reached');
  const server = http.createServer(withRequestLimits(ctx, authenticatingHandler(app, { acquire: () => scope }, { users: [] }, quiet)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const twice = await send(url, 'GET', '/rests/data', undefined, ['Authorization', 'Basic YTpi', 'authorization', 'Basic Yzpk']);
    t.is(twice.status, 400, twice.text);
    t.deepEqual(asked, [], 'the plugin was not asked');
    const once = await send(url, 'GET', '/rests/data', undefined, ['Authorization', 'Basic YTpi']);
    t.is(once.text, 'reached');
    t.deepEqual(asked, ['Basic YTpi']);
  } finally {
    server.close();
  }
});
