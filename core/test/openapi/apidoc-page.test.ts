/**
 * The API page's files over plain HTTP, through a real service on the test models: the page, its start
 * script and the package's assets answer 200 with their content types (the assets byte for byte as the
 * installed swagger-ui-dist has them), the module list names each implemented module's document, and
 * no path leaves the page's fixed files (`..`, encoded or not, and the package's other files are 404).
 * Requests go through node:http, which sends the path as written (fetch would resolve the `..`).
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import test from 'ava';
import { openApiDocument } from '../../src/openapi';
import { startTestService, type TestService } from '../restconf/http-fixture';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after.always(async () => {
  await svc?.service.stop();
});

/** One request with its path sent exactly as given. */
function raw(method: string, pathAsSent: string): Promise<{ status: number; type: string | undefined; body: Buffer }> {
  const url = new URL(svc.service.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path: pathAsSent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const PACKAGE = path.dirname(require.resolve('swagger-ui-dist/package.json'));

test('the page and its start script answer as HTML and JavaScript, with or without the trailing slash', async (t) => {
  for (const p of ['/rests/apidoc', '/rests/apidoc/', '/rests/apidoc/index.html']) {
    const page = await raw('GET', p);
    t.is(page.status, 200, p);
    t.is(page.type, 'text/html; charset=utf-8', p);
    t.regex(page.body.toString(), /<script src="\/rests\/apidoc\/swagger-ui-bundle\.js"/, p);
  }
  const start = await raw('GET', '/rests/apidoc/swagger-initializer.js');
  t.is(start.status, 200);
  t.is(start.type, 'text/javascript; charset=utf-8');
  t.regex(start.body.toString(), /fetch\("\/rests\/apidoc\/modules\.json"/);
  t.regex(start.body.toString(), /tryItOutEnabled: true/);
  t.notRegex(start.body.toString(), /petstore/, "the package's own start script points at the internet");
  const head = await raw('HEAD', '/rests/apidoc/');
  t.is(head.status, 200);
  t.is(head.body.length, 0);
});

test("the package's assets answer byte for byte with their content types", async (t) => {
  for (const [file, type] of [
    ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
    ['swagger-ui-standalone-preset.js', 'text/javascript; charset=utf-8'],
    ['swagger-ui.css', 'text/css; charset=utf-8'],
    ['index.css', 'text/css; charset=utf-8'],
    ['favicon-32x32.png', 'image/png'],
  ] as const) {
    const res = await raw('GET', `/rests/apidoc/${file}`);
    t.is(res.status, 200, file);
    t.is(res.type, type, file);
    t.true(res.body.equals(fs.readFileSync(path.join(PACKAGE, file))), file);
  }
});

test('the module list has one entry per implemented module, each pointing at its valid document', async (t) => {
  const res = await svc.request('GET', '/rests/apidoc/modules.json');
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  const entries = res.json as Array<{ name: string; url: string }>;
  const names = entries.map((e) => e.name);
  for (const m of ['example-jukebox', 'ietf-interfaces', 'ietf-yang-library']) t.true(names.includes(m), m);
  t.deepEqual(names, [...names].sort());
  const jukebox = entries.find((e) => e.name === 'example-jukebox')!;
  t.is(jukebox.url, '/rests/openapi.json?modules=example-jukebox');
  const doc = await svc.request('GET', jukebox.url);
  t.is(doc.status, 200);
  await t.notThrowsAsync(SwaggerParser.validate(doc.json));
  t.true(Object.keys(doc.json.paths).includes('/rests/data/example-jukebox:jukebox'));
});

test('no path leaves the fixed files: traversal, encoded slashes and other package files are 404', async (t) => {
  for (const p of [
    '/rests/apidoc/../package.json',
    '/rests/apidoc/..%2fpackage.json',
    '/rests/apidoc/%2e%2e/package.json',
    '/rests/apidoc/../../../../etc/passwd',
    '/rests/apidoc/package.json',
    '/rests/apidoc/swagger-ui.js.map',
    '/rests/apidoc/./swagger-ui.css',
    '/rests/apidoc//swagger-ui.css',
  ]) {
    const res = await raw('GET', p);
    t.is(res.status, 404, p);
    t.notRegex(res.body.toString(), /"name": ?"swagger-ui-dist"|root:/, p);
  }
});

test('the page is read-only', async (t) => {
  t.is((await raw('PUT', '/rests/apidoc/swagger-ui.css')).status, 405);
  t.is((await raw('DELETE', '/rests/apidoc')).status, 405);
  t.is((await raw('POST', '/rests/apidoc/modules.json')).status, 405);
});

test('a document of a service that asks for credentials declares the Basic scheme for every path', async (t) => {
  const schema = svc.service.schema;
  const open = openApiDocument(schema, ['example-jukebox']);
  t.is(open['security'], undefined);
  const guarded = openApiDocument(schema, ['example-jukebox'], { basicAuth: true });
  t.deepEqual(guarded['security'], [{ basic: [] }]);
  t.deepEqual((guarded['components'] as any).securitySchemes, { basic: { type: 'http', scheme: 'basic' } });
  await t.notThrowsAsync(SwaggerParser.validate(guarded as any));
});
