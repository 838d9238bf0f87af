/**
 * The tree printer against yanglint 2.1.30's own trees: for each of the 47 oracle files, compile
 * with the arguments of its yanglint command (MANIFEST.md "Schema trees"), print, and compare node by
 * node with the rules of shared/tools/tree-diff (ported below). Where we differ on purpose or
 * because of a known gap, the case is listed in KNOWN_DIFFERENCES with its reason, and the test
 * checks that the difference is exactly that one.
 */
import test from 'ava';
import { CORPUS, corpusPath, corpusTest } from '../corpus';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ModuleRepository } from '../../src/yang/repository';
import { compileSchema } from '../../src/yang/compiler/index';
import { printTree } from '../../src/yang/tree-printer';

const corpusOnly = corpusTest(test, "the tree printer against yanglint's tree diagrams");
const TREES = () => corpusPath('oracle/trees');

interface TreeCase {
  tree: string;
  searchDirs: string[];
  files: string[];
  implementImports: boolean;
  schemaPath?: string;
}

/** The rows of MANIFEST.md "Schema trees": tree file and the yanglint command that printed it. */
function treeCases(): TreeCase[] {
  const manifest = fs.readFileSync(corpusPath('MANIFEST.md'), 'utf8');
  const cases: TreeCase[] = [];
  for (const m of manifest.matchAll(/^\| `oracle\/trees\/([^`]+)` \| \d+ \| `yanglint ([^`]+)` \|$/gm)) {
    const args = m[2].split(/\s+/);
    const c: TreeCase = { tree: m[1], searchDirs: [], files: [], implementImports: false };
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (a === '-f') i++;
      else if (a === '-P') c.schemaPath = args[++i];
      else if (a === '-p') c.searchDirs.push(corpusPath(args[++i]!));
      else if (a === '-i') c.implementImports = true;
      else if (a !== '-D') c.files.push(corpusPath(a));
    }
    // yanglint also searches the folder of each file given (MANIFEST.md "Exact command lines").
    for (const f of c.files) if (!c.searchDirs.includes(path.dirname(f))) c.searchDirs.push(path.dirname(f));
    cases.push(c);
  }
  return cases;
}

// --- A port of shared/tools/tree-diff: node records keyed by section and path ---------------------

const NODE = /^(?<lead>[ |]*)(?<status>[+xo])--(?<flags>rw|ro|-w|-x|-n|-u|mp|--)\s+(?<rest>.*)$/;

function parseTree(text: string): { records: Map<string, string>; order: string[] } {
  const records = new Map<string, string>();
  const order: string[] = [];
  let section: string | undefined;
  let stack: Array<[number, string]> = [];
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (line.trim() === '') continue;
    const m = NODE.exec(line);
    if (!m) {
      const s = line.trim();
      if (s.endsWith(':') || s.startsWith('module:') || s.startsWith('submodule:')) {
        section = s.split(/\s+/).join(' ');
        stack = [];
        continue;
      }
      if (stack.length > 0) {
        const k = stack[stack.length - 1][1];
        records.set(k, `${records.get(k)} ${s.split(/\s+/).join(' ')}`);
        continue;
      }
      section = s.split(/\s+/).join(' ');
      stack = [];
      continue;
    }
    const depth = m.groups!.lead.length;
    const rest = m.groups!.rest.trim();
    let name = rest.split(/\s+/)[0];
    let detail = rest.split(/\s+/).slice(1).join(' ');
    let keys = '';
    const km = /^(\S+)\s+(\[[^\]]*\])\s*(.*)$/.exec(rest);
    if (km) {
      name = km[1];
      keys = km[2];
      detail = km[3];
    }
    const bare = name.replace(/[?*!]$/, '');
    while (stack.length > 0 && stack[stack.length - 1][0] >= depth) stack.pop();
    const parent = stack.length > 0 ? stack[stack.length - 1][1] : (section ?? '');
    let key = `${parent}/${bare}`;
    for (let n = 2; records.has(key); n++) key = `${parent}/${bare}#${n}`;
    records.set(
      key,
      [`${m.groups!.status}--${m.groups!.flags}`, name, keys, detail.split(/\s+/).join(' ')].join(' ').replace(/ {2}/g, ' ').trim(),
    );
    order.push(key);
    stack.push([depth, key]);
  }
  return { records, order };
}

