/**
 * The translation engine beyond the example: nested lists with parent keys, composite keys, targeted reads
 * that enumerate only what they need, several units serving one device, write ordering (deletes deepest
 * first, a child not deleted separately from its parent), undo gaps, writer faults, and garbage input.
 */
import test from 'ava';
import { defineTranslationUnit, parseInstancePath, planWrite, readUnits, TranslationError, type JsonObject } from '@rosetta/sdk';
import { unitHarness } from '@rosetta/sdk/testing';

// A BGP-like unit on FRR-style output: neighbors nested in instances, keyed by the parent's AS.
const RUNNING = [
  'router bgp 65001',
  ' bgp router-id 10.0.0.1',
  ' neighbor 192.0.2.1 remote-as 65002',
  ' neighbor 192.0.2.2 remote-as 65003',
  'exit',
  '!',
  'router bgp 65009 vrf blue',
  ' neighbor 198.51.100.1 remote-as 65010',
  'exit',
].join('\n');

const bgp = defineTranslationUnit({
  paths: {
    '/ex-bgp:bgp/instance': {
      keys: ['as'],
      async list({ session }) {
        const out = await session.exec('show running-config');
        return [...out.matchAll(/^router bgp (\d+)/gm)].map((m) => ({ as: m[1]! }));
      },
      async readConfig({ session, key }) {
        const out = await session.exec('show running-config');
        const block = out.split(/^router bgp /m).find((b) => b.startsWith(`${key['as']}`)) ?? '';
        const id = /bgp router-id (\S+)/.exec(block)?.[1];
        return { as: Number(key['as']), ...(id ? { 'router-id': id } : {}) };
      },
      write: {
        create: (after) => [`router bgp ${after['as']}`, ...(after['router-id'] ? [` bgp router-id ${after['router-id']}`] : []), 'exit'],
        delete: (before) => [`no router bgp ${before['as']}`],
        update: (before, after) => [
          `router bgp ${after['as']}`,
          after['router-id'] ? ` bgp router-id ${after['router-id']}` : ` no bgp router-id ${before['router-id']}`,
          'exit',
        ],
      },
    },
    '/ex-bgp:bgp/instance/neighbor': {
      keys: ['address'],
      async list({ session, key }) {
        const out = await session.exec('show running-config');
        const block = out.split(/^router bgp /m).find((b) => b.startsWith(`${key['as']}`)) ?? '';
        return [...block.matchAll(/neighbor (\S+) remote-as/g)].map((m) => ({ address: m[1]! }));
      },
      async readConfig({ session, keys, key }) {
        const out = await session.exec('show running-config');
        const re = new RegExp(`^router bgp ${keys[0]!['as']}[^]*?neighbor ${key['address']!.replace(/\./g, '\\.')} remote-as (\\d+)`, 'm');
        const m = re.exec(out);
        return m ? { 'peer-as': Number(m[1]) } : undefined;
      },
      write: {
        create: (after, { keys }) => [
          `router bgp ${keys[0]!['as']}`,
          ` neighbor ${after['address']} remote-as ${after['peer-as']}`,
          'exit',
        ],
        delete: (before, { keys }) => [`router bgp ${keys[0]!['as']}`, ` no neighbor ${before['address']}`, 'exit'],
      },
    },
  },
});

const system = defineTranslationUnit({
  paths: {
    '/ex-sys:system': {
      async readConfig({ session }) {
        const out = await session.exec('show hostname');
        return { hostname: out.trim() };
      },
      write: { update: (_b, a) => [`hostname ${a['hostname']}`] }, // no create/delete: undo of update only
    },
  },
});

const transcript = { 'show running-config': RUNNING, 'show hostname': 'edge-1\n' };

