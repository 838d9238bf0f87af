/**
 * `with-defaults` (RFC 8040 §4.8.9, RFC 6243): how default values appear in a GET.
 *
 * - report-all: every leaf (and leaf-list) with a schema default that the data lacks is added,
 *   inside existing containers and entries, in non-presence containers created where they hold
 *   such defaults, and only from the default case of a choice none of whose cases has data.
 * - trim: leaves whose value equals their default are left out (and leaf-lists equal to their
 *   defaults); non-presence containers emptied by that are left out too.
 * - explicit: the data as stored.
 * - report-all-tagged: as report-all, and every node whose value is its default (added or stored)
 *   carries the `ietf-netconf-with-defaults:default` attribute set to true.
 * The bare parameter (`?with-defaults`) means report-all. A default is added only where its `when`
 * (and that of its enclosing choice/case/container) holds, evaluated on the data read with the
 * target as the top of the tree: a condition that climbs above the target sees nothing there.
 *
 * A target that holds no data of its own (a leaf whose value is its default, a non-presence container
 * holding none) is, to report-all, the default it would show inside its parent: {@link defaultsAt}
 * builds it below the deepest node on the target's path that holds data, which is then the top of
 * the tree its `when` conditions see.
 */
import { childTable, orderOf } from '../../data/children';
import type { PathStep } from '../../data/edit';
import { valueText } from '../../data/path';
import type { DataNode, DataRoot, LeafListNode, LeafNode, LeafValue } from '../../data/tree';
import type { LeafListSchema, LeafSchema, SchemaContext, SchemaNode } from '../../yang/schema';
import { valueFromText } from '../../yang/types/values';
import { XNode, XPathSession } from '../../yang/xpath';
import { checkWhens, standIn } from '../../data/validate-when';
import type { SchemaXPath } from '../../yang/schema';
import { badQuery } from '../errors';
import { findTarget } from '../target';
import type { ReadTarget } from './target';

export type WithDefaults = 'report-all' | 'explicit' | 'trim' | 'report-all-tagged';

/** The attribute report-all-tagged puts on default nodes (RFC 8040 §4.8.9 / RFC 6243 §6). */
export const DEFAULT_ATTRIBUTE = 'ietf-netconf-with-defaults:default';

/** Parses the value of `with-defaults` (empty: the bare parameter, report-all). */
export function parseWithDefaults(value: string): WithDefaults {
  if (value === '') return 'report-all';
  if (value === 'report-all' || value === 'explicit' || value === 'trim' || value === 'report-all-tagged') return value;
  throw badQuery('with-defaults', `'${value}' is not report-all, explicit, trim or report-all-tagged`);
}

const NO_DEFAULT: unique symbol = Symbol('no default');
const defaultCache = new WeakMap<object, LeafValue | readonly LeafValue[] | typeof NO_DEFAULT>();

/** A default as written, in its type; prefixes are the defining module's, or module names. */
function typedDefault(schema: LeafSchema | LeafListSchema, text: string, ctx: SchemaContext): LeafValue | undefined {
  const prefixes = schema.module.prefixes;
  const resolved = valueFromText(
    schema.type,
    text,
    ctx,
    (p) => prefixes.get(p) ?? (ctx.modules.has(p) ? p : undefined),
    schema.module.name,
  );
  return resolved.ok ? resolved.value : undefined;
}

/** The typed default of a leaf, or undefined (none, or one the type rejects). */
export function leafDefault(schema: LeafSchema, ctx: SchemaContext): LeafValue | undefined {
  let cached = defaultCache.get(schema);
  if (cached === undefined) {
    const value = schema.default === undefined || schema.isKey ? undefined : typedDefault(schema, schema.default, ctx);
    cached = value === undefined ? NO_DEFAULT : value;
    defaultCache.set(schema, cached);
  }
  return cached === NO_DEFAULT ? undefined : (cached as LeafValue);
}

/** The typed defaults of a leaf-list (empty when it has none). */
export function leafListDefaults(schema: LeafListSchema, ctx: SchemaContext): readonly LeafValue[] {
  let cached = defaultCache.get(schema);
  if (cached === undefined) {
    const values: LeafValue[] = [];
    for (const d of schema.defaults) {
      const v = typedDefault(schema, d, ctx);
      if (v !== undefined) values.push(v);
    }
    cached = values;
    defaultCache.set(schema, cached);
  }
  return cached as readonly LeafValue[];
}

