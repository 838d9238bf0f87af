/**
 * Choices over HTTP: writing a node of one case deletes the nodes of the choice's other cases
 * (RFC 7950 §7.9.2), nested choices included, by every write method, in the same transaction; one body
 * holding two cases of a choice is refused. A small module written here, on the durable datastore.
 */
import test from 'ava';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startTestService, type TestService } from '../../src/service/test-service';

const MODULE = `module choice-test {
  yang-version 1.1;
  namespace "urn:test:choice";
  prefix ct;
  container top {
    leaf name { type string; }
    choice transport {
      case tcp {
        leaf tcp-port { type uint16; }
        leaf tcp-host { type string; }
      }
      case udp {
        leaf udp-port { type uint16; }
      }
      case tunnel {
        container tunnel {
          leaf id { type uint32; }
        }
        choice encap {
          case gre { leaf gre-key { type uint32; } }
          case vxlan { leaf vni { type uint32; } }
        }
      }
      case pool {
        list server {
          key name;
          leaf name { type string; }
        }
      }
    }
    choice mode {
      default auto;
      case auto { leaf auto-level { type uint8; default 1; } }
      case manual { leaf manual-rate { type uint32; } }
    }
  }
}
`;

const TOP = '/rests/data/choice-test:top';
const YANG_PATCH = { 'content-type': 'application/yang-patch+json' };

let yangDir: string;
const started: TestService[] = [];

test.before(() => {
  yangDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-choice-yang-'));
  fs.writeFileSync(path.join(yangDir, 'choice-test.yang'), MODULE);
});

test.after.always(async () => {
  for (const s of started) await s.stop().catch(() => undefined);
  fs.rmSync(yangDir, { recursive: true, force: true });
});

async function start(dataDir?: string): Promise<TestService> {
  const s = await startTestService({ plugins: [], yangDirs: [yangDir], label: 'choice', ...(dataDir ? { dataDir } : {}) });
  started.push(s);
  return s;
}

/** A service whose `top` holds the tcp case (both leaves) and the explicit default-case leaf. */
async function withTcp(): Promise<TestService> {
  const s = await start();
  const r = await s.request('PUT', TOP, { 'choice-test:top': { name: 'n', 'tcp-port': 80, 'tcp-host': 'h', 'auto-level': 3 } });
  if (r.status !== 201) throw new Error(`setup PUT answered ${r.status}: ${r.text}`);
  return s;
}

async function top(s: TestService): Promise<Record<string, unknown>> {
  const r = await s.request('GET', TOP);
  if (r.status !== 200) throw new Error(`GET answered ${r.status}: ${r.text}`);
  return r.json['choice-test:top'];
}

test('a plain PATCH of another case deletes the nodes of the case that was there', async (t) => {
  const s = await withTcp();
  const r = await s.request('PATCH', TOP, { 'choice-test:top': { 'udp-port': 53 } });
  t.is(r.status, 200, r.text);
  t.deepEqual(await top(s), { name: 'n', 'udp-port': 53, 'auto-level': 3 });
});

test('a PATCH of a leaf target in another case replaces the case', async (t) => {
  const s = await withTcp();
  const r = await s.request('PATCH', `${TOP}/udp-port`, { 'choice-test:udp-port': 53 });
  t.is(r.status, 200, r.text);
  t.deepEqual(await top(s), { name: 'n', 'udp-port': 53, 'auto-level': 3 });
});

test("a PUT of the new case's node itself replaces the case; a PUT of the parent still replaces it all", async (t) => {
  const s = await withTcp();
  let r = await s.request('PUT', `${TOP}/udp-port`, { 'choice-test:udp-port': 53 });
  t.is(r.status, 201, r.text);
  t.deepEqual(await top(s), { name: 'n', 'udp-port': 53, 'auto-level': 3 });
  r = await s.request('PUT', TOP, { 'choice-test:top': { 'tcp-port': 22 } });
  t.is(r.status, 204, r.text);
  t.deepEqual(await top(s), { 'tcp-port': 22 });
});