test('nested lists get their parent keys; several units serve one device', async (t) => {
  const h = unitHarness([bgp, system], transcript);
  t.deepEqual(await h.read('/'), {
    'ex-bgp:bgp': {
      instance: [
        {
          as: 65001,
          'router-id': '10.0.0.1',
          neighbor: [
            { address: '192.0.2.1', 'peer-as': 65002 },
            { address: '192.0.2.2', 'peer-as': 65003 },
          ],
        },
        { as: 65009, neighbor: [{ address: '198.51.100.1', 'peer-as': 65010 }] },
      ],
    },
    'ex-sys:system': { hostname: 'edge-1' },
  });
});

test('a targeted read enumerates only the entries it names', async (t) => {
  const h = unitHarness([bgp, system], transcript);
  t.deepEqual(await h.read("/ex-bgp:bgp/instance[as='65009']/neighbor[address='198.51.100.1']"), {
    'ex-bgp:neighbor': [{ address: '198.51.100.1', 'peer-as': 65010 }],
  });
  t.deepEqual(h.executed, ['show running-config']); // the system unit was not asked
  t.is(await h.read("/ex-bgp:bgp/instance[as='1']"), undefined);
  t.deepEqual(await h.read('/ex-sys:system'), { 'ex-sys:system': { hostname: 'edge-1' } });
});

test('write order: deletes deepest first, parents before children on create; a child of a deleted parent is not deleted twice', async (t) => {
  const h = unitHarness([bgp, system], transcript);
  const before = (await h.read('/'))!;
  const after = structuredClone(before) as any;
  after['ex-bgp:bgp'].instance.splice(1, 1); // delete AS 65009 with its neighbor
  after['ex-bgp:bgp'].instance[0].neighbor.splice(0, 1); // delete one neighbor of 65001
  after['ex-bgp:bgp'].instance.push({ as: 65100, 'router-id': '10.9.9.9', neighbor: [{ address: '203.0.113.1', 'peer-as': 65101 }] });
  after['ex-sys:system'].hostname = 'edge-2';
  const plan = planWrite([bgp, system], before, after);
  t.deepEqual(plan.commands, [
    'router bgp 65001',
    ' no neighbor 192.0.2.1',
    'exit',
    'no router bgp 65009',
    'hostname edge-2',
    'router bgp 65100',
    ' bgp router-id 10.9.9.9',
    'exit',
    'router bgp 65100',
    ' neighbor 203.0.113.1 remote-as 65101',
    'exit',
  ]);
  // undoing the created instance removes its neighbor with it
  t.deepEqual(plan.undo.slice(0, 2), ['no router bgp 65100', 'hostname edge-1']);
  t.deepEqual(plan.undoGaps, []);
  // a neighbor change alone does not touch its parent instance's writer
  const peer = structuredClone(before) as any;
  peer['ex-bgp:bgp'].instance[0].neighbor[0]['peer-as'] = 64999;
  t.deepEqual(planWrite([bgp], before, peer).commands, [
    'router bgp 65001',
    ' no neighbor 192.0.2.1',
    'exit',
    'router bgp 65001',
    ' neighbor 192.0.2.1 remote-as 64999',
    'exit',
  ]);
});

