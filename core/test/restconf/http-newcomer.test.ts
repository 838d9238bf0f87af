/**
 * Request-level tests of what a newcomer to the service met, on a real service started with one small
 * module written here (no shared corpus): the `Location` of a POST is usable as given whatever its keys
 * hold; a broken constraint (`must`, `unique`, min/max-elements, `mandatory`) is the client's 4xx and
 * stores nothing; `with-defaults=report-all` answers a leaf whose value is its default; and
 * `hideEmptyDataNodes=true` leaves no empty container behind, in JSON and XML.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import type { RunningService } from '../../src/service/service';
import { startTestService, type TestReply } from '../../src/service/test-service';

const MODULE = `
module newcomer {
  yang-version 1.1;
  namespace "urn:rosetta:test:newcomer";
  prefix nc;
  import ietf-yang-metadata { prefix md; }

  md:annotation note { type string; }

  container ports {
    list port {
      key name;
      leaf name { type string; }
      leaf speed { type uint32; }
    }
    list link {
      key "from to";
      leaf from { type string; }
      leaf to { type string; }
      leaf cost { type uint32; }
    }
  }

  container limits {
    leaf low { type uint32; }
    leaf high {
      type uint32;
      must ". >= ../low";
    }
    leaf ratio {
      type uint8;
      must ". <= 100" {
        error-message "ratio is a percentage";
        error-app-tag "ratio-range";
      }
    }
    list server {
      key name;
      unique "ip";
      max-elements 2;
      leaf name { type string; }
      leaf ip { type string; }
    }
  }

  container team {
    presence "a team is configured";
    leaf lead { type string; mandatory true; }
    leaf-list member { type string; min-elements 1; }
  }

  container settings {
    leaf name { type string; }
    leaf timeout { type uint32; default 30; }
    leaf-list level { type string; default "info"; }
    container retry {
      leaf count { type uint8; default 3; }
    }
  }

  container logging {
    leaf target { type string; default "syslog"; }
  }

  container box {
    leaf name { type string; }
    container maintenance {
      container window {
        leaf start { type string; }
      }
      list slot {
        key id;
        leaf id { type string; }
      }
      leaf-list day { type string; }
    }
    container marked {
      leaf text { type string; }
    }
    container mode {
      container paused {
        presence "maintenance is paused";
      }
    }
    list item {
      key id;
      leaf id { type string; }
      container extra {
        leaf text { type string; }
      }
    }
  }
}
`;

interface Service {
  readonly running: RunningService;
  /** What the service logged as errors (a 500 logs its cause). */
  readonly errors: string[];
  request(method: string, p: string, options?: { body?: string; type?: string; accept?: string }): Promise<TestReply>;
}

/** A service on 127.0.0.1 serving the module above (and its own), with `raw` configuration fields. */
async function start(raw: Record<string, unknown> = {}): Promise<Service> {
  const yangDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-newcomer-yang-'));
  fs.writeFileSync(path.join(yangDir, 'newcomer.yang'), MODULE);
  const service = await startTestService({ plugins: [], yangDirs: [yangDir], config: raw, label: 'newcomer' });
  return {
    running: service.service,
    get errors() {
      return service.logs.filter((l) => l.startsWith('ERROR ')).map((l) => l.slice('ERROR '.length));
    },
    request(method, p, options = {}) {
      const headers: Record<string, string> = {};
      if (options.type !== undefined) headers['content-type'] = options.type;
      if (options.accept !== undefined) headers['accept'] = options.accept;
      return service.request(method, p, options.body, headers);
    },
  };
}

/** Stops the service; it must have logged no error (no request failed inside it). */
async function stop(t: ExecutionContext, s: Service): Promise<void> {
  await s.running.stop();
  t.deepEqual(s.errors, []);
}

const DATA = '/rests/data';

// ---------------------------------------------------------------------------------------------------
// Location