function sameValues(a: readonly LeafValue[], b: readonly LeafValue[]): boolean {
  return a.length === b.length && a.every((v, i) => valueText(v) === valueText(b[i]!));
}

/**
 * `target` as `mode` reports defaults. `include` says which schema nodes may be added (the caller's
 * content selection: config only, state only, or all).
 */
export function applyWithDefaults<T extends ReadTarget>(
  target: T,
  mode: WithDefaults,
  ctx: SchemaContext,
  include: (schema: SchemaNode) => boolean = () => true,
): T {
  if (mode === 'explicit') return target;
  const walker = new DefaultsWalker(mode, ctx, include);
  const top = XNode.root({ kind: 'root', children: target.kind === 'root' ? target.children : [target] });
  if (target.kind === 'root') return { ...target, children: walker.children(target.children, undefined, top) };
  return (walker.node(target, top, 0) ?? target) as T;
}

/**
 * What report-all (or report-all-tagged) shows at a target that holds no data: `holder` is the deepest
 * node on the target's path that holds data (the root, a container or a list entry; `holderSchema` its
 * schema, undefined for the root) and `below` the steps from it to the target. Undefined when `mode`
 * shows nothing there: explicit and trim, a step on the way that is a list entry or a presence
 * container (holding no data, it has no defaults), no default at the target, a `when` that is false.
 */
export function defaultsAt(
  holder: DataRoot | DataNode,
  holderSchema: SchemaNode | undefined,
  below: readonly PathStep[],
  mode: WithDefaults,
  ctx: SchemaContext,
  include: (schema: SchemaNode) => boolean = () => true,
): DataNode | undefined {
  const first = below[0];
  if ((mode !== 'report-all' && mode !== 'report-all-tagged') || first === undefined) return undefined;
  if (holder.kind !== 'root' && holder.kind !== 'container' && holder.kind !== 'entry') return undefined;
  const at = holder.kind === 'root' ? XNode.root(holder) : new XNode(holder, XNode.root({ kind: 'root', children: [holder] }), 0, 0);
  const present = new Set<SchemaNode>(holder.children.map((c) => c.schema));
  const schemaChildren = holderSchema === undefined ? ctx.data : holderSchema.children;
  const added = new DefaultsWalker(mode, ctx, include).missing(schemaChildren, present, holder.children, at, new Map(), first.schema);
  const node = added.find((n) => n.schema === first.schema);
  const found = node === undefined ? undefined : findTarget({ kind: 'root', children: [node] }, below);
  return found === undefined || found.kind === 'root' ? undefined : found;
}

/** Whether `node` is `ancestor` or sits in it through choices and cases only (no data node between). */
function leadsTo(ancestor: SchemaNode, node: SchemaNode): boolean {
  for (let n: SchemaNode | undefined = node; n !== undefined; n = n.parent) {
    if (n === ancestor) return true;
    if (n !== node && n.kind !== 'choice' && n.kind !== 'case') return false;
  }
  return false;
}

class DefaultsWalker {
  private readonly tag: boolean;
  private readonly session = new XPathSession();
  constructor(
    private readonly mode: 'report-all' | 'trim' | 'report-all-tagged',
    private readonly ctx: SchemaContext,
    private readonly include: (s: SchemaNode) => boolean,
  ) {
    this.tag = mode === 'report-all-tagged';
  }

  /** One node in this mode; undefined when trim leaves it out. */
  /** One node in this mode (child `slot` of the cursor `parent`); undefined when trim leaves it out. */
  node(node: DataNode, parent: XNode, slot: number): DataNode | undefined {
    switch (node.kind) {
      case 'leaf':
        return this.leaf(node);
      case 'leaf-list':
        return this.leafList(node);
      case 'any':
        return node;
      case 'list': {
        const { index: _dropped, ...rest } = node;
        return {
          ...rest,
          entries: node.entries.map((e, i) => ({ ...e, children: this.children(e.children, e.schema, new XNode(e, parent, slot, i)) })),
        };
      }
      case 'container': {
        const children = this.children(node.children, node.schema, new XNode(node, parent, slot, 0));
        const emptied = this.mode === 'trim' && children.length === 0 && node.children.length > 0;
        if (emptied && node.schema.kind === 'container' && node.schema.presence === undefined) return undefined;
        return { ...node, children };
      }
      case 'entry':
        return { ...node, children: this.children(node.children, node.schema, new XNode(node, parent, slot, 0)) };
    }
  }

