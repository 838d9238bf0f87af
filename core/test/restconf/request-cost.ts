/**
 * The request-cost suite: requests that used to stall the whole service, each sent while a probe
 * reads a small resource of the same service every 10 ms. Pathological `jsonb-filter` expressions
 * (nested quantifiers, overlapping alternations, big counted repeats) over a list entry holding
 * 160,000 characters, and values checked against pathological YANG `pattern`s (device models are
 * written by others), short and long. Shared by http-request-cost.test.ts (generous bounds that catch a
 * stall) and bench/request-cost.ts (the goals: each answered within 1 s, the probe within 50 ms).
 */

/** The module the suite's service loads: a list to filter, and leaves with pathological patterns. */
export const REQUEST_COST_MODULE = `
module request-cost {
  yang-version 1.1;
  namespace "urn:rosetta:test:request-cost";
  prefix rcost;

  container top {
    list item {
      key id;
      leaf id { type string; }
      leaf a { type string; }
    }
    container checked {
      leaf nested { type string { pattern '(a+)+b'; } }
      leaf star { type string { pattern '(a*)*b'; } }
      leaf overlap { type string { pattern '(a|aa)+b'; } }
      leaf optional { type string { pattern '(a|a?)+b'; } }
      leaf word { type string { pattern '([a-z]+)*x'; } }
      leaf sequence { type string { pattern 'a*a*a*a*a*a*b'; } }
      leaf counted { type string { pattern '(a|aa){0,60}b'; } }
      leaf deep { type string { pattern '((a+)+)+b'; } }
      leaf plain { type string { pattern '[a-z]{1,300}'; } }
    }
  }
}
`;

export const TOP = '/rests/data/request-cost:top';
/** What the probe reads: one small entry. */
export const PROBE_PATH = `${TOP}/item=small`;
/** Length of the value the filters read (the tester's case). */
export const LONG = 160_000;

export interface CostCase {
  readonly name: string;
  readonly method: 'GET' | 'PUT';
  readonly path: string;
  readonly body?: string;
  /** What a right answer is; returns why the answer is wrong, or undefined. */
  readonly check: (status: number, text: string) => string | undefined;
}

export interface CostResult {
  readonly name: string;
  readonly ms: number;
  readonly status: number;
  /** The probe's slowest answer while the case ran (and the one in flight when it ended). */
  readonly probeWorstMs: number;
  readonly probes: number;
  readonly wrong: string | undefined;
}

/** The entries the filters run over: a small one, the 160,000-character one, and a few ordinary ones. */
export function seedBody(): string {
  const item = [
    { id: 'small', a: 'b' },
    { id: 'long', a: 'a'.repeat(LONG) },
    ...Array.from({ length: 20 }, (_, i) => ({ id: `e${i}`, a: `aaab${i}` })),
  ];
  return JSON.stringify({ 'request-cost:top': { item } });
}

/** 400 `invalid-value` naming jsonb-filter and the filter's text. */
function refusesFilter(filter: string): (status: number, text: string) => string | undefined {
  return (status, text) =>
    status === 400 && text.includes('jsonb-filter') && text.includes(JSON.stringify(filter).slice(1, -1))
      ? undefined
      : `expected 400 naming the filter, got ${status}: ${text.slice(0, 200)}`;
}

/** The count of matching entries, or 400 naming the filter when the filter is over the work budget. */
function countsOrRefuses(filter: string, count: number): (status: number, text: string) => string | undefined {
  return (status, text) => {
    if (status === 200) return text.trim() === String(count) ? undefined : `expected count ${count}, got ${text.slice(0, 100)}`;
    return refusesFilter(filter)(status, text);
  };
}

