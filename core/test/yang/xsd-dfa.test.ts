/**
 * The linear-time matcher (xsd-nfa.ts, a lazy DFA over a Thompson NFA) against V8's RegExp: random
 * XSD patterns over random values (ASCII, non-ASCII, astral, newline, empty) agree whole-value and in
 * prefix mode, with runs paused every few steps; and patterns whose DFA outgrows its cache (counted
 * repetitions of thousands of instructions) still answer right, charging their work as steps.
 */
import test from 'ava';
import { translatePattern } from '../../src/yang/types';
import { linearMatcher } from '../../src/yang/types/xsd-nfa';

/** A fixed-seed generator, so a failure repeats. */
function generator(seed: number): (n: number) => number {
  return (n) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed >>> 4) % n;
  };
}

const ATOMS = ['a', 'b', 'c', 'ä', '中', '😀', '.', '[ab]', '[^a]', '\\d', '\\p{L}', '[a-c-[b]]', '\\n', '\\s', '[ä-中]'];
const QUANTIFIERS = ['', '', '', '*', '+', '?', '{2}', '{0,3}', '{1,}', '{2,4}'];
const VALUE_CHARS = ['a', 'a', 'b', 'c', 'ä', '中', '😀', '\n', '1', ' ', 'x'];

function randomPattern(random: (n: number) => number, depth: number): string {
  const items: string[] = [];
  for (let k = 1 + random(4); k > 0; k--) {
    const atom = depth < 3 && random(4) === 0 ? `(${randomPattern(random, depth + 1)})` : ATOMS[random(ATOMS.length)]!;
    items.push(atom + QUANTIFIERS[random(QUANTIFIERS.length)]!);
  }
  const seq = items.join('');
  return random(5) === 0 ? `${seq}|${randomPattern(random, depth + 1)}` : seq;
}

function randomValue(random: (n: number) => number): string {
  let v = '';
  for (let k = random(13); k > 0; k--) v += VALUE_CHARS[random(VALUE_CHARS.length)]!;
  return v;
}

/** Runs a paused-and-resumed match to its end, a few steps at a time; returns its answer and steps. */
function runToEnd(run: ReturnType<NonNullable<ReturnType<typeof linearMatcher>>['start']>, slice: number): [boolean, number] {
  let steps = 0;
  while (run.result === undefined) steps += run.advance(slice);
  return [run.result, steps];
}

test('the lazy DFA answers as the RegExp on random patterns and values, whole-value and prefix', (t) => {
  const random = generator(20261127);
  const disagreements: string[] = [];
  let compared = 0;
  for (let p = 0; p < 1500; p++) {
    const source = randomPattern(random, 0);
    const translated = translatePattern(source);
    if ('error' in translated) {
      disagreements.push(`${source}: ${translated.error}`);
      continue;
    }
    const whole = translated.regex;
    const prefix = new RegExp(whole.source.slice(0, -1), 'u'); // `^(?:...)`: some prefix matches
    const matcher = linearMatcher(source)!;
    const values = ['', ...Array.from({ length: 30 }, () => randomValue(random))];
    // The same values again: the second time every transition is cached.
    for (const v of [...values, ...values]) {
      compared++;
      const expected = whole.test(v);
      if (matcher(v) !== expected) disagreements.push(`${source} on ${JSON.stringify(v)}: expected ${expected}`);
      const [resumed] = runToEnd(matcher.start(v), 1 + random(3));
      if (resumed !== expected) disagreements.push(`${source} on ${JSON.stringify(v)}, paused run: expected ${expected}`);
      const [some] = runToEnd(matcher.start(v, true), 1 + random(3));
      if (some !== prefix.test(v)) disagreements.push(`${source} on ${JSON.stringify(v)}, prefix: expected ${prefix.test(v)}`);
    }
  }
  t.log(`${compared} values compared, three ways each`);
  t.deepEqual(disagreements.slice(0, 20), []);
});

test('a search over a long value costs one step a character once its transitions are known', (t) => {
  const matcher = linearMatcher('[\\s\\S]*((a|aa)+b)')!;
  const value = 'a'.repeat(160_000);
  const [first, firstSteps] = runToEnd(matcher.start(value, true), 4096);
  const [again, steps] = runToEnd(matcher.start(value, true), 4096);
  t.false(first);
  t.false(again);
  t.true(firstSteps < 160_100, `${firstSteps} steps`);
  t.is(steps, 160_000);
  t.true(linearMatcher('[\\s\\S]*((a|aa)+b)')!.start(`${value}b`, true).advance(Infinity) > 0);
  t.true(runToEnd(matcher.start(`${value}b`, true), 4096)[0]);
});

test('counted repetitions of thousands of instructions, past the DFA cache, answer right', (t) => {
  const value = 'a'.repeat(20_000);
  const search = linearMatcher('[\\s\\S]*(.{1,3000}x)')!;
  const started = process.hrtime.bigint();
  const [found, steps] = runToEnd(search.start(value, true), 4096);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  t.log(`.{1,3000}x over 20,000 characters: ${ms.toFixed(0)} ms, ${steps.toLocaleString('en')} steps`);
  t.false(found);
  // Each new state is paid for by its instructions: 3,000 states of up to 6,000 on the way in.
  t.true(steps > 9_000_000 && steps < 30_000_000, `${steps} steps`);
  t.true(runToEnd(search.start(`${value}x`, true), 4096)[0]);
  t.true(runToEnd(search.start(`${value}\nax`, true), 4096)[0]);
  t.false(runToEnd(search.start(`${value}\nx`, true), 4096)[0]);

  const counted = linearMatcher('a{1,5000}b')!;
  t.true(counted(`${'a'.repeat(5000)}b`));
  t.false(counted(`${'a'.repeat(5001)}b`));
  t.false(counted('b'));
  t.true(counted('ab'));
  const choices = linearMatcher('(a|aa){0,2000}b')!;
  t.true(choices(`${'a'.repeat(4000)}b`));
  t.false(choices(`${'a'.repeat(4001)}b`));
  t.false(choices(`${'a'.repeat(4000)}`));
});
