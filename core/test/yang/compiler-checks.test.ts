/**
 * Compiler rules checked against yanglint 2.1.30: defaults against their types, which modules end
 * up implemented (`yanglint -l`, with and without -i), the identity-default decision, status
 * references (RFC 7950 §7.21.2), config under state (§7.21.1) and mandatory nodes under a default
 * case (§7.9.3). Inline modules carry the verdict yanglint gave on the same text.
 */
import test from 'ava';
import * as fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { ModuleRepository } from '../../src/yang/repository';
import { compileSchema } from '../../src/yang/compiler';
import type { LeafSchema, SchemaContext } from '../../src/yang/schema';
import { corpusPath, corpusTest } from '../corpus';

const corpusOnly = corpusTest(test, 'the compiler against yanglint on the published OpenConfig and IETF modules');

const OC = ['openconfig/release/models', 'openconfig/third_party/ietf'];
const IETF = ['ietf', 'ieee'];
const errors = (ctx: SchemaContext) => ctx.diagnostics.filter((d) => d.severity === 'error');
const warnings = (ctx: SchemaContext) => ctx.diagnostics.filter((d) => d.severity === 'warning');
const where = (ctx: SchemaContext) => errors(ctx).map((d) => `${d.position.file}:${d.position.line}:${d.position.column} ${d.message}`);

function inline(texts: Record<string, string>): ModuleRepository {
  const repo = new ModuleRepository([]);
  for (const [name, text] of Object.entries(texts)) repo.addText(`${name}.yang`, text);
  return repo;
}

// --- Defaults ---------------------------------------------------------------------------------------

const DEFAULTS = `module d { yang-version 1.1; namespace "urn:d"; prefix d;
  typedef small { type uint8; default 300; }
  typedef unused { type uint8; default 999; }
  leaf a { type uint8; default 300; }
  leaf b { type small; }
  leaf c { type enumeration { enum x; } default y; }
  leaf-list ll { type int8; default 1; default 200; }
  grouping g { leaf z { type uint8; } leaf w { type uint8; default 256; } }
  container k { uses g { refine z { default -1; } } }
  container k2 { uses g; }
  leaf u { type union { type int8; type boolean; } default maybe; }
  leaf target { type uint8; }
  leaf ref { type leafref { path "/d:target"; } default 1000; }
  leaf must-have { type string; mandatory true; default "x"; }
  leaf fine { type uint8 { range "1..10"; } default 10; }
  leaf fine-enum { type enumeration { enum x; enum y; } default y; }
  grouping never-used { leaf q { type uint8; default 999; } }
}`;

test('defaults are checked against their types, reported at the default statement (file:line:column)', (t) => {
  const ctx = compileSchema(inline({ d: DEFAULTS }), { modules: ['d'] });
  const found = where(ctx);
  const expect = (line: number, column: number, text: string): void => {
    t.true(
      found.some((f) => f.startsWith(`d.yang:${line}:${column} `) && f.includes(text)),
      `${line}:${column} ${text}\n${found.join('\n')}`,
    );
  };
  // yanglint: Invalid default - value does not fit the type (Value "300" is out of type uint8 min/max bounds.). (/d:a)
  expect(4, 24, 'Invalid default - value "300" does not fit the type');
  expect(4, 24, '(Schema location "/d:a".)');
  // A typedef's faulty default is reported where it is written (line 2), for the leaf that uses it.
  expect(2, 31, 'value "300" does not fit the type');
  expect(2, 31, '(Schema location "/d:b".)');
  expect(6, 41, 'value "y" does not fit');
  expect(7, 40, 'value "200" does not fit'); // the second leaf-list default
  expect(9, 37, 'value "-1" does not fit'); // refine
  expect(8, 60, 'value "256" does not fit'); // a grouping's default, once though the grouping is used twice
  t.is(found.filter((f) => f.startsWith('d.yang:8:60 ')).length, 1);
  expect(11, 52, 'value "maybe" does not fit'); // no union member takes it
  expect(13, 49, 'value "1000" does not fit'); // a leafref default has its target's type
  expect(14, 49, 'Invalid mandatory leaf with a default value.');
  // Unused typedefs and groupings are not checked (as libyang), valid defaults pass.
  t.false(
    found.some((f) => f.startsWith('d.yang:3:') || f.startsWith('d.yang:17:') || f.includes('/d:fine')),
    found.join('\n'),
  );
  t.is(found.length, 9, found.join('\n'));
  t.is((ctx.data.find((n) => n.name === 'fine') as LeafSchema).default, '10');
});

