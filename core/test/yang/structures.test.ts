/**
 * YANG structures: RFC 8040 `rc:yang-data`, RFC 8791 `sx:structure` and `sx:augment-structure`.
 * What the compiler puts in CompiledModule.structures, the rules it enforces (each inline module
 * carries the message yanglint 2.1.30 gave on the same text), leafrefs scoped to their structure,
 * augment-structure, and the tree sections printed character for character as yanglint prints them.
 */
import test from 'ava';
import { corpusPath, corpusTest } from '../corpus';
import { MODEL_DIRS } from '../data/fixture';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ModuleRepository } from '../../src/yang/repository';
import { compileSchema } from '../../src/yang/compiler';
import { printTree } from '../../src/yang/tree-printer';
import { findStructure, structureOf } from '../../src/yang/schema';
import type { ContainerSchema, LeafSchema, ListSchema, SchemaContext, SchemaNode, StructureSchema } from '../../src/yang/schema';

const corpusOnly = corpusTest(test, 'structures of the published modules against yanglint');

const errors = (ctx: SchemaContext): string[] =>
  ctx.diagnostics
    .filter((d) => d.severity === 'error')
    .map((d) => `${path.basename(d.position.file)}:${d.position.line}:${d.position.column} ${d.message}`);

function corpus(file: string): { ctx: SchemaContext; name: string } {
  const repo = new ModuleRepository([corpusPath('ietf'), corpusPath('ieee')]);
  const full = corpusPath('ietf', file);
  return { ctx: compileSchema(repo, { modules: [full] }), name: repo.load(full).name };
}

/** Modules given as text; the test models and the service's own modules supply ietf-restconf and ietf-yang-structure-ext. */
function inline(texts: Record<string, string>, modules = Object.keys(texts)): SchemaContext {
  const repo = new ModuleRepository([...MODEL_DIRS]);
  for (const [name, text] of Object.entries(texts)) repo.addText(`${name}.yang`, text);
  return compileSchema(repo, { modules });
}

function descendants(nodes: readonly SchemaNode[]): SchemaNode[] {
  const out: SchemaNode[] = [];
  const stack = [...nodes];
  while (stack.length > 0) {
    const n = stack.pop()!;
    out.push(n);
    stack.push(...n.children);
  }
  return out;
}

function child(node: SchemaNode | StructureSchema, name: string): SchemaNode {
  const list = 'nodes' in node ? node.nodes : node.children;
  const found = list.find((c) => c.name === name);
  if (!found) throw new Error(`no child ${name}`);
  return found;
}

// --- The oracle trees ---------------------------------------------------------------------------------

for (const tree of ['ietf-restconf@2017-01-26', 'ietf-yang-patch@2017-02-22', 'ietf-subscribed-notifications@2019-09-09']) {
  corpusOnly(`the yang-data sections of ${tree}.tree are printed character for character`, (t) => {
    const { ctx, name } = corpus(`${tree}.yang`);
    t.deepEqual(errors(ctx), []);
    const expected = fs.readFileSync(corpusPath('oracle/trees', `${tree}.tree`), 'utf8');
    const fromYangData = (text: string): string => text.slice(text.indexOf('\n  yang-data '));
    t.true(expected.includes('\n  yang-data '));
    t.is(fromYangData(printTree(ctx, [name])), fromYangData(expected));
  });
}

