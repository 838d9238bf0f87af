/**
 * The config/state cut of a data tree (RFC 8040 §4.8.1 `content`), one rule for everyone who holds a
 * tree with both kinds of data: RESTCONF's `content` parameter and the mount codec's device replies.
 *
 * - config: `config true` nodes only; a non-presence container left empty by the cut is dropped (it was
 *   only a way to reach state), a container that was empty before stays.
 * - nonconfig: `config false` nodes and the ancestors needed to reach them; a list entry on the way
 *   keeps its key leaves so it still names its entry.
 */
import type { SchemaNode } from '../yang/schema';
import type { DataNode, DataRoot } from './tree';

/** Which half of the tree a cut keeps. */
export type ContentCut = 'config' | 'nonconfig';

/**
 * The part of `target` that `mode` keeps (the input is not changed); undefined when nothing of a node
 * is left. A root always comes back, possibly with no children.
 */
export function cutContent(target: DataRoot, mode: ContentCut): DataRoot;
export function cutContent<T extends DataRoot | DataNode>(target: T, mode: ContentCut): T | undefined;
export function cutContent<T extends DataRoot | DataNode>(target: T, mode: ContentCut): T | undefined {
  if (target.kind !== 'root') return cut(target, mode) as T | undefined;
  const children = cutChildren(target.children, mode);
  return (children === target.children ? target : { ...target, children: [...children] }) as T;
}

/** The kept children; the very array given when the cut keeps every child as it is (nothing copied). */
function cutChildren(children: readonly DataNode[], mode: ContentCut): readonly DataNode[] {
  let out: DataNode[] | undefined;
  for (let i = 0; i < children.length; i++) {
    const c = children[i]!;
    const kept = cut(c, mode);
    if (out === undefined) {
      if (kept === c) continue;
      out = children.slice(0, i);
    }
    if (kept !== undefined) out.push(kept);
  }
  return out ?? children;
}

const stateBelow = new WeakMap<SchemaNode, boolean>();

/** Whether the schema has a `config false` node anywhere below `schema` (known once per schema node). */
function holdsState(schema: SchemaNode): boolean {
  let known = stateBelow.get(schema);
  if (known === undefined) {
    known = 'children' in schema && (schema.children as readonly SchemaNode[]).some((c) => !c.config || holdsState(c));
    stateBelow.set(schema, known);
  }
  return known;
}

/** What the cut keeps of a node: the node itself when it keeps all of it (a config-only reply cut to config is not copied). */
function cut(node: DataNode, mode: ContentCut): DataNode | undefined {
  if (!node.schema.config) return mode === 'nonconfig' ? node : undefined; // everything below state is state
  // a subtree whose schema has no state: config keeps all of it, nonconfig none, without a walk
  if (!holdsState(node.schema)) return mode === 'config' ? node : undefined;
  switch (node.kind) {
    case 'leaf':
    case 'leaf-list':
    case 'any':
      return mode === 'config' ? node : undefined;
    case 'list': {
      let entries: typeof node.entries | undefined;
      for (let i = 0; i < node.entries.length; i++) {
        const e = node.entries[i]!;
        const kept = cut(e, mode);
        if (entries === undefined) {
          if (kept === e) continue;
          entries = node.entries.slice(0, i);
        }
        if (kept !== undefined) entries.push(kept as typeof e);
      }
      if (entries === undefined) return node.entries.length === 0 ? undefined : node;
      if (entries.length === 0) return undefined;
      // the key index belongs to the old entries array (tree.ts): the copy builds its own
      const { index: _dropped, ...rest } = node;
      return { ...rest, entries };
    }
    case 'entry': {
      const children = cutChildren(node.children, mode);
      if (mode === 'config') return children === node.children ? node : { ...node, children: [...children] };
      if (children.length === 0) return undefined;
      const keys = node.schema.keys;
      const keyLeaves = node.children.filter((c) => keys.includes(c.schema as never));
      return { ...node, children: [...keyLeaves, ...children] };
    }
    case 'container': {
      const children = cutChildren(node.children, mode);
      if (children.length > 0) return children === node.children ? node : { ...node, children: [...children] };
      if (mode === 'nonconfig') return undefined;
      // A presence container's existence is configuration, so under content=config it stays.
      const presence = node.schema.kind === 'container' && node.schema.presence !== undefined;
      if (node.children.length === 0) return node;
      return presence ? { ...node, children: [] } : undefined;
    }
  }
}
