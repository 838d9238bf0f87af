/**
 * Data-level XPath evaluation (W3C XPath 1.0 §2-§4 with YANG's accessible tree, RFC 7950 §6.4.1):
 * location paths over `XNode` cursors, predicates, node-set comparisons, arithmetic and the function
 * library of `functions.ts`. Faults (unknown prefix or function, wrong arity) come back as errors,
 * never as exceptions.
 *
 * Speed: a child step that names a list and compares a key leaf with an entry-independent value
 * (`interface[name = current()/../ifname]`) looks the entries up in a key index (key-index.ts), so
 * leafref and must checks stay linear in the tree. The shared types and the env live in
 * eval-context.ts; the env carries `evaluate` so the function library need not import this file.
 */
import type { CompiledModule, SchemaContext, SchemaXPath } from '../schema';
import type { Expr, NodeTest, Step } from './ast';
import { type EvalEnv, type Focus, type XValue, XPathEvalFault, XPathSession, moduleMatches, rootOf } from './eval-context';
import { callFunction, instanceIdentifierTargets } from './functions';
import { keyLookup } from './key-index';
import { XNode, type XData, expandChild, normalizeSet } from './nodes';
import { compileXPath } from './parser';
import { compare, toBoolean, toNumber } from './values';

export { toBoolean, toNumber, toStringValue, stringToNumber, numberToString } from './values';
export { type EvalEnv, type Evaluate, type Focus, type XValue, XPathEvalFault, XPathSession, rootOf } from './eval-context';

/**
 * Evaluates a model's expression (`when`, `must`, leafref `path`) with `node` as both context node
 * and `current()`.
 */
export function evaluateXPath(
  xpath: SchemaXPath,
  node: XNode,
  ctx: SchemaContext,
  session = new XPathSession(),
): { value: XValue } | { error: string } {
  const compiled = compileXPath(xpath);
  if ('error' in compiled) return compiled;
  const module = xpath.contextModule;
  const env: EvalEnv = {
    ctx,
    current: node,
    session,
    contextModule: module,
    resolvePrefix: (p) => module.prefixes.get(p),
    defaultModules: defaultModulesFor(module, node),
    evaluate,
  };
  try {
    return { value: evaluate(compiled.expr, { node, position: 1, size: 1 }, env) };
  } catch (e) {
    if (e instanceof XPathEvalFault) return { error: `XPath "${xpath.source}": ${e.reason}` };
    throw e;
  }
}

/** `boolean(expr)`: how `when` and `must` read their expression. */
export function evaluateCondition(
  xpath: SchemaXPath,
  node: XNode,
  ctx: SchemaContext,
  session = new XPathSession(),
): { value: boolean } | { error: string } {
  const r = evaluateXPath(xpath, node, ctx, session);
  return 'error' in r ? r : { value: toBoolean(r.value) };
}

/**
 * The nodes an RFC 7951 instance-identifier (`/ietf-interfaces:interfaces/interface[name='eth0']`)
 * names in the tree under `root`. Prefixes there are module names; a name without one is in its
 * parent's module.
 */
export function resolveInstanceIdentifier(
  text: string,
  root: XNode,
  env: Pick<EvalEnv, 'ctx' | 'session'>,
): { nodes: XNode[] } | { error: string } {
  return instanceIdentifierTargets(text, root, { ...env, evaluate });
}

function defaultModulesFor(module: CompiledModule, node: XNode): string[] {
  const own = node.schema?.module.name;
  return own && own !== module.name ? [module.name, own] : [module.name];
}

/** Evaluates an expression at a focus. Throws `XPathEvalFault` on a fault. */
export function evaluate(expr: Expr, focus: Focus, env: EvalEnv): XValue {
  switch (expr.kind) {
    case 'literal':
      return expr.value;
    case 'number':
      return expr.value;
    case 'variable':
      throw new XPathEvalFault(`variable $${expr.name} is not defined (YANG gives none)`);
    case 'negate':
      return -toNumber(evaluate(expr.operand, focus, env));
    case 'call':
      return callFunction(expr, focus, env);
    case 'filter': {
      const base = evaluate(expr.primary, focus, env);
      if (!Array.isArray(base)) throw new XPathEvalFault('predicates can only filter a node-set');
      let set = base;
      for (const p of expr.predicates) set = filterByPredicate(set, p, env);
      return set;
    }
    case 'path':
      return evalPath(expr, focus, env);
    case 'binary':
      return evalBinary(expr, focus, env);
  }
}