test("the plan keeps its steps: each node's commands beside its undo, a covered delete starting with its parent", async (t) => {
  const h = unitHarness([bgp, system], transcript);
  const before = (await h.read('/'))!;
  const after = structuredClone(before) as any;
  after['ex-bgp:bgp'].instance.splice(1, 1); // delete AS 65009 with its neighbor
  after['ex-bgp:bgp'].instance[0].neighbor.splice(0, 1); // delete one neighbor of 65001
  after['ex-bgp:bgp'].instance.push({ as: 65100, neighbor: [{ address: '203.0.113.1', 'peer-as': 65101 }] });
  const plan = planWrite([bgp, system], before, after);
  const summary = plan.steps.map((s) => [s.kind, s.path, s.start, s.commands, s.undo]);
  t.deepEqual(summary, [
    [
      'delete',
      "/ex-bgp:bgp/instance[as='65001']/neighbor[address='192.0.2.1']",
      0,
      ['router bgp 65001', ' no neighbor 192.0.2.1', 'exit'],
      ['router bgp 65001', ' neighbor 192.0.2.1 remote-as 65002', 'exit'],
    ],
    [
      'delete',
      "/ex-bgp:bgp/instance[as='65009']/neighbor[address='198.51.100.1']",
      3,
      [],
      ['router bgp 65009', ' neighbor 198.51.100.1 remote-as 65010', 'exit'],
    ],
    ['delete', "/ex-bgp:bgp/instance[as='65009']", 3, ['no router bgp 65009'], ['router bgp 65009', 'exit']],
    ['create', "/ex-bgp:bgp/instance[as='65100']", 4, ['router bgp 65100', 'exit'], ['no router bgp 65100']],
    [
      'create',
      "/ex-bgp:bgp/instance[as='65100']/neighbor[address='203.0.113.1']",
      6,
      ['router bgp 65100', ' neighbor 203.0.113.1 remote-as 65101', 'exit'],
      [],
    ],
  ]);
  t.deepEqual(
    plan.steps.flatMap((s) => s.commands),
    plan.commands,
  );
  t.deepEqual(
    [...plan.steps].reverse().flatMap((s) => s.undo ?? []),
    plan.undo,
  );
});

test('the request memo: handlers of one read share what they derive, the next read derives again', async (t) => {
  const parses: string[] = [];
  const parse = (text: string) => {
    parses.push(text);
    return text.split(' ');
  };
  const unit = defineTranslationUnit({
    paths: {
      '/m:words/word': {
        keys: ['w'],
        list: async ({ session, memo }) => memo.derive('words', await session.exec('show words'), parse).map((w) => ({ w })),
        readConfig: async ({ session, memo, key }) => ({
          position: memo.derive('words', await session.exec('show words'), parse).indexOf(key['w']!),
        }),
      },
    },
  });
  let output = 'a b c';
  const session = { exec: async () => output };
  const first = await readUnits([unit], session);
  t.deepEqual((first as any)['m:words'].word, [
    { w: 'a', position: 0 },
    { w: 'b', position: 1 },
    { w: 'c', position: 2 },
  ]);
  t.deepEqual(parses, ['a b c'], 'one parse for the list and its three readers');
  output = 'c d';
  await readUnits([unit], session);
  t.deepEqual(parses, ['a b c', 'c d'], 'a new read derives from its own output');
  await readUnits([unit], session);
  t.deepEqual(parses, ['a b c', 'c d', 'c d'], 'nothing is held from one read to the next');
});

test('missing writers, undo gaps and throwing writers are reported with the instance path', (t) => {
  const noDelete = defineTranslationUnit({
    paths: { '/m:x/item': { keys: ['id'], list: async () => [], write: { create: (a) => [`item ${a['id']}`] } } },
  });
  const doc = (ids: string[]): JsonObject => ({ 'm:x': { item: ids.map((id) => ({ id })) } });
  const plan = planWrite([noDelete], doc([]), doc(['a']));
  t.deepEqual(plan.commands, ['item a']);
  t.deepEqual(plan.undo, []);
  t.deepEqual(plan.undoGaps, ["/m:x/item[id='a']: no delete writer to undo the create"]);
  t.throws(() => planWrite([noDelete], doc(['a']), doc([])), {
    instanceOf: TranslationError,
    message: "/m:x/item[id='a']: no writer can delete /m:x/item",
  });
  const throwing = defineTranslationUnit({
    paths: {
      '/m:y': {
        write: {
          create: () => {
            throw new Error('bad value');
          },
        },
      },
    },
  });
  t.throws(() => planWrite([throwing], {}, { 'm:y': { a: 1 } }), { message: '/m:y: create writer failed: bad value' });
  const notArray = defineTranslationUnit({ paths: { '/m:y': { write: { create: () => 'oops' as unknown as string[] } } } });
  t.throws(() => planWrite([notArray], {}, { 'm:y': { a: 1 } }), { message: /must return an array of command strings/ });
});