  private leaf(node: LeafNode): LeafNode | undefined {
    const d = leafDefault(node.schema, this.ctx);
    if (d === undefined || valueText(d) !== valueText(node.value)) return node;
    if (this.mode === 'trim') return undefined;
    return this.tag ? { ...node, attributes: { ...node.attributes, [DEFAULT_ATTRIBUTE]: true } } : node;
  }

  private leafList(node: LeafListNode): LeafListNode | undefined {
    const d = leafListDefaults(node.schema, this.ctx);
    if (d.length === 0 || !sameValues(d, node.values)) return node;
    if (this.mode === 'trim') return undefined;
    return this.tag ? { ...node, attributes: { ...node.attributes, [DEFAULT_ATTRIBUTE]: true } } : node;
  }

  /** Children of a node of schema `parent` (undefined: the top level, which has no defaults to add). */
  children(children: readonly DataNode[], parent: SchemaNode | undefined, at: XNode): DataNode[] {
    const out: DataNode[] = [];
    for (let i = 0; i < children.length; i++) {
      const n = this.node(children[i]!, at, i);
      if (n !== undefined) out.push(n);
    }
    if (this.mode === 'trim' || parent === undefined) return out;
    const present = new Set<SchemaNode>(out.map((c) => c.schema));
    const added = this.missing(parent.children, present, children, at, new Map());
    if (added.length === 0) return out;
    // Trees keep children in the canonical (schema) order; the sort is stable, so it only places the added ones.
    const table = childTable(parent);
    return [...out, ...added].sort((a, b) => orderOf(table, a.schema) - orderOf(table, b.schema));
  }

  /**
   * Default nodes to add among `schemaChildren` (looking into choices), given the present ones; with
   * `only`, just those on the way to that one schema node.
   */
  missing(
    schemaChildren: readonly SchemaNode[],
    present: ReadonlySet<SchemaNode>,
    data: readonly DataNode[],
    at: XNode,
    whens: Map<SchemaXPath, boolean | string>,
    only?: SchemaNode,
  ): DataNode[] {
    const added: DataNode[] = [];
    for (const s of schemaChildren) {
      if (present.has(s)) continue;
      if (only !== undefined && !leadsTo(s, only)) continue;
      // A default exists only where its when holds (an evaluation error keeps it: the schema allows it).
      if (s.when.length > 0) {
        const w = checkWhens(s, standIn(s, at), at, this.ctx, this.session, whens);
        if (!w.ok && !('error' in w)) continue;
      }
      // Only leaves are filtered by content; containers are created only when they end up holding some.
      if ((s.kind === 'leaf' || s.kind === 'leaf-list') && !this.include(s)) continue;
      switch (s.kind) {
        case 'leaf': {
          const d = leafDefault(s, this.ctx);
          if (d !== undefined) added.push(this.tagged({ kind: 'leaf', schema: s, value: d }));
          break;
        }
        case 'leaf-list': {
          const d = leafListDefaults(s, this.ctx);
          if (d.length > 0) added.push(this.tagged({ kind: 'leaf-list', schema: s, values: d.slice() }));
          break;
        }
        case 'container':
          if (s.presence === undefined) {
            const box = standIn(s, at)!;
            const children = this.missing(s.children, new Set(), [], box, new Map());
            if (children.length > 0) added.push({ kind: 'container', schema: s, children });
          }
          break;
        case 'choice': {
          const active = s.children.find((c) => caseHasData(c, data));
          const chosen = active ?? s.defaultCase;
          if (chosen !== undefined) added.push(...this.missing(chosen.children, present, data, at, whens, only));
          break;
        }
        default:
          break;
      }
    }
    return added;
  }

  private tagged<N extends LeafNode | LeafListNode>(node: N): N {
    return this.tag ? { ...node, attributes: { [DEFAULT_ATTRIBUTE]: true } } : node;
  }
}

/** Whether any data node belongs to a case (directly or in a nested choice). */
function caseHasData(c: SchemaNode, data: readonly DataNode[]): boolean {
  return data.some((d) => {
    for (let p = d.schema.parent; p !== undefined; p = p.parent) if (p === c) return true;
    return false;
  });
}