function evalBinary(expr: Extract<Expr, { kind: 'binary' }>, focus: Focus, env: EvalEnv): XValue {
  switch (expr.op) {
    case 'or':
      return toBoolean(evaluate(expr.left, focus, env)) || toBoolean(evaluate(expr.right, focus, env));
    case 'and':
      return toBoolean(evaluate(expr.left, focus, env)) && toBoolean(evaluate(expr.right, focus, env));
    case '|': {
      const l = evaluate(expr.left, focus, env);
      const r = evaluate(expr.right, focus, env);
      if (!Array.isArray(l) || !Array.isArray(r)) throw new XPathEvalFault("'|' joins node-sets only");
      return normalizeSet([...l, ...r]);
    }
    case '+':
    case '-':
    case '*':
    case 'div':
    case 'mod': {
      const a = toNumber(evaluate(expr.left, focus, env));
      const b = toNumber(evaluate(expr.right, focus, env));
      switch (expr.op) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case 'div':
          return a / b;
        default:
          return a % b;
      }
    }
    default:
      return compare(expr.op, evaluate(expr.left, focus, env), evaluate(expr.right, focus, env), env);
  }
}

// ---------------------------------------------------------------------------------------------------
// Location paths

function evalPath(expr: Extract<Expr, { kind: 'path' }>, focus: Focus, env: EvalEnv): XNode[] {
  let set: XNode[];
  if (expr.start === 'root') set = [rootOf(focus.node)];
  else if (expr.start === 'context') set = [focus.node];
  else {
    const v = evaluate(expr.start, focus, env);
    if (!Array.isArray(v)) throw new XPathEvalFault('a path can only continue from a node-set');
    set = v;
  }
  for (const step of expr.steps) {
    if (set.length === 1) set = applyStep(step, set[0]!, env);
    else {
      const out: XNode[] = [];
      for (const n of set) for (const r of applyStep(step, n, env)) out.push(r);
      set = normalizeSet(out);
    }
  }
  return set;
}

const REVERSE_AXES = new Set(['ancestor', 'ancestor-or-self', 'preceding', 'preceding-sibling']);

/** One step from one context node: the selected nodes in document order. */
function applyStep(step: Step, node: XNode, env: EvalEnv): XNode[] {
  let set: XNode[];
  let predicates = step.predicates;
  const indexed = step.axis === 'child' && predicates.length > 0 ? keyLookup(step, node, env) : undefined;
  if (indexed) {
    set = indexed;
    predicates = predicates.slice(1);
  } else if (step.axis === 'child') {
    set = childStep(node, step.test, env);
  } else {
    set = [];
    for (const n of axisNodes(step, node)) if (matches(n, step.test, env)) set.push(n);
  }
  for (const p of predicates) set = filterByPredicate(set, p, env);
  if (REVERSE_AXES.has(step.axis)) set.reverse();
  return set;
}

/** Keeps the nodes for which the predicate holds; positions count in the order given. */
function filterByPredicate(set: XNode[], predicate: Expr, env: EvalEnv): XNode[] {
  const out: XNode[] = [];
  const size = set.length;
  for (let i = 0; i < size; i++) {
    const v = evaluate(predicate, { node: set[i]!, position: i + 1, size }, env);
    if (typeof v === 'number' ? v === i + 1 : toBoolean(v)) out.push(set[i]!);
  }
  return out;
}

