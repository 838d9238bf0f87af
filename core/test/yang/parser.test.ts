/**
 * Lexer, parser and grammar checks on small hand-written modules (each one exercising one rule of
 * RFC 7950 §6 or §7) and on the real corpus files whose faults libyang reports.
 */
import test from 'ava';
import { corpusPath, corpusTest } from '../corpus';
import * as fs from 'node:fs';
import { parseYang } from '../../src/yang/parser';
import { checkGrammar, dateProblem } from '../../src/yang/grammar';
import { findSub, type Statement } from '../../src/yang/statement';
import { cpuStopwatch } from '../cpu-time';

const corpusOnly = corpusTest(test, 'the parser on published modules of the corpus');

function mod(body: string, header = 'namespace "urn:t"; prefix t;'): string {
  return `module t {\n  ${header}\n${body}\n}\n`;
}

function parsed(text: string): Statement {
  const r = parseYang(text, 't.yang');
  if (!r.statement) throw new Error(r.diagnostics.map((d) => `${d.position.line}:${d.position.column} ${d.message}`).join('\n'));
  return r.statement;
}

function descriptionOf(text: string): string | undefined {
  return findSub(parsed(text), 'description')?.arg;
}

test('statements nest with keywords, arguments and positions', (t) => {
  const s = parsed(mod('  container c {\n    leaf l { type string; }\n  }'));
  t.is(s.keyword, 'module');
  t.is(s.arg, 't');
  const c = findSub(s, 'container')!;
  t.is(c.arg, 'c');
  t.deepEqual(c.position, { file: 't.yang', line: 3, column: 3 });
  const l = findSub(c, 'leaf')!;
  t.is(findSub(l, 'type')!.arg, 'string');
  t.deepEqual(l.position, { file: 't.yang', line: 4, column: 5 });
});

test('comments of both kinds are skipped, also between tokens', (t) => {
  const s = parsed('// head\nmodule /* a */ t { namespace "urn:t"; /* x\n y */ prefix t; // end\n leaf a // c\n { type string; } }');
  t.is(findSub(s, 'prefix')!.arg, 't');
  t.is(findSub(findSub(s, 'leaf')!, 'type')!.arg, 'string');
});

test('unquoted strings stop at comment openers; "//" inside quotes is text', (t) => {
  const s = parsed(mod('  description "see http://example.com/a";\n  reference x/*y*/;\n  contact a/b;'));
  t.is(findSub(s, 'description')!.arg, 'see http://example.com/a');
  t.is(findSub(s, 'reference')!.arg, 'x');
  t.is(findSub(s, 'contact')!.arg, 'a/b');
  // `http:` then the comment `//x;` runs to the end of the line, so the ";" is missing.
  t.is(parseYang(mod('  reference http://x;'), 't.yang').statement, undefined);
});

test('single quotes keep everything literally, backslashes included', (t) => {
  t.is(descriptionOf(mod('  description \'a\\S "b"\';')), 'a\\S "b"');
});

test('double-quoted escapes: only \\n \\t \\" \\\\ are legal', (t) => {
  t.is(descriptionOf(mod('  description "a\\nb\\tc\\"d\\\\e";')), 'a\nb\tc"d\\e');
  const r = parseYang(mod('  description "bad \\d here";'), 'x.yang');
  t.is(r.statement, undefined);
  t.is(r.diagnostics.length, 1);
  t.regex(r.diagnostics[0].message, /illegal escape '\\d'/);
  t.deepEqual(r.diagnostics[0].position, { file: 'x.yang', line: 3, column: 20 });
});

test('"+" concatenates quoted strings of both kinds, across lines and comments', (t) => {
  t.is(descriptionOf(mod('  description "ab" + \'c\\d\'\n    + /* x */ "e";')), 'abc\\de');
  // A bare + after an unquoted argument is not concatenation but a syntax fault.
  t.is(parseYang(mod('  description ab + "c";'), 't.yang').statement, undefined);
  // An unquoted argument may contain + itself.
  t.is(findSub(parsed(mod('  typedef x { type string { pattern a+b; } }')), 'typedef')!.substatements[0].substatements[0].arg, 'a+b');
});

test('multi-line double-quoted strings lose indentation up to the quote column and trailing blanks', (t) => {
  const text = mod('  description\n    "first line   \n     second\n       indented more\n   less\n\n     end";');
  t.is(descriptionOf(text), 'first line\nsecond\n  indented more\nless\n\nend');
});