test('a deviation that replaces a type re-checks the default; a deviation default is checked where written', (t) => {
  const base = 'module b { yang-version 1.1; namespace "urn:b"; prefix b; leaf q { type string; default "x"; } leaf n { type int8; } }';
  const replace =
    'module r { yang-version 1.1; namespace "urn:r"; prefix r; import b { prefix b; }\n  deviation /b:q { deviate replace { type int8; } }\n}';
  const add =
    'module a { yang-version 1.1; namespace "urn:a"; prefix a; import b { prefix b; }\n  deviation /b:n { deviate add { default 128; } }\n}';
  const replaced = compileSchema(inline({ b: base, r: replace }), { modules: ['r'] });
  // yanglint: Invalid default - value does not fit the type (Invalid type int8 value "x".). (/dv0:q)
  t.deepEqual(
    where(replaced).map((w) => w.split(' ')[0]),
    ['b.yang:1:81'],
  );
  const added = compileSchema(inline({ b: base, a: add }), { modules: ['a'] });
  t.deepEqual(
    where(added).map((w) => w.split(' ')[0]),
    ['a.yang:2:34'],
  );
  t.is(errors(added)[0]!.module, 'a');
});

// --- Identity defaults in import-only modules -----------------------------------------------------------

const IDENT_BASE = `module fa { yang-version 1.1; namespace "urn:fa"; prefix a;
  feature f;
  identity base; identity one { base base; }
  container c { leaf x { if-feature f; type string; } leaf y { type string; } }
}`;
const IDENT_USER = `module fd { yang-version 1.1; namespace "urn:fd"; prefix fd; import fa { prefix a; }
  leaf r { type identityref { base a:base; } default a:one; }
}`;

test("an identityref default naming an import-only module implements that module (decision: not libyang's error)", (t) => {
  // yanglint without -i: "Invalid identityref "a:one" value - identity found in non-implemented module "fa"."
  // yanglint -i: passes, fa is implemented (yanglint -l: I fa) with feature f disabled (no x in -P /fa:c).
  // Rosetta does what -i does in both modes and warns when -i was not given (see references.ts).
  const plain = compileSchema(inline({ fa: IDENT_BASE, fd: IDENT_USER }), { modules: ['fd'] });
  t.deepEqual(errors(plain), []);
  t.true(plain.modules.get('fa')!.implemented);
  t.false(plain.modules.get('fa')!.features.get('f')!.enabled);
  const c = plain.data.find((n) => n.name === 'c')!;
  t.deepEqual(
    c.children.map((n) => n.name),
    ['y'],
  );
  t.deepEqual(
    warnings(plain).map((w) => `${w.position.line}:${w.position.column} ${w.module}`),
    ['2:46 fd'],
  );
  t.regex(warnings(plain)[0]!.message, /import-only module "fa", which is therefore implemented/);
  const withI = compileSchema(inline({ fa: IDENT_BASE, fd: IDENT_USER }), { modules: ['fd'], implementImports: true });
  t.deepEqual(errors(withI), []);
  t.deepEqual(warnings(withI), []);
  t.true(withI.modules.get('fa')!.implemented);
  // An identity that is not derived from the base is still a faulty default.
  const wrong = compileSchema(inline({ fa: IDENT_BASE, fd: IDENT_USER.replace('default a:one', 'default a:base') }), { modules: ['fd'] });
  t.regex(
    where(wrong).join('\n'),
    /fd\.yang:2:46 Invalid default - value "a:base" does not fit the type \(identity "fa:base" is not derived from fa:base\)/,
  );
});

corpusOnly('modules yanglint compiles only with -i compile in default mode too, with the warning', (t) => {
  const dirs = OC.map((d) => corpusPath(d));
  const ctx = compileSchema(new ModuleRepository(dirs), {
    modules: [corpusPath('openconfig/release/models/interfaces/openconfig-if-ip.yang')],
  });
  t.deepEqual(errors(ctx), []);
  t.true(
    warnings(ctx).some((w) =>
      /Default "oc-ospf-types:NORMAL" names an identity of import-only module "openconfig-ospf-types"/.test(w.message),
    ),
  );
  t.true(ctx.modules.get('openconfig-ospf-types')!.implemented);
});

// --- Implemented modules as yanglint -l lists them --------------------------------------------------------

