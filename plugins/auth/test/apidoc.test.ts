/**
 * The API page of a service that asks for credentials, with this plugin loaded: the page and its files
 * answer without credentials (they hold nothing of the schema), the module list and the documents do
 * not, and the documents declare the Basic scheme so that Swagger UI's "Authorize" sends it. In Debian's
 * chromium (skipped, naming the package, without it) a browser that answers the Basic challenge, as a
 * user does at the browser's prompt, lists the modules and gets its "try it out" GET answered.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import test from 'ava';
import { chromium } from 'playwright-core';
import { hashPassword } from '@rosetta/core/dist/src/cli/hash-password-command';
import { startTestService, type TestService } from '@rosetta/core/dist/test/restconf/http-fixture';

const AUTH_PLUGIN = path.resolve(__dirname, '../..');
const CHROMIUM = '/usr/bin/chromium';
/** Written by the admin before the viewer's browser reads it. */
const DESCRIPTION = 'uplink the viewer reads from the API page';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

let svc: TestService;
test.before(async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-auth-apidoc-')), 'plugins.json');
  fs.writeFileSync(file, JSON.stringify({ watch: false, plugins: [{ path: AUTH_PLUGIN, enabled: true }] }));
  const users = [
    { name: 'admin', role: 'write', passwordHash: await hashPassword('admin-pass', { cost: 1024 }) },
    { name: 'viewer', role: 'read', passwordHash: await hashPassword('viewer-pass', { cost: 1024 }) },
  ];
  svc = await startTestService({ plugins: file, auth: { users, failedAttemptDelayMs: 0, maxFailedAttemptDelayMs: 0 } });
});
test.after.always(async () => {
  await svc?.service.stop();
});

test('the page answers without credentials; its module list and documents need them and declare Basic', async (t) => {
  for (const p of ['/rests/apidoc', '/rests/apidoc/swagger-initializer.js', '/rests/apidoc/swagger-ui-bundle.js']) {
    t.is((await svc.request('GET', p)).status, 200, p);
  }
  for (const p of ['/rests/apidoc/modules.json', '/rests/openapi.json?modules=ietf-interfaces']) {
    const refused = await svc.request('GET', p);
    t.is(refused.status, 401, p);
    t.is(refused.headers.get('www-authenticate'), 'Basic realm="rosetta", charset="UTF-8"', p);
  }
  const viewer = { authorization: basic('viewer', 'viewer-pass') };
  const modules = await svc.request('GET', '/rests/apidoc/modules.json', { headers: viewer });
  t.is(modules.status, 200);
  t.true((modules.json as Array<{ name: string }>).some((m) => m.name === 'ietf-interfaces'));
  const doc = await svc.request('GET', '/rests/openapi.json?modules=ietf-interfaces', { headers: viewer });
  t.deepEqual(doc.json.security, [{ basic: [] }]);
  t.deepEqual(doc.json.components.securitySchemes, { basic: { type: 'http', scheme: 'basic' } });
  await t.notThrowsAsync(SwaggerParser.validate(doc.json));
});

if (!fs.existsSync(CHROMIUM)) {
  const why = `SKIPPED: the API page's browser test needs ${CHROMIUM}: install the Debian package chromium (apt-get install chromium)`;
  console.log(`auth apidoc: ${why}`);
  test.skip(why, () => undefined);
} else {
  test('a browser answering the Basic challenge lists the modules and tries a GET from the page', async (t) => {
    t.timeout(120_000);
    const body = JSON.stringify({
      'ietf-interfaces:interface': [{ name: 'eth9', type: 'iana-if-type:ethernetCsmacd', description: DESCRIPTION }],
    });
    const put = await svc.request('PUT', '/rests/data/ietf-interfaces:interfaces/interface=eth9', {
      body,
      headers: { authorization: basic('admin', 'admin-pass') },
    });
    t.is(put.status, 201, put.text);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const context = await browser.newContext({ httpCredentials: { username: 'viewer', password: 'viewer-pass' } });
      const page = await context.newPage();
      await page.goto(`${svc.service.url}/rests/apidoc/`);
      const selector = page.locator('.topbar select');
      await selector.waitFor({ timeout: 30_000 });
      t.true((await selector.locator('option').allTextContents()).includes('ietf-interfaces'));
      await selector.selectOption({ label: 'ietf-interfaces' });
      const get = page.locator('.opblock-get', {
        has: page.locator('.opblock-summary-path[data-path="/rests/data/ietf-interfaces:interfaces"]'),
      });
      await get.locator('.opblock-summary-control').click();
      await get.locator('button.execute').click();
      const answer = get.locator('.live-responses-table tr.response');
      await answer.locator('td.response-col_status', { hasText: '200' }).waitFor({ timeout: 30_000 });
      t.true(((await answer.locator('td.response-col_description').textContent()) ?? '').includes(DESCRIPTION));
    } finally {
      await browser.close();
    }
  });
}