const FILTERS: ReadonlyArray<readonly [string, number]> = [
  // [filter over {@/a}, entries whose `a` matches (the 20 ordinary entries hold `aaab<i>`)]
  ['a{1,5000}b', 20],
  ['(a+)+b', 20],
  ['(a*)*b', 21],
  ['(a|aa)+b', 20],
  ['(a|a?)+b', 21],
  ['([a-z]+)*x', 0],
  ['^(a+)+$', 1],
  ['^(a|aa)+$', 1],
  ['^(a|a?)+c', 0],
  ['(a*)*(b|c)', 21],
  ['((a+)+)+x', 0],
  ['(a+|b+)*c', 0],
  ['(aa|a)*x', 0],
  ['(a|b|ab)*c', 0],
  ['a*a*a*a*a*a*x', 0],
  ['.*.*.*.*x', 0],
  ['(.*a){20}x', 0],
  ['a{1,2000}x', 0],
  ['.{1,3000}x', 0],
  ['(a{1,50}){1,40}x', 0],
  ['(a|aa){0,60}x', 0],
];

const PATTERN_VALUES: ReadonlyArray<readonly [string, number]> = [
  // [leaf, length of a value of `a`s followed by `!` (matches none of the patterns)]
  ['nested', 29],
  ['nested', 256],
  ['nested', 10_000],
  ['nested', LONG],
  ['star', 29],
  ['star', 256],
  ['star', 10_000],
  ['overlap', 40],
  ['overlap', 256],
  ['overlap', LONG],
  ['optional', 29],
  ['optional', 256],
  ['word', 29],
  ['word', 256],
  ['word', 10_000],
  ['sequence', 256],
  ['sequence', 10_000],
  ['counted', 60],
  ['deep', 29],
  ['deep', 256],
  ['plain', 256],
];

/** The pathological requests and 20 variations of each. */
export function costCases(): CostCase[] {
  const cases: CostCase[] = [];
  for (const [filter, count] of FILTERS) {
    const text = `{@/a} like_regex "${filter}"`;
    cases.push({
      name: `jsonb-filter ${text} (an entry of ${LONG.toLocaleString('en')} chars)`,
      method: 'GET',
      path: `${TOP}/item?fetch=count&jsonb-filter=${encodeURIComponent(text)}`,
      // the issue's own case: 25 million steps (its 5,000 DFA states of up to 10,000 instructions), over the budget
      check: filter === 'a{1,5000}b' ? refusesFilter(text) : countsOrRefuses(text, count),
    });
  }
  for (const [leaf, length] of PATTERN_VALUES) {
    const value = `${'a'.repeat(length)}!`;
    cases.push({
      name: `PUT ${leaf} (pattern) = ${length.toLocaleString('en')} a's and '!'`,
      method: 'PUT',
      path: `${TOP}/checked/${leaf}`,
      body: JSON.stringify({ [`request-cost:${leaf}`]: value }),
      check: (status, text) =>
        status === 400 && text.includes('pattern') ? undefined : `expected 400 for a value the pattern refuses, got ${status}`,
    });
  }
  return cases;
}

/** Stores the entries the filters read; throws when the service refuses them. */
export async function seed(base: string): Promise<void> {
  const res = await fetch(`${base}${TOP}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/yang-data+json' },
    body: seedBody(),
  });
  if (res.status !== 201 && res.status !== 204) throw new Error(`seeding answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
}

/** Sends one case while a probe GETs PROBE_PATH every 10 ms; the probe's worst latency is its slowest answer. */
export async function runCase(base: string, c: CostCase): Promise<CostResult> {
  let running = true;
  let worst = 0;
  let probes = 0;
  const probe = (async () => {
    while (running) {
      const t = performance.now();
      const res = await fetch(`${base}${PROBE_PATH}`);
      await res.text();
      worst = Math.max(worst, performance.now() - t);
      probes++;
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  await new Promise((r) => setTimeout(r, 20)); // the probe is in flight before the case starts
  const started = performance.now();
  const res = await fetch(`${base}${c.path}`, {
    method: c.method,
    ...(c.body !== undefined ? { body: c.body, headers: { 'content-type': 'application/yang-data+json' } } : {}),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  running = false;
  await probe;
  return { name: c.name, ms, status: res.status, probeWorstMs: worst, probes, wrong: c.check(res.status, text) };
}
