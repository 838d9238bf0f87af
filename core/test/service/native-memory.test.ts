import * as fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import test from 'ava';
import { NativeMemoryTrim } from '../../src/service/native-memory';

const lines: string[] = [];
const log = { info: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
const MB = 1048576;

/** An addon whose free-byte count the test sets, counting trims. */
function fakeAddon() {
  const state = { free: 4 * MB, trims: 0 };
  return {
    state,
    addon: {
      freeBytes: () => state.free,
      trim: async () => {
        state.trims++;
        return true;
      },
    },
  };
}

test.serial('trims once after the free bytes grow past the threshold, not again while they stay there', async (t) => {
  const { state, addon } = fakeAddon();
  const trimmer = new NativeMemoryTrim({ log, intervalMs: 3_600_000, thresholdBytes: 16 * MB }, addon);
  t.teardown(() => trimmer.stop());
  await sleep(200); // the event loop idle since the trimmer started
  state.free = 10 * MB;
  t.false(await trimmer.check(), 'grown by 6 MB: under the threshold');
  state.free = 40 * MB;
  await sleep(200);
  t.true(await trimmer.check(), 'grown by 36 MB');
  t.is(state.trims, 1);
  await sleep(200);
  t.false(await trimmer.check(), 'the free count stays where the trim left it');
  state.free = 30 * MB; // reused
  await sleep(200);
  t.false(await trimmer.check());
  state.free = 50 * MB; // 20 MB more freed since the lowest reading
  await sleep(200);
  t.true(await trimmer.check());
  t.is(state.trims, 2);
  t.true(lines.some((l) => /gave back the pages malloc held free \(50 MB free/.test(l)));
});

test.serial('does not trim while the event loop is busy', async (t) => {
  const { state, addon } = fakeAddon();
  const trimmer = new NativeMemoryTrim({ log, intervalMs: 3_600_000, thresholdBytes: 16 * MB }, addon);
  t.teardown(() => trimmer.stop());
  state.free = 100 * MB;
  const until = performance.now() + 100;
  while (performance.now() < until); // busy since the trimmer started
  t.false(await trimmer.check());
  t.is(state.trims, 0);
  await sleep(200);
  t.true(await trimmer.check(), 'idle since the last check');
});

test.serial('says once that it does not trim when the addon is missing', (t) => {
  lines.length = 0;
  const trimmer = new NativeMemoryTrim({ log }, 'Cannot find module malloc-trim.node');
  t.false(trimmer.available);
  t.deepEqual(lines, ['native memory is not trimmed (core/native/malloc-trim.node unavailable: Cannot find module malloc-trim.node)']);
});

const vmRss = () => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;

const real = new NativeMemoryTrim({ log, intervalMs: 3_600_000 });
real.stop();
if (!real.available)
  console.error(
    'SKIPPING the native memory trim test with the real addon: core/native/malloc-trim.node was not built (see core/native/build.js at npm install)',
  );

(real.available ? test.serial : test.skip)('the real addon hands freed malloc memory back to the system', async (t) => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const trimmer = new NativeMemoryTrim({ log, intervalMs: 3_600_000, thresholdBytes: 16 * MB });
  t.teardown(() => trimmer.stop());
  // 60 MB of malloc'd buffers, one in forty kept: freeing the rest leaves holes malloc cannot give back alone
  const kept: Buffer[] = [];
  let dropped: Buffer[] | undefined = [];
  for (let i = 0; i < 40_000; i++) {
    const b = Buffer.allocUnsafeSlow(1500).fill(1);
    if (i % 40 === 0) kept.push(b);
    else dropped.push(b);
  }
  dropped = undefined;
  gc();
  await sleep(200);
  gc();
  await trimmer.check(); // the allocation kept the loop busy: this one only starts the idle window
  await sleep(300);
  const before = vmRss();
  t.true(await trimmer.check(), 'trimmed');
  const after = vmRss();
  t.true(before - after > 16 * MB, `RSS ${Math.round(before / MB)} MB before the trim, ${Math.round(after / MB)} MB after`);
  t.is(kept.length, 1000);
});