/** `yanglint -l` output, as module name -> 'I' | 'i' (libyang's own built-in modules left out). */
function yanglintList(dirs: string[], files: string[], implementImports: boolean): Map<string, string> | undefined {
  if (!fs.existsSync('/usr/bin/yanglint')) return undefined;
  const args = ['-D', ...(implementImports ? ['-i'] : []), ...dirs.flatMap((d) => ['-p', d]), '-l', ...files];
  const out = spawnSync('/usr/bin/yanglint', args, { cwd: corpusPath(), encoding: 'utf8' }).stdout ?? '';
  const builtIn = new Set([
    'ietf-yang-metadata',
    'yang',
    'ietf-yang-schema-mount',
    'ietf-yang-structure-ext',
    'ietf-inet-types',
    'ietf-yang-types',
  ]);
  const list = new Map<string, string>();
  for (const line of out.split('\n')) {
    const m = /^\s+([iI]) ([^@\s]+)/.exec(line);
    if (m && !builtIn.has(m[2]!)) list.set(m[2]!, (list.get(m[2]!) ?? '') + m[1]!);
  }
  return list;
}

function implementedFlags(dirs: string[], files: string[], implementImports: boolean): Map<string, string> {
  const ctx = compileSchema(new ModuleRepository(dirs.map((d) => corpusPath(d))), {
    modules: files.map((f) => corpusPath(f)),
    implementImports,
  });
  t0(errors(ctx).length === 0, `${files.join(' ')}: ${errors(ctx)[0]?.message}`);
  const out = new Map<string, string>();
  for (const m of ctx.modules.values())
    if (!['ietf-inet-types', 'ietf-yang-types'].includes(m.name)) out.set(m.name, m.implemented ? 'I' : 'i');
  return out;
}
function t0(ok: boolean, message: string): void {
  if (!ok) throw new Error(message);
}

const OCIF = 'openconfig/release/models/interfaces/';

corpusOnly('implemented flags agree with yanglint -l: openconfig-interfaces + openconfig-if-ethernet (-i)', (t) => {
  const ours = implementedFlags(OC, [`${OCIF}openconfig-interfaces.yang`, `${OCIF}openconfig-if-ethernet.yang`], true);
  // Recorded from `yanglint -D -i -p ... -l` (2.1.30): -i leaves iana-if-type import-only although
  // when-expressions compare with 'ianaift:...' literals (literals do not implement).
  t.deepEqual(
    [...ours]
      .filter(([, f]) => f === 'I')
      .map(([n]) => n)
      .sort(),
    ['openconfig-if-ethernet', 'openconfig-interfaces'],
  );
  t.is(ours.get('iana-if-type'), 'i');
  t.is(ours.get('ietf-interfaces'), 'i');
  const live = yanglintList(OC, [`${OCIF}openconfig-interfaces.yang`, `${OCIF}openconfig-if-ethernet.yang`], true);
  if (live) t.deepEqual(ours, live);
});

corpusOnly('implemented flags agree with yanglint -l: ietf-interfaces + ietf-ip, with and without -i', (t) => {
  const files = ['ietf/ietf-interfaces@2018-02-20.yang', 'ietf/ietf-ip@2018-02-22.yang'];
  for (const i of [false, true]) {
    const ours = implementedFlags(IETF, files, i);
    t.deepEqual([...ours].sort(), [
      ['ietf-interfaces', 'I'],
      ['ietf-ip', 'I'],
    ]);
    const live = yanglintList(IETF, files, i);
    if (live) t.deepEqual(ours, live);
  }
});

corpusOnly('implemented flags agree with yanglint -l on larger OpenConfig and IETF loads (when yanglint is installed)', (t) => {
  const cases: Array<[string[], string[], boolean]> = [
    [OC, [`${OCIF}openconfig-if-ip.yang`], true], // leafrefs, -i when/must and identity defaults implement 30+ modules
    [OC, ['openconfig/release/models/network-instance/openconfig-network-instance.yang'], true],
    [OC, ['openconfig/release/models/system/openconfig-system.yang'], true],
    [IETF, ['ietf/ietf-ospf@2022-10-19.yang'], false],
  ];
  if (!fs.existsSync('/usr/bin/yanglint')) {
    t.log('yanglint not installed: recorded cases above only');
  }
  for (const [dirs, files, i] of cases) {
    const ours = implementedFlags(dirs, files, i);
    t.true([...ours.values()].filter((f) => f === 'I').length >= 2);
    const live = yanglintList(dirs, files, i);
    if (live) t.deepEqual(ours, live, files.join(' '));
  }
});

