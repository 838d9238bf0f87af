import test from 'ava';
import { startTestService, type TestService } from './http-fixture';

let s: TestService;
test.before(async () => {
  s = await startTestService();
});
test.after.always(async () => {
  await s?.service.stop();
});

test('host-meta points at /rests', async (t) => {
  const r = await s.request('GET', '/.well-known/host-meta');
  t.is(r.status, 200);
  t.regex(r.text, /<Link rel="restconf" href="\/rests"\/>/);
});

test('yang-library-version in JSON and XML', async (t) => {
  let r = await s.request('GET', '/rests/yang-library-version');
  t.deepEqual(r.json, { 'ietf-restconf:yang-library-version': '2019-01-04' });
  r = await s.request('GET', '/rests/yang-library-version', { headers: { accept: 'application/yang-data+xml' } });
  t.is(r.text, '<yang-library-version xmlns="urn:ietf:params:xml:ns:yang:ietf-restconf">2019-01-04</yang-library-version>');
});

test('OPTIONS /rests answers the WADL description; OPTIONS on data gives Allow', async (t) => {
  let r = await s.request('OPTIONS', '/rests');
  t.is(r.status, 200);
  t.regex(r.text, /<resource path="data\/\{identifier\}">/);
  t.regex(r.text, /mediaType="application\/yang-patch\+json"/);
  r = await s.request('OPTIONS', '/rests/data/ietf-interfaces:interfaces');
  t.is(r.headers.get('allow'), 'GET, HEAD, OPTIONS, PUT, POST, PATCH, DELETE');
  t.regex(r.headers.get('accept-patch') ?? '', /yang-patch\+xml/);
  r = await s.request('OPTIONS', '/rests/data/example-jukebox:jukebox/library/song-count');
  t.is(r.headers.get('allow'), 'GET, HEAD, OPTIONS');
  r = await s.request('OPTIONS', '/rests/operations/example-jukebox:play');
  t.is(r.headers.get('allow'), 'POST, OPTIONS');
});

test('GET /rests/operations lists every RPC', async (t) => {
  const r = await s.request('GET', '/rests/operations');
  t.is(r.status, 200);
  const ops = r.json['ietf-restconf:operations'];
  t.deepEqual(ops['example-jukebox:play'], [null]);
  t.deepEqual(ops['connection-manager:install-node'], [null]);
  const x = await s.request('GET', '/rests/operations', { headers: { accept: 'application/xml' } });
  t.regex(x.text, /<play xmlns="http:\/\/example.com\/ns\/example-jukebox"\/>/);
});

test('RPC: input checked first (400), 501 when no plugin implements it, 404 for an unknown one', async (t) => {
  let r = await s.request('POST', '/rests/operations/example-jukebox:play', {
    body: JSON.stringify({ 'example-jukebox:input': { playlist: 'p' } }),
  });
  t.is(r.status, 400, r.text);
  t.regex(r.json.errors.error[0]['error-path'], /song-number/);
  r = await s.request('POST', '/rests/operations/example-jukebox:play', {
    body: JSON.stringify({ 'example-jukebox:input': { playlist: 'p', 'song-number': 'x' } }),
  });
  t.is(r.status, 400);
  r = await s.request('POST', '/rests/operations/example-jukebox:play', {
    body: JSON.stringify({ 'example-jukebox:input': { playlist: 'p', 'song-number': 1 } }),
  });
  t.is(r.status, 501);
  t.is(r.json.errors.error[0]['error-tag'], 'operation-not-supported');
  r = await s.request('POST', '/rests/operations/example-jukebox:stop');
  t.is(r.status, 404);
  r = await s.request('GET', '/rests/operations/example-jukebox:play');
  t.is(r.status, 405);
});

test('ietf-yang-library data describes the loaded modules, from the Operational datastore', async (t) => {
  const r = await s.request('GET', '/rests/data/ietf-yang-library:yang-library/module-set=complete/module=example-jukebox');
  t.is(r.status, 200, r.text);
  const m = r.json['ietf-yang-library:module'][0];
  t.is(m.namespace, 'http://example.com/ns/example-jukebox');
  t.is(m.revision, '2015-04-04');
  const all = await s.request('GET', '/rests/data/ietf-yang-library:yang-library?content=nonconfig');
  t.deepEqual(
    all.json['ietf-yang-library:yang-library'].datastore.map((d: any) => d.name),
    ['ietf-datastores:running', 'ietf-datastores:operational'],
  );
  const config = await s.request('GET', '/rests/data/ietf-yang-library:yang-library?content=config');
  t.is(config.status, 404, 'yang-library is state only');
  const put = await s.request('PUT', '/rests/data/ietf-yang-library:yang-library', { body: '{"ietf-yang-library:yang-library":{}}' });
  t.is(put.status, 405);
});

