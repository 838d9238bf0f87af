import test from 'ava';
import { startTestService, type TestService } from './http-fixture';

let t0: TestService;
test.before(async () => {
  t0 = await startTestService();
});
test.after.always(async () => {
  await t0?.service.stop();
});

const IF = '/rests/data/ietf-interfaces:interfaces';
const ifBody = (name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ 'ietf-interfaces:interface': [{ name, type: 'iana-if-type:ethernetCsmacd', ...extra }] });

test.serial('PUT creates (201) then replaces (204) a list entry; GET reads it back', async (t) => {
  const s = t0;
  let r = await s.request('PUT', `${IF}/interface=eth0`, { body: ifBody('eth0', { description: 'first' }) });
  t.is(r.status, 201, r.text);
  r = await s.request('PUT', `${IF}/interface=eth0`, { body: ifBody('eth0', { enabled: false }) });
  t.is(r.status, 204, r.text);
  r = await s.request('GET', `${IF}/interface=eth0`);
  t.is(r.status, 200);
  t.regex(r.headers.get('content-type') ?? '', /application\/yang-data\+json/);
  const entry = r.json['ietf-interfaces:interface'][0];
  t.is(entry.enabled, false);
  t.is(entry.description, undefined, 'replace never merges: the old description is gone');
});

test.serial('PUT whose body root is not the last URI node is 400', async (t) => {
  const r = await t0.request('PUT', `${IF}/interface=eth9`, { body: JSON.stringify({ 'ietf-interfaces:interfaces': {} }) });
  t.is(r.status, 400);
  t.is(r.json.errors.error[0]['error-tag'], 'unknown-element', 'interfaces is no sibling of interface');
  const sibling = await t0.request('PUT', `${IF}/interface=eth9/description`, {
    body: JSON.stringify({ 'ietf-interfaces:enabled': true }),
  });
  t.is(sibling.status, 400);
  t.is(sibling.json.errors.error[0]['error-tag'], 'invalid-value');
  t.is((await t0.request('GET', `${IF}/interface=eth9`)).status, 404);
});

test.serial('PUT with keys differing from the URI is 400 and changes nothing', async (t) => {
  const r = await t0.request('PUT', `${IF}/interface=eth7`, { body: ifBody('eth8') });
  t.is(r.status, 400);
  t.is((await t0.request('GET', `${IF}/interface=eth8`)).status, 404);
});

test.serial('POST creates a child with 201 + Location; again is 409 data-exists', async (t) => {
  let r = await t0.request('POST', IF, { body: ifBody('eth/1') });
  t.is(r.status, 201, r.text);
  // %2F is refused in a path, so the Location names a key holding / with the key delimiter.
  t.is(r.headers.get('location'), `${IF}/interface=%22eth/1%22`);
  r = await t0.request('POST', IF, { body: ifBody('eth/1') });
  t.is(r.status, 409);
  t.is(r.json.errors.error[0]['error-tag'], 'data-exists');
  r = await t0.request('GET', `${IF}/interface=%22eth/1%22`);
  t.is(r.status, 200, 'the key delimiter reads a key holding /');
});

test.serial('POST /rests/data creates a top-level container', async (t) => {
  const r = await t0.request('POST', '/rests/data', { body: JSON.stringify({ 'example-jukebox:jukebox': { player: { gap: '0.5' } } }) });
  t.is(r.status, 201, r.text);
  t.is(r.headers.get('location'), '/rests/data/example-jukebox:jukebox');
  const g = await t0.request('GET', '/rests/data/example-jukebox:jukebox/player/gap');
  t.deepEqual(g.json, { 'example-jukebox:gap': '0.5' });
});

test.serial('plain PATCH merges (200) and deletes nothing', async (t) => {
  await t0.request('PUT', `${IF}/interface=eth2`, { body: ifBody('eth2', { description: 'keep' }) });
  const r = await t0.request('PATCH', `${IF}/interface=eth2`, { body: ifBody('eth2', { enabled: true }) });
  t.is(r.status, 200, r.text);
  const g = await t0.request('GET', `${IF}/interface=eth2`);
  t.is(g.json['ietf-interfaces:interface'][0].description, 'keep');
  t.is(g.json['ietf-interfaces:interface'][0].enabled, true);
});

test.serial('DELETE removes exactly the target (204), then 404', async (t) => {
  await t0.request('PUT', `${IF}/interface=eth3`, { body: ifBody('eth3', { description: 'x' }) });
  let r = await t0.request('DELETE', `${IF}/interface=eth3/description`);
  t.is(r.status, 204);
  r = await t0.request('GET', `${IF}/interface=eth3`);
  t.is(r.status, 200);
  t.is(r.json['ietf-interfaces:interface'][0].description, undefined);
  r = await t0.request('DELETE', `${IF}/interface=eth3`);
  t.is(r.status, 204);
  r = await t0.request('DELETE', `${IF}/interface=eth3`);
  t.is(r.status, 404);
  t.is(r.json.errors.error[0]['error-tag'], 'data-missing');
});

