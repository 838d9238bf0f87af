/**
 * The whole corpus of ../shared/yang against yanglint's verdicts (oracle/compile-results.tsv):
 * every .yang file parses except the five libyang rejects for lexical or grammar faults, and every
 * module yanglint compiles (PASS, PASS(-i)) compiles here too with the same command line options
 * (MANIFEST.md "Exact command lines"), its submodules included.
 */
import ava from 'ava';
import { CORPUS as FOUND, corpusTest } from '../corpus';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseYang } from '../../src/yang/parser';
import { ModuleRepository } from '../../src/yang/repository';
import { compileSchema } from '../../src/yang/compiler/index';
import { formatDiagnostic } from '../../src/yang/statement';

const test = corpusTest(ava, "the whole corpus against yanglint's verdicts");
/** Empty without the corpus: every test below is then registered as skipped, and no per-folder test. */
const CORPUS = FOUND ?? '';

interface Verdict {
  file: string;
  kind: 'module' | 'submodule';
  name: string;
  verdict: string;
  parent: string;
}

const verdicts: Verdict[] =
  FOUND === undefined
    ? []
    : fs
        .readFileSync(path.join(CORPUS, 'oracle/compile-results.tsv'), 'utf8')
        .split('\n')
        .slice(1)
        .filter((l) => l.trim() !== '')
        .map((l) => l.split('\t'))
        .map((c) => ({ file: c[0], kind: c[1] as Verdict['kind'], name: c[2], verdict: c[6], parent: c[7] }));

/** The `-p` search paths yanglint was given for a file, by corpus folder. */
function searchPaths(file: string): string[] {
  const folder = file.split('/')[0];
  const dirs =
    folder === 'ietf' || folder === 'ietf-older-revisions'
      ? ['ietf', 'ieee']
      : folder === 'ieee'
        ? ['ieee', 'ietf']
        : folder === 'openconfig'
          ? ['openconfig/release/models', 'openconfig/third_party/ietf']
          : ['opendaylight', 'ietf', 'ietf-older-revisions'];
  const abs = dirs.map((d) => path.join(CORPUS, d));
  const own = path.dirname(path.join(CORPUS, file)); // yanglint searches the file's folder too
  return abs.includes(own) ? abs : [...abs, own];
}

function yangFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yangFiles(p, out);
    else if (e.name.endsWith('.yang')) out.push(p);
  }
  return out;
}

/** Files libyang rejects before compiling, with the fault our parser must name. */
const REJECTED_BY_PARSER: Record<string, RegExp> = {
  'ietf-older-revisions/ietf-ipfix-psamp@2012-09-05.yang': /illegal escape '\\S'/,
  'ietf-older-revisions/ietf-ipfix-psamp@2016-10-26.yang': /illegal escape '\\S'/,
  'ietf-older-revisions/ietf-netconf-acm@2012-02-22.yang': /illegal escape '\\\*'/,
  'ietf/ietf-template@2023-07-26.yang': /invalid date "date-revision"/,
  'opendaylight/netconf/odl-netconf-device.yang': /"import": it cannot appear after "description"/,
};

test('every corpus file parses, except the five with lexical or header faults', (t) => {
  const files = yangFiles(CORPUS);
  t.is(files.length, 507);
  const start = Date.now();
  let parsed = 0;
  for (const file of files) {
    const rel = path.relative(CORPUS, file);
    const r = parseYang(fs.readFileSync(file, 'utf8'), file);
    const fault = REJECTED_BY_PARSER[rel];
    if (fault) {
      t.is(r.statement, undefined, rel);
      t.regex(r.diagnostics[0]?.message ?? '', fault, rel);
      continue;
    }
    t.truthy(r.statement, `${rel}: ${r.diagnostics.map(formatDiagnostic).join('; ')}`);
    parsed++;
  }
  t.is(parsed, 502);
  t.log(`parsed ${files.length} files in ${Date.now() - start} ms`);
});

test('the verdict table covers 452 modules and 55 submodules', (t) => {
  t.is(verdicts.filter((v) => v.kind === 'module').length, 452);
  t.is(verdicts.filter((v) => v.kind === 'submodule').length, 55);
});

// One test per corpus folder: each module compiled alone, as yanglint was run (one process per file).
const repositories = new Map<string, ModuleRepository>();
function repositoryFor(file: string): ModuleRepository {
  const dirs = searchPaths(file);
  const key = dirs.join('\n');
  let repo = repositories.get(key);
  if (!repo) repositories.set(key, (repo = new ModuleRepository(dirs)));
  return repo;
}

