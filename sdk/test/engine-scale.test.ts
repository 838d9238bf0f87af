/**
 * The read engine's cost grows with the answer, not with its square: every list array it builds is
 * indexed by key, and the instances of a path prefix are enumerated once per read, shared by the
 * registrations under it. Measured on a synthetic unit (no parsing cost of its own), so what is timed is the
 * engine: N parents with 2 children each, read at N and 4N; a linear engine takes about 4 times as long,
 * the quadratic one took 16 times (10,000 entries: over a minute).
 */
import test from 'ava';
import { defineTranslationUnit, readUnits, type Keys } from '@rosetta/sdk';
import { cpuStopwatch } from '@rosetta/sdk/testing';

function wideUnit(parents: number, calls: { list: number }) {
  const names: Keys[] = Array.from({ length: parents }, (_, i) => ({ name: `p${i}` }));
  return defineTranslationUnit({
    paths: {
      '/w:top/parent': {
        keys: ['name'],
        async list() {
          calls.list++;
          return names;
        },
        async readConfig({ key }) {
          return { name: key['name']!, config: { name: key['name']!, n: Number(key['name']!.slice(1)) } };
        },
        async readState({ key }) {
          return { state: { up: key['name']!.endsWith('0') } };
        },
      },
      '/w:top/parent/child': {
        keys: ['id', 'side'],
        async list() {
          calls.list++;
          return [
            { id: '1', side: 'a' },
            { id: '1', side: 'b' },
          ];
        },
        async readConfig({ key }) {
          return { config: { id: Number(key['id']), side: key['side']! } };
        },
      },
      '/w:top/parent/child/detail': {
        async readConfig({ keys }) {
          return { owner: keys[0]!['name']! };
        },
      },
    },
  });
}

const session = { exec: async () => '' };

async function timedRead(parents: number): Promise<{ ms: number; doc: any; lists: number }> {
  const calls = { list: 0 };
  const unit = wideUnit(parents, calls);
  let best = Infinity;
  let doc: any;
  // the CPU time of the cheapest of three, which the load of other processes does not inflate
  for (let run = 0; run < 3; run++) {
    calls.list = 0;
    const cpuMs = cpuStopwatch();
    doc = await readUnits([unit], session, { content: 'all' });
    best = Math.min(best, cpuMs());
  }
  return { ms: best, doc, lists: calls.list };
}

test('a whole read of 4N entries costs about 4 times N, not 16', async (t) => {
  t.timeout(120_000);
  const N = 5_000;
  await timedRead(500); // JIT warm-up
  const small = await timedRead(N);
  const large = await timedRead(4 * N);
  t.log(
    `${N} parents: ${small.ms.toFixed(0)} ms; ${4 * N} parents: ${large.ms.toFixed(0)} ms of CPU (x${(large.ms / small.ms).toFixed(1)})`,
  );
  t.true(large.ms / small.ms < 10, `x${large.ms / small.ms}`);

  // each list enumerated once per parent entry, however many registrations lie under it
  t.is(large.lists, 1 + 4 * N);
  const parents = large.doc['w:top'].parent;
  t.is(parents.length, 4 * N);
  t.deepEqual(parents[12_345], {
    name: 'p12345',
    config: { name: 'p12345', n: 12_345 },
    state: { up: false },
    child: [
      { id: '1', side: 'a', config: { id: 1, side: 'a' }, detail: { owner: 'p12345' } },
      { id: '1', side: 'b', config: { id: 1, side: 'b' }, detail: { owner: 'p12345' } },
    ],
  });
});

test('entries whose list repeats a key are merged into one, as before the index', async (t) => {
  const unit = defineTranslationUnit({
    paths: {
      '/w:top/item': {
        keys: ['k'],
        async list() {
          return [{ k: 'x' }, { k: 'y' }, { k: 'x' }];
        },
        async readConfig({ key }) {
          return { k: key['k']!, seen: true };
        },
      },
    },
  });
  t.deepEqual(await readUnits([unit], session, {}), {
    'w:top': {
      item: [
        { k: 'x', seen: true },
        { k: 'y', seen: true },
      ],
    },
  });
  // a targeted read of one entry of a large list still finds it
  t.deepEqual(await readUnits([unit], session, { path: "/w:top/item[k='y']" }), { 'w:item': [{ k: 'y', seen: true }] });
});