test.serial('GET of a schema node without data is 404 data-missing; of an unknown node 404 invalid-value', async (t) => {
  let r = await t0.request('GET', `${IF}/interface=nothing`);
  t.is(r.status, 404);
  t.is(r.json.errors.error[0]['error-tag'], 'data-missing');
  t.is(r.json.errors.error[0]['error-path'], "/ietf-interfaces:interfaces/interface[name='nothing']");
  r = await t0.request('GET', '/rests/data/ietf-interfaces:nonsense');
  t.is(r.status, 404);
  t.is(r.json.errors.error[0]['error-tag'], 'invalid-value');
});

test.serial('XML both ways: PUT XML, GET XML', async (t) => {
  const xml =
    '<interface xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><name>x1</name><type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:ethernetCsmacd</type><mtu-bogus/></interface>';
  let r = await t0.request('PUT', `${IF}/interface=x1`, { body: xml, headers: { 'content-type': 'application/yang-data+xml' } });
  t.is(r.status, 400, 'unknown element');
  t.regex(r.text, /unknown-element/);
  const good =
    '<interface xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><name>x1</name><type xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type">ianaift:ethernetCsmacd</type><description>xml</description></interface>';
  r = await t0.request('PUT', `${IF}/interface=x1`, { body: good, headers: { 'content-type': 'application/xml' } });
  t.is(r.status, 201, r.text);
  r = await t0.request('GET', `${IF}/interface=x1/description`, { headers: { accept: 'application/yang-data+xml' } });
  t.is(r.status, 200);
  t.is(r.headers.get('content-type')?.split(';')[0], 'application/yang-data+xml');
  t.is(r.text, '<description xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces">xml</description>');
  r = await t0.request('GET', `${IF}/interface=x1/description`, { headers: { accept: 'application/yang.data+json' } });
  t.is(r.headers.get('content-type')?.split(';')[0], 'application/yang.data+json');
  t.deepEqual(r.json, { 'ietf-interfaces:description': 'xml' });
});

test.serial('media types: 415 for an unknown Content-Type, 406 for an unsatisfiable Accept', async (t) => {
  let r = await t0.request('PUT', `${IF}/interface=m1`, { body: ifBody('m1'), headers: { 'content-type': 'text/plain' } });
  t.is(r.status, 415);
  r = await t0.request('GET', IF, { headers: { accept: 'image/png' } });
  t.is(r.status, 406);
  t.truthy(r.json.errors, 'the error envelope falls back to JSON');
  r = await t0.request('GET', IF, { headers: { accept: 'application/xml;q=0.5, application/json;q=0.9' } });
  t.is(r.headers.get('content-type')?.split(';')[0], 'application/json');
});

test.serial('writes to operational (config false) data answer 405 with Allow', async (t) => {
  const r = await t0.request('PUT', '/rests/data/example-jukebox:jukebox/library/artist-count', {
    body: JSON.stringify({ 'example-jukebox:artist-count': 3 }),
  });
  t.is(r.status, 405);
  t.is(r.headers.get('allow'), 'GET, HEAD, OPTIONS');
});

test.serial('malformed bodies are 400 malformed-message and change nothing', async (t) => {
  let r = await t0.request('PUT', `${IF}/interface=bad`, { body: '{"ietf-interfaces:interface": [' });
  t.is(r.status, 400);
  t.is(r.json.errors.error[0]['error-tag'], 'malformed-message');
  r = await t0.request('PUT', `${IF}/interface=bad`, { body: '<interface', headers: { 'content-type': 'application/xml' } });
  t.is(r.status, 400);
  r = await t0.request('PUT', `${IF}/interface=bad`, { body: '[]'.padStart(10_000, '[').padEnd(20_000, ']') });
  t.is(r.status, 400);
  const deep =
    '{"ietf-interfaces:interface":[{"name":"bad","type":"iana-if-type:ethernetCsmacd","x":' +
    '{"a":'.repeat(10_000) +
    '1' +
    '}'.repeat(10_000) +
    '}]}';
  r = await t0.request('PUT', `${IF}/interface=bad`, { body: deep });
  t.is(r.status, 400);
  t.is(r.json.errors.error[0]['error-tag'], 'unknown-element');
  r = await t0.request('PUT', `${IF}/interface=bad`, { body: ifBody('bad', { mtu: 'abc' }) });
  t.is(r.status, 400);
  t.is((await t0.request('GET', `${IF}/interface=bad`)).status, 404);
});

test.serial('bad URIs: bad percent-encoding and %2F are 400', async (t) => {
  let r = await t0.request('GET', `${IF}/interface=%E0%A4%A`);
  t.is(r.status, 400);
  r = await t0.request('GET', `${IF}/interface=a%2Fb`);
  t.is(r.status, 400);
  t.truthy(r.json.errors.error[0]['error-message']);
});

