/**
 * `/metrics` under many scrapers at once, and the `metrics.enabled` switch. Fifty concurrent scrapes
 * beside API reads must all answer, each a whole exposition that parses, and the API must not fail
 * while they run; concurrent scrapes share one generation of the text, while a later one is fresh. With the switch off
 * the service keeps no registry and `/metrics` is not served, while the API answers as before.
 */
import test from 'ava';
import { performance } from 'node:perf_hooks';
import { SCRAPE_INTERVAL_MS, ServiceMetrics } from '../../src/metrics';
import { ConfigError, resolveConfig } from '../../src/service/config';
import { startTestService } from '../../src/service/test-service';
import { parseExposition } from './exposition';

const SCRAPERS = 50;
const ENTRY = '/rests/data/ietf-yang-library:yang-library';

test('50 concurrent /metrics requests all answer 200 with a parsable body while API requests also succeed', async (t) => {
  const s = await startTestService({ plugins: [], label: 'metrics-load' });
  try {
    const scrapes = Array.from({ length: SCRAPERS }, () => s.request('GET', '/metrics'));
    const api = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0 ? s.request('GET', ENTRY) : s.request('GET', '/rests/data/ietf-yang-library:yang-library/module-set?content=nonconfig'),
    );
    const [scraped, answered] = await Promise.all([Promise.all(scrapes), Promise.all(api)]);
    for (const r of scraped) {
      t.is(r.status, 200);
      const samples = parseExposition(r.text);
      t.true(samples.some((x) => x.name === 'rosetta_plugin_generation'));
      t.true(samples.some((x) => x.name === 'rosetta_process_resident_memory_bytes'));
    }
    t.deepEqual(
      answered.map((r) => r.status),
      answered.map(() => 200),
    );
    // The scrapes were counted like any request, under the bounded route label.
    const after = parseExposition((await s.request('GET', '/metrics')).text);
    const counted = after.find(
      (x) => x.name === 'rosetta_http_requests_total' && x.labels.route === '/metrics' && x.labels.status === '200',
    );
    t.true((counted?.value ?? 0) >= SCRAPERS);
  } finally {
    await s.stop();
  }
});

test('concurrent scrapes share one generation of the exposition; a scrape after it has finished generates afresh', async (t) => {
  const metrics = new ServiceMetrics();
  let generated = 0;
  const generate = metrics.registry.metrics.bind(metrics.registry);
  metrics.registry.metrics = () => {
    generated += 1;
    return generate();
  };
  const texts = await Promise.all(Array.from({ length: SCRAPERS }, () => metrics.scrape()));
  t.is(generated, 1);
  t.true(texts.every((x) => x.text === texts[0]!.text));
  // Counted after the shared scrape finished, so the next scrape must see it: it is not served a stale text.
  metrics.countRequest('GET', '/rests/data', 200, 0.001);
  const next = await metrics.scrape();
  t.is(generated, 2);
  t.true(parseExposition(next.text).some((x) => x.name === 'rosetta_http_requests_total' && x.labels.route === '/rests/data'));
});

test('scrapers that never pause start a generation at most every SCRAPE_INTERVAL_MS, each answered with counts from after it arrived', async (t) => {
  const metrics = new ServiceMetrics();
  let generated = 0;
  const generate = metrics.registry.metrics.bind(metrics.registry);
  metrics.registry.metrics = () => {
    generated += 1;
    return generate();
  };
  const started = performance.now();
  const until = started + 2 * SCRAPE_INTERVAL_MS;
  let answered = 0;
  await Promise.all(
    Array.from({ length: 5 }, async () => {
      while (performance.now() < until) {
        await metrics.scrape();
        answered += 1;
      }
    }),
  );
  const elapsed = performance.now() - started;
  // at most one generation per interval begun, plus the first (on a slow machine, fewer)
  t.true(generated <= Math.floor(elapsed / SCRAPE_INTERVAL_MS) + 1, `${generated} generations in ${Math.round(elapsed)} ms`);
  t.true(answered >= 5 && answered <= 5 * generated);
  // a count made while the next generation is pending is in that generation's text
  const pending = metrics.scrape();
  metrics.countRequest('GET', '/rests/data', 200, 0.001);
  t.true(parseExposition((await pending).text).some((x) => x.name === 'rosetta_http_requests_total' && x.labels.route === '/rests/data'));
});

test('metrics.enabled false keeps no registry and serves no /metrics; the API and the probes answer as before', async (t) => {
  const s = await startTestService({ plugins: [], label: 'metrics-off', config: { metrics: { enabled: false } } });
  try {
    t.is(s.service.metrics, undefined);
    t.is((await s.request('GET', '/metrics')).status, 404);
    t.is((await s.request('GET', ENTRY)).status, 200);
    t.is((await s.request('GET', '/rests/health')).status, 200);
    t.is((await s.request('GET', '/rests/ready')).status, 200);
  } finally {
    await s.stop();
  }
});

test('the metrics object is checked: enabled is a boolean, nothing else is known, on by default', (t) => {
  t.true(resolveConfig({}, '/tmp').metrics.enabled);
  t.true(resolveConfig({ metrics: {} }, '/tmp').metrics.enabled);
  t.false(resolveConfig({ metrics: { enabled: false } }, '/tmp').metrics.enabled);
  t.is(
    t.throws(() => resolveConfig({ metrics: { enabled: 'no' } }, '/tmp'), { instanceOf: ConfigError })?.message.includes('metrics.enabled'),
    true,
  );
  t.is(
    t.throws(() => resolveConfig({ metrics: { port: 9100 } }, '/tmp'), { instanceOf: ConfigError })?.message.includes('metrics.port'),
    true,
  );
  t.throws(() => resolveConfig({ metrics: true }, '/tmp'), { instanceOf: ConfigError });
});
