/**
 * The core names no southbound: every install container, topology, settings module and device
 * operation of a southbound comes from the descriptor its plugin registers (mount/southbounds.ts), so a
 * third southbound needs no core change. This reads every file under core/src (from the source tree,
 * beside this test's compiled place) and fails on a quoted protocol name (`'cli'`, `"netconf"`, a
 * template literal) or on a southbound plugin's module or topology name, in code or in comments.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'ava';

/** core/src, from core/dist/test/structure. */
const CORE_SRC = path.resolve(__dirname, '../../../src');

/** The protocol names, whichever quote (or template literal) holds them. */
const QUOTED_PROTOCOL = /(['"`])(?:cli|netconf)\1/;
/** The southbound plugins' own modules, topologies and device operations. */
const SOUTHBOUND_NAMES = /\b(?:cli-topology|netconf-node-topology|topology-netconf|cli-unit-generic|rosetta-netconf)\b/;

/** Lines of `text` that name a southbound, as `line: text`. */
function namingLines(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (QUOTED_PROTOCOL.test(line) || SOUTHBOUND_NAMES.test(line)) found.push(`${i + 1}: ${line.trim()}`);
  });
  return found;
}

function sourceFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

test('the check finds a southbound named in each form it looks for', (t) => {
  t.deepEqual(namingLines("const p = 'cli';"), ["1: const p = 'cli';"]);
  t.is(namingLines('if (x === "netconf") {}').length, 1);
  t.is(namingLines('const t = `netconf`;').length, 1);
  t.is(namingLines("const m = 'cli-topology:host';").length, 1);
  t.is(namingLines(' * topology `topology-netconf` shows it').length, 1);
  t.deepEqual(namingLines("const s = 'client'; const u = 'unified'; // a CLI device"), []);
});

test('no core source file names a southbound', (t) => {
  const files = sourceFiles(CORE_SRC);
  t.true(files.length > 100, `read ${files.length} files under ${CORE_SRC}`);
  const offenders = files.flatMap((f) => namingLines(fs.readFileSync(f, 'utf8')).map((line) => `${path.relative(CORE_SRC, f)}:${line}`));
  t.deepEqual(offenders, []);
});