const folders = [...new Set(verdicts.map((v) => v.file.split('/')[0]))];
for (const folder of folders) {
  test(`every module yanglint compiles in ${folder}/ compiles, submodules included`, (t) => {
    const passing = verdicts.filter((v) => v.kind === 'module' && v.file.startsWith(`${folder}/`) && v.verdict.startsWith('PASS'));
    t.true(passing.length > 0);
    let submodulesSeen = 0;
    for (const v of passing) {
      const repo = repositoryFor(v.file);
      const ctx = compileSchema(repo, { modules: [path.join(CORPUS, v.file)], implementImports: v.verdict === 'PASS(-i)' });
      const errors = ctx.diagnostics.filter((d) => d.severity === 'error');
      t.deepEqual(errors.map(formatDiagnostic), [], v.file);
      const compiled = ctx.modules.get(v.name);
      t.truthy(compiled, v.file);
      t.true(compiled?.implemented, v.file);
      const subs = verdicts.filter((s) => s.kind === 'submodule' && s.parent === v.file);
      for (const s of subs)
        t.true(
          compiled?.submodules.some((x) => x.name === s.name),
          `${v.name} includes ${s.name}`,
        );
      submodulesSeen += subs.length;
    }
    t.is(submodulesSeen, verdicts.filter((s) => s.kind === 'submodule' && s.parent.startsWith(`${folder}/`)).length);
  });
}

/**
 * FAIL modules. Seven fail on core YANG faults, here as in yanglint. Seven more fail in libyang
 * through its extension plugins, and here on the same rule, named in the message:
 * - ietf-connectionless-oam puts `yangmnt:mount-point` on an anydata; RFC 8528 §3.1 allows it only
 *   in container and list (ietf-connectionless-oam-methods imports it and fails with it).
 * - ietf-dots-signal-channel has leafrefs to `/data-channel:dots-data/...` inside its sx:structure;
 *   RFC 8791 makes the structure the XPath document, so an absolute path cannot leave it. The four
 *   modules that import it fail with it (yanglint names the same leafref for three of them).
 * - ietf-dots-robust-trans imports ietf-dots-signal-channel and fails through it. Its own
 *   sx:augment-structure statements are right: they hold only `uses`, which is a data-def-stmt in
 *   RFC 7950's grammar (RFC 8791 asks for "1*(data-def-stmt / case-stmt)"); libyang's "does not define
 *   any data-def-stmt statements" comes from a statement mask that leaves `uses` out.
 */
const REJECTED_BY_EXTENSION_RULES: Record<string, RegExp> = {
  'ietf/ietf-connectionless-oam@2019-04-16.yang': /"yangmnt:mount-point" is allowed only in a container or list statement \(RFC 8528/,
  'ietf/ietf-connectionless-oam-methods@2019-04-16.yang':
    /"yangmnt:mount-point" is allowed only in a container or list statement \(RFC 8528/,
  'ietf/ietf-dots-signal-channel@2021-09-02.yang':
    /leafref path "\/data-channel:dots-data.*inside sx:structure "dots-signal".*absolute paths start at the structure's own top-level nodes/,
  'ietf/ietf-dots-call-home@2021-12-09.yang': /inside sx:structure "dots-signal"/,
  'ietf/ietf-dots-signal-control@2021-09-02.yang': /inside sx:structure "dots-signal"/,
  'ietf/ietf-dots-telemetry@2022-06-20.yang': /inside sx:structure "dots-signal"/,
  'ietf/ietf-dots-robust-trans@2023-02-28.yang': /inside sx:structure "dots-signal"/,
};

/**
 * The one FAIL module Rosetta compiles, and why ours is right: ietf-voucher-request (RFC 8995) uses
 * `vch:voucher-artifact-grouping { refine "voucher/..."; augment "voucher" }` inside rc:yang-data.
 * The paths are right (the same uses compiles in libyang when placed in a container). libyang 2.1.30
 * finds no refine or uses-augment target in ANY uses inside an extension instance, even of a local
 * grouping in rc:yang-data or sx:structure (checked with yanglint on a five-line module), so its
 * "Augment target node "voucher" ... was not found" is a libyang limitation, not a fault of the
 * model. structures.test.ts checks the refined and augmented voucher-request tree.
 */
const ACCEPTED_THOUGH_YANGLINT_FAILS = new Set(['ietf/ietf-voucher-request@2021-05-20.yang']);

test('modules yanglint fails on fail here, on the same rule; ietf-voucher-request is accepted on purpose', (t) => {
  const failing = verdicts.filter((v) => v.kind === 'module' && v.verdict === 'FAIL');
  t.is(failing.length, 15);
  for (const v of failing) {
    const ctx = compileSchema(repositoryFor(v.file), { modules: [path.join(CORPUS, v.file)], implementImports: true });
    const errors = ctx.diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic);
    if (ACCEPTED_THOUGH_YANGLINT_FAILS.has(v.file)) {
      t.deepEqual(errors, [], v.file);
      continue;
    }
    t.true(errors.length > 0, `${v.file} must be rejected`);
    const rule = REJECTED_BY_EXTENSION_RULES[v.file];
    if (rule)
      t.true(
        errors.some((e) => rule.test(e)),
        `${v.file}: ${errors.join('; ')}`,
      );
  }
  t.is(Object.keys(REJECTED_BY_EXTENSION_RULES).length + ACCEPTED_THOUGH_YANGLINT_FAILS.size, 8);
});