test("a POST of the new case's node replaces the case; of a list entry too", async (t) => {
  const s = await withTcp();
  let r = await s.request('POST', TOP, { 'choice-test:udp-port': 53 });
  t.is(r.status, 201, r.text);
  t.deepEqual(await top(s), { name: 'n', 'udp-port': 53, 'auto-level': 3 });
  r = await s.request('POST', TOP, { 'choice-test:server': [{ name: 'a' }] });
  t.is(r.status, 201, r.text);
  t.deepEqual(await top(s), { name: 'n', server: [{ name: 'a' }], 'auto-level': 3 });
  r = await s.request('POST', TOP, { 'choice-test:server': [{ name: 'a' }] });
  t.is(r.status, 409, 'a create of what is there still conflicts');
});

test("nested choices: the inner choice's cases replace each other, the outer case stays; leaving the outer case drops both", async (t) => {
  const s = await withTcp();
  let r = await s.request('PATCH', TOP, { 'choice-test:top': { tunnel: { id: 7 }, 'gre-key': 1 } });
  t.is(r.status, 200, r.text);
  t.deepEqual(await top(s), { name: 'n', tunnel: { id: 7 }, 'gre-key': 1, 'auto-level': 3 });
  r = await s.request('PATCH', TOP, { 'choice-test:top': { vni: 9 } });
  t.is(r.status, 200, r.text);
  t.deepEqual(
    await top(s),
    { name: 'n', tunnel: { id: 7 }, vni: 9, 'auto-level': 3 },
    "the other inner case goes, the outer case's nodes stay",
  );
  r = await s.request('PATCH', TOP, { 'choice-test:top': { 'tcp-host': 'x' } });
  t.is(r.status, 200, r.text);
  t.deepEqual(await top(s), { name: 'n', 'tcp-host': 'x', 'auto-level': 3 }, 'every node of the tunnel case goes, nested choice included');
  r = await s.request('PUT', `${TOP}/gre-key`, { 'choice-test:gre-key': 2 });
  t.is(r.status, 201, r.text);
  t.deepEqual(await top(s), { name: 'n', 'gre-key': 2, 'auto-level': 3 }, 'a node of an inner case drops the other outer cases');
});

test('the default case: another case replaces it, and its defaults come back once that case is gone', async (t) => {
  const s = await withTcp();
  let r = await s.request('PATCH', TOP, { 'choice-test:top': { 'manual-rate': 100 } });
  t.is(r.status, 200, r.text);
  r = await s.request('GET', `${TOP}?with-defaults=report-all`);
  t.is(r.status, 200, r.text);
  t.deepEqual(r.json['choice-test:top'], { name: 'n', 'tcp-port': 80, 'tcp-host': 'h', 'manual-rate': 100 });
  r = await s.request('PATCH', TOP, { 'choice-test:top': { 'auto-level': 2 } });
  t.is(r.status, 200, r.text);
  t.deepEqual(await top(s), { name: 'n', 'tcp-port': 80, 'tcp-host': 'h', 'auto-level': 2 });
  r = await s.request('PATCH', TOP, { 'choice-test:top': { 'manual-rate': 5 } });
  t.is(r.status, 200, r.text);
  r = await s.request('DELETE', `${TOP}/manual-rate`);
  t.is(r.status, 204, r.text);
  r = await s.request('GET', `${TOP}?with-defaults=report-all`);
  t.is(r.json['choice-test:top']['auto-level'], 1, "with no case chosen the default case's default is in use again");
});