test('YANG Patch (JSON): atomic; per-edit errors in yang-patch-status', async (t) => {
  const base = '/rests/data/example-jukebox:jukebox';
  await s.request('PUT', base, {
    body: JSON.stringify({
      'example-jukebox:jukebox': {
        library: {
          artist: [
            {
              name: 'A',
              album: [
                {
                  name: 'B',
                  song: [
                    { name: 's1', location: 'l' },
                    { name: 's2', location: 'l' },
                  ],
                },
              ],
            },
          ],
        },
      },
    }),
  });
  const patch = (edits: unknown[]) => JSON.stringify({ 'ietf-yang-patch:yang-patch': { 'patch-id': 'p1', edit: edits } });
  const headers = { 'content-type': 'application/yang-patch+json' };
  let r = await s.request('PATCH', base, {
    headers,
    body: patch([
      { 'edit-id': 'e1', operation: 'create', target: '/playlist=P', value: { 'example-jukebox:playlist': [{ name: 'P' }] } },
      { 'edit-id': 'e2', operation: 'create', target: '/playlist=P/song=1', value: { 'example-jukebox:song': [{ index: 1, id: 's1' }] } },
      {
        'edit-id': 'e3',
        operation: 'insert',
        target: '/playlist=P/song=2',
        where: 'first',
        value: { 'example-jukebox:song': [{ index: 2, id: 's2' }] },
      },
    ]),
  });
  t.is(r.status, 200, r.text);
  t.deepEqual(r.json, { 'ietf-yang-patch:yang-patch-status': { 'patch-id': 'p1', ok: [null] } });
  r = await s.request('GET', `${base}/playlist=P`);
  t.deepEqual(
    r.json['example-jukebox:playlist'][0].song.map((x: any) => x.index),
    [2, 1],
    'insert first',
  );
  r = await s.request('PATCH', base, {
    headers,
    body: patch([
      { 'edit-id': 'm1', operation: 'move', target: '/playlist=P/song=2', where: 'after', point: '/playlist=P/song=1' },
      { 'edit-id': 'bad', operation: 'create', target: '/playlist=P/song=1', value: { 'example-jukebox:song': [{ index: 1, id: 's1' }] } },
    ]),
  });
  t.is(r.status, 409);
  const edit = r.json['ietf-yang-patch:yang-patch-status']['edit-status'].edit[0];
  t.is(edit['edit-id'], 'bad');
  t.is(edit.errors.error[0]['error-tag'], 'data-exists');
  r = await s.request('GET', `${base}/playlist=P`);
  t.deepEqual(
    r.json['example-jukebox:playlist'][0].song.map((x: any) => x.index),
    [2, 1],
    'all or nothing: the move did not happen',
  );
  r = await s.request('PATCH', base, {
    headers,
    body: patch([
      { 'edit-id': 'm1', operation: 'move', target: '/playlist=P/song=2', where: 'last' },
      { 'edit-id': 'r1', operation: 'remove', target: '/playlist=Q' },
    ]),
  });
  t.is(r.status, 200, r.text);
  r = await s.request('GET', `${base}/playlist=P`);
  t.deepEqual(
    r.json['example-jukebox:playlist'][0].song.map((x: any) => x.index),
    [1, 2],
  );
});

test('YANG Patch (XML)', async (t) => {
  const base = '/rests/data/ietf-interfaces:interfaces';
  const body = `<yang-patch xmlns="urn:ietf:params:xml:ns:yang:ietf-yang-patch"><patch-id>x</patch-id>
    <edit><edit-id>e1</edit-id><operation>merge</operation><target>/interface=p0</target>
      <value><interface xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"><name>p0</name><type xmlns:ia="urn:ietf:params:xml:ns:yang:iana-if-type">ia:ethernetCsmacd</type></interface></value></edit>
  </yang-patch>`;
  const r = await s.request('PATCH', base, {
    body,
    headers: { 'content-type': 'application/yang-patch+xml', accept: 'application/yang-data+xml' },
  });
  t.is(r.status, 200, r.text);
  t.is(r.text, '<yang-patch-status xmlns="urn:ietf:params:xml:ns:yang:ietf-yang-patch"><patch-id>x</patch-id><ok/></yang-patch-status>');
  t.is((await s.request('GET', `${base}/interface=p0`)).status, 200);
});

test('apply-tags on PATCH: replace and delete inside a merge', async (t) => {
  const base = '/rests/data/ietf-interfaces:interfaces';
  await s.request('PUT', `${base}/interface=t0`, {
    body: JSON.stringify({
      'ietf-interfaces:interface': [{ name: 't0', type: 'iana-if-type:ethernetCsmacd', description: 'd', enabled: true }],
    }),
  });
  const body = JSON.stringify({
    'ietf-interfaces:interface': [{ name: 't0', '@': { operation: 'merge' }, description: { '@': { operation: 'delete' }, '#': 'd' } }],
  });
  let r = await s.request('PATCH', `${base}/interface=t0?apply-tags=true`, { body });
  t.is(r.status, 200, r.text);
  r = await s.request('GET', `${base}/interface=t0`);
  t.is(r.json['ietf-interfaces:interface'][0].description, undefined);
  t.is(r.json['ietf-interfaces:interface'][0].enabled, true);
  r = await s.request('PATCH', `${base}/interface=t0`, { body });
  t.is(r.status, 400, 'without apply-tags the operation attribute is undeclared');
  r = await s.request('PATCH', `${base}/interface=nope?apply-tags=true`, {
    body: JSON.stringify({ 'ietf-interfaces:interface': [{ name: 'nope', '@': { operation: 'update' } }] }),
  });
  t.is(r.status, 404);
});

test('junk headers and a bad request line answer 400 with the envelope', async (t) => {
  const net = await import('node:net');
  const url = new URL(s.service.url);
  const answer = await new Promise<string>((resolve) => {
    const sock = net.connect(Number(url.port), url.hostname, () => sock.write('GET /rests/data HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
    let out = '';
    sock
      .on('data', (d) => {
        out += d;
      })
      .on('close', () => resolve(out));
  });
  t.regex(answer, /^HTTP\/1.1 400/);
  t.regex(answer, /malformed-message/);
});
