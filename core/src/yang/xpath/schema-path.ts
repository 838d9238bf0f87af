/**
 * Schema-level XPath: resolves a leafref `path` (RFC 7950 §9.9.2) to the leaf or leaf-list it points
 * at, walking the compiled schema instead of data. Handles absolute and relative paths, `..`, `.`,
 * `current()`, `deref(...)` and predicates (whose paths are checked to name real nodes).
 *
 * Names: a prefix resolves through the expression's module (`SchemaXPath.contextModule.prefixes`);
 * an unprefixed name is looked up in the context module first and then in the module of the node the
 * expression sits on (RFC 7950 §6.4.1 gives the latter; a grouping's or typedef's own module is the
 * former, and models rely on both).
 *
 * In the accessible tree choice/case are invisible and so are an operation's input/output: a leaf of
 * an RPC's input has the RPC node as its parent, and an RPC node's parent is the root.
 */
import {
  type CompiledModule,
  type SchemaContext,
  type SchemaNode,
  type SchemaXPath,
  type YangType,
  dataParent,
  findDataChild,
  dataChildren,
} from '../schema';
import type { Expr, Step } from './ast';
import { formatExpr } from './ast';
import { compileXPath } from './parser';

/** A position in the schema's accessible tree: a node, or the root above the top-level nodes. */
export type SchemaPlace = SchemaNode | 'root';

/** How deep `deref()` may chain through leafrefs before giving up (a cycle in the model). */
const MAX_DEREF_DEPTH = 16;

class SchemaPathFault {
  constructor(readonly reason: string) {}
}

interface Env {
  readonly xpath: SchemaXPath;
  readonly ctx: SchemaContext;
  /** The node `current()` returns: the node the expression is defined on. */
  readonly current: SchemaNode;
  /** Module names an unprefixed name may belong to, in lookup order. */
  readonly defaultModules: readonly string[];
  readonly derefDepth: number;
}

/**
 * Resolves a leafref path to its target leaf or leaf-list.
 * @param xpath the `path` argument with the module its prefixes belong to
 * @param contextNode the leaf (or leaf-list) whose type is the leafref
 * @returns the target, or a reason naming the step that failed
 */
export function resolveSchemaPath(
  xpath: SchemaXPath,
  contextNode: SchemaNode,
  ctx: SchemaContext,
): { node: SchemaNode } | { error: string } {
  return resolveAt(xpath, contextNode, ctx, 0);
}

function resolveAt(
  xpath: SchemaXPath,
  contextNode: SchemaNode,
  ctx: SchemaContext,
  derefDepth: number,
): { node: SchemaNode } | { error: string } {
  const compiled = compileXPath(xpath);
  if ('error' in compiled) return compiled;
  const env: Env = { xpath, ctx, current: contextNode, defaultModules: defaultModules(xpath.contextModule, contextNode), derefDepth };
  try {
    const result = evalNodes(compiled.expr, [contextNode], env);
    if (result.length !== 1) {
      return { error: fail(xpath, result.length === 0 ? 'selects no node' : `selects ${result.length} nodes, not one`) };
    }
    const target = result[0]!;
    if (target === 'root' || (target.kind !== 'leaf' && target.kind !== 'leaf-list')) {
      return { error: fail(xpath, `targets ${describePlace(target)}, which is not a leaf or leaf-list`) };
    }
    return { node: target };
  } catch (e) {
    if (e instanceof SchemaPathFault) return { error: fail(xpath, e.reason) };
    throw e;
  }
}

function fail(xpath: SchemaXPath, reason: string): string {
  return `leafref path "${xpath.source}" ${reason}`;
}

/** The modules an unprefixed name may belong to: the expression's module, then the node's own. */
export function defaultModules(contextModule: CompiledModule, node: SchemaNode | undefined): string[] {
  const out = [contextModule.name];
  if (node && node.module.name !== contextModule.name) out.push(node.module.name);
  return out;
}

