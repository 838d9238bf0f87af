/**
 * Compiler tests on the published modules of the corpus (ietf-interfaces/ietf-ip, ietf-routing + OSPF,
 * OpenConfig interfaces, every module yanglint compiles) compared with yanglint's trees and verdicts,
 * skipped without the corpus; plus the test models for features and the compile cache, and small
 * inline modules for refine, choice, deviations, identities and the error messages.
 */
import test from 'ava';
import * as fs from 'node:fs';
import { ModuleRepository } from '../../src/yang/repository';
import { compileSchema } from '../../src/yang/compiler';
import type { LeafSchema, ListSchema, SchemaContext, SchemaNode, ChoiceSchema } from '../../src/yang/schema';
import { findDataChild } from '../../src/yang/schema';
import { compiledRows, oracleRows } from './compiler-oracle';
import { corpusPath, corpusTest } from '../corpus';
import { MODEL_DIRS } from '../data/fixture';
import { testModel } from '../test-models';

const corpusOnly = corpusTest(test, 'the compiler against yanglint on the published modules');
const IETF = () => ['ietf', 'ieee'].map((d) => corpusPath(d));
const OC = () => ['openconfig/release/models', 'openconfig/third_party/ietf'].map((d) => corpusPath(d));
const errors = (ctx: SchemaContext) => ctx.diagnostics.filter((d) => d.severity === 'error');

function at(ctx: SchemaContext, ...steps: string[]): SchemaNode {
  let [module, name] = steps[0]!.split(':') as [string, string];
  let node = ctx.data.find((n) => n.name === name && n.module.name === module);
  for (const s of steps.slice(1)) {
    if (s.includes(':')) [module, name] = s.split(':') as [string, string];
    else name = s;
    const direct: SchemaNode | undefined =
      node && (node.children as readonly SchemaNode[]).find((c) => c.name === name && c.module.name === module);
    node = direct ?? (node && findDataChild(node.children, module, name));
  }
  if (!node) throw new Error(`no node ${steps.join('/')}`);
  return node;
}

function inline(texts: Record<string, string>): ModuleRepository {
  const repo = new ModuleRepository([...MODEL_DIRS]);
  for (const [file, text] of Object.entries(texts)) repo.addText(file, text);
  return repo;
}

function sameTree(t: import('ava').ExecutionContext, ctx: SchemaContext, top: SchemaNode, treeFile: string): void {
  const ours = compiledRows(top).map((r) => `${r.depth} ${r.name}`);
  const theirs = oracleRows(treeFile).map((r) => `${r.depth} ${r.name}`);
  t.deepEqual(ours, theirs);
  void ctx;
}

corpusOnly('ietf-interfaces + ietf-ip: augments, keys, config, features match yanglint', (t) => {
  const ctx = compileSchema(new ModuleRepository(IETF()), {
    modules: [corpusPath('ietf/ietf-interfaces@2018-02-20.yang'), corpusPath('ietf/ietf-ip@2018-02-22.yang')],
  });
  t.deepEqual(errors(ctx), []);
  const iface = at(ctx, 'ietf-interfaces:interfaces', 'interface') as ListSchema;
  t.deepEqual(
    iface.keys.map((k) => k.name),
    ['name'],
  );
  t.true(iface.keys[0]!.isKey);
  t.false(at(ctx, 'ietf-interfaces:interfaces', 'interface', 'oper-status').config);
  const ipv4 = at(ctx, 'ietf-interfaces:interfaces', 'interface', 'ietf-ip:ipv4');
  t.is(ipv4.module.name, 'ietf-ip');
  const subnet = at(ctx, 'ietf-interfaces:interfaces', 'interface', 'ietf-ip:ipv4', 'address', 'subnet') as unknown as ChoiceSchema;
  t.deepEqual(
    subnet.children.map((c) => [c.name, c.shorthand]),
    [
      ['prefix-length', true],
      ['netmask', true],
    ],
  );
  const ifType = at(ctx, 'ietf-interfaces:interfaces', 'interface', 'type') as LeafSchema;
  t.is(ifType.type.builtin, 'identityref');
  t.deepEqual(
    ifType.type.identityBases!.map((b) => b.name),
    ['interface-type'],
  );
  sameTree(t, ctx, at(ctx, 'ietf-interfaces:interfaces'), 'ietf-interfaces+ietf-ip.tree');
});