test.serial('query parameters: unknown is 400 naming it; a query ending in & is accepted', async (t) => {
  let r = await t0.request('GET', `${IF}?bogus=1`);
  t.is(r.status, 400);
  t.regex(r.json.errors.error[0]['error-message'], /bogus/);
  r = await t0.request('GET', `${IF}?depth=1&`);
  t.is(r.status, 200, r.text);
  r = await t0.request('GET', `${IF}?depth=0`);
  t.is(r.status, 400);
  r = await t0.request('GET', `${IF}?content=config&content=all`);
  t.is(r.status, 400);
});

test.serial('leafref checking only with checkForReferences=true', async (t) => {
  await t0.request('PUT', '/rests/data/example-jukebox:jukebox', { body: JSON.stringify({ 'example-jukebox:jukebox': {} }) });
  const song = JSON.stringify({ 'example-jukebox:song': [{ index: 1, id: 'nowhere' }] });
  let r = await t0.request('PUT', '/rests/data/example-jukebox:jukebox/playlist=p1/song=1?checkForReferences=true', { body: song });
  t.is(r.status, 400, r.text);
  t.regex(r.json.errors.error[0]['error-path'], /playlist\[name='p1'\]\/song\[index='1'\]\/id/);
  r = await t0.request('PUT', '/rests/data/example-jukebox:jukebox/playlist=p1/song=1', { body: song });
  t.is(r.status, 201, r.text);
});

test.serial('validation: a missing mandatory leaf is 400 with its path', async (t) => {
  const r = await t0.request('PUT', '/rests/data/example-jukebox:jukebox/playlist=p2/song=1', {
    body: JSON.stringify({ 'example-jukebox:song': [{ index: 1 }] }),
  });
  t.is(r.status, 400, r.text);
  t.is(r.json.errors.error[0]['error-tag'], 'missing-element');
});

test.serial('413 too-big past the body limit; nothing changed', async (t) => {
  const s = await startTestService({ bodyLimit: 1000 });
  try {
    const r = await s.request('PUT', `${IF}/interface=big`, { body: ifBody('big', { description: 'x'.repeat(5000) }) });
    t.is(r.status, 413);
    t.is(r.json.errors.error[0]['error-tag'], 'too-big');
    t.is((await s.request('GET', `${IF}/interface=big`)).status, 404);
  } finally {
    await s.service.stop();
  }
});

test.serial('insert/point on POST into an ordered-by user list; 400 on a system-ordered one', async (t) => {
  const pl = '/rests/data/example-jukebox:jukebox/playlist=ins';
  await t0.request('PUT', '/rests/data/example-jukebox:jukebox/library', {
    body: JSON.stringify({
      'example-jukebox:library': { artist: [{ name: 'A', album: [{ name: 'B', song: [{ name: 's', location: 'l' }] }] }] },
    }),
  });
  t.is((await t0.request('PUT', pl, { body: JSON.stringify({ 'example-jukebox:playlist': [{ name: 'ins' }] }) })).status, 201);
  const song = (i: number) => JSON.stringify({ 'example-jukebox:song': [{ index: i, id: 's' }] });
  t.is((await t0.request('POST', pl, { body: song(1) })).status, 201);
  t.is((await t0.request('POST', `${pl}?insert=first`, { body: song(2) })).status, 201);
  t.is((await t0.request('POST', `${pl}?insert=after&point=2`, { body: song(3) })).status, 201);
  const r = await t0.request('GET', pl);
  t.deepEqual(
    r.json['example-jukebox:playlist'][0].song.map((s: any) => s.index),
    [2, 3, 1],
  );
  const bad = await t0.request('POST', `${IF}?insert=first`, { body: ifBody('ins0') });
  t.is(bad.status, 400);
  t.regex(bad.json.errors.error[0]['error-message'], /insert/);
  const missing = await t0.request('POST', `${pl}?insert=before`, { body: song(4) });
  t.is(missing.status, 400);
  t.is(missing.json.errors.error[0]['error-tag'], 'missing-attribute');
});

test.serial('GET query parameters reach the query module: fetch=count, depth, fields, content', async (t) => {
  let r = await t0.request('GET', `${IF}/interface?fetch=count`);
  t.is(r.status, 200);
  t.true(Number.isInteger(r.json) && r.json > 2, r.text);
  r = await t0.request('GET', `${IF}/interface?limit=1&fields=name`);
  t.is(r.json['ietf-interfaces:interface'].length, 1);
  t.deepEqual(Object.keys(r.json['ietf-interfaces:interface'][0]), ['name']);
  r = await t0.request('GET', '/rests/data/example-jukebox:jukebox?depth=1');
  t.is(r.status, 200);
  r = await t0.request('GET', '/rests/data?content=nonconfig&depth=1');
  t.is(r.status, 200);
  t.truthy(r.json['ietf-restconf:data']['ietf-yang-library:yang-library']);
  t.falsy(r.json['ietf-restconf:data']['ietf-interfaces:interfaces']);
});
