/**
 * The API page in a real headless Chromium (Debian's `chromium`, driven by playwright-core), against a
 * real service on the test models: the page loads, its selector lists the modules, picking one loads
 * that module's document, a GET path expands, "try it out" sends the request and the page shows the
 * service's answer, which carries an interface written to the datastore beforehand. A screenshot of the
 * answer is saved under the OS temp folder (its path is printed; CI keeps it as an artifact).
 * Without the browser the test is skipped, naming the package to install.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { chromium, type Browser } from 'playwright-core';
import { startTestService, type TestService } from '../restconf/http-fixture';

/** Debian's chromium package puts its launcher here. */
const CHROMIUM = '/usr/bin/chromium';
const INTERFACES = '/rests/data/ietf-interfaces:interfaces';
/** Written before the page reads it: text only the datastore can have given the page. */
const DESCRIPTION = 'uplink written for the API page test';

if (!fs.existsSync(CHROMIUM)) {
  const why = `SKIPPED: the API page's browser test needs ${CHROMIUM}: install the Debian package chromium (apt-get install chromium)`;
  console.log(`apidoc-browser: ${why}`);
  test.skip(why, () => undefined);
} else {
  let svc: TestService;
  let browser: Browser;
  test.before(async () => {
    svc = await startTestService();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  test.after.always(async () => {
    await browser?.close();
    await svc?.service.stop();
  });

  test('the page lists the modules, and a GET tried from it shows the datastore answer', async (t) => {
    t.timeout(120_000);
    const body = JSON.stringify({
      'ietf-interfaces:interface': [{ name: 'eth7', type: 'iana-if-type:ethernetCsmacd', description: DESCRIPTION }],
    });
    t.is((await svc.request('PUT', `${INTERFACES}/interface=eth7`, { body })).status, 201);

    const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    const failures: string[] = [];
    page.on('pageerror', (err) => failures.push(err.message));
    page.on('requestfailed', (req) => failures.push(`${req.url()}: ${req.failure()?.errorText}`));
    await page.goto(`${svc.service.url}/rests/apidoc`);

    // The top bar's selector: one entry per module, each naming its document.
    const selector = page.locator('.topbar select');
    await selector.waitFor({ timeout: 30_000 });
    const options = await selector.locator('option').allTextContents();
    for (const m of ['example-jukebox', 'ietf-interfaces', 'ietf-yang-library']) t.true(options.includes(m), m);

    // Picking a module loads its document: its paths appear, another module's do not.
    await selector.selectOption({ label: 'ietf-interfaces' });
    const get = page.locator('.opblock-get', { has: page.locator(`.opblock-summary-path[data-path="${INTERFACES}"]`) });
    await get.waitFor({ timeout: 30_000 });
    t.is(await page.locator('.opblock-summary-path[data-path="/rests/data/example-jukebox:jukebox"]').count(), 0);

    // Expand the GET, try it out (the page starts in that mode; the button is there only when it does not), send it.
    await get.locator('.opblock-summary-control').click();
    const tryOut = get.locator('button.try-out__btn', { hasText: 'Try it out' });
    if ((await tryOut.count()) > 0) await tryOut.click();
    await get.locator('button.execute').click();

    // The answer the page shows: status 200 and the body the service read from its datastore.
    const answer = get.locator('.live-responses-table tr.response');
    await answer.locator('td.response-col_status', { hasText: '200' }).waitFor({ timeout: 30_000 });
    const shown = (await answer.locator('td.response-col_description').textContent()) ?? '';
    t.true(shown.includes(DESCRIPTION), shown.slice(0, 500));
    t.true(shown.includes('"name": "eth7"'), shown.slice(0, 500));

    const screenshot = path.join(os.tmpdir(), `rosetta-apidoc-${process.pid}-${Date.now()}.png`);
    await get.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshot, fullPage: true });
    console.log(`apidoc-browser: screenshot of the page's answer saved at ${screenshot}`);
    t.log(`screenshot: ${screenshot}`);
    t.true(fs.statSync(screenshot).size > 0);
    t.deepEqual(failures, []);
    await page.close();
  });
}