/** POSTs one entry under `parent`, then GETs, PUTs and DELETEs its Location exactly as returned. */
async function usableLocation(
  t: ExecutionContext,
  s: Service,
  parent: string,
  list: string,
  entry: Record<string, unknown>,
  change: Record<string, unknown>,
): Promise<void> {
  const label = JSON.stringify(entry);
  const created = await s.request('POST', `${DATA}/${parent}`, { body: JSON.stringify({ [`newcomer:${list}`]: [entry] }) });
  t.is(created.status, 201, `${label}: ${created.text}`);
  const location = created.headers.get('location');
  t.truthy(location, label);
  const where = new URL(location!, s.running.url).pathname;
  t.true(location!.startsWith(`${DATA}/${parent}/${list}=`), `${label}: ${location}`);
  const read = await s.request('GET', where);
  t.is(read.status, 200, `${label} GET ${location}: ${read.text}`);
  t.deepEqual(read.json, { [`newcomer:${list}`]: [entry] }, `${label} GET ${location}`);
  const replaced = await s.request('PUT', where, { body: JSON.stringify({ [`newcomer:${list}`]: [{ ...entry, ...change }] }) });
  t.is(replaced.status, 204, `${label} PUT ${location}: ${replaced.text}`);
  t.deepEqual(
    (await s.request('GET', where)).json,
    { [`newcomer:${list}`]: [{ ...entry, ...change }] },
    `${label} GET after PUT ${location}`,
  );
  const deleted = await s.request('DELETE', where);
  t.is(deleted.status, 204, `${label} DELETE ${location}: ${deleted.text}`);
  t.is((await s.request('GET', where)).status, 404, `${label} GET after DELETE ${location}`);
}

const AWKWARD_KEYS = [
  'ge-0/0/1',
  'say "hi"',
  '"quoted"',
  'a,b',
  'k=v',
  'with space',
  '100%',
  '50%22',
  '/lead/and/trail/',
  'x/"y" z',
  'a/"b',
  '/"',
  'ü/ß €',
  '%22',
  '"',
  '',
];

test('the Location of a POSTed entry works for GET, PUT and DELETE whatever its key holds (key delimiter on)', async (t) => {
  const s = await start();
  try {
    for (const name of AWKWARD_KEYS) await usableLocation(t, s, 'newcomer:ports', 'port', { name }, { speed: 10 });
    await usableLocation(t, s, 'newcomer:ports', 'link', { from: 'ge-0/0/1', to: 'a,"b"' }, { cost: 5 });
    await usableLocation(t, s, 'newcomer:ports', 'link', { from: '"x', to: 'y/z"' }, { cost: 6 });
  } finally {
    await stop(t, s);
  }
});

test('the key-delimiter form is how a Location names a key holding /', async (t) => {
  const s = await start();
  try {
    const created = await s.request('POST', `${DATA}/newcomer:ports`, {
      body: JSON.stringify({ 'newcomer:port': [{ name: 'ge-0/0/1' }] }),
    });
    t.is(created.headers.get('location'), `${DATA}/newcomer:ports/port=%22ge-0/0/1%22`);
    const plain = await s.request('POST', `${DATA}/newcomer:ports`, { body: JSON.stringify({ 'newcomer:port': [{ name: 'eth0' }] }) });
    t.is(plain.headers.get('location'), `${DATA}/newcomer:ports/port=eth0`);
  } finally {
    await stop(t, s);
  }
});

test('with the key delimiter off, the Location of every key without / works', async (t) => {
  const s = await start({ keyDelimiter: null });
  try {
    for (const name of AWKWARD_KEYS.filter((k) => !k.includes('/')))
      await usableLocation(t, s, 'newcomer:ports', 'port', { name }, { speed: 10 });
    await usableLocation(t, s, 'newcomer:ports', 'link', { from: '"x"', to: 'a,b' }, { cost: 5 });
  } finally {
    await stop(t, s);
  }
});

// ---------------------------------------------------------------------------------------------------
// Constraints

/** The one error of a 400 answer, with the envelope's members checked. */
function oneError(t: ExecutionContext, answer: TestReply, label: string): Record<string, string | undefined> {
  t.is(answer.status, 400, `${label}: ${answer.text}`);
  const errors = answer.json?.errors?.error ?? answer.json?.['ietf-yang-patch:yang-patch-status']?.['global-errors']?.error;
  t.true(Array.isArray(errors) && errors.length >= 1, `${label}: ${answer.text}`);
  return errors?.[0] ?? {};
}

const LIMITS = `${DATA}/newcomer:limits`;
const YANG_PATCH = 'application/yang-patch+json';

function yangPatch(...edits: Array<{ id: string; target: string; value: unknown }>): string {
  return JSON.stringify({
    'ietf-yang-patch:yang-patch': {
      'patch-id': 'p',
      edit: edits.map((e) => ({ 'edit-id': e.id, operation: 'merge', target: e.target, value: e.value })),
    },
  });
}