// Whole trees as `yanglint -f tree -p ietf -p ieee FILE` (2.1.30) printed them.
const YANGLINT_TREES: Record<string, string> = {
  'ietf-yang-instance-data@2022-02-17.yang': `module: ietf-yang-instance-data

  structure instance-data-set:
    +-- content-schema
    |  +-- (content-schema-spec)?
    |     +--:(simplified-inline)
    |     |  +-- module*   module-with-revision-date
    |     +--:(inline)
    |     |  +-- inline-yang-library    anydata
    |     +--:(uri)
    |        +-- same-schema-as-file?   inet:uri
    +-- name?                string
    +-- format-version?      string
    +-- includes-defaults?   ncwd:with-defaults-mode
    +-- contact?             string
    +-- organization?        string
    +-- datastore?           ds:datastore-ref
    +-- timestamp?           yang:date-and-time
    +-- description*         string
    +-- revision* [date]
    |  +-- date           string
    |  +-- description?   string
    +-- content-data?        anydata
`,
  'ietf-sztp-csr@2024-10-10.yang': `module: ietf-sztp-csr

  augment /sztp-svr:get-bootstrapping-data/sztp-svr:input:
    +--rw (msg-type)?
       +--:(csr-support)
       |  +---u zt:csr-support-grouping
       +--:(csr)
          +---u zt:csr-grouping

  structure csr-request:
    +-- key-generation!
    |  +-- selected-algorithm
    |     +-- algorithm-identifier    binary
    +-- csr-generation
    |  +-- selected-format
    |     +-- format-identifier    identityref
    +-- cert-req-info?    ct:csr-info
`,
  'ietf-voucher@2018-05-09.yang': `module: ietf-voucher

  yang-data voucher-artifact:
    +---- voucher
       +---- created-on                       yang:date-and-time
       +---- expires-on?                      yang:date-and-time
       +---- assertion                        enumeration
       +---- serial-number                    string
       +---- idevid-issuer?                   binary
       +---- pinned-domain-cert               binary
       +---- domain-cert-revocation-checks?   boolean
       +---- nonce?                           binary
       +---- last-renewal-date?               yang:date-and-time
`,
};

for (const [file, expected] of Object.entries(YANGLINT_TREES)) {
  corpusOnly(`tree of ${file} equals yanglint's, structure sections included`, (t) => {
    const { ctx, name } = corpus(file);
    t.deepEqual(errors(ctx), []);
    t.is(printTree(ctx, [name]), expected);
  });
}

// --- The compiled schema ------------------------------------------------------------------------------

corpusOnly('ietf-restconf: two yang-data templates, config false throughout, no datastore nodes', (t) => {
  const { ctx } = corpus('ietf-restconf@2017-01-26.yang');
  const m = ctx.modules.get('ietf-restconf')!;
  t.deepEqual(
    m.structures.map((s) => [s.extension, s.name]),
    [
      ['yang-data', 'yang-errors'],
      ['yang-data', 'yang-api'],
    ],
  );
  t.deepEqual(m.data, []);
  const errorsTemplate = m.structures[0]!;
  t.is(errorsTemplate.module, m);
  const container = errorsTemplate.nodes[0] as ContainerSchema;
  t.is(container.kind, 'container');
  t.is(container.parent, undefined);
  const list = child(container, 'error') as ListSchema;
  t.deepEqual(list.keys, [], 'a keyless list is fine in a structure');
  t.true((child(list, 'error-type') as LeafSchema).mandatory);
  t.true(descendants(errorsTemplate.nodes).every((n) => !n.config));
  t.is(structureOf(ctx, child(list, 'error-tag')), errorsTemplate);
  t.is(structureOf(ctx, container), errorsTemplate);
  t.false(ctx.data.some((n) => n.name === 'errors'));
  t.is(findStructure(ctx, 'ietf-restconf', 'yang-errors'), errorsTemplate);
  t.is(findStructure(ctx, 'ietf-restconf', 'yang-api'), m.structures[1]);
  t.is(findStructure(ctx, 'ietf-restconf', 'nothing'), undefined);
  t.is(findStructure(ctx, 'no-such-module', 'yang-errors'), undefined);
});

test("sx:structure top-level nodes come in libyang's order: containers, leaves, leaf-lists, lists, choices, anydata, uses", (t) => {
  const ctx = inline({
    o: `module o { yang-version 1.1; namespace "urn:o"; prefix o;
      import ietf-yang-structure-ext { prefix sx; }
      grouping g { leaf from-uses { type string; } }
      sx:structure s {
        uses g;
        anydata any;
        choice ch { leaf c1 { type string; } }
        list li { leaf k { type string; } }
        leaf-list ll { type string; }
        leaf l { type string; }
        container c;
      }
    }`,
  });
  t.deepEqual(errors(ctx), []);
  const s = ctx.modules.get('o')!.structures[0]!;
  t.deepEqual(
    s.nodes.map((n) => n.name),
    ['c', 'l', 'll', 'li', 'ch', 'any', 'from-uses'],
  );
});