/** Evaluates an expression that must yield schema nodes (a path, `current()`, `deref()`). */
function evalNodes(expr: Expr, context: readonly SchemaPlace[], env: Env): SchemaPlace[] {
  switch (expr.kind) {
    case 'path': {
      let set: SchemaPlace[];
      if (expr.start === 'root') set = ['root'];
      else if (expr.start === 'context') set = [...context];
      else set = evalNodes(expr.start, context, env);
      for (const step of expr.steps) set = applyStep(step, set, env);
      return set;
    }
    case 'call':
      if (expr.prefix === undefined && expr.name === 'current' && expr.args.length === 0) return [env.current];
      if (expr.prefix === undefined && expr.name === 'deref' && expr.args.length === 1) return [deref(expr.args[0]!, context, env)];
      throw new SchemaPathFault(`uses ${expr.name}() where a node-set is needed`);
    case 'filter': {
      const set = evalNodes(expr.primary, context, env);
      for (const p of expr.predicates) for (const n of set) checkPredicate(p, n, env);
      return set;
    }
    case 'binary':
      if (expr.op === '|') return dedupe([...evalNodes(expr.left, context, env), ...evalNodes(expr.right, context, env)]);
      throw new SchemaPathFault(`uses '${formatExpr(expr)}' where a node-set is needed`);
    default:
      throw new SchemaPathFault(`uses '${formatExpr(expr)}' where a node-set is needed`);
  }
}

function applyStep(step: Step, set: readonly SchemaPlace[], env: Env): SchemaPlace[] {
  const out: SchemaPlace[] = [];
  for (const place of set) {
    switch (step.axis) {
      case 'self':
        if (matchesTest(place, step, env)) out.push(place);
        break;
      case 'parent': {
        if (place === 'root') throw new SchemaPathFault("goes above the root with '..'");
        const parent = schemaParent(place);
        if (matchesTest(parent, step, env)) out.push(parent);
        break;
      }
      case 'child':
        out.push(...childrenMatching(place, step, env));
        break;
      default:
        throw new SchemaPathFault(`uses the ${step.axis} axis, which a leafref path cannot`);
    }
  }
  const result = dedupe(out);
  for (const p of step.predicates) for (const n of result) checkPredicate(p, n, env);
  return result;
}

/** Nodes a child step selects below `place`; a named step that selects nothing is a fault. */
function childrenMatching(place: SchemaPlace, step: Step, env: Env): SchemaPlace[] {
  const test = step.test;
  if (test.kind !== 'name') return test.kind === 'node' ? [...dataChildrenOf(place, env)] : [];
  const modules = test.prefix === undefined ? env.defaultModules : [moduleOfPrefix(test.prefix, env)];
  if (test.local === '*') return [...dataChildrenOf(place, env)].filter((c) => modules.includes(c.module.name));
  for (const m of modules) {
    const found = findChild(place, m, test.local, env);
    if (found) return [found];
  }
  const written = test.prefix === undefined ? test.local : `${test.prefix}:${test.local}`;
  throw new SchemaPathFault(`names "${written}", which is not a data node under ${describePlace(place)}`);
}

function moduleOfPrefix(prefix: string, env: Env): string {
  const m = env.xpath.contextModule.prefixes.get(prefix);
  if (m === undefined) throw new SchemaPathFault(`uses prefix "${prefix}", which module ${env.xpath.contextModule.name} does not declare`);
  return m;
}

function findChild(place: SchemaPlace, moduleName: string, name: string, env: Env): SchemaNode | undefined {
  if (place === 'root') {
    return (
      findDataChild(env.ctx.data, moduleName, name) ??
      env.ctx.rpcs.find((r) => r.name === name && r.module.name === moduleName) ??
      env.ctx.notifications.find((r) => r.name === name && r.module.name === moduleName)
    );
  }
  if (place.kind === 'rpc' || place.kind === 'action') {
    return findDataChild(place.input.children, moduleName, name) ?? findDataChild(place.output.children, moduleName, name);
  }
  return findDataChild(place.children, moduleName, name);
}

function* dataChildrenOf(place: SchemaPlace, env: Env): Generator<SchemaNode> {
  if (place === 'root') {
    yield* dataChildren(env.ctx.data);
    return;
  }
  if (place.kind === 'rpc' || place.kind === 'action') {
    yield* dataChildren(place.input.children);
    yield* dataChildren(place.output.children);
    return;
  }
  yield* dataChildren(place.children);
}