test('features: -F with an empty list removes if-feature nodes; default enables all of implemented modules', (t) => {
  const file = testModel('ietf-interfaces@2018-02-20.yang');
  const all = compileSchema(new ModuleRepository([...MODEL_DIRS]), { modules: [file] });
  t.truthy(findDataChild(at(all, 'ietf-interfaces:interfaces', 'interface').children, 'ietf-interfaces', 'if-index'));
  t.true(all.modules.get('ietf-interfaces')!.features.get('if-mib')!.enabled);
  const none = compileSchema(new ModuleRepository([...MODEL_DIRS]), { modules: [file], features: new Map([['ietf-interfaces', []]]) });
  t.falsy(findDataChild(at(none, 'ietf-interfaces:interfaces', 'interface').children, 'ietf-interfaces', 'if-index'));
  t.false(none.modules.get('ietf-interfaces')!.features.get('if-mib')!.enabled);
  t.not(all, none);
});

corpusOnly("ietf-routing + ipv4/ipv6 unicast + ospf: augments of augments resolve, in yanglint's order", (t) => {
  const ctx = compileSchema(new ModuleRepository(IETF()), {
    modules: [
      'ietf-routing@2018-03-13',
      'ietf-ipv4-unicast-routing@2018-03-13',
      'ietf-ipv6-unicast-routing@2018-03-13',
      'ietf-ospf@2022-10-19',
    ].map((m) => corpusPath('ietf', `${m}.yang`)),
  });
  t.deepEqual(errors(ctx), []);
  const ospf = at(ctx, 'ietf-routing:routing', 'control-plane-protocols', 'control-plane-protocol', 'ietf-ospf:ospf');
  t.is(ospf.module.name, 'ietf-ospf');
  t.truthy(
    at(
      ctx,
      'ietf-routing:routing',
      'control-plane-protocols',
      'control-plane-protocol',
      'ietf-ospf:ospf',
      'areas',
      'area',
      'interfaces',
      'interface',
    ),
  );
  // Same nodes, same depths, same order as yanglint: augments of several modules grouped in
  // module-name order (v4ur before v6ur before ospf), and ietf-ospf's two augments of its own
  // interface list in libyang's application order (instance-id before topologies).
  sameTree(t, ctx, at(ctx, 'ietf-routing:routing'), 'ietf-routing+ipv4-unicast+ipv6-unicast+ospf.tree');
});

corpusOnly('openconfig-interfaces with its augmenting modules (-i): leafrefs resolve, tree matches yanglint node for node', (t) => {
  const files = [
    'interfaces/openconfig-interfaces',
    'interfaces/openconfig-if-ethernet',
    'interfaces/openconfig-if-ip',
    'interfaces/openconfig-if-aggregate',
    'vlan/openconfig-vlan',
  ].map((f) => corpusPath('openconfig/release/models', `${f}.yang`));
  const ctx = compileSchema(new ModuleRepository(OC()), { modules: files, implementImports: true });
  t.deepEqual(errors(ctx), []);
  const name = at(ctx, 'openconfig-interfaces:interfaces', 'interface', 'name') as LeafSchema;
  t.is(name.type.builtin, 'leafref');
  t.is(name.type.leafref!.target as SchemaNode | undefined, at(ctx, 'openconfig-interfaces:interfaces', 'interface', 'config', 'name'));
  // In yanglint's order too: oc-lag:aggregation before oc-eth:ethernet (module-name order).
  sameTree(t, ctx, at(ctx, 'openconfig-interfaces:interfaces'), 'openconfig-interfaces+if-ethernet+if-ip+if-aggregate+vlan.tree');
});

const BASE = `module base { yang-version 1.1; namespace "urn:base"; prefix b;
  feature fast;
  identity proto; identity ospf { base proto; } identity ospfv3 { base ospf; }
  typedef pct { type uint8 { range "0..100"; } default 50; units percent; }
  grouping endpoint {
    leaf host { type string { length "1..64"; pattern "[a-z]+" { modifier invert-match; } } }
    leaf port { type uint16; default 22; }
    container opts { leaf speed { if-feature fast; type pct; } }
    choice transport { default tcp; leaf tcp { type empty; } case udp { leaf udp { type empty; } } }
  }
  container top {
    list server { key "name"; unique "ep/host";
      leaf name { type string; }
      container ep { uses endpoint { refine port { default 830; mandatory false; } refine opts { presence "on"; } } }
      leaf kind { type identityref { base proto; } }
      leaf color { type enumeration { enum red; enum green { value 5; } enum blue; } }
      leaf flags { type bits { bit a; bit b { position 3; } bit c; } }
      leaf ref { type leafref { path "../name"; } }
    }
    container state { config false; leaf up { type boolean; } }
  }
  rpc reset { input { leaf delay { type pct; } } }
  notification changed { leaf what { type string; } }
}`;

