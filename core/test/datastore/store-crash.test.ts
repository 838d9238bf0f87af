// kill -9 at random moments while a child process writes through the Config datastore: 8 concurrent
// writers, each apply() creating two interface entries (`w<n>a`, `w<n>b`) in one all-or-nothing
// change, compaction every 40 records so snapshots are taken while writing. The child prints n once
// apply() resolved. After each kill, reopening must show every acknowledged pair, and no pair half
// there; the next child continues on top of it.
import test from 'ava';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { ConfigStore } from '../../src/datastore';
import { schema } from '../data/fixture';
import { dataDirectory, interfaceList } from './store-fixture';

const CHILD_SCRIPT = `
const { ConfigStore } = require(${JSON.stringify(path.resolve(__dirname, '../../src/datastore/index.js'))});
const { schema } = require(${JSON.stringify(path.resolve(__dirname, '../data/fixture.js'))});
const { entryEdit } = require(${JSON.stringify(path.resolve(__dirname, 'store-fixture.js'))});
(async () => {
  const ctx = schema();
  const store = await ConfigStore.open(process.argv[process.argv.length - 2], ctx, { log: () => undefined, journal: { compactAfterRecords: 40 } });
  let next = Number(process.argv[process.argv.length - 1]);
  process.stdout.write('ready\\n');
  const writer = async () => {
    for (;;) {
      const n = next++;
      await store.apply([entryEdit(ctx, { name: 'w' + n + 'a', description: String(n) }, 'create'),
                         entryEdit(ctx, { name: 'w' + n + 'b', description: String(n) }, 'create')]);
      process.stdout.write(n + '\\n');
    }
  };
  for (let i = 0; i < 8; i++) writer().catch((e) => { process.stderr.write(String(e) + '\\n'); process.exit(3); });
})().catch((e) => { process.stderr.write(String(e && e.stack) + '\\n'); process.exit(2); });
`;

function runAndKill(directory: string, base: number, afterAcks: number): Promise<{ acknowledged: number[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CHILD_SCRIPT, directory, String(base)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acknowledged: number[] = [];
    let stderr = '';
    let partial = '';
    let killed = false;
    const kill = (): void => {
      if (!killed) {
        killed = true;
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(kill, 30_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) if (line !== 'ready') acknowledged.push(Number(line));
      // A random extra delay moves the kill off the acknowledgement boundary.
      if (acknowledged.length >= afterAcks) setTimeout(kill, Math.random() * 8);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve({ acknowledged, stderr });
    });
  });
}

test('kill -9 while writing: every acknowledged apply survives, none is half-applied', async (t) => {
  t.timeout(180_000);
  const ctx = schema();
  const dir = dataDirectory(t);
  const acknowledged = new Set<number>();
  for (let round = 0; round < 6; round++) {
    // Numbers of each round start far apart so a number never repeats across rounds.
    const result = await runAndKill(dir, round * 100_000, 20 + Math.floor(Math.random() * 200));
    t.is(result.stderr, '', `round ${round}`);
    for (const n of result.acknowledged) acknowledged.add(n);

    const store = await ConfigStore.open(dir, ctx, { log: () => undefined });
    const entries = interfaceList(store.current())?.entries ?? [];
    const halves = new Map<string, Set<string>>();
    for (const entry of entries) {
      const name = String((entry.children[0] as { value: unknown }).value);
      const n = name.slice(1, -1);
      if (!halves.has(n)) halves.set(n, new Set());
      halves.get(n)!.add(name.slice(-1));
    }
    await store.close();
    const half = [...halves].filter(([, parts]) => parts.size !== 2).map(([n]) => n);
    t.deepEqual(half, [], `round ${round}: applies half there`);
    const missing = [...acknowledged].filter((n) => !halves.has(String(n)));
    t.deepEqual(missing, [], `round ${round}: acknowledged applies lost`);
    t.log(`round ${round}: ${result.acknowledged.length} acknowledged, ${halves.size} applies stored`);
  }
});
