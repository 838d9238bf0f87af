/**
 * `when` conditions for validation (RFC 7950 §7.21.5). A schema node's `when` list mixes its own
 * condition (whose context node is the node itself) with those of the `uses` and `augment` that
 * placed it (whose context node is the node's data parent). The schema does not say which is which,
 * so this file finds out from the parsed modules: a `when` written directly inside a data definition
 * statement is the node's own; any other (under uses, augment, choice or case) takes the parent.
 */
import type { SchemaContext, SchemaNode, SchemaXPath } from '../yang/schema';
import type { Statement } from '../yang/statement';
import { XNode, type XPathSession, evaluateCondition } from '../yang/xpath';
import type { LeafNode } from './tree';

const DATA_DEFINITIONS = new Set(['container', 'leaf', 'leaf-list', 'list', 'anydata', 'anyxml']);
const ownWhenCache = new WeakMap<SchemaContext, Set<string>>();

function positionKey(p: { file: string; line: number; column: number }): string {
  return `${p.file}:${p.line}:${p.column}`;
}

/** Source positions of every `when` written directly in a data definition statement of the context. */
function ownWhenPositions(ctx: SchemaContext): Set<string> {
  let set = ownWhenCache.get(ctx);
  if (set) return set;
  set = new Set();
  const visit = (s: Statement): void => {
    const isData = s.prefix === undefined && DATA_DEFINITIONS.has(s.keyword);
    for (const sub of s.substatements) {
      if (isData && sub.prefix === undefined && sub.keyword === 'when') {
        set!.add(positionKey(sub.position));
        // A compiler may record where the argument starts instead of the keyword; the keyword's line suffices to tell.
        set!.add(`${sub.position.file}:${sub.position.line}:*`);
      }
      visit(sub);
    }
  };
  for (const m of ctx.modules.values()) {
    visit(m.statement);
    for (const sm of m.submodules) visit(sm.statement);
  }
  ownWhenCache.set(ctx, set);
  return set;
}

/** Whether `when` is the node's own condition (context: the node) rather than its uses'/augment's. */
export function isOwnWhen(when: SchemaXPath, node: SchemaNode, ctx: SchemaContext): boolean {
  if (node.kind === 'choice' || node.kind === 'case') return false;
  let own = ownWhenCache2.get(when);
  if (own === undefined) {
    const set = ownWhenPositions(ctx);
    const p = when.position;
    own = set.has(positionKey(p)) || set.has(`${p.file}:${p.line}:*`);
    ownWhenCache2.set(when, own);
  }
  return own;
}

/** Per expression: whether it is its node's own `when` (an expression object belongs to one context). */
const ownWhenCache2 = new WeakMap<SchemaXPath, boolean>();

/** Result of checking the `when` conditions of one node instance. */
export type WhenResult = { ok: true } | { ok: false; xpath: SchemaXPath } | { ok: false; xpath: SchemaXPath; error: string };

/**
 * Evaluates every `when` of `schema` for an instance. `self` is the instance's cursor (or a stand-in
 * for an absent node), `parent` its parent's. Conditions on the parent context are cached per parent
 * in `parentCache`, since all children placed by one uses/augment share them.
 */
export function checkWhens(
  schema: SchemaNode,
  self: XNode | undefined,
  parent: XNode,
  ctx: SchemaContext,
  session: XPathSession,
  parentCache: Map<SchemaXPath, boolean | string>,
): WhenResult {
  for (const when of schema.when) {
    const own = self !== undefined && isOwnWhen(when, schema, ctx);
    let value: boolean | string | undefined = own ? undefined : parentCache.get(when);
    if (value === undefined) {
      const r = evaluateCondition(when, own ? self! : parent, ctx, session);
      value = 'error' in r ? r.error : r.value;
      if (!own) parentCache.set(when, value);
    }
    if (typeof value === 'string') return { ok: false, xpath: when, error: value };
    if (!value) return { ok: false, xpath: when };
  }
  return { ok: true };
}

/**
 * A cursor standing in for an absent node (RFC 7950 §7.21.5: the node is evaluated as if it existed,
 * with no value and no children), so `when` of a missing mandatory node can be asked.
 */
export function standIn(schema: SchemaNode, parent: XNode): XNode | undefined {
  switch (schema.kind) {
    case 'leaf':
      return new XNode({ kind: 'leaf', schema, value: null } as LeafNode, parent, -1, 0);
    case 'container':
      return new XNode({ kind: 'container', schema, children: [] }, parent, -1, 0);
    case 'list':
      return new XNode({ kind: 'entry', schema, children: [] }, parent, -1, 0);
    case 'leaf-list':
      return new XNode({ kind: 'leaf-list', schema, values: [null] }, parent, -1, 0);
    case 'anydata':
    case 'anyxml':
      return new XNode({ kind: 'any', schema, value: null }, parent, -1, 0);
    default:
      return undefined;
  }
}