test('a broken must answers 400 invalid-value with its app tag and path, and stores nothing, through every write', async (t) => {
  const s = await start();
  try {
    const mustOfHigh = (answer: TestReply, label: string): void => {
      const e = oneError(t, answer, label);
      t.is(e['error-tag'], 'invalid-value', label);
      t.is(e['error-app-tag'], 'must-violation', label);
      t.is(e['error-path'], '/newcomer:limits/high', label);
      t.regex(e['error-message'] ?? '', /\.\.\/low/, label);
    };
    mustOfHigh(await s.request('PUT', LIMITS, { body: JSON.stringify({ 'newcomer:limits': { low: 10, high: 5 } }) }), 'PUT');
    mustOfHigh(await s.request('POST', DATA, { body: JSON.stringify({ 'newcomer:limits': { low: 10, high: 5 } }) }), 'POST');
    mustOfHigh(await s.request('PATCH', DATA, { body: JSON.stringify({ 'newcomer:limits': { low: 10, high: 5 } }) }), 'PATCH');
    t.is((await s.request('GET', LIMITS)).status, 404, 'nothing stored');

    t.is((await s.request('PUT', LIMITS, { body: JSON.stringify({ 'newcomer:limits': { low: 1, high: 5 } }) })).status, 201);
    // The must sits on high, the node this request does not touch: raising low alone breaks it.
    mustOfHigh(await s.request('PATCH', LIMITS, { body: JSON.stringify({ 'newcomer:limits': { low: 10 } }) }), 'PATCH of the other node');
    mustOfHigh(await s.request('PUT', `${LIMITS}/low`, { body: JSON.stringify({ 'newcomer:low': 10 }) }), 'PUT of the other leaf');
    mustOfHigh(
      await s.request('PATCH', DATA, {
        type: YANG_PATCH,
        body: yangPatch(
          { id: 'raise-low', target: '/newcomer:limits/low', value: { 'newcomer:low': 20 } },
          { id: 'raise-high', target: '/newcomer:limits/high', value: { 'newcomer:high': 15 } },
        ),
      }),
      'YANG Patch',
    );
    t.deepEqual((await s.request('GET', LIMITS)).json, { 'newcomer:limits': { low: 1, high: 5 } }, 'nothing changed');

    // Two edits that each alone would break the must, together satisfy it.
    const both = await s.request('PATCH', DATA, {
      type: YANG_PATCH,
      body: yangPatch(
        { id: 'raise-low', target: '/newcomer:limits/low', value: { 'newcomer:low': 20 } },
        { id: 'raise-high', target: '/newcomer:limits/high', value: { 'newcomer:high': 25 } },
      ),
    });
    t.is(both.status, 200, both.text);
    t.deepEqual((await s.request('GET', LIMITS)).json, { 'newcomer:limits': { low: 20, high: 25 } });
  } finally {
    await stop(t, s);
  }
});

test('a must declaring its own error-message and error-app-tag answers them, in JSON and XML', async (t) => {
  const s = await start();
  try {
    const json = oneError(t, await s.request('PUT', LIMITS, { body: JSON.stringify({ 'newcomer:limits': { ratio: 150 } }) }), 'JSON');
    t.is(json['error-tag'], 'invalid-value');
    t.is(json['error-app-tag'], 'ratio-range');
    t.is(json['error-message'], 'ratio is a percentage');
    t.is(json['error-path'], '/newcomer:limits/ratio');
    const xml = await s.request('PUT', LIMITS, {
      type: 'application/yang-data+xml',
      accept: 'application/yang-data+xml',
      body: '<limits xmlns="urn:rosetta:test:newcomer"><ratio>150</ratio></limits>',
    });
    t.is(xml.status, 400, xml.text);
    t.regex(
      xml.text,
      /<error-tag>invalid-value<\/error-tag><error-app-tag>ratio-range<\/error-app-tag><error-path[^>]*>\/newcomer:limits\/newcomer:ratio<\/error-path><error-message>ratio is a percentage<\/error-message>/,
    );
    t.is((await s.request('GET', LIMITS)).status, 404, 'nothing stored');
  } finally {
    await stop(t, s);
  }
});