test('a tab in the indentation counts as 8 columns; the excess stays as spaces', (t) => {
  // Quote at column 4 (0-based): strip up to and including column 4, i.e. 5 columns.
  // The quote stands at column 14 (0-based), so 15 columns of indentation are stripped.
  t.is(descriptionOf(mod('  description "a\n\tb";')), 'a\nb');
  t.is(descriptionOf(mod('  description "a\n\t\tb";')), 'a\n b');
  t.is(descriptionOf(mod('  description "a\n        \t   b";')), 'a\n    b');
});

test('escaped white space before a line break is kept; CRLF is one line break', (t) => {
  t.is(descriptionOf(mod('  description "a\\t\n   b";')), 'a\t\nb');
  const s = parsed('module t {\r\n  namespace "urn:t";\r\n  prefix t;\r\n  description "x\r\n    y";\r\n  leaf l { type int8; }\r\n}\r\n');
  t.is(findSub(s, 'description')!.arg, 'x\ny');
  t.is(findSub(s, 'leaf')!.position.line, 6);
});

test('extension statements keep prefix, keyword, argument and substatements', (t) => {
  const s = parsed(mod('  import e { prefix ex; }\n  ex:ext "arg" { ex:inner; description d; }', 'namespace "urn:t"; prefix t;'));
  const ext = s.substatements.find((x) => x.prefix === 'ex')!;
  t.is(ext.keyword, 'ext');
  t.is(ext.arg, 'arg');
  t.is(ext.substatements[0].prefix, 'ex');
  t.is(ext.substatements[0].keyword, 'inner');
  t.is(ext.substatements[0].arg, undefined);
  t.is(ext.substatements[1].keyword, 'description');
});

test('a byte order mark is ignored and positions stay right', (t) => {
  const s = parsed('\ufeffmodule t { namespace "urn:t"; prefix t; }');
  t.deepEqual(s.position, { file: 't.yang', line: 1, column: 1 });
});

test('syntax faults come back as diagnostics with line and column, never as exceptions', (t) => {
  const cases: Array<[string, RegExp, number]> = [
    ['module t { namespace "urn:t"; prefix t;', /not closed/, 1],
    ['module t { namespace "urn:t"; prefix t; }}', /unexpected "}"/, 1],
    ['module t { namespace "urn:t; prefix t; }', /unterminated double-quoted/, 1],
    ["module t { namespace 'urn:t; prefix t; }", /unterminated single-quoted/, 1],
    ['module t { /* namespace "urn:t"; prefix t; }', /unterminated comment/, 1],
    ['module t {\n namespace "urn:t"; prefix t;\n leaf 9x { type string; } }', /invalid identifier "9x"/, 3],
    ['module t { namespace "urn:t" prefix t; }', /expected ";" or "{"/, 1],
    ['module t { namespace "urn:t"; prefix t; } module u {}', /only one module/, 1],
    ['', /empty/, 1],
    ['{', /expected a statement keyword/, 1],
    ['module t { namespace "urn:t"; prefix t; leaf x { type string; frobnicate 1; } }', /unknown keyword "frobnicate"/, 1],
    ['module t { namespace "urn:t"; prefix t; input 3; }', /takes no argument/, 1],
    ['module t { namespace "urn:t"; prefix t; container; }', /needs an argument/, 1],
    ['module t { namespace "urn:t"; }', /no "prefix"/, 1],
    ['submodule s { yang-version 1.1; }', /no "belongs-to"/, 1],
    ['module t { yang-version 2; namespace "urn:t"; prefix t; }', /invalid yang-version "2"/, 1],
    ['container c { }', /must hold a "module" or "submodule"/, 1],
    ['module t { namespace "urn:t"; prefix t; import x; }', /import "x" has no "prefix"/, 1],
  ];
  for (const [text, message, line] of cases) {
    const r = parseYang(text, 'f.yang');
    t.is(r.statement, undefined, text);
    t.true(r.diagnostics.length > 0, text);
    t.regex(r.diagnostics[0].message, message, text);
    t.is(r.diagnostics[0].position.line, line, text);
    t.is(r.diagnostics[0].position.file, 'f.yang');
  }
});

test('revision dates must be real YYYY-MM-DD dates', (t) => {
  t.is(dateProblem('2018-02-20'), undefined);
  t.is(dateProblem('2020-02-29'), undefined);
  t.regex(dateProblem('2019-02-29')!, /day 29/);
  t.regex(dateProblem('2019-13-01')!, /month 13/);
  t.regex(dateProblem('date-revision')!, /length 13/);
  const r = parseYang(mod('  revision 2019-02-30;'), 't.yang');
  t.regex(r.diagnostics[0].message, /invalid date "2019-02-30"/);
  const imp = parseYang(mod('  import x { prefix x; revision-date 2019-1-1; }'), 't.yang');
  t.regex(imp.diagnostics[0].message, /invalid date "2019-1-1" in "revision-date"/);
});

