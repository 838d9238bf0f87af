/**
 * The pacing of connection attempts (mount/connect-pacing.ts): the gate never lets more than its limit
 * run, hands slots on first come first served, frees a slot when an attempt fails; jitter stays inside
 * its window. Attempts are promises the test resolves by hand, so nothing here depends on time.
 */
import test from 'ava';
import { ConnectGate, jitter } from '../../src/mount/connect-pacing';

/** An attempt the test finishes by hand, recording how many ran at once when it started. */
function heldAttempts(gate: ConnectGate, count: number) {
  const finish: Array<(ok: boolean) => void> = [];
  const started: number[] = [];
  const results = Array.from({ length: count }, (_, i) =>
    gate.attempt(
      () =>
        new Promise<number>((resolve, reject) => {
          started.push(i);
          finish[i] = (ok) => (ok ? resolve(i) : reject(new Error(`attempt ${i} failed`)));
        }),
    ),
  );
  return { finish, started, results };
}

const turn = () => new Promise((r) => setImmediate(r));

test('no more attempts than the limit run at once, and the rest start in arrival order', async (t) => {
  const gate = new ConnectGate(3);
  const { finish, started, results } = heldAttempts(gate, 10);
  await turn();
  t.deepEqual(started, [0, 1, 2]);
  t.is(gate.inFlight, 3);
  t.is(gate.waiting, 7);
  finish[1]!(true);
  await turn();
  t.deepEqual(started, [0, 1, 2, 3]);
  finish[0]!(false); // a failed attempt gives its slot back too
  finish[2]!(true);
  await turn();
  t.deepEqual(started, [0, 1, 2, 3, 4, 5]);
  for (let i = 3; i < 10; i++) {
    finish[i]!(true);
    await turn();
  }
  const settled = await Promise.allSettled(results);
  t.deepEqual(
    settled.map((r) => r.status),
    ['rejected', ...Array(9).fill('fulfilled')],
  );
  t.is(gate.peak, 3);
  t.is(gate.inFlight, 0);
  t.is(gate.waiting, 0);
});

test('a gate of one runs attempts strictly one after another', async (t) => {
  const gate = new ConnectGate(1);
  const { finish, started } = heldAttempts(gate, 4);
  for (let i = 0; i < 4; i++) {
    await turn();
    t.deepEqual(started, [...Array(i + 1).keys()]);
    finish[i]!(true);
  }
  t.is(gate.peak, 1);
});

test('a gate refuses a limit below one', (t) => {
  t.throws(() => new ConnectGate(0), { instanceOf: RangeError });
});

test('jitter draws first attempts from the whole window and back-offs from its upper half', (t) => {
  const first = Array.from({ length: 2000 }, () => jitter(1000, 0));
  t.true(first.every((ms) => ms >= 0 && ms <= 1000));
  t.true(Math.min(...first) < 250 && Math.max(...first) > 750, 'spread over the window, not bunched');
  const backoff = Array.from({ length: 2000 }, () => jitter(1000));
  t.true(backoff.every((ms) => ms >= 500 && ms <= 1000));
  t.true(new Set(backoff).size > 100, 'not one value for everyone');
});