test('YANG Patch merge, create and replace replace the case', async (t) => {
  const s = await withTcp();
  const patch = (operation: string, target: string, value: unknown) =>
    s.request(
      'PATCH',
      TOP,
      { 'ietf-yang-patch:yang-patch': { 'patch-id': 'p', edit: [{ 'edit-id': '1', operation, target, value }] } },
      YANG_PATCH,
    );
  let r = await patch('merge', '/udp-port', { 'choice-test:udp-port': 53 });
  t.is(r.status, 200, r.text);
  t.deepEqual(await top(s), { name: 'n', 'udp-port': 53, 'auto-level': 3 });
  r = await patch('create', '/tcp-port', { 'choice-test:tcp-port': 22 });
  t.is(r.status, 200, r.text);
  t.deepEqual(await top(s), { name: 'n', 'tcp-port': 22, 'auto-level': 3 });
  r = await patch('replace', '/server=b', { 'choice-test:server': [{ name: 'b' }] });
  t.is(r.status, 200, r.text);
  t.deepEqual(await top(s), { name: 'n', server: [{ name: 'b' }], 'auto-level': 3 });
  r = await s.request(
    'PATCH',
    '/rests/data',
    {
      'ietf-yang-patch:yang-patch': {
        'patch-id': 'q',
        edit: [{ 'edit-id': '1', operation: 'merge', target: '/choice-test:top', value: { 'choice-test:top': { 'manual-rate': 4 } } }],
      },
    },
    YANG_PATCH,
  );
  t.is(r.status, 200, r.text);
  t.deepEqual(await top(s), { name: 'n', server: [{ name: 'b' }], 'manual-rate': 4 }, 'a merge from the datastore root too');
});

test('apply-tags: a body may delete nodes of one case while it writes another', async (t) => {
  const s = await withTcp();
  const r = await s.request('PATCH', `${TOP}?apply-tags=true`, {
    'choice-test:top': { 'udp-port': 53, 'tcp-port': { '@': { operation: 'delete' }, '#': 80 } },
  });
  t.is(r.status, 200, r.text);
  t.deepEqual(await top(s), { name: 'n', 'udp-port': 53, 'auto-level': 3 });
});

test('one body holding two cases of a choice is refused, naming both nodes, and nothing changes', async (t) => {
  const s = await withTcp();
  const refused = async (method: string, p: string, body: unknown, headers?: Record<string, string>) => {
    const r = await s.request(method, p, body, headers);
    t.is(r.status, 400, `${method} ${p}: ${r.text}`);
    t.regex(r.text, /udp-port/, r.text);
    t.regex(r.text, /tcp-host|tcp-port/, r.text);
    t.regex(r.text, /cannot coexist/, r.text);
  };
  await refused('PATCH', TOP, { 'choice-test:top': { 'udp-port': 1, 'tcp-host': 'y' } });
  await refused('PUT', TOP, { 'choice-test:top': { 'udp-port': 1, 'tcp-port': 2 } });
  await refused('PATCH', '/rests/data', { 'choice-test:top': { 'udp-port': 1, 'tcp-port': 2 } });
  await refused('PATCH', `${TOP}?apply-tags=true`, {
    'choice-test:top': { 'udp-port': 1, 'tcp-port': { '@': { operation: 'replace' }, '#': 2 } },
  });
  await refused(
    'PATCH',
    TOP,
    {
      'ietf-yang-patch:yang-patch': {
        'patch-id': 'p',
        edit: [{ 'edit-id': '1', operation: 'merge', target: '/', value: { 'choice-test:top': { 'udp-port': 1, 'tcp-port': 2 } } }],
      },
    },
    YANG_PATCH,
  );
  t.deepEqual(await top(s), { name: 'n', 'tcp-port': 80, 'tcp-host': 'h', 'auto-level': 3 });
});

test('the other case goes in the same transaction: a request failing later keeps it, one that succeeds is one durable write', async (t) => {
  const s = await withTcp();
  let r = await s.request(
    'PATCH',
    TOP,
    {
      'ietf-yang-patch:yang-patch': {
        'patch-id': 'p',
        edit: [
          { 'edit-id': '1', operation: 'merge', target: '/udp-port', value: { 'choice-test:udp-port': 53 } },
          { 'edit-id': '2', operation: 'create', target: '/name', value: { 'choice-test:name': 'again' } },
        ],
      },
    },
    YANG_PATCH,
  );
  t.is(r.status, 409, r.text);
  t.deepEqual(await top(s), { name: 'n', 'tcp-port': 80, 'tcp-host': 'h', 'auto-level': 3 }, 'nothing of the failed request is kept');
  r = await s.request('PATCH', TOP, { 'choice-test:top': { 'udp-port': 53 } });
  t.is(r.status, 200, r.text);
  const { dataDir } = s;
  await s.service.stop();
  const again = await start(dataDir);
  t.deepEqual(await top(again), { name: 'n', 'udp-port': 53, 'auto-level': 3 }, 'the journal replays the case switch the same way');
});