test('unique, max-elements, min-elements and mandatory violations answer 400 naming the rule, and store nothing', async (t) => {
  const s = await start();
  try {
    const cases: Array<[string, string, string, Record<string, unknown>, string | undefined, string]> = [
      [
        'unique',
        'PUT',
        LIMITS,
        {
          'newcomer:limits': {
            server: [
              { name: 'a', ip: '10.0.0.1' },
              { name: 'b', ip: '10.0.0.1' },
            ],
          },
        },
        'data-not-unique',
        "/newcomer:limits/server[name='b']",
      ],
      [
        'max-elements',
        'PUT',
        LIMITS,
        { 'newcomer:limits': { server: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } },
        'too-many-elements',
        "/newcomer:limits/server[name='c']",
      ],
      ['min-elements', 'PUT', `${DATA}/newcomer:team`, { 'newcomer:team': { lead: 'x' } }, 'too-few-elements', '/newcomer:team/member'],
      ['mandatory', 'PUT', `${DATA}/newcomer:team`, { 'newcomer:team': { member: ['y'] } }, undefined, '/newcomer:team/lead'],
    ];
    for (const [label, method, where, body, appTag, errorPath] of cases) {
      const e = oneError(t, await s.request(method, where, { body: JSON.stringify(body) }), label);
      t.is(e['error-app-tag'], appTag, label);
      t.is(e['error-path'], errorPath, label);
      t.is((await s.request('GET', where)).status, 404, `${label}: nothing stored`);
    }
    // One entry more than max-elements through POST, after two that fit.
    t.is(
      (await s.request('PUT', LIMITS, { body: JSON.stringify({ 'newcomer:limits': { server: [{ name: 'a' }, { name: 'b' }] } }) })).status,
      201,
    );
    const third = oneError(
      t,
      await s.request('POST', LIMITS, { body: JSON.stringify({ 'newcomer:server': [{ name: 'c' }] }) }),
      'POST beyond max-elements',
    );
    t.is(third['error-app-tag'], 'too-many-elements');
    t.is((await s.request('GET', `${LIMITS}/server=c`)).status, 404);
  } finally {
    await stop(t, s);
  }
});

// ---------------------------------------------------------------------------------------------------
// with-defaults at a target without data

const XML = 'application/yang-data+xml';
const NS = 'urn:rosetta:test:newcomer';

test('with-defaults=report-all answers the default of a leaf that holds none, in JSON and XML; explicit and trim answer 404', async (t) => {
  const s = await start();
  try {
    t.is(
      (await s.request('PUT', `${DATA}/newcomer:settings`, { body: JSON.stringify({ 'newcomer:settings': { name: 'n' } }) })).status,
      201,
    );
    const cases: Array<[string, unknown, string]> = [
      ['newcomer:settings/timeout', { 'newcomer:timeout': 30 }, `<timeout xmlns="${NS}">30</timeout>`],
      ['newcomer:settings/level', { 'newcomer:level': ['info'] }, `<level xmlns="${NS}">info</level>`],
      // inside a non-presence container that holds no data, and under a top-level one that holds none
      ['newcomer:settings/retry/count', { 'newcomer:count': 3 }, `<count xmlns="${NS}">3</count>`],
      ['newcomer:settings/retry', { 'newcomer:retry': { count: 3 } }, `<retry xmlns="${NS}"><count>3</count></retry>`],
      ['newcomer:logging/target', { 'newcomer:target': 'syslog' }, `<target xmlns="${NS}">syslog</target>`],
    ];
    for (const [target, json, xml] of cases) {
      for (const mode of ['report-all', '']) {
        const query = mode === '' ? 'with-defaults' : `with-defaults=${mode}`;
        const asJson = await s.request('GET', `${DATA}/${target}?${query}`);
        t.is(asJson.status, 200, `${target}?${query}: ${asJson.text}`);
        t.deepEqual(asJson.json, json, `${target}?${query}`);
      }
      const asXml = await s.request('GET', `${DATA}/${target}?with-defaults=report-all`, { accept: XML });
      t.is(asXml.status, 200, `${target} XML: ${asXml.text}`);
      t.is(asXml.text.replace(/^<\?xml[^>]*>\s*/, ''), xml, `${target} XML`);
      for (const mode of ['explicit', 'trim']) {
        const absent = await s.request('GET', `${DATA}/${target}?with-defaults=${mode}`);
        t.is(absent.status, 404, `${target}?with-defaults=${mode}: ${absent.text}`);
        t.is(absent.json?.errors?.error?.[0]?.['error-tag'], 'data-missing');
      }
      t.is((await s.request('GET', `${DATA}/${target}`)).status, 404, `${target} without with-defaults`);
    }
    // What holds no default, or sits where no data can be made up, stays missing.
    for (const target of ['newcomer:box/name', 'newcomer:ports/port=eth9/speed', 'newcomer:team/lead', 'newcomer:limits/low']) {
      t.is((await s.request('GET', `${DATA}/${target}?with-defaults=report-all`)).status, 404, target);
    }
    // A value of its own is answered as it is.
    t.is((await s.request('PUT', `${DATA}/newcomer:settings/timeout`, { body: JSON.stringify({ 'newcomer:timeout': 60 }) })).status, 201);
    t.deepEqual((await s.request('GET', `${DATA}/newcomer:settings/timeout?with-defaults=report-all`)).json, { 'newcomer:timeout': 60 });
    t.deepEqual((await s.request('GET', `${DATA}/newcomer:settings/timeout?with-defaults=trim`)).json, { 'newcomer:timeout': 60 });
  } finally {
    await stop(t, s);
  }
});