/** The parent in the accessible tree: skips choice/case and an operation's input/output. */
export function schemaParent(node: SchemaNode): SchemaPlace {
  let p = dataParent(node);
  if (p && (p.kind === 'input' || p.kind === 'output')) p = p.parent;
  return p ?? 'root';
}

function matchesTest(place: SchemaPlace, step: Step, env: Env): boolean {
  const test = step.test;
  if (test.kind === 'node') return true;
  if (test.kind !== 'name' || place === 'root') return false;
  const modules = test.prefix === undefined ? env.defaultModules : [moduleOfPrefix(test.prefix, env)];
  return modules.includes(place.module.name) && (test.local === '*' || test.local === place.name);
}

/** `deref(x)`: the node that leaf `x`'s leafref points at. */
function deref(arg: Expr, context: readonly SchemaPlace[], env: Env): SchemaNode {
  const set = evalNodes(arg, context, env);
  const leaf = set.length === 1 ? set[0]! : undefined;
  if (!leaf || leaf === 'root' || (leaf.kind !== 'leaf' && leaf.kind !== 'leaf-list')) {
    throw new SchemaPathFault(`calls deref() on ${formatExpr(arg)}, which is not one leaf`);
  }
  const ref = leafrefOf(leaf.type);
  if (!ref) throw new SchemaPathFault(`calls deref() on ${describePlace(leaf)}, which is not a leafref`);
  if (ref.target) return ref.target;
  if (env.derefDepth >= MAX_DEREF_DEPTH) throw new SchemaPathFault('chains deref() too deep (a cycle of leafrefs?)');
  const r = resolveAt(ref.path, leaf, env.ctx, env.derefDepth + 1);
  if ('error' in r) throw new SchemaPathFault(`calls deref() on ${describePlace(leaf)}, whose ${r.error}`);
  return r.node;
}

/** The leafref part of a type (a union's first leafref member counts). */
export function leafrefOf(type: YangType): NonNullable<YangType['leafref']> | undefined {
  if (type.leafref) return type.leafref;
  for (const m of type.union ?? []) {
    const r = leafrefOf(m);
    if (r) return r;
  }
  return undefined;
}

/**
 * Checks that the paths inside a predicate name real nodes. The predicate's context node is the
 * node being filtered; `current()` is the leafref's own leaf.
 */
function checkPredicate(expr: Expr, place: SchemaPlace, env: Env): void {
  switch (expr.kind) {
    case 'path':
    case 'filter':
      evalNodes(expr, [place], env);
      return;
    case 'binary':
      checkPredicate(expr.left, place, env);
      checkPredicate(expr.right, place, env);
      return;
    case 'negate':
      checkPredicate(expr.operand, place, env);
      return;
    case 'call':
      if (expr.name === 'current' || expr.name === 'deref') {
        evalNodes(expr, [place], env);
        return;
      }
      for (const a of expr.args) checkPredicate(a, place, env);
      return;
    default:
      return;
  }
}

function dedupe(set: SchemaPlace[]): SchemaPlace[] {
  return set.length < 2 ? set : [...new Set(set)];
}

/** `/ietf-interfaces:interfaces/interface`: a schema node's data path, for messages. */
export function schemaPathOf(node: SchemaNode): string {
  const parts: string[] = [];
  let n: SchemaPlace = node;
  let childModule: string | undefined;
  const names: Array<{ module: string; name: string }> = [];
  while (n !== 'root') {
    names.push({ module: n.module.name, name: n.name });
    n = schemaParent(n);
  }
  for (let k = names.length - 1; k >= 0; k--) {
    const { module, name } = names[k]!;
    parts.push(module !== childModule ? `${module}:${name}` : name);
    childModule = module;
  }
  return `/${parts.join('/')}`;
}

function describePlace(place: SchemaPlace): string {
  return place === 'root' ? 'the root' : `${place.kind} ${schemaPathOf(place)}`;
}
