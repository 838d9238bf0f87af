/**
 * XSD pattern translation: every `pattern` of the real corpus translates, real typedef patterns
 * (ietf-inet-types, ietf-yang-types, OpenConfig) accept and refuse the values they should, and the
 * XSD-specific features (anchoring, literal ^ and $, subtraction, blocks, \i \c \w \s, `.`) behave.
 */
import test from 'ava';
import { corpusPath, corpusTest } from '../corpus';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseYang } from '../../src/yang/parser';
import type { Statement } from '../../src/yang/statement';
import { translatePattern, valueFromJson } from '../../src/yang/types';
import { linearMatcher } from '../../src/yang/types/xsd-nfa';
import { makeContext, makeType } from './types-fixture';
import { cpuStopwatch } from '../cpu-time';

const corpusOnly = corpusTest(test, 'the published patterns of the corpus');

function yangFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...yangFiles(full));
    else if (entry.name.endsWith('.yang')) out.push(full);
  }
  return out;
}

function parseFile(file: string): Statement {
  const r = parseYang(fs.readFileSync(file, 'utf8'), file, { skipGrammar: true });
  if (!r.statement) throw new Error(`corpus file ${file} does not parse: ${r.diagnostics[0]?.message}`);
  return r.statement;
}

function* walk(s: Statement): Generator<Statement> {
  yield s;
  for (const sub of s.substatements) yield* walk(sub);
}

/** The patterns of a typedef, with their invert-match modifiers, as the module writes them. */
function typedefPatterns(file: string, typedef: string): Array<{ regex: RegExp; inverted: boolean; source: string }> {
  const module = parseFile(corpusPath(file));
  const def = [...walk(module)].find((s) => s.keyword === 'typedef' && s.arg === typedef);
  if (!def) throw new Error(`no typedef ${typedef} in ${file}`);
  return [...walk(def)]
    .filter((s) => s.keyword === 'pattern' && s.prefix === undefined)
    .map((s) => {
      const r = translatePattern(s.arg!);
      if ('error' in r) throw new Error(r.error);
      const inverted = s.substatements.some((m) => m.keyword === 'modifier' && m.arg === 'invert-match');
      return { regex: r.regex, inverted, source: s.arg! };
    });
}

function matchesAll(patterns: ReturnType<typeof typedefPatterns>, value: string): boolean {
  return patterns.every((p) => p.regex.test(value) !== p.inverted);
}

/** Every distinct pattern argument in the corpus, with where it was found. */
function corpusPatterns(): Map<string, string> {
  const patterns = new Map<string, string>();
  for (const file of yangFiles(corpusPath())) {
    const r = parseYang(fs.readFileSync(file, 'utf8'), file, { skipGrammar: true });
    if (!r.statement) continue;
    for (const s of walk(r.statement)) {
      if (s.keyword === 'pattern' && s.prefix === undefined && s.arg !== undefined && !patterns.has(s.arg)) {
        patterns.set(s.arg, `${path.relative(corpusPath(), file)}:${s.position.line}`);
      }
    }
  }
  return patterns;
}

corpusOnly('the linear-time matcher agrees with the RegExp on every corpus pattern over generated values', (t) => {
  // A fixed-seed generator: values built from the characters these patterns care about.
  let seed = 12345;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const alphabet = [...'0123456789abcdefABCDEFxyzXYZ:.-/%_ @TZ+*\n\t', 'ä', '中', '\u{1F600}', '٤'];
  const samples = [
    '',
    '0.0.0.0',
    '192.168.1.1',
    '::1',
    '2001:db8::1',
    'fe80::1%eth0',
    '10.0.0.0/8',
    '2001:db8::/32',
    'example.com',
    '00:1a:2b:3c:4d:5e',
    '2024-02-29T12:34:56Z',
    '12:34:56',
    'abc',
    'ABC',
    'a b',
    '65535',
    'xml-ish',
  ];
  let compared = 0;
  const disagreements: string[] = [];
  for (const [source, where] of corpusPatterns()) {
    const regex = (translatePattern(source) as { regex: RegExp }).regex;
    const linear = linearMatcher(source);
    if (!linear) {
      disagreements.push(`${where}: no linear matcher for ${source}`);
      continue;
    }
    const values = [...samples];
    for (let i = 0; i < 150; i++) {
      const base = samples[random(samples.length)]!;
      let v = '';
      // Mutations of real-looking values find the interesting boundaries; random strings the rest.
      if (random(2) === 0) {
        v = base;
        for (let k = random(3); k >= 0; k--) {
          const at = random(v.length + 1);
          v = v.slice(0, at) + alphabet[random(alphabet.length)]! + v.slice(at + (random(2) === 0 ? 1 : 0));
        }
      } else {
        for (let k = random(24); k > 0; k--) v += alphabet[random(alphabet.length)]!;
      }
      values.push(v);
    }
    for (const v of values) {
      compared++;
      if (regex.test(v) !== linear(v)) disagreements.push(`${where}: ${JSON.stringify(v)} RegExp ${regex.test(v)}, NFA ${linear(v)}`);
    }
  }
  t.log(`${compared} values compared`);
  t.deepEqual(disagreements.slice(0, 20), []);
});