test('with-defaults=report-all-tagged answers the default of a leaf that holds none with the default attribute, as inside its parent', async (t) => {
  const s = await start();
  try {
    t.is(
      (await s.request('PUT', `${DATA}/newcomer:settings`, { body: JSON.stringify({ 'newcomer:settings': { name: 'n' } }) })).status,
      201,
    );
    const parent = await s.request('GET', `${DATA}/newcomer:settings?with-defaults=report-all-tagged`);
    t.is(parent.status, 200, parent.text);
    const timeout = await s.request('GET', `${DATA}/newcomer:settings/timeout?with-defaults=report-all-tagged`);
    t.is(timeout.status, 200, timeout.text);
    t.deepEqual(timeout.json, { 'newcomer:timeout': parent.json['newcomer:settings'].timeout });
    t.deepEqual(timeout.json, { 'newcomer:timeout': { '@': { 'ietf-netconf-with-defaults:default': true }, '#': 30 } });
    const count = await s.request('GET', `${DATA}/newcomer:settings/retry/count?with-defaults=report-all-tagged`);
    t.deepEqual(count.json, { 'newcomer:count': { '@': { 'ietf-netconf-with-defaults:default': true }, '#': 3 } }, count.text);
    const xml = await s.request('GET', `${DATA}/newcomer:logging/target?with-defaults=report-all-tagged`, { accept: XML });
    t.is(xml.status, 200, xml.text);
    t.regex(
      xml.text,
      /^(<\?xml[^>]*>\s*)?<target xmlns="urn:rosetta:test:newcomer" xmlns:wd="urn:ietf:params:xml:ns:netconf:default:1\.0" wd:default="true">syslog<\/target>$/,
    );
  } finally {
    await stop(t, s);
  }
});

// ---------------------------------------------------------------------------------------------------
// hideEmptyDataNodes

test('hideEmptyDataNodes=true hides every empty container at every depth, also one holding only attributes and a presence container, in JSON and XML', async (t) => {
  const s = await start();
  try {
    const box = {
      'newcomer:box': {
        name: 'n',
        maintenance: { window: {}, '@': { note: 'planned' } },
        marked: { '@': { note: 'only an attribute' } },
        mode: { paused: {} },
        item: [
          { id: 'a', extra: {} },
          { id: 'b', extra: { window: undefined, text: 't' } },
        ],
      },
    };
    const put = await s.request('PUT', `${DATA}/newcomer:box`, { body: JSON.stringify(box) });
    t.is(put.status, 201, put.text);
    const stored = await s.request('GET', `${DATA}/newcomer:box`);
    t.truthy(stored.json['newcomer:box'].maintenance, `the empty containers are stored: ${stored.text}`);

    const hidden = await s.request('GET', `${DATA}/newcomer:box?hideEmptyDataNodes=true`);
    t.is(hidden.status, 200, hidden.text);
    // A list entry holds its keys, so it is never empty.
    t.deepEqual(hidden.json, { 'newcomer:box': { name: 'n', item: [{ id: 'a' }, { id: 'b', extra: { text: 't' } }] } });
    const xml = await s.request('GET', `${DATA}/newcomer:box?hideEmptyDataNodes=true`, { accept: XML });
    t.is(xml.status, 200, xml.text);
    t.is(
      xml.text.replace(/^<\?xml[^>]*>\s*/, ''),
      `<box xmlns="${NS}"><name>n</name><item><id>a</id></item><item><id>b</id><extra><text>t</text></extra></item></box>`,
    );

    // The target itself stays, even when empty.
    const target = await s.request('GET', `${DATA}/newcomer:box/maintenance?hideEmptyDataNodes=true&hideAttributes=true`);
    t.is(target.status, 200, target.text);
    t.deepEqual(target.json, { 'newcomer:maintenance': {} });
  } finally {
    await stop(t, s);
  }
});
