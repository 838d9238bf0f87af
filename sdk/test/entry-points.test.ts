/**
 * The SDK's two entry points stay apart: `@rosetta/sdk` is what a plugin loads at run time, and
 * `@rosetta/sdk/testing` (harness, simulators, the FRR peer lease that resolves this repository's
 * test/peers scripts) is for tests only. A plugin that loaded the testing entry at run time would ship
 * this repository's CI machinery, so these checks fail on a main entry that reaches into src/testing
 * and on a plugin source file that imports the testing entry.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '../../..');
const SDK_DIST = path.resolve(__dirname, '../src');
const TESTING_DIST = path.join(SDK_DIST, 'testing') + path.sep;

/** The compiled modules a fresh process loads when it requires `specifier`, as absolute file names. */
function modulesLoadedBy(specifier: string): string[] {
  const out = execFileSync(
    process.execPath,
    ['-e', `require(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(require.cache)))`],
    { cwd: REPO, encoding: 'utf8' },
  );
  return JSON.parse(out) as string[];
}

/** Every `.ts` file below `dir`, recursively. */
function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(full));
    else if (entry.name.endsWith('.ts')) found.push(full);
  }
  return found;
}

test('loading the main entry loads no module from src/testing', (t) => {
  const loaded = modulesLoadedBy('@rosetta/sdk');
  t.true(
    loaded.some((file) => file.startsWith(SDK_DIST)),
    'the main entry was loaded from this SDK',
  );
  t.deepEqual(
    loaded.filter((file) => file.startsWith(TESTING_DIST)),
    [],
  );
});

test('the testing entry loads src/testing, and shares no export name with the main entry', (t) => {
  t.true(modulesLoadedBy('@rosetta/sdk/testing').some((file) => file.startsWith(TESTING_DIST)));
  const main = new Set(Object.keys(require('@rosetta/sdk')));
  const testing = Object.keys(require('@rosetta/sdk/testing'));
  t.true(testing.includes('startSimulator'));
  t.deepEqual(
    testing.filter((name) => main.has(name)),
    [],
  );
});

test('no plugin source file imports @rosetta/sdk/testing', (t) => {
  const roots = [
    ...fs.readdirSync(path.join(REPO, 'plugins')).map((name) => path.join(REPO, 'plugins', name, 'src')),
    ...fs.readdirSync(path.join(REPO, 'sdk/examples')).map((name) => path.join(REPO, 'sdk/examples', name, 'src')),
  ].filter((dir) => fs.existsSync(dir));
  t.true(roots.length > 1);
  const offenders = roots
    .flatMap(sourceFiles)
    .filter((file) => /['"]@rosetta\/sdk\/testing['"]/.test(fs.readFileSync(file, 'utf8')))
    .map((file) => path.relative(REPO, file));
  t.deepEqual(offenders, []);
});
