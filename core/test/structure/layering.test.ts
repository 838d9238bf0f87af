/**
 * The core's structure, read from the source tree (not the build): imports run one way, down the layers;
 * no import circle exists among core/src files; no source file passes 400 lines without saying why at its
 * top. Type-only imports count like any other: a type that must be imported from above is a sign the type
 * lives in the wrong layer, and a circle of types is a circle to a reader.
 *
 * Import statements are found with TypeScript's own pre-processor (`ts.preProcessFile`), which sees
 * `import`, `import type`, `export ... from` and `import('...')` types and skips comments and strings.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'ava';
import * as ts from 'typescript';

const REPO = path.resolve(__dirname, '../../../..');
const CORE_SRC = path.join(REPO, 'core', 'src');

/**
 * The layers of core/src, top to bottom. A file may import files of its own folder and of any layer below
 * its own; never above, and never beside (folders listed in one layer do not import each other).
 * The request path runs restconf -> mount -> datastore -> data -> yang. uniconfig sits above restconf
 * because it serves its nodes through restconf's handlers; the plugin host (plugins/) and the hooks sit
 * below every layer that takes a lease or calls a hook; the fault type (fault/) and the Logger type are
 * under everything.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['index', 'cli'], // the public face and the rosetta command
  ['service'], // start and stop, wiring the layers together
  ['uniconfig', 'openapi'], // openapi: documents of the API, read from the schema and restconf's parameters
  ['restconf'],
  ['mount'],
  ['events'], // event streams: the hub, its replay log, the producers' shared parts
  ['plugins'],
  ['jobs'], // long work's progress: the board plugins report to (PluginApi.jobs), served through the hooks
  ['hooks', 'datastore'],
  ['database'], // PostgreSQL: the connection, its migrations, journals in its tables (imports nothing of the core)
  ['data'],
  ['yang'],
  ['logging'], // the service's JSON log sink and the request context its lines carry
  ['fault', 'logger', 'metrics'], // metrics: the service's registry, imports nothing of the core
];

const MAX_LINES = 400;
/** How a long file says why at its top: "Why this file is longer than 400 lines: ..." (or "Over 400 lines because ..."). */
const LONG_MARKER = new RegExp(`(longer than|over) ${MAX_LINES} lines`, 'i');

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out.sort();
}

/** The relative module specifiers a source text imports, of every kind. */
function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** The file a relative specifier names, or undefined for a package import. */
function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec.replace(/\.js$/, ''));
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate)) return candidate;
  return `${base} (unresolved)`;
}

const coreFiles = sourceFiles(CORE_SRC);
/** core/src file -> the core/src files it imports. */
const graph = new Map<string, string[]>(
  coreFiles.map((f) => [
    f,
    [...new Set(importsOf(fs.readFileSync(f, 'utf8')).flatMap((s) => resolveImport(f, s) ?? []))].filter((t) => t.startsWith(CORE_SRC)),
  ]),
);

const rel = (f: string) => path.relative(REPO, f);
/** The folder (or top-level file, without `.ts`) under core/src a file belongs to. */
const areaOf = (f: string) => path.relative(CORE_SRC, f).split(path.sep)[0]!.replace(/\.ts$/, '');
const layerOf = (area: string) => LAYERS.findIndex((l) => l.includes(area));

test('the import reader sees every kind of import, and not those in comments or strings', (t) => {
  const text = [
    "import type { A } from './a';",
    "import { B } from '../b';",
    "export * from './c';",
    "export type { D } from './d';",
    "type E = import('./e').E;",
    "// import { F } from './f';",
    'const g = "import { G } from \'./g\'";',
  ].join('\n');
  t.deepEqual(importsOf(text), ['./a', '../b', './c', './d', './e']);
  t.true(coreFiles.length > 100, `found ${coreFiles.length} files under ${CORE_SRC}`);
  t.true([...graph.values()].reduce((n, ts) => n + ts.length, 0) > 500, 'the core imports its own files');
});

test('every folder of core/src has a place in the layers', (t) => {
  const unplaced = [...new Set(coreFiles.map(areaOf))].filter((a) => layerOf(a) < 0);
  t.deepEqual(unplaced, [], 'add a new folder to LAYERS, at the place its imports allow');
});

test('imports run down the layers: none from a lower layer up, none beside (yang/ never imports data/)', (t) => {
  const wrong: string[] = [];
  for (const [file, targets] of graph) {
    const from = areaOf(file);
    for (const target of targets) {
      const to = areaOf(target);
      if (to === from) continue;
      if (layerOf(to) <= layerOf(from)) wrong.push(`${rel(file)} -> ${rel(target)} (${from} may not import ${to})`);
    }
  }
  t.deepEqual(wrong, []);
});

test('no import circle among core/src files (type-only imports count)', (t) => {
  // Tarjan's strongly connected components: every component of more than one file is a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(rel(w));
      } while (w !== v);
      if (component.length > 1) circles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  t.deepEqual(circles, []);
});

/** The comment a file opens with (a block comment, or a run of line comments). */
function openingComment(text: string): string {
  const s = text.trimStart();
  if (s.startsWith('/*')) return s.slice(0, s.indexOf('*/') + 2);
  const lines: string[] = [];
  for (const line of s.split('\n')) {
    if (!line.trimStart().startsWith('//')) break;
    lines.push(line);
  }
  return lines.join('\n');
}

test(`source files over ${MAX_LINES} lines say why at their top ("Why this file is longer than ${MAX_LINES} lines:" in the opening comment)`, (t) => {
  const roots = [
    CORE_SRC,
    path.join(REPO, 'sdk', 'src'),
    ...fs.readdirSync(path.join(REPO, 'plugins')).map((p) => path.join(REPO, 'plugins', p, 'src')),
  ];
  const unexplained: string[] = [];
  for (const file of roots.flatMap(sourceFiles)) {
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES && !LONG_MARKER.test(openingComment(text))) unexplained.push(`${rel(file)} (${lines} lines)`);
  }
  t.deepEqual(unexplained, [], 'split the file where it has a seam, or say at its top why it is one file');
});
