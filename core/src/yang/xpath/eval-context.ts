/**
 * What every part of data-level XPath evaluation shares: the value type, the per-run session, the
 * environment an evaluation carries (which includes the evaluator, so the function library and the
 * key-index fast path can evaluate sub-expressions without importing evaluate.ts), the fault, and how a
 * name test's prefix selects a module. Kept apart from the evaluator so its helpers import downwards only.
 */
import type { CompiledModule, LeafSchema, SchemaContext } from '../schema';
import type { ListNode } from '../instance-tree';
import type { Expr } from './ast';
import type { XNode } from './nodes';

/** An XPath value: a node-set (in document order, no duplicates), string, number or boolean. */
export type XValue = XNode[] | string | number | boolean;

/**
 * State shared by the evaluations of one validation run over one unchanging tree: key indexes of
 * lists and parsed instance-identifiers. Create one per tree; never reuse it after the tree changes.
 */
export class XPathSession {
  /** list -> key leaf -> key text -> entry indexes, in document order. */
  readonly keyIndexes = new Map<ListNode, Map<LeafSchema, Map<string, number[]>>>();
  readonly instanceIds = new Map<string, { expr: Expr } | { error: string }>();
}

/** Everything an evaluation needs besides the focus. */
export interface EvalEnv {
  readonly ctx: SchemaContext;
  /** The node `current()` returns. */
  readonly current: XNode;
  /** Maps a prefix written in the expression to a module name; undefined when the prefix is unknown. */
  readonly resolvePrefix: (prefix: string) => string | undefined;
  /**
   * Modules an unprefixed name may belong to; empty means "the parent's module" (RFC 7951
   * instance-identifiers, where a name without prefix inherits its parent's namespace).
   */
  readonly defaultModules: readonly string[];
  /** The module the expression was written in, for `derived-from()` identity names. */
  readonly contextModule: CompiledModule | undefined;
  readonly session: XPathSession;
  /**
   * The evaluator itself (evaluate.ts's `evaluate`). The function library and the key-index fast path
   * evaluate sub-expressions and are called from the evaluator, so they reach it through the env
   * rather than by importing the module that imports them.
   */
  readonly evaluate: Evaluate;
}

/** Evaluates an expression at a focus; throws `XPathEvalFault` on a fault. */
export type Evaluate = (expr: Expr, focus: Focus, env: EvalEnv) => XValue;

/** The focus of XPath §1: context node, position and size. */
export interface Focus {
  readonly node: XNode;
  readonly position: number;
  readonly size: number;
}

/** A fault found while evaluating; turned into `{ error }` by the public entry points. */
export class XPathEvalFault {
  constructor(readonly reason: string) {}
}

/** The root of the tree a node is in. */
export function rootOf(node: XNode): XNode {
  let n = node;
  while (n.parent) n = n.parent;
  return n;
}

/** Whether a name test's prefix (or, without one, the default modules or the parent's module) selects the node's module. */
export function moduleMatches(node: XNode, prefix: string | undefined, env: EvalEnv): boolean {
  const module = node.schema!.module.name;
  if (prefix !== undefined) {
    const m = env.resolvePrefix(prefix);
    if (m === undefined) throw new XPathEvalFault(`prefix "${prefix}" is not declared`);
    return m === module;
  }
  if (env.defaultModules.length) return env.defaultModules.includes(module);
  const parentModule = node.parent?.schema?.module.name;
  return parentModule === undefined || parentModule === module;
}
