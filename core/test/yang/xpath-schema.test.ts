/**
 * Schema paths (yang/xpath resolveSchemaPath): leafref and deref paths resolved to their schema node,
 * errors naming the step that fails, prefix fallback, and deref cycles reported.
 */
import test from 'ava';
import { resolveSchemaPath } from '../../src/yang/xpath';
import type { LeafSchema } from '../../src/yang/schema';
import { container, fixtureContext, fixtureModule, leaf, leafrefType, list, xp, stringType } from './xpath-fixture';

// ietf-interfaces-like model, plus a second module that refers into it.
const ifm = fixtureModule('ietf-interfaces', 'if');
const ipm = fixtureModule('ietf-ip', 'ip', { if: 'ietf-interfaces' });
const ifName = leaf('name', ifm);
const ifType = leaf('type', ifm);
const iface = list('interface', ifm, ['name'], [ifName, ifType, leaf('enabled', ifm)]);
const interfaces = container('interfaces', ifm, [iface]);
const refLeaf = leaf('ifname', ipm, leafrefType(xp('/if:interfaces/if:interface/if:name', ipm)));
const relLeaf = leaf('peer', ipm, leafrefType(xp('../ifname', ipm)));
const predLeaf = leaf('peer-type', ipm, leafrefType(xp('/if:interfaces/if:interface[if:name = current()/../ifname]/if:type', ipm)));
const derefLeaf = leaf('deref-type', ipm, leafrefType(xp('deref(../ifname)/../if:type', ipm)));
const bindings = list('binding', ipm, ['ifname'], [refLeaf, relLeaf, predLeaf, derefLeaf]);
const top = container('bindings', ipm, [bindings]);
const ctx = fixtureContext([ifm, ipm], [interfaces, top]);

function target(l: LeafSchema): string {
  const r = resolveSchemaPath(l.type.leafref!.path, l, ctx);
  return 'node' in r ? `${r.node.module.name}:${r.node.name}` : r.error;
}

test('absolute, relative, predicated and deref paths reach their leaf', (t) => {
  t.is(target(refLeaf), 'ietf-interfaces:name');
  t.is(target(relLeaf), 'ietf-ip:ifname');
  t.is(target(predLeaf), 'ietf-interfaces:type');
  t.is(target(derefLeaf), 'ietf-interfaces:type');
});

function tryPath(source: string, from: LeafSchema = refLeaf): string {
  const r = resolveSchemaPath(xp(source, ipm), from, ctx);
  return 'node' in r ? r.node.name : r.error;
}

test('unresolvable paths are errors naming the step', (t) => {
  t.is(
    tryPath('/if:interfaces/if:iface/if:name'),
    'leafref path "/if:interfaces/if:iface/if:name" names "if:iface", which is not a data node under container /ietf-interfaces:interfaces',
  );
  t.is(tryPath('/x:interfaces'), 'leafref path "/x:interfaces" uses prefix "x", which module ietf-ip does not declare');
  t.is(
    tryPath('/if:interfaces/if:interface'),
    'leafref path "/if:interfaces/if:interface" targets list /ietf-interfaces:interfaces/interface, which is not a leaf or leaf-list',
  );
  t.is(tryPath('../../../../..'), 'leafref path "../../../../.." goes above the root with \'..\'');
  t.is(
    tryPath('/if:interfaces/if:interface[if:nom = current()/../ifname]/if:type'),
    'leafref path "/if:interfaces/if:interface[if:nom = current()/../ifname]/if:type" names "if:nom", which is not a data node under list /ietf-interfaces:interfaces/interface',
  );
  t.is(tryPath('deref(../peer-type)/../if:name'), 'name');
  t.regex(tryPath('deref(../enabled)'), /names "enabled", which is not a data node/);
  t.regex(tryPath('/if:interfaces/if:interface/if:name +'), /invalid XPath .* at offset \d+/);
  t.regex(tryPath('count(/if:interfaces)'), /uses count\(\) where a node-set is needed/);
});

test('unprefixed names fall back to the module of the node the path is on', (t) => {
  // A grouping written in ietf-interfaces, used under ietf-ip: its unprefixed names are ietf-ip's.
  const r = resolveSchemaPath(xp('../ifname', ifm), relLeaf, ctx);
  t.true('node' in r && r.node === refLeaf);
});

test('a deref cycle is reported, not followed forever', (t) => {
  const m = fixtureModule('loop', 'l');
  const a = leaf('a', m, stringType);
  const b = leaf('b', m, stringType);
  (a as { type: unknown }).type = leafrefType(xp('deref(../b)', m));
  (b as { type: unknown }).type = leafrefType(xp('deref(../a)', m));
  const c = container('c', m, [a, b]);
  const lctx = fixtureContext([m], [c]);
  const r = resolveSchemaPath((a.type as LeafSchema['type']).leafref!.path, a, lctx);
  t.true('error' in r);
  if ('error' in r) t.regex(r.error, /too deep/);
});
