/**
 * The whole OpenConfig release (every module yanglint passes, with or without -i, compiled together with -i): every leafref
 * path resolves to a leaf, and every `when` and `must` evaluates without a fault at an instance of
 * its node in an otherwise empty tree (prefixes, functions and paths all known).
 */
import ava from 'ava';
import { CORPUS, corpusPath, corpusTest } from '../corpus';
import fs from 'node:fs';
import { ModuleRepository } from '../../src/yang/repository';
import { compileSchema } from '../../src/yang/compiler';
import { type SchemaNode, dataChildren } from '../../src/yang/schema';
import { XNode, XPathSession, evaluateXPath, resolveSchemaPath, leafrefOf } from '../../src/yang/xpath';
import type { DataNode } from '../../src/data/tree';

const test = corpusTest(ava, 'XPath over the published OpenConfig release');
function compileRelease() {
  const oracle = fs
    .readFileSync(corpusPath('oracle/compile-results.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'));
  const modules = oracle
    .filter((r) => r[0]!.startsWith('openconfig/release') && r[1] === 'module' && r[6]!.startsWith('PASS'))
    .map((r) => r[2]!);
  return {
    modules,
    ctx: compileSchema(new ModuleRepository([corpusPath('openconfig/release/models'), corpusPath('openconfig/third_party/ietf')]), {
      modules,
      implementImports: true,
    }),
  };
}
/** The whole release compiled once; without the corpus every test here is registered as skipped. */
const { modules, ctx } = CORPUS === undefined ? { modules: [], ctx: undefined as never } : compileRelease();

/** A stand-in data node for a schema node (no value, no children): enough to evaluate its expressions. */
function instance(s: SchemaNode): DataNode | undefined {
  switch (s.kind) {
    case 'container':
      return { kind: 'container', schema: s, children: [] };
    case 'list':
      return { kind: 'entry', schema: s, children: [] };
    case 'leaf':
      return { kind: 'leaf', schema: s, value: '' };
    case 'leaf-list':
      return { kind: 'leaf-list', schema: s, values: [''] };
    case 'anydata':
    case 'anyxml':
      return { kind: 'any', schema: s, value: null };
    default:
      return undefined;
  }
}

function walk(children: readonly SchemaNode[], parent: XNode, visit: (s: SchemaNode, at: XNode) => void, depth = 0): void {
  if (depth > 64) return;
  for (const s of dataChildren(children)) {
    const data = instance(s);
    if (!data) continue;
    const at = new XNode(data as never, parent, 0, 0);
    visit(s, at);
    walk(s.children, at, visit, depth + 1);
  }
}

test('compiling the OpenConfig release meets no leafref path fault', (t) => {
  t.true(modules.length > 150);
  const errors = ctx.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message);
  if (errors.length) t.log(`compiler faults (outside XPath): ${errors.join('; ')}`);
  t.deepEqual(
    errors.filter((m) => /path|xpath/i.test(m) && !/^Augment target/.test(m)),
    [],
  );
});

test('every leafref path in OpenConfig resolves to a leaf or leaf-list', (t) => {
  let resolved = 0;
  const failures: string[] = [];
  walk(ctx.data, XNode.root({ kind: 'root', children: [] }), (s) => {
    if (s.kind !== 'leaf' && s.kind !== 'leaf-list') return;
    const ref = leafrefOf(s.type);
    if (!ref) return;
    const r = resolveSchemaPath(ref.path, s, ctx);
    if ('error' in r) failures.push(r.error);
    else resolved++;
  });
  t.log(`${resolved} leafrefs resolved`);
  t.true(resolved > 400);
  t.deepEqual(failures.slice(0, 10), []);
});

test('every when and must in OpenConfig evaluates without a fault', (t) => {
  let evaluated = 0;
  const failures = new Set<string>();
  const session = new XPathSession();
  walk(ctx.data, XNode.root({ kind: 'root', children: [] }), (s, at) => {
    for (const x of [...s.when, ...s.musts.map((m) => m.xpath)]) {
      // A when placed by uses/augment has the parent as context; evaluating at the node itself also
      // exercises every prefix and function, which is what this test is about.
      const r = evaluateXPath(x, at, ctx, session);
      if ('error' in r) failures.add(r.error);
      evaluated++;
    }
  });
  t.log(`${evaluated} when/must evaluations`);
  t.true(evaluated > 100);
  t.deepEqual([...failures].slice(0, 10), []);
});