interface Difference {
  kind: 'missing' | 'differs' | 'extra';
  key: string;
  expected?: string;
  actual?: string;
}

function treeDiff(expectedText: string, actualText: string): { nodes: number; differences: Difference[] } {
  const exp = parseTree(expectedText);
  const act = parseTree(actualText);
  const norm = (s: string): string => s.split(/\s+/).join(' ');
  const differences: Difference[] = [];
  for (const key of exp.order) {
    const e = exp.records.get(key)!;
    const a = act.records.get(key);
    if (a === undefined) differences.push({ kind: 'missing', key, expected: e });
    else if (norm(a) !== norm(e)) differences.push({ kind: 'differs', key, expected: e, actual: a });
  }
  for (const [key, a] of act.records) if (!exp.records.has(key)) differences.push({ kind: 'extra', key, actual: a });
  return { nodes: exp.records.size, differences };
}

// --- Known differences ------------------------------------------------------------------------------

const KNOWN_DIFFERENCES: Record<string, { reason: string; accepts: (d: Difference) => boolean }> = {};

// --- The tests ---------------------------------------------------------------------------------------

/** Without the corpus there are no cases, and the tests that need them are registered as skipped. */
const cases = CORPUS === undefined ? [] : treeCases();

corpusOnly('the manifest lists all 47 oracle trees with their commands', (t) => {
  t.is(cases.length, 47);
  t.is(fs.readdirSync(TREES()).filter((f) => f.endsWith('.tree')).length, 47);
});

for (const c of cases) {
  corpusOnly(`tree ${c.tree}`, (t) => {
    const repo = new ModuleRepository(c.searchDirs);
    const ctx = compileSchema(repo, { modules: c.files, implementImports: c.implementImports });
    const names = c.files.map((f) => repo.load(f).name);
    const printed = printTree(ctx, names, c.schemaPath !== undefined ? { path: c.schemaPath } : {});
    const expected = fs.readFileSync(path.join(TREES(), c.tree), 'utf8');
    const { nodes, differences } = treeDiff(expected, printed);
    t.true(nodes > 0);
    const known = KNOWN_DIFFERENCES[c.tree];
    if (!known) {
      t.deepEqual(differences, [], `${differences.length} of ${nodes} nodes differ`);
      return;
    }
    t.true(differences.length > 0, `listed as a known difference but now agrees: remove it (${known.reason})`);
    const unexplained = differences.filter((d) => !known.accepts(d));
    t.deepEqual(unexplained, [], known.reason);
  });
}

test('the tree-diff port catches wrong flags, marks, types, features and missing nodes', (t) => {
  const base = 'module: m\n  +--rw c\n     +--rw l?   string {f}?\n     +--ro k*   uint8\n';
  t.is(treeDiff(base, base).differences.length, 0);
  t.is(treeDiff(base, base.replace(/ {3}string/, ' string')).differences.length, 0, 'white space is not compared');
  for (const changed of [
    base.replace('+--rw l?', '+--ro l?'),
    base.replace('l?', 'l'),
    base.replace('string', 'int8'),
    base.replace(' {f}?', ''),
    base.replace('     +--ro k*   uint8\n', ''),
    base.replace('+--rw c', 'x--rw c'),
  ])
    t.true(treeDiff(base, changed).differences.length > 0, changed);
});

corpusOnly('printTree reports unknown modules and paths instead of throwing', (t) => {
  const c = cases.find((x) => x.tree === 'ietf-interfaces@2018-02-20.tree')!;
  const repo = new ModuleRepository(c.searchDirs);
  const ctx = compileSchema(repo, { modules: c.files, implementImports: false });
  t.regex(printTree(ctx, ['no-such-module']), /not in the schema context/);
  t.regex(printTree(ctx, [], { path: '/ietf-interfaces:nothing' }), /names no schema node/);
  t.is(printTree(ctx, [], { path: '/ietf-interfaces:interfaces/interface' }).split('\n')[0], 'module: ietf-interfaces');
});
