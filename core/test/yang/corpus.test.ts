/**
 * The whole corpus of ../shared/yang against yanglint's verdicts (oracle/compile-results.tsv):
 * every .yang file parses except the five libyang rejects for lexical or grammar faults, and every
 * module yanglint compiles (PASS, PASS(-i)) compiles here too with the same command line options
 * (MANIFEST.md "Exact command lines"), its submodules included.
 */
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseYang } from '../../src/yang/parser';
import { ModuleRepository } from '../../src/yang/repository';
import { compileSchema } from '../../src/yang/compiler/index';
import { formatDiagnostic } from '../../src/yang/statement';

const CORPUS = path.resolve(__dirname, '../../../../../shared/yang');

interface Verdict { file: string; kind: 'module' | 'submodule'; name: string; verdict: string; parent: string }

const verdicts: Verdict[] = fs.readFileSync(path.join(CORPUS, 'oracle/compile-results.tsv'), 'utf8')
  .split('\n').slice(1).filter((l) => l.trim() !== '')
  .map((l) => l.split('\t'))
  .map((c) => ({ file: c[0], kind: c[1] as Verdict['kind'], name: c[2], verdict: c[6], parent: c[7] }));

/** The `-p` search paths yanglint was given for a file, by corpus folder. */
function searchPaths(file: string): string[] {
  const folder = file.split('/')[0];
  const dirs = folder === 'ietf' || folder === 'ietf-older-revisions' ? ['ietf', 'ieee']
    : folder === 'ieee' ? ['ieee', 'ietf']
      : folder === 'openconfig' ? ['openconfig/release/models', 'openconfig/third_party/ietf']
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
    const passing = verdicts.filter((v) => v.kind === 'module' && v.file.startsWith(folder + '/') && v.verdict.startsWith('PASS'));
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
      for (const s of subs) t.true(compiled?.submodules.some((x) => x.name === s.name), `${v.name} includes ${s.name}`);
      submodulesSeen += subs.length;
    }
    t.is(submodulesSeen, verdicts.filter((s) => s.kind === 'submodule' && s.parent.startsWith(folder + '/')).length);
  });
}

/**
 * FAIL modules: the seven whose faults are core YANG are rejected here too; the other eight fail in
 * libyang only through its extension plugins (schema mount placement, sx:structure/rc:yang-data
 * checks), which Rosetta does not implement, so they compile here. Listed so that a change shows.
 */
const ACCEPTED_THOUGH_YANGLINT_FAILS = new Set([
  'ietf/ietf-connectionless-oam@2019-04-16.yang', // yangmnt:mount-point on anydata (schema-mount plugin check)
  'ietf/ietf-connectionless-oam-methods@2019-04-16.yang', // imports the above
  'ietf/ietf-dots-signal-channel@2021-09-02.yang', // absolute leafref inside sx:structure resolved against the data tree
  'ietf/ietf-dots-call-home@2021-12-09.yang', // depends on ietf-dots-signal-channel
  'ietf/ietf-dots-signal-control@2021-09-02.yang', // depends on ietf-dots-signal-channel
  'ietf/ietf-dots-telemetry@2022-06-20.yang', // depends on ietf-dots-signal-channel
  'ietf/ietf-dots-robust-trans@2023-02-28.yang', // sx:augment-structure plugin check
  'ietf/ietf-voucher-request@2021-05-20.yang', // refine target inside rc:yang-data (libyang structure plugin)
]);

test('modules yanglint fails on core YANG faults fail here; extension-plugin failures are listed', (t) => {
  const failing = verdicts.filter((v) => v.kind === 'module' && v.verdict === 'FAIL');
  t.is(failing.length, 15);
  for (const v of failing) {
    const ctx = compileSchema(repositoryFor(v.file), { modules: [path.join(CORPUS, v.file)], implementImports: true });
    const errors = ctx.diagnostics.filter((d) => d.severity === 'error');
    if (ACCEPTED_THOUGH_YANGLINT_FAILS.has(v.file)) t.deepEqual(errors.map(formatDiagnostic), [], v.file);
    else t.true(errors.length > 0, `${v.file} must be rejected`);
  }
});