test('module header order: header, linkage, meta, revision, body', (t) => {
  const ok = parseYang(
    'module t { yang-version 1.1; prefix t; namespace "urn:t"; import a { prefix a; } include s; ' +
      'organization o; description d; contact c; revision 2020-01-01; revision 2019-01-01; leaf x { type string; } }',
    't.yang',
  );
  t.deepEqual(ok.diagnostics, []);
  t.truthy(ok.statement);
  const late = parseYang('module t { namespace "urn:t"; prefix t; leaf x { type string; } revision 2020-01-01; }', 't.yang');
  t.regex(late.diagnostics[0].message, /"revision": it cannot appear after "leaf"/);
  const header = parseYang('module t { namespace "urn:t"; import a { prefix a; } prefix t; }', 't.yang');
  t.regex(header.diagnostics[0].message, /"prefix": it cannot appear after "import"/);
  // Extension statements do not take part in the order.
  const ext = parseYang('module t { namespace "urn:t"; prefix t; import a { prefix a; } a:x; organization o; }', 't.yang');
  t.deepEqual(ext.diagnostics, []);
});

test('checkGrammar runs alone on a tree parsed without it', (t) => {
  const r = parseYang('module t { namespace "urn:t"; prefix t; description d; import a { prefix a; } }', 't.yang', { skipGrammar: true });
  t.truthy(r.statement);
  const d = checkGrammar(r.statement!);
  t.is(d.length, 1);
  t.regex(d[0].message, /"import": it cannot appear after "description"/);
  t.is(d[0].module, 't');
});

corpusOnly('corpus modules libyang rejects are rejected here with the fault named', (t) => {
  const expectations: Array<[string, RegExp, number]> = [
    ['ietf-older-revisions/ietf-ipfix-psamp@2012-09-05.yang', /illegal escape '\\S'/, 259],
    ['ietf-older-revisions/ietf-ipfix-psamp@2016-10-26.yang', /illegal escape '\\S'/, 264],
    ['ietf-older-revisions/ietf-netconf-acm@2012-02-22.yang', /illegal escape '\\\*'/, 103],
    ['ietf/ietf-template@2023-07-26.yang', /invalid date "date-revision"/, 60],
    ['opendaylight/netconf/odl-netconf-device.yang', /"import": it cannot appear after "description"/, 10],
  ];
  for (const [file, message, line] of expectations) {
    const r = parseYang(fs.readFileSync(corpusPath(file), 'utf8'), file);
    t.is(r.statement, undefined, file);
    t.regex(r.diagnostics[0].message, message, file);
    t.is(r.diagnostics[0].position.line, line, file);
  }
});

corpusOnly('a real module parses into the statements libyang sees', (t) => {
  const file = corpusPath('ietf/ietf-interfaces@2018-02-20.yang');
  const s = parsed(fs.readFileSync(file, 'utf8'));
  t.is(s.arg, 'ietf-interfaces');
  t.is(findSub(s, 'namespace')!.arg, 'urn:ietf:params:xml:ns:yang:ietf-interfaces');
  const contact = findSub(s, 'contact')!.arg!;
  t.true(
    contact.startsWith(
      'WG Web:   <https://datatracker.ietf.org/wg/netmod/>\nWG List:  <mailto:netmod@ietf.org>\n\nEditor:   Martin Bjorklund\n          <mailto:mbj@tail-f.com>',
    ),
  );
});

test('garbage input fails fast and linearly, without throwing', (t) => {
  const size = 10 * 1024 * 1024;
  const inputs = [
    Buffer.alloc(size, 0x7b).toString('latin1'), // "{{{{..."
    `module t { namespace "urn:t"; prefix t; ${'container c { '.repeat(200_000)}`,
    `module t { description "${'x\n'.repeat(size / 2)}`,
    `module t { description ${'"a" + '.repeat(size / 6)}z`,
    `module t ${'/*'.repeat(size / 2)}`,
    Array.from({ length: size / 8 }, (_, i) => String.fromCharCode(32 + ((i * 7919) % 90)))
      .join('')
      .repeat(8),
  ];
  for (const text of inputs) {
    const cpuMs = cpuStopwatch();
    const r = parseYang(text, 'g.yang');
    const ms = cpuMs();
    t.is(r.statement, undefined);
    t.true(r.diagnostics.length > 0);
    t.true(ms < 2000, `took ${ms} ms of CPU`);
  }
});
