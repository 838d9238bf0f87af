/**
 * Where the corpus tests and benchmarks find the shared YANG corpus (the published IETF, IEEE,
 * OpenDaylight and OpenConfig modules with yanglint's verdicts and tree diagrams), which is not part of
 * the repository: the environment variable ROSETTA_YANG_CORPUS, else ../shared/yang beside the
 * repository root when that folder exists. Without it, corpus tests are registered as skipped and say
 * so on the console; every other test runs on the compact models in core/test/models.
 *
 * Imports nothing from ava at run time, so the benchmarks can use it outside a test run.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { TestFn } from 'ava';

export const CORPUS_VARIABLE = 'ROSETTA_YANG_CORPUS';

/** The repository root, from core/dist/test (compiled). */
const REPO_ROOT = path.resolve(__dirname, '../../..');
const BESIDE_REPO = path.join(REPO_ROOT, '..', 'shared', 'yang');

function locateCorpus(): string | undefined {
  const setting = process.env[CORPUS_VARIABLE];
  if (setting !== undefined && setting !== '') {
    // Named explicitly, a missing folder is a mistake to report, not a reason to skip quietly.
    const dir = path.resolve(setting);
    if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
      throw new Error(`${CORPUS_VARIABLE}=${setting}: ${dir} is not a folder`);
    }
    return dir;
  }
  return fs.statSync(BESIDE_REPO, { throwIfNoEntry: false })?.isDirectory() ? BESIDE_REPO : undefined;
}

/** The corpus folder, or undefined when there is none. */
export const CORPUS: string | undefined = locateCorpus();

/** Why corpus work is left out, for skip messages. */
export const CORPUS_ABSENT = `${CORPUS_VARIABLE} is not set and ../shared/yang does not exist beside the repository`;

/** A path inside the corpus, for code that runs only in corpus tests (they are skipped without it). */
export function corpusPath(...parts: string[]): string {
  if (CORPUS === undefined) throw new Error(`this needs the YANG corpus: ${CORPUS_ABSENT}`);
  return path.join(CORPUS, ...parts);
}

/**
 * ava's `test` when the corpus is present. Without it, a stand-in of the same shape that registers
 * every test as skipped (ava counts them), runs no hooks, and prints one line naming the setting, so a
 * run without the corpus says what it left out. `what` names the tests, e.g. "yanglint tree oracle".
 * Test bodies, hooks and macros still must read the corpus only when they run.
 */
export function corpusTest(test: TestFn, what: string): TestFn {
  if (CORPUS !== undefined) return test;
  console.log(`SKIP corpus tests (${what}): ${CORPUS_ABSENT}`);
  const skip = ((title: string, ...rest: unknown[]) => (test.skip as (...a: unknown[]) => void)(title, ...rest)) as unknown as TestFn;
  const noHook = (() => undefined) as unknown as TestFn['before'];
  return Object.assign(skip, {
    serial: skip,
    only: skip,
    failing: skip,
    skip: test.skip,
    todo: test.todo,
    macro: test.macro,
    meta: test.meta,
    before: noHook,
    after: Object.assign(noHook, { always: noHook }),
    beforeEach: noHook,
    afterEach: Object.assign(noHook, { always: noHook }),
  });
}