test("a structure's typedefs and groupings are in scope, config is ignored, musts are kept", (t) => {
  const ctx = inline({
    p: `module p { yang-version 1.1; namespace "urn:p"; prefix p;
      import ietf-yang-structure-ext { prefix sx; }
      sx:structure s {
        must "count(item) < 10";
        description "A file format.";
        typedef percent { type uint8 { range "0..100"; } }
        grouping named { leaf name { type string; } container name-info; }
        list item { config true; uses named; leaf share { type percent; } }
        container c { config false; leaf b { type string; config true; } }
        container d { uses named { augment "name-info" { leaf e { type string; config true; } } } }
      }
    }`,
  });
  t.deepEqual(errors(ctx), []);
  const s = ctx.modules.get('p')!.structures[0]!;
  t.is(s.description, 'A file format.');
  t.deepEqual(
    s.musts.map((m) => m.xpath.source),
    ['count(item) < 10'],
  );
  const share = child(child(s, 'item'), 'share') as LeafSchema;
  t.is(share.type.name, 'percent');
  t.deepEqual(share.type.range?.intervals, [{ min: 0n, max: 100n }]);
  t.truthy(child(child(s, 'item'), 'name'));
  t.truthy(child(child(child(s, 'd'), 'name-info'), 'e'), 'an augment inside a uses inside the structure');
  t.true(descendants(s.nodes).every((n) => !n.config));
});

// --- Leafrefs inside a structure -----------------------------------------------------------------------

test('leafrefs inside a structure resolve within it, absolute and relative', (t) => {
  const ctx = inline({
    refin: `module refin { yang-version 1.1; namespace "urn:refin"; prefix refin;
      import ietf-yang-structure-ext { prefix sx; }
      container d { leaf a { type string; } }
      sx:structure s {
        leaf a { type string; }
        container c {
          leaf r { type leafref { path "/refin:a"; } }
          leaf r2 { type leafref { path "../../a"; } }
        }
      }
    }`,
  });
  t.deepEqual(errors(ctx), []); // yanglint: no error
  const s = ctx.modules.get('refin')!.structures[0]!;
  const a = child(s, 'a');
  const c = child(s, 'c');
  t.is((child(c, 'r') as LeafSchema).type.leafref?.target, a as LeafSchema);
  t.is((child(c, 'r2') as LeafSchema).type.leafref?.target, a as LeafSchema);
});

test('an absolute leafref cannot leave its structure or yang-data (yanglint: Not found node "d" in path)', (t) => {
  const ctx = inline({
    refout: `module refout { yang-version 1.1; namespace "urn:refout"; prefix refout;
      import ietf-yang-structure-ext { prefix sx; }
      import ietf-restconf { prefix rc; }
      container d { leaf v { type string; } }
      sx:structure s { leaf r { type leafref { path "/refout:d/refout:v"; } } }
      rc:yang-data y { container c { leaf r { type leafref { path "/refout:d/refout:v"; } } } }
    }`,
  });
  const found = errors(ctx);
  t.is(found.length, 2);
  t.regex(
    found[0]!,
    /^refout\.yang:5:48 Not found node in path: leafref path "\/refout:d\/refout:v" names "refout:d".*inside sx:structure "s" of module refout/,
  );
  t.regex(found[1]!, /^refout\.yang:6:\d+ .*inside rc:yang-data "y" of module refout/);
});