test('inline: refine, choice default and shorthand, typedef default/units, enums, bits, identities, rpc, notification', (t) => {
  const ctx = compileSchema(inline({ 'base.yang': BASE }), { modules: ['base'] });
  t.deepEqual(errors(ctx), []);
  const server = at(ctx, 'base:top', 'server') as ListSchema;
  t.deepEqual(
    server.unique.map((u) => u.map((x) => x.path.join('/'))),
    [['ep/host']],
  );
  const port = at(ctx, 'base:top', 'server', 'ep', 'port') as LeafSchema;
  t.is(port.default, '830');
  t.is((at(ctx, 'base:top', 'server', 'ep', 'opts') as { presence?: string }).presence, 'on');
  const speed = at(ctx, 'base:top', 'server', 'ep', 'opts', 'speed') as LeafSchema;
  t.is(speed.default, '50');
  t.is(speed.units, 'percent');
  t.deepEqual(speed.type.range!.intervals, [{ min: 0n, max: 100n }]);
  const host = at(ctx, 'base:top', 'server', 'ep', 'host') as LeafSchema;
  t.true(host.type.patterns[0]!.inverted);
  t.deepEqual(host.type.length!.intervals, [{ min: 1, max: 64 }]);
  const choice = at(ctx, 'base:top', 'server', 'ep', 'transport') as unknown as ChoiceSchema;
  t.is(choice.defaultCase?.name, 'tcp');
  t.true(choice.defaultCase!.shorthand);
  const color = at(ctx, 'base:top', 'server', 'color') as LeafSchema;
  t.deepEqual(
    color.type.enums!.map((e) => [e.name, e.value]),
    [
      ['red', 0],
      ['green', 5],
      ['blue', 6],
    ],
  );
  const flags = at(ctx, 'base:top', 'server', 'flags') as LeafSchema;
  t.deepEqual(
    flags.type.bits!.map((b) => [b.name, b.position]),
    [
      ['a', 0],
      ['b', 3],
      ['c', 4],
    ],
  );
  const proto = ctx.modules.get('base')!.identities.get('proto')!;
  t.deepEqual([...proto.derived].map((i) => i.name).sort(), ['ospf', 'ospfv3']);
  const ref = at(ctx, 'base:top', 'server', 'ref') as LeafSchema;
  t.is(ref.type.leafref!.target as SchemaNode | undefined, at(ctx, 'base:top', 'server', 'name'));
  t.false(at(ctx, 'base:top', 'state', 'up').config);
  t.is(ctx.rpcs[0]!.input.children[0]!.name, 'delay');
  t.false(ctx.rpcs[0]!.input.children[0]!.config);
  t.is(ctx.notifications[0]!.name, 'changed');
  // With the feature off, the if-feature leaf is absent.
  const off = compileSchema(inline({ 'base.yang': BASE }), { modules: ['base'], features: new Map([['base', []]]) });
  t.deepEqual(at(off, 'base:top', 'server', 'ep', 'opts').children, []);
});

test('inline: deviations not-supported, replace, add; augment from another module', (t) => {
  const dev = `module dev { namespace "urn:dev"; prefix d; import base { prefix b; }
    deviation /b:top/b:state { deviate not-supported; }
    deviation /b:top/b:server/b:color { deviate replace { type string; } }
    deviation /b:top/b:server/b:name { deviate add { must "string-length(.) > 1"; } }
    augment /b:top/b:server { leaf extra { type int32; } }
  }`;
  const ctx = compileSchema(inline({ 'base.yang': BASE, 'dev.yang': dev }), { modules: ['dev'] });
  t.deepEqual(errors(ctx), []);
  t.true(ctx.modules.get('base')!.implemented);
  t.throws(() => at(ctx, 'base:top', 'state'));
  t.is((at(ctx, 'base:top', 'server', 'color') as LeafSchema).type.builtin, 'string');
  t.is(at(ctx, 'base:top', 'server', 'name').musts.length, 1);
  t.is(at(ctx, 'base:top', 'server', 'dev:extra').module.name, 'dev');
});