// --- Status, config and default-case rules ---------------------------------------------------------------

test('status references (RFC 7950 §7.21.2): within one module only; a current node under a deprecated one is fine', (t) => {
  const mod = `module s { yang-version 1.1; namespace "urn:s"; prefix s;
  typedef old { type string; status deprecated; }
  grouping gone { status obsolete; leaf y { type string; } }
  identity dead { status obsolete; }
  identity alive { base dead; }
  leaf a { type old; }
  container dep { status deprecated; leaf x { status current; type string; } leaf z { type old; } }
  container c { status deprecated; uses gone; }
}`;
  const ctx = compileSchema(inline({ s: mod }), { modules: ['s'] });
  t.deepEqual(where(ctx).sort(), [
    's.yang:5:20 A "current" definition identity "alive" is not allowed to reference "obsolete" definition identity "dead".',
    's.yang:6:12 A "current" definition leaf "a" is not allowed to reference "deprecated" definition typedef "old".',
    's.yang:8:36 A "deprecated" definition uses "gone" is not allowed to reference "obsolete" definition grouping "gone".',
  ]);
  // yanglint rejects the explicit "current" x under the deprecated container; RFC 7950 does not
  // (status is not inherited and x references nothing), so Rosetta keeps x current.
  const dep = ctx.data.find((n) => n.name === 'dep')!;
  t.deepEqual(
    dep.children.map((n) => [n.name, n.status]),
    [
      ['x', 'current'],
      ['z', 'deprecated'],
    ],
  );
  // Another module may use a deprecated typedef (yanglint agrees).
  const other = compileSchema(
    inline({ s: mod, o: 'module o { namespace "urn:o"; prefix o; import s { prefix s; } leaf b { type s:old; } }' }),
    { modules: ['o'] },
  );
  t.false(errors(other).some((d) => d.module === 'o'));
});

test('config true under config false is an error from a node, an augment and a deviation (RFC 7950 §7.21.1)', (t) => {
  const st = 'module m2 { yang-version 1.1; namespace "urn:m2"; prefix m; container st { config false; leaf z { type string; } } }';
  const viaDeviation =
    'module m3 { yang-version 1.1; namespace "urn:m3"; prefix n; import m2 { prefix m; }\n  deviation /m:st/m:z { deviate add { config true; } }\n}';
  const viaAugment =
    'module m4 { yang-version 1.1; namespace "urn:m4"; prefix n; import m2 { prefix m; }\n  augment /m:st { leaf w { type string; config true; } }\n}';
  const own =
    'module m5 { yang-version 1.1; namespace "urn:m5"; prefix n;\n  container st { config false; container in { config true; } }\n}';
  const msg = 'Configuration node cannot be child of any state data node.';
  t.deepEqual(where(compileSchema(inline({ m2: st, m3: viaDeviation }), { modules: ['m3'] })), [`m3.yang:2:39 ${msg}`]);
  t.deepEqual(where(compileSchema(inline({ m2: st, m4: viaAugment }), { modules: ['m4'] })), [`m4.yang:2:19 ${msg}`]);
  t.deepEqual(where(compileSchema(inline({ m5: own }), { modules: ['m5'] })), [`m5.yang:2:32 ${msg}`]);
});

test('mandatory nodes under a default case, and a mandatory choice with a default (RFC 7950 §7.9.3)', (t) => {
  const mod = `module m1 { yang-version 1.1; namespace "urn:m1"; prefix m;
  choice ch { default one; case one { leaf x { type string; mandatory true; } } case two { leaf y { type string; } } }
  choice ok { default one; case one { container p { presence "p"; leaf x { type string; mandatory true; } } } case two { leaf y { type string; } } }
  choice deep { default one; case one { container np { list l { key k; min-elements 1; leaf k { type string; } } } } case two { leaf y { type string; } } }
  choice both { mandatory true; default a; leaf a { type string; } leaf b { type string; } }
}`;
  const ctx = compileSchema(inline({ m1: mod }), { modules: ['m1'] });
  // yanglint: Mandatory node "x" under the default case "one". (/m1:ch)
  t.deepEqual(where(ctx), [
    'm1.yang:2:39 Mandatory node "x" under the default case "one".',
    'm1.yang:4:41 Mandatory node "np" under the default case "one".',
    'm1.yang:5:3 Invalid mandatory choice with a default case.',
  ]);
});