/** The nodes along an axis, in axis order (nearest first for reverse axes). */
function* axisNodes(step: Step, node: XNode): Generator<XNode> {
  switch (step.axis) {
    case 'self':
      yield node;
      return;
    case 'parent':
      if (node.parent) yield node.parent;
      return;
    case 'child':
      yield* childrenFor(node, step.test);
      return;
    case 'ancestor':
      for (let p = node.parent; p; p = p.parent) yield p;
      return;
    case 'ancestor-or-self':
      for (let p: XNode | undefined = node; p; p = p.parent) yield p;
      return;
    case 'descendant':
      yield* descendants(node, false);
      return;
    case 'descendant-or-self':
      yield* descendants(node, true);
      return;
    case 'following-sibling':
    case 'preceding-sibling': {
      if (!node.parent) return;
      const siblings = [...node.parent.children()];
      const at = siblings.findIndex((s) => s.same(node));
      if (step.axis === 'following-sibling') for (let i = at + 1; i < siblings.length; i++) yield siblings[i]!;
      else for (let i = at - 1; i >= 0; i--) yield siblings[i]!;
      return;
    }
    case 'following':
      for (let n: XNode = node; n.parent; n = n.parent) {
        const siblings = [...n.parent.children()];
        const at = siblings.findIndex((s) => s.same(n));
        for (let i = at + 1; i < siblings.length; i++) yield* descendants(siblings[i]!, true);
      }
      return;
    case 'preceding': {
      const out: XNode[] = [];
      for (let n: XNode = node; n.parent; n = n.parent) {
        const siblings = [...n.parent.children()];
        const at = siblings.findIndex((s) => s.same(n));
        const before: XNode[] = [];
        for (let i = 0; i < at; i++) before.push(...descendants(siblings[i]!, true));
        out.unshift(...before);
      }
      for (let i = out.length - 1; i >= 0; i--) yield out[i]!;
      return;
    }
    case 'attribute':
    case 'namespace':
      return; // YANG data has no XPath attributes or namespace nodes
  }
}

/** The child axis with its node test applied: the hot path of every evaluation, so no generators. */
function childStep(node: XNode, test: NodeTest, env: EvalEnv): XNode[] {
  const out: XNode[] = [];
  const d = node.data;
  if (d.kind !== 'root' && d.kind !== 'container' && d.kind !== 'entry') return out;
  if (test.kind !== 'name' && test.kind !== 'node') return out;
  const named = test.kind === 'name' && test.local !== '*' ? test.local : undefined;
  const kids = d.children;
  for (let i = 0; i < kids.length; i++) {
    const c = kids[i]!;
    if (named !== undefined && c.schema.name !== named) continue;
    if (test.kind === 'name') {
      const first = new XNode(c.kind === 'list' ? c.entries[0]! : (c as XData), node, i, 0);
      if (c.kind === 'list' && c.entries.length === 0) continue;
      if (c.kind === 'leaf-list' && c.values.length === 0) continue;
      if (!moduleMatches(first, test.prefix, env)) continue;
    }
    switch (c.kind) {
      case 'list':
        for (let j = 0; j < c.entries.length; j++) out.push(new XNode(c.entries[j]!, node, i, j));
        break;
      case 'leaf-list':
        for (let j = 0; j < c.values.length; j++) out.push(new XNode(c, node, i, j));
        break;
      case 'entry':
        break;
      default:
        out.push(new XNode(c, node, i, 0));
    }
  }
  return out;
}

/** Children, skipping whole lists and leaf-lists whose name cannot match (no expansion of their entries). */
function* childrenFor(node: XNode, test: NodeTest): Generator<XNode> {
  const d = node.data;
  if (d.kind !== 'root' && d.kind !== 'container' && d.kind !== 'entry') return;
  const named = test.kind === 'name' && test.local !== '*' ? test.local : undefined;
  for (let i = 0; i < d.children.length; i++) {
    const c = d.children[i]!;
    if (named !== undefined && c.schema.name !== named) continue;
    yield* expandChild(node, c, i);
  }
}

function* descendants(node: XNode, includeSelf: boolean): Generator<XNode> {
  if (includeSelf) yield node;
  const stack: Array<Generator<XNode>> = [node.children()];
  while (stack.length) {
    const next = stack[stack.length - 1]!.next();
    if (next.done) {
      stack.pop();
      continue;
    }
    yield next.value;
    stack.push(next.value.children());
  }
}

function matches(node: XNode, test: NodeTest, env: EvalEnv): boolean {
  if (test.kind === 'node') return true;
  if (test.kind !== 'name') return false; // text(), comment(), processing-instruction(): none in YANG data
  const schema = node.schema;
  if (!schema) return false;
  if (test.local !== '*' && test.local !== schema.name) return false;
  return moduleMatches(node, test.prefix, env);
}