test('errors carry file, line, column and module; other modules still compile', (t) => {
  const bad = `module bad { namespace "urn:bad"; prefix x; import nosuch { prefix n; }
  grouping g1 { uses g2; } grouping g2 { uses g1; }
  container c { uses g1; leaf l { type unknown-type; } uses missing;
    list k { key "id"; leaf other { type string; } } }
  augment /x:nope { leaf z { type string; } }
  leaf d { type uint8; default 300; }
}`;
  const ctx = compileSchema(inline({ 'bad.yang': bad, 'base.yang': BASE }), { modules: ['bad', 'base'] });
  const msgs = errors(ctx).map((d) => `${d.module} ${d.position.line} ${d.message}`);
  t.true(
    msgs.some((m) => m.startsWith('bad 1 Importing "nosuch"')),
    msgs.join('\n'),
  );
  t.true(
    msgs.some((m) => /^bad 2 Grouping "g\d" references itself/.test(m)),
    msgs.join('\n'),
  );
  t.true(
    msgs.some((m) => m.startsWith('bad 3 Referenced type "unknown-type" not found.')),
    msgs.join('\n'),
  );
  t.true(
    msgs.some((m) => m.startsWith('bad 3 Grouping "missing" referenced by a uses statement not found.')),
    msgs.join('\n'),
  );
  t.true(
    msgs.some((m) => m.startsWith('bad 4 The list\'s key "id" not found.')),
    msgs.join('\n'),
  );
  t.true(
    msgs.some((m) => m.startsWith('bad 5 Augment target node "/x:nope" from module "bad" was not found.')),
    msgs.join('\n'),
  );
  t.true(
    msgs.some((m) => m.startsWith('bad 6 Invalid default - value "300" does not fit the type')),
    msgs.join('\n'),
  );
  t.true(errors(ctx).every((d) => d.position.file === 'bad.yang' && d.position.column > 0));
  t.false(ctx.diagnostics.some((d) => d.module === 'base' && d.severity === 'error'));
  t.truthy(at(ctx, 'base:top', 'server'));
});

test('the same module set compiled twice is the same context (cache keyed by files, content, options)', (t) => {
  const repo = new ModuleRepository([...MODEL_DIRS]);
  const req = { modules: [testModel('ietf-ip@2018-02-22.yang')] };
  const a = compileSchema(repo, req);
  t.is(compileSchema(repo, req), a);
  t.not(compileSchema(repo, { ...req, implementImports: true }), a);
});

/** yanglint's verdict rows (oracle/compile-results.tsv), read by the corpus tests when they run. */
const rows = () =>
  fs
    .readFileSync(corpusPath('oracle/compile-results.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'));
function dirsFor(file: string): string[] {
  if (file.startsWith('ietf')) return ['ietf', 'ieee'];
  if (file.startsWith('ieee')) return ['ieee', 'ietf'];
  if (file.startsWith('openconfig')) return ['openconfig/release/models', 'openconfig/third_party/ietf'];
  return ['opendaylight', 'ietf', 'ietf-older-revisions'];
}

corpusOnly('every module yanglint compiles (PASS and PASS(-i)) compiles without errors', (t) => {
  const repos = new Map<string, ModuleRepository>();
  const failed: string[] = [];
  let count = 0;
  for (const [file, kind, , , , , verdict] of rows()) {
    if (kind !== 'module' || (verdict !== 'PASS' && verdict !== 'PASS(-i)')) continue;
    const dirs = dirsFor(file!);
    let repo = repos.get(dirs.join());
    if (!repo) repos.set(dirs.join(), (repo = new ModuleRepository(dirs.map((d) => corpusPath(d)))));
    const ctx = compileSchema(repo, { modules: [corpusPath(file!)], implementImports: verdict !== 'PASS' });
    const errs = errors(ctx);
    if (errs.length > 0) failed.push(`${file}: ${errs[0]!.message}`);
    count++;
  }
  t.is(count, 437);
  t.deepEqual(failed, []);
});

corpusOnly('all OpenConfig modules compile together in one context (-i), without errors', (t) => {
  const files = rows()
    .filter((r) => r[0]!.startsWith('openconfig/') && r[1] === 'module')
    .map((r) => corpusPath(r[0]!));
  t.is(files.length, 181);
  const start = Date.now();
  const ctx = compileSchema(new ModuleRepository(OC()), { modules: files, implementImports: true });
  const ms = Date.now() - start;
  t.log(`181 OpenConfig modules: ${ms} ms, ${ctx.data.length} top-level nodes`);
  t.deepEqual(
    errors(ctx).map((d) => d.message),
    [],
  );
});