test('a long crafted value against a quadratic real pattern is matched in linear time', (t) => {
  // ipv6-prefix of the 2013 ietf-inet-types: V8's backtracking takes about 0.5 s of CPU on this 64 KB value
  // (seconds on a slower machine), the linear matcher about 1 ms; CPU time is not inflated by other processes.
  const source = '(([^:]+:){6}(([^:]+:[^:]+)|(.*\\..*)))|((([^:]+:)*[^:]+)?::(([^:]+:)*[^:]+)?)(/.+)';
  const type = makeType('string', { patterns: [source] });
  const { ctx } = makeContext();
  const value = `${'a.b:'.repeat(16000)}\n`;
  const cpuMs = cpuStopwatch();
  const r = valueFromJson(type, value, ctx, 'base-mod');
  const ms = cpuMs();
  t.false(r.ok);
  t.log(`64 KB value checked in ${ms.toFixed(1)} ms of CPU`);
  t.true(ms < 200, `took ${ms} ms of CPU`);
  t.true(
    valueFromJson(type, 'a.b:'.repeat(16000).slice(0, -1) + '/x'.repeat(100), ctx, 'base-mod').ok ===
      linearMatcher(source)!('a.b:'.repeat(16000).slice(0, -1) + '/x'.repeat(100)),
  );
});

corpusOnly('every pattern in the corpus translates', (t) => {
  const files = yangFiles(corpusPath());
  let count = 0;
  const failures: string[] = [];
  for (const file of files) {
    const r = parseYang(fs.readFileSync(file, 'utf8'), file, { skipGrammar: true });
    if (!r.statement) continue; // the few files libyang also rejects
    for (const s of walk(r.statement)) {
      if (s.keyword !== 'pattern' || s.prefix !== undefined || s.arg === undefined) continue;
      count++;
      const tr = translatePattern(s.arg);
      if ('error' in tr) failures.push(`${path.relative(corpusPath(), file)}:${s.position.line}: ${tr.error} in ${s.arg}`);
    }
  }
  t.log(`${count} patterns in ${files.length} files`);
  t.true(count > 150, `expected the corpus to hold about 200 pattern statements, found ${count}`);
  t.deepEqual(failures, []);
});

corpusOnly('ietf-inet-types ipv4-address and ipv6-address', (t) => {
  const v4 = typedefPatterns('ietf/ietf-inet-types@2025-12-22.yang', 'ipv4-address');
  for (const ok of ['0.0.0.0', '192.168.1.1', '255.255.255.255', '10.0.0.1%eth0']) t.true(matchesAll(v4, ok), ok);
  for (const bad of ['256.1.1.1', '1.2.3', '1.2.3.4.5', '01.2.3.4', ' 1.2.3.4', '1.2.3.4\n', 'a.b.c.d']) t.false(matchesAll(v4, bad), bad);
  const v6 = typedefPatterns('ietf/ietf-inet-types@2025-12-22.yang', 'ipv6-address');
  for (const ok of ['::', '::1', '2001:db8::1', 'fe80::1%eth0', '2001:db8:0:0:0:0:2:1', '::ffff:192.0.2.1']) t.true(matchesAll(v6, ok), ok);
  for (const bad of ['2001:db8:::1', '1:2:3:4:5:6:7:8:9', 'g::1', '192.168.1.1', '2001:db8::1::2']) t.false(matchesAll(v6, bad), bad);
});

corpusOnly('the 2013 ietf-inet-types zone index uses \\p{N}\\p{L}', (t) => {
  const v6 = typedefPatterns('ietf-older-revisions/ietf-inet-types@2013-07-15.yang', 'ipv6-address');
  t.true(matchesAll(v6, 'fe80::1%eth0'));
  t.true(matchesAll(v6, 'fe80::1%Ethernet١')); // ARABIC-INDIC DIGIT ONE is \p{N}
  t.true(matchesAll(v6, 'fe80::1%schnittstelleä'));
  t.false(matchesAll(v6, 'fe80::1%eth-0'));
  t.false(matchesAll(v6, 'fe80::1%'));
});