test('bad registrations fail at definition; garbage paths are refused, not thrown around', async (t) => {
  t.throws(() => defineTranslationUnit({ paths: { 'no-slash': {} } }), { message: /a path starts with \// });
  t.throws(() => defineTranslationUnit({ paths: { '/x': {} } }), { message: /module-qualified/ });
  t.throws(() => defineTranslationUnit({ paths: { "/m:a/b[k='1']": {} } }), { message: /drop the \[key=...\] predicates/ });
  t.throws(() => defineTranslationUnit({ paths: { '/m:a/b': {}, '/m:a/m:b': {} } }), { message: /registered twice/ });
  t.throws(() => defineTranslationUnit({ paths: { '/m:a': { keys: [], list: async () => [] } } }), { message: /at least one key/ });
  for (const bad of ['/m:a[', "/m:a[k='1'", '/m:a//b', '/m:a/', `/${'x/'.repeat(5000)}`, '/m:a/b c']) {
    const r = parseInstancePath(bad);
    t.false(r.ok, bad.slice(0, 20));
  }
  t.deepEqual(parseInstancePath(`/m:a/b[k="it's"][j='2']/o:c/d`), {
    ok: true,
    path: [{ member: 'm:a' }, { member: 'b', keys: { k: "it's", j: '2' } }, { member: 'o:c' }, { member: 'd' }],
  });
  const session = {
    exec: async () => {
      throw new Error('connection reset');
    },
  };
  await t.throwsAsync(readUnits([bgp], session), {
    instanceOf: TranslationError,
    message: '/ex-bgp:bgp/instance: list failed: connection reset',
  });
});

test('writers see the whole documents (swapped for undo); undoing a parent delete recreates the children it removed', (t) => {
  // neighbors live inside `router bgp <AS>`, but the AS is a leaf of the instance, not a key
  const unit = defineTranslationUnit({
    errorPatterns: [/^% /],
    paths: {
      '/m:bgp': {
        write: {
          create: (a) => [`router bgp ${a['as']}`, 'exit'],
          update: (b, a) => {
            if (b['as'] !== a['as']) throw new Error('the AS cannot change');
            return [];
          },
          delete: (b) => [`no router bgp ${b['as']}`],
        },
      },
      '/m:bgp/neighbor': {
        keys: ['address'],
        list: async () => [],
        write: {
          create: (a, { documents }) => [
            `router bgp ${(documents.after['m:bgp'] as JsonObject)['as']}`,
            ` neighbor ${a['address']} remote-as ${a['peer-as']}`,
            'exit',
          ],
          delete: (b, { documents }) => [
            `router bgp ${(documents.before['m:bgp'] as JsonObject)['as']}`,
            ` no neighbor ${b['address']}`,
            'exit',
          ],
        },
      },
    },
  });
  t.deepEqual(unit.errorPatterns.map(String), ['/^% /']);
  const full: JsonObject = { 'm:bgp': { as: 65001, neighbor: [{ address: '192.0.2.1', 'peer-as': 65002 }] } };
  const bare: JsonObject = { 'm:bgp': { as: 65001 } };
  const add = planWrite([unit], bare, full);
  t.deepEqual(add.commands, ['router bgp 65001', ' neighbor 192.0.2.1 remote-as 65002', 'exit']);
  t.deepEqual(add.undo, ['router bgp 65001', ' no neighbor 192.0.2.1', 'exit']);
  const drop = planWrite([unit], full, {});
  t.deepEqual(drop.commands, ['no router bgp 65001']);
  t.deepEqual(drop.undo, ['router bgp 65001', 'exit', 'router bgp 65001', ' neighbor 192.0.2.1 remote-as 65002', 'exit']);
  t.deepEqual(drop.undoGaps, []);
});