corpusOnly('ietf-dots-signal-channel fails on its leafrefs to the data channel, naming the path and the structure', (t) => {
  const { ctx } = corpus('ietf-dots-signal-channel@2021-09-02.yang');
  const found = errors(ctx);
  t.is(found.length, 2);
  t.regex(
    found[0]!,
    /^ietf-dots-signal-channel@2021-09-02\.yang:221:21 Not found node in path: leafref path "\/data-channel:dots-data\/data-channel:dots-client\/data-channel:acls\/data-channel:acl\/data-channel:name" names "data-channel:dots-data", which is not a data node under the root \(inside sx:structure "dots-signal"/,
  );
  t.regex(found[1]!, /:232:21 .*data-channel:type/);
});

// --- sx:augment-structure ------------------------------------------------------------------------------

const BASE = `module base {
  yang-version 1.1;
  namespace "urn:base";
  prefix b;
  import ietf-yang-structure-ext { prefix sx; }
  container data { leaf v { type string; } }
  sx:structure msg {
    leaf id { type uint32; mandatory true; }
    container body { leaf text { type string; } }
    list item { leaf name { type string; } leaf ref { type leafref { path "/b:id"; } } }
  }
}`;

const EXT = `module ext {
  yang-version 1.1;
  namespace "urn:ext";
  prefix e;
  import ietf-yang-structure-ext { prefix sx; }
  import base { prefix b; }
  grouping extra { leaf note { type string; } }
  sx:augment-structure "/b:msg/b:body" {
    description "Adds to the body.";
    leaf size { type uint16; }
    uses extra;
    container meta { leaf author { type string; } }
  }
}`;

test('sx:augment-structure adds nodes in its own namespace; trees print as yanglint prints them', (t) => {
  const ctx = inline({ base: BASE, ext: EXT }, ['ext', 'base']);
  t.deepEqual(errors(ctx), []);
  const base = ctx.modules.get('base')!;
  const ext = ctx.modules.get('ext')!;
  t.true(base.implemented, 'the target module is implemented, as libyang does');
  const body = child(base.structures[0]!, 'body');
  t.deepEqual(
    body.children.map((n) => `${n.module.name}:${n.name}`),
    ['base:text', 'ext:meta', 'ext:size', 'ext:note'],
  );
  t.is(ext.structureAugments.length, 1);
  t.is(ext.structureAugments[0]!.target, body);
  t.is(ext.structureAugments[0]!.structure, base.structures[0]);
  t.deepEqual(
    ext.structureAugments[0]!.nodes.map((n) => n.name),
    ['meta', 'size', 'note'],
  );
  t.deepEqual(ext.structures, []);
  // yanglint -f tree base.yang ext.yang
  t.is(
    printTree(ctx, ['base', 'ext']),
    `module: base
  +--rw data
     +--rw v?   string

  structure msg:
    +-- body
    |  +-- text?   string
    |  +-- meta
    |  |  +-- author?   string
    |  +-- size?   uint16
    |  +-- note?   string
    +-- id      uint32
    +-- item*
       +-- name?   string
       +-- ref?    -> /b:id

module: ext

  augment-structure /b:msg/b:body:
    +-- meta
    |  +-- author?   string
    +-- size?    uint16
    +-- extra
`,
  );
});

test('an augment-structure holding only uses is accepted (RFC 8791: 1*(data-def-stmt / case-stmt); libyang refuses it)', (t) => {
  const ctx = inline(
    {
      base: BASE,
      onlyuses: `module onlyuses { yang-version 1.1; namespace "urn:onlyuses"; prefix u;
      import ietf-yang-structure-ext { prefix sx; }
      import base { prefix b; }
      grouping g { leaf extra { type string; } }
      sx:augment-structure "/b:msg/b:body" { uses g; }
    }`,
    },
    ['onlyuses'],
  );
  t.deepEqual(errors(ctx), []);
  t.deepEqual(
    child(ctx.modules.get('base')!.structures[0]!, 'body').children.map((n) => n.name),
    ['text', 'extra'],
  );
});

test('augment-structures of nodes another augment-structure adds apply whatever the module order', (t) => {
  const second = `module second { yang-version 1.1; namespace "urn:second"; prefix s2;
    import ietf-yang-structure-ext { prefix sx; }
    import ext { prefix e; }
    import base { prefix b; }
    sx:augment-structure "/b:msg/b:body/e:meta" { leaf when-written { type string; } }
  }`;
  const ctx = inline({ base: BASE, ext: EXT, second }, ['second', 'ext']);
  t.deepEqual(errors(ctx), []);
  const meta = child(child(ctx.modules.get('base')!.structures[0]!, 'body'), 'meta');
  t.deepEqual(
    meta.children.map((n) => `${n.module.name}:${n.name}`),
    ['ext:author', 'second:when-written'],
  );
});

// --- Rules, with yanglint 2.1.30's verdict on the same text ---------------------------------------------

const HEADER =
  'import ietf-restconf { prefix rc; } import ietf-yang-structure-ext { prefix sx; } import ietf-yang-schema-mount { prefix yangmnt; }';
const ruleModule = (name: string, body: string): string =>
  `module ${name} { yang-version 1.1; namespace "urn:${name}"; prefix ${name}; ${HEADER} ${body} }`;

const RULES: Array<{ name: string; body: string; error: RegExp }> = [
  // yanglint: Extension rc:yang-data is instantiated multiple times.
  {
    name: 'dup',
    body: 'rc:yang-data a { container a; } rc:yang-data a { container b; }',
    error: /^dup\.yang:1:229 Extension rc:yang-data is instantiated multiple times\.$/,
  },
  // yanglint: ... with multiple top level data nodes, but only a single container data node is allowed.
  {
    name: 'two',
    body: 'rc:yang-data a { container a; container b; }',
    error:
      /^two\.yang:1:197 Extension rc:yang-data is instantiated with multiple top level data nodes, but only a single container data node is allowed\.$/,
  },
  // yanglint: ... with leaf top level data node, but only a single container data node is allowed.
  {
    name: 'leafonly',
    body: 'grouping g { leaf x { type string; } } rc:yang-data a { uses g; }',
    error: /Extension rc:yang-data is instantiated with leaf top level data node, but only a single container data node is allowed\.$/,
  },
  // yanglint: ... with leaf top level data node (inside a choice), ...
  {
    name: 'choiceleaf',
    body: 'rc:yang-data a { choice c { container a; case b { leaf x { type string; } } } }',
    error: /instantiated with leaf top level data node \(inside a choice\)/,
  },
  // yanglint: ... instantiated without any top level data node, but exactly one container data node is expected.
  {
    name: 'empty',
    body: 'grouping nothing; rc:yang-data a { uses nothing; }',
    error: /instantiated without any top level data node, but exactly one container data node is expected\.$/,
  },
  // yanglint: Extension sx:structure collides with a container with the same identifier.
  {
    name: 'collide',
    body: 'container top; sx:structure top { leaf x { type string; } }',
    error: /^collide\.yang:1:224 Extension sx:structure collides with a container with the same identifier\.$/,
  },
  // yanglint: Extension sx:structure must not be used as a non top-level statement in "container" statement.
  {
    name: 'nested',
    body: 'container c { sx:structure s { leaf x { type string; } } }',
    error: /^nested\.yang:1:220 Extension sx:structure must not be used as a non top-level statement in "container" statement\.$/,
  },
  // yanglint: Extension sx:augment-structure does not define any data-def-stmt statements.
  {
    name: 'augempty',
    body: 'sx:structure s { container c; } sx:augment-structure "/augempty:s/augempty:c" { description "d"; }',
    error: /^augempty\.yang:1:244 Extension sx:augment-structure does not define any data-def-stmt statements\.$/,
  },
  // yanglint: Augment extension target node "/augroot:s" from module "augroot" was not found.
  {
    name: 'augroot',
    body: 'sx:structure s { container c; } sx:augment-structure "/augroot:s" { leaf x { type string; } }',
    error: /^augroot\.yang:1:241 Augment extension target node "\/augroot:s" from module "augroot" was not found\.$/,
  },
  {
    name: 'augmiss',
    body: 'sx:structure s { container c; } sx:augment-structure "/augmiss:s/augmiss:nope" { leaf x { type string; } }',
    error: /Augment extension target node "\/augmiss:s\/augmiss:nope" from module "augmiss" was not found\.$/,
  },
  {
    name: 'augdata',
    body: 'container c; sx:augment-structure "/augdata:c" { leaf x { type string; } }',
    error: /Augment extension target node "\/augdata:c" from module "augdata" was not found\.$/,
  },
  // yanglint: Invalid keyword "description" as a child of "rc:yang-data y" extension instance.
  {
    name: 'desc',
    body: 'rc:yang-data y { description "x"; container c; }',
    error: /^desc\.yang:1:217 Invalid keyword "description" as a child of "rc:yang-data y" extension instance\.$/,
  },
  // yanglint: Extension "yangmnt:mount-point" instance allowed only in container or list statement.
  {
    name: 'mpleaf',
    body: 'leaf l { type string; yangmnt:mount-point "m"; }',
    error:
      /^mpleaf\.yang:1:228 Extension "yangmnt:mount-point" is allowed only in a container or list statement \(RFC 8528 §3\.1\), not in "leaf" statement "l"\.$/,
  },
  // The same in a grouping nobody uses (libyang checks while parsing).
  {
    name: 'mpgrp',
    body: 'grouping g { anydata a { yangmnt:mount-point "m"; } } container c { yangmnt:mount-point "ok"; }',
    error: /^mpgrp\.yang:1:228 .*not in "anydata" statement "a"\.$/,
  },
];

for (const rule of RULES) {
  test(`rule: ${rule.name}`, (t) => {
    const found = errors(inline({ [rule.name]: ruleModule(rule.name, rule.body) }));
    t.is(found.length, 1, found.join('\n'));
    t.regex(found[0] ?? '', rule.error);
  });
}

test('a nested rc:yang-data is ignored with a warning (yanglint: a warning, exit 0)', (t) => {
  const ctx = inline({ nestedyd: ruleModule('nestedyd', 'container c { rc:yang-data s { container x; } }') });
  t.deepEqual(errors(ctx), []);
  t.true(
    ctx.diagnostics.some(
      (d) =>
        d.severity === 'warning' &&
        /Extension rc:yang-data is ignored since it appears as a non top-level statement in "container" statement\./.test(d.message),
    ),
  );
  t.deepEqual(ctx.modules.get('nestedyd')!.structures, []);
});

test('mount-points on containers and lists are fine, in a module that is only imported too', (t) => {
  const ctx = inline(
    {
      mpok: ruleModule(
        'mpok',
        'container c { yangmnt:mount-point "c"; } list l { key k; leaf k { type string; } yangmnt:mount-point "l"; }',
      ),
      user: 'module user { namespace "urn:user"; prefix u; import mpok { prefix m; } leaf x { type string; } }',
    },
    ['user'],
  );
  t.deepEqual(errors(ctx), []);
  const bad = inline(
    {
      mpbad: ruleModule('mpbad', 'grouping g { leaf-list ll { type string; yangmnt:mount-point "x"; } }'),
      user: 'module user { namespace "urn:user"; prefix u; import mpbad { prefix m; } leaf x { type string; } }',
    },
    ['user'],
  );
  t.regex(errors(bad).join('\n'), /mpbad\.yang:.*not in "leaf-list" statement "ll"/);
});

test('garbage augment-structure paths and arguments are reported, never thrown', (t) => {
  for (const arg of ['""', '"/"', '"//"', '"no-slash"', '"/zz:s/zz:c"', '"/garbage:s//garbage:c"', '"/garbage:s/garbage:c/../x"']) {
    const ctx = inline({
      garbage: ruleModule('garbage', `sx:structure s { container c; } sx:augment-structure ${arg} { leaf x { type string; } }`),
    });
    t.true(errors(ctx).length >= 1, arg);
  }
  const noArg = inline({ noarg: ruleModule('noarg', 'rc:yang-data { container c; }') });
  t.true(errors(noArg).length >= 1);
});

// --- ietf-voucher-request: accepted, with its refines and augment applied ---------------------------------

corpusOnly('ietf-voucher-request compiles with the refines and the augment of its uses inside rc:yang-data', (t) => {
  const { ctx } = corpus('ietf-voucher-request@2021-05-20.yang');
  t.deepEqual(errors(ctx), []);
  const request = ctx.modules.get('ietf-voucher-request')!.structures[0]!;
  t.is(request.name, 'voucher-request-artifact');
  const voucher = request.nodes[0]!;
  t.is(voucher.module.name, 'ietf-voucher-request', 'grouping nodes take the namespace of the uses');
  t.false((child(voucher, 'created-on') as LeafSchema).mandatory, 'refine "voucher/created-on" { mandatory false; }');
  t.false((child(voucher, 'assertion') as LeafSchema).mandatory);
  t.regex(child(voucher, 'pinned-domain-cert').description ?? '', /not valid in a\s+voucher-request/);
  t.truthy(child(voucher, 'prior-signed-voucher-request'), 'augment "voucher" added its leaves');
  t.truthy(child(voucher, 'proximity-registrar-cert'));
  // The grouping itself is untouched: ietf-voucher's own template keeps created-on mandatory.
  const { ctx: plain } = corpus('ietf-voucher@2018-05-09.yang');
  t.true((child(plain.modules.get('ietf-voucher')!.structures[0]!.nodes[0]!, 'created-on') as LeafSchema).mandatory);
});
