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
import { openDatastores } from '../../src/datastore';
import { resolveConfig } from '../../src/service/config';
import { startService, type RunningService } from '../../src/service/service';

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

interface Answer { status: number; headers: Headers; text: string; json: any }

interface Service {
  readonly running: RunningService;
  request(method: string, p: string, options?: { body?: string; type?: string; accept?: string }): Promise<Answer>;
}

/** A service on 127.0.0.1 serving the module above (and its own), with `raw` configuration fields. */
async function start(raw: Record<string, unknown> = {}): Promise<Service> {
  const yangDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-newcomer-yang-'));
  fs.writeFileSync(path.join(yangDir, 'newcomer.yang'), MODULE);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-newcomer-data-'));
  const config = resolveConfig({ port: 0, host: '127.0.0.1', dataDir, yangDirs: [yangDir], ...raw }, os.tmpdir());
  const running = await startService({ config, openDatastores: (dir, ctx) => openDatastores(dir, ctx), log: { info: () => undefined, error: () => undefined } });
  return {
    running,
    async request(method, p, options = {}) {
      const headers: Record<string, string> = {};
      if (options.body !== undefined) headers['content-type'] = options.type ?? 'application/yang-data+json';
      if (options.accept !== undefined) headers['accept'] = options.accept;
      const res = await fetch(running.url + p, { method, headers, ...(options.body !== undefined ? { body: options.body } : {}) });
      const text = await res.text();
      let json: unknown;
      try { json = JSON.parse(text); } catch { json = undefined; }
      return { status: res.status, headers: res.headers, text, json };
    },
  };
}

const DATA = '/rests/data';

// ---------------------------------------------------------------------------------------------------
// Location

/** POSTs one entry under `parent`, then GETs, PUTs and DELETEs its Location exactly as returned. */
async function usableLocation(t: ExecutionContext, s: Service, parent: string, list: string, entry: Record<string, unknown>, change: Record<string, unknown>): Promise<void> {
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
  t.deepEqual((await s.request('GET', where)).json, { [`newcomer:${list}`]: [{ ...entry, ...change }] }, `${label} GET after PUT ${location}`);
  const deleted = await s.request('DELETE', where);
  t.is(deleted.status, 204, `${label} DELETE ${location}: ${deleted.text}`);
  t.is((await s.request('GET', where)).status, 404, `${label} GET after DELETE ${location}`);
}

const AWKWARD_KEYS = [
  'ge-0/0/1', 'say "hi"', '"quoted"', 'a,b', 'k=v', 'with space', '100%', '50%22', '/lead/and/trail/', 'x/"y" z', 'a/"b', '/"', 'ü/ß €', '%22', '"', '',
];

test('the Location of a POSTed entry works for GET, PUT and DELETE whatever its key holds (key delimiter on)', async (t) => {
  const s = await start();
  try {
    for (const name of AWKWARD_KEYS) await usableLocation(t, s, 'newcomer:ports', 'port', { name }, { speed: 10 });
    await usableLocation(t, s, 'newcomer:ports', 'link', { from: 'ge-0/0/1', to: 'a,"b"' }, { cost: 5 });
    await usableLocation(t, s, 'newcomer:ports', 'link', { from: '"x', to: 'y/z"' }, { cost: 6 });
  } finally {
    await s.running.stop();
  }
});

test('the key-delimiter form is how a Location names a key holding /', async (t) => {
  const s = await start();
  try {
    const created = await s.request('POST', `${DATA}/newcomer:ports`, { body: JSON.stringify({ 'newcomer:port': [{ name: 'ge-0/0/1' }] }) });
    t.is(created.headers.get('location'), `${DATA}/newcomer:ports/port=%22ge-0/0/1%22`);
    const plain = await s.request('POST', `${DATA}/newcomer:ports`, { body: JSON.stringify({ 'newcomer:port': [{ name: 'eth0' }] }) });
    t.is(plain.headers.get('location'), `${DATA}/newcomer:ports/port=eth0`);
  } finally {
    await s.running.stop();
  }
});

test('with the key delimiter off, the Location of every key without / works', async (t) => {
  const s = await start({ keyDelimiter: null });
  try {
    for (const name of AWKWARD_KEYS.filter((k) => !k.includes('/'))) await usableLocation(t, s, 'newcomer:ports', 'port', { name }, { speed: 10 });
    await usableLocation(t, s, 'newcomer:ports', 'link', { from: '"x"', to: 'a,b' }, { cost: 5 });
  } finally {
    await s.running.stop();
  }
});