corpusOnly('domain-name, date-and-time, mac-address and uuid from the IETF modules', (t) => {
  const dn = typedefPatterns('ietf/ietf-inet-types@2025-12-22.yang', 'domain-name');
  for (const ok of ['example.com', 'example.com.', 'a-b.c_d.example', '.', 'xn--bcher-kva.example']) t.true(matchesAll(dn, ok), ok);
  for (const bad of ['-bad.example', 'exa mple.com', 'a..b']) t.false(matchesAll(dn, bad), bad);
  const dt = typedefPatterns('ietf/ietf-yang-types@2025-12-22.yang', 'date-and-time');
  for (const ok of ['2024-02-29T12:34:56Z', '2024-02-29T12:34:56.123+05:30', '1985-04-12T23:20:50.52-08:00'])
    t.true(matchesAll(dt, ok), ok);
  for (const bad of [
    '2024-02-29 12:34:56Z',
    '2024-13-01T00:00:00Z',
    '24-02-29T12:34:56Z',
    '2024-02-29T12:34:56+0530',
    '2024-02-29T24:00:00Z',
  ])
    t.false(matchesAll(dt, bad), bad);
  const mac = typedefPatterns('ietf/ietf-yang-types@2025-12-22.yang', 'mac-address');
  t.true(matchesAll(mac, '00:1a:2B:3c:4d:5E'));
  for (const bad of ['00:1a:2b:3c:4d', '00-1a-2b-3c-4d-5e', '00:1a:2b:3c:4d:5e:6f', '001a.2b3c.4d5e']) t.false(matchesAll(mac, bad), bad);
  const uuid = typedefPatterns('ietf/ietf-yang-types@2025-12-22.yang', 'uuid');
  t.true(matchesAll(uuid, 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6'));
  t.false(matchesAll(uuid, 'f81d4fae7dec11d0a76500a0c91e6bf6'));
});

corpusOnly('OpenConfig inet types: ipv4/ipv6 prefixes, domain-name and port numbers', (t) => {
  const file = 'openconfig/release/models/types/openconfig-inet-types.yang';
  const v4p = typedefPatterns(file, 'ipv4-prefix');
  t.true(matchesAll(v4p, '10.0.0.0/8'));
  t.false(matchesAll(v4p, '10.0.0.0/33'));
  t.false(matchesAll(v4p, '10.0.0.0'));
  const v6 = typedefPatterns(file, 'ipv6-address');
  t.true(matchesAll(v6, '2001:db8::1'));
  t.false(matchesAll(v6, '2001:db8::g'));
  const dn = typedefPatterns(file, 'domain-name');
  t.true(matchesAll(dn, 'router1.example.net'));
  t.false(matchesAll(dn, 'router 1'));
});

corpusOnly('the invert-match pattern of ietf-dhcpv6-common duid-unstructured refuses the structured DUID types', (t) => {
  const file = 'ietf/ietf-dhcpv6-common@2022-06-20.yang';
  const own = typedefPatterns(file, 'duid-unstructured');
  t.true(own.length === 1 && own[0]!.inverted, 'duid-unstructured carries one invert-match pattern');
  const patterns = [...typedefPatterns(file, 'duid-base'), ...own]; // the typedef chain's patterns accumulate
  t.true(matchesAll(patterns, '0005ABCDEF'));
  t.true(matchesAll(patterns, 'ffff0001'));
  t.false(matchesAll(patterns, '0001ABCDEF'), 'DUID-LLT is structured');
  t.false(matchesAll(patterns, '0004ABCDEF'), 'DUID-UUID is structured');
  t.false(matchesAll(patterns, '0005ABCDEFG'), 'the base pattern still applies');
});

function accepts(xsd: string, value: string): boolean {
  const r = translatePattern(xsd);
  if ('error' in r) throw new Error(r.error);
  return r.regex.test(value);
}

test('XSD regexes match the whole value; ^ and $ are ordinary characters', (t) => {
  t.true(accepts('abc', 'abc'));
  t.false(accepts('abc', 'xabc'));
  t.false(accepts('abc', 'abcx'));
  t.false(accepts('a|b', 'ab'));
  t.true(accepts('a^b$', 'a^b$'));
  t.false(accepts('^ab$', 'ab'));
  t.true(accepts('', ''));
  t.false(accepts('', 'a'));
  t.true(accepts('a|', ''));
});

test('character class subtraction, negation and escapes', (t) => {
  t.true(accepts('[a-z-[aeiou]]+', 'bcdfg'));
  t.false(accepts('[a-z-[aeiou]]+', 'bad'));
  t.true(accepts('[a-z-[aeiou-[e]]]', 'e')); // nested subtraction gives e back
  t.false(accepts('[^a-c]', 'b'));
  t.true(accepts('[^a-c]', '\n')); // a negated class matches newlines, `.` does not
  t.false(accepts('.', '\n'));
  t.false(accepts('.', '\r'));
  t.true(accepts('.', '\u{1F600}')); // one code point, not two code units
  t.true(accepts('[-a]+', '-a-'));
  t.true(accepts('[a-]+', '-a'));
  t.true(accepts('\\-\\[\\]\\^\\.\\\\', '-[]^.\\'));
  t.true(accepts('[\\^\\]]+', '^]'));
  t.true(accepts('\\n\\t\\r', '\n\t\r'));
});

test('multi-character escapes keep their XSD meanings', (t) => {
  t.true(accepts('\\s+', ' \t\r\n'));
  t.false(accepts('\\s', '\u00a0')); // XSD \s is only space, tab, CR, LF
  t.true(accepts('\\S+', 'a\u00a0b'));
  t.true(accepts('\\d+', '0123٤'));
  t.false(accepts('\\d', 'a'));
  t.true(accepts('\\D', 'a'));
  t.true(accepts('\\w+', 'aZ9ä中'));
  t.false(accepts('\\w', '-'));
  t.false(accepts('\\w', ' '));
  t.true(accepts('\\W', '-'));
  t.true(accepts('[\\w-]+', 'a-b'));
  t.true(accepts('[^\\w]', '.'));
  t.false(accepts('[^\\w]', 'a'));
  t.true(accepts('\\i\\c*', '_abc-1.2:x'));
  t.false(accepts('\\i', '1'));
  t.true(accepts('\\I', '1'));
  t.false(accepts('\\c', ' '));
  t.true(accepts('\\C', ' '));
  t.true(accepts('[\\S ]+', 'a b'));
  t.false(accepts('[\\S ]+', 'a\tb'));
});

test('Unicode categories and blocks', (t) => {
  t.true(accepts('\\p{Lu}\\p{Ll}+', 'Abc'));
  t.false(accepts('\\p{Lu}', 'a'));
  t.true(accepts('\\P{L}', '1'));
  t.true(accepts('\\p{IsBasicLatin}+', 'plain ASCII'));
  t.false(accepts('\\p{IsBasicLatin}+', 'café'));
  t.true(accepts('\\P{IsBasicLatin}', 'é'));
  t.true(accepts('\\p{IsGreek}+', 'αβγ'));
  t.true(accepts('[\\p{IsBasicLatin}-[a-z]]+', 'ABC 123'));
  t.false(accepts('[\\p{IsBasicLatin}-[a-z]]+', 'ABc'));
  t.true(accepts('\\p{IsCJKUnifiedIdeographs}', '中'));
});

test('quantifiers, groups and literal braces', (t) => {
  t.true(accepts('a{2,3}', 'aaa'));
  t.false(accepts('a{2,3}', 'aaaa'));
  t.true(accepts('a{2}', 'aa'));
  t.true(accepts('a{2,}', 'aaaaa'));
  t.true(accepts('(ab)+', 'abab'));
  t.true(accepts('x{', 'x{')); // not a quantifier: a literal, as PCRE (and so libyang) read it
  t.true(accepts('a}', 'a}'));
});

test('malformed patterns give an error with a position, never a throw', (t) => {
  const bad = [
    '(',
    'a)',
    '[a',
    '[]',
    '*a',
    'a**',
    '\\',
    '\\q',
    '\\p{Foo}',
    '\\p{IsNoSuchBlock}',
    '[z-a]',
    'a{3,2}',
    '\\pL',
    '\\p{L',
    '('.repeat(500),
  ];
  for (const p of bad) {
    const r = translatePattern(p);
    t.true('error' in r, `"${p.slice(0, 20)}" should be refused`);
    if ('error' in r) t.regex(r.error, /at position \d+/);
  }
});

test('translation is linear on long garbage input', (t) => {
  const garbage = `${'[a-z]{1,3}|(\\d+\\.)?'.repeat(5000)}(`;
  const cpuMs = cpuStopwatch();
  const r = translatePattern(garbage);
  const ms = cpuMs();
  t.true('error' in r);
  t.true(ms < 1000, `took ${ms} ms`);
});
