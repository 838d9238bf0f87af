/**
 * The module repository over the real corpus folders (the search paths of MANIFEST.md) and over a
 * scratch directory for the cases the corpus cannot show (cache invalidation, unreadable files).
 */
import test from 'ava';
import { corpusPath, corpusTest } from '../corpus';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ModuleRepository, parseYangFileName } from '../../src/yang/repository';

const corpusOnly = corpusTest(test, 'the module repository over the corpus folders');
const at = (...p: string[]): string => corpusPath(...p);

test('file names give module name and revision', (t) => {
  t.deepEqual(parseYangFileName('ietf-interfaces@2018-02-20.yang'), { name: 'ietf-interfaces', revision: '2018-02-20' });
  t.deepEqual(parseYangFileName('openconfig-acl.yang'), { name: 'openconfig-acl', revision: undefined });
  t.is(parseYangFileName('README.md'), undefined);
  t.is(parseYangFileName('x.yin'), undefined);
});

corpusOnly('without a revision the newest file wins across search paths', (t) => {
  const repo = new ModuleRepository([at('ietf-older-revisions'), at('ietf')]);
  const inet = repo.find('ietf-inet-types')!;
  t.is(inet.revision, '2025-12-22');
  t.is(inet.file, at('ietf', 'ietf-inet-types@2025-12-22.yang'));
  t.is(inet.kind, 'module');
  t.truthy(inet.statement);
  const ift = repo.find('iana-if-type')!;
  t.is(ift.file, at('ietf', 'iana-if-type@2026-03-17.yang'), 'ietf/ has a newer iana-if-type than ietf-older-revisions/');
});

corpusOnly('a requested revision finds exactly that file', (t) => {
  const repo = new ModuleRepository([at('ietf'), at('ietf-older-revisions')]);
  const inet = repo.find('ietf-inet-types', '2013-07-15')!;
  t.is(inet.file, at('ietf-older-revisions', 'ietf-inet-types@2013-07-15.yang'));
  t.is(inet.revision, '2013-07-15');
  t.is(repo.find('ietf-inet-types', '1999-01-01'), undefined);
  t.is(repo.find('no-such-module'), undefined);
});

corpusOnly('a file named without revision is judged by its own revision statements; search is recursive', (t) => {
  const repo = new ModuleRepository([at('openconfig/release/models'), at('openconfig/third_party/ietf')]);
  const acl = repo.find('openconfig-acl')!;
  t.is(acl.file, at('openconfig/release/models/acl/openconfig-acl.yang'));
  t.regex(acl.revision!, /^\d{4}-\d{2}-\d{2}$/);
  // The newest of its revision statements, whatever their order in the file.
  const all = acl.statement!.substatements.filter((s) => s.keyword === 'revision').map((s) => s.arg!);
  t.is(acl.revision, [...all].sort().pop());
  t.is(repo.find('openconfig-acl', acl.revision)!.file, acl.file);
});

corpusOnly('submodules are found like modules and name their parent', (t) => {
  const repo = new ModuleRepository([at('openconfig/release/models')]);
  const sub = repo.find('openconfig-network-instance-l2')!;
  t.is(sub.kind, 'submodule');
  t.is(sub.belongsTo, 'openconfig-network-instance');
});

test('a module is parsed once; a changed file is parsed again', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-test-'));
  const file = path.join(dir, 'm.yang');
  fs.writeFileSync(file, 'module m { namespace "urn:m"; prefix m; revision 2020-01-01; }');
  const repo = new ModuleRepository([dir]);
  const first = repo.find('m')!;
  t.is(repo.find('m'), first);
  t.is(repo.load(file), first);
  fs.writeFileSync(file, 'module m { namespace "urn:m"; prefix m; revision 2021-01-01; revision 2020-01-01; }');
  const second = repo.load(file);
  t.not(second, first);
  t.is(second.revision, '2021-01-01');
  fs.rmSync(dir, { recursive: true });
});

test('faulty and unreadable files come back with diagnostics, and lookups pass over them', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-test-'));
  fs.writeFileSync(path.join(dir, 'bad.yang'), 'module bad { namespace "urn:b"; prefix b; description "\\q"; }');
  fs.writeFileSync(path.join(dir, 'liar.yang'), 'module other { namespace "urn:o"; prefix o; }');
  const repo = new ModuleRepository([dir]);
  const bad = repo.load(path.join(dir, 'bad.yang'));
  t.is(bad.statement, undefined);
  t.is(bad.name, 'bad');
  t.regex(bad.diagnostics[0].message, /illegal escape/);
  t.is(repo.find('bad'), undefined);
  t.is(repo.find('liar'), undefined, 'a file whose statement names another module is not that module');
  const missing = repo.load(path.join(dir, 'nope.yang'));
  t.is(missing.statement, undefined);
  t.regex(missing.diagnostics[0].message, /cannot read/);
  fs.rmSync(dir, { recursive: true });
});

corpusOnly('modules given as text are found before files', (t) => {
  const repo = new ModuleRepository([at('ietf')]);
  const src = repo.addText('device:ietf-inet-types', 'module ietf-inet-types { namespace "urn:x"; prefix inet; revision 2030-01-01; }');
  t.is(repo.find('ietf-inet-types'), src);
  t.is(repo.find('ietf-inet-types', '2025-12-22')!.file, at('ietf', 'ietf-inet-types@2025-12-22.yang'));
});

corpusOnly('constructing over the whole corpus reads nothing until asked; the index is quick', (t) => {
  const start = process.hrtime.bigint();
  const repo = new ModuleRepository([corpusPath()]);
  const constructMs = Number(process.hrtime.bigint() - start) / 1e6;
  t.true(constructMs < 5, `construct took ${constructMs} ms`);
  t.true(repo.moduleNames().includes('openconfig-interfaces'));
  t.true(repo.filesNamed('ietf-interfaces').length >= 3);
});

test("a requested revision must be the module's newest revision, not any older one it lists", (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'repo-test-'));
  fs.writeFileSync(path.join(dir, 'm.yang'), 'module m { namespace "urn:m"; prefix m; revision 2021-01-01; revision 2020-01-01; }');
  const repo = new ModuleRepository([dir]);
  t.is(repo.find('m', '2021-01-01')!.revision, '2021-01-01');
  t.is(repo.find('m', '2020-01-01'), undefined);
  fs.rmSync(dir, { recursive: true });
});
