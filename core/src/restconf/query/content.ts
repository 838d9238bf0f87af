/**
 * `content=config|nonconfig|all` (RFC 8040 §4.8.1): which descendants a GET returns, applied to a
 * tree that holds both configuration and state (the caller merges the two datastores for `all`).
 *
 * - config: `config true` nodes only; a non-presence container left empty by the cut is dropped.
 * - nonconfig: `config false` nodes and the ancestors needed to reach them; a list entry on the way
 *   keeps its key leaves so it still names its entry.
 */
import type { DataNode } from '../../data/tree';
import { badQuery } from '../errors';
import type { ReadTarget } from './target';

export type ContentMode = 'config' | 'nonconfig' | 'all';

/** Parses the value of `content`. */
export function parseContent(value: string): ContentMode {
  if (value === 'config' || value === 'nonconfig' || value === 'all') return value;
  throw badQuery('content', `'${value}' is not config, nonconfig or all`);
}

/** The part of `target` that `mode` selects; undefined when nothing is left. */
export function selectContent<T extends ReadTarget>(target: T, mode: ContentMode): T | undefined {
  if (mode === 'all') return target;
  return (target.kind === 'root' ? { ...target, children: cutChildren(target.children, mode) } : cut(target, mode)) as T | undefined;
}

function cutChildren(children: readonly DataNode[], mode: 'config' | 'nonconfig'): DataNode[] {
  const out: DataNode[] = [];
  for (const c of children) {
    const kept = cut(c, mode);
    if (kept !== undefined) out.push(kept);
  }
  return out;
}

function cut(node: DataNode, mode: 'config' | 'nonconfig'): DataNode | undefined {
  const config = node.schema.config;
  if (mode === 'config' && !config) return undefined;
  if (mode === 'nonconfig' && !config) return node; // everything below state is state
  switch (node.kind) {
    case 'leaf': case 'leaf-list': case 'any':
      return mode === 'config' ? node : undefined;
    case 'list': {
      const entries = [];
      for (const e of node.entries) {
        const kept = cut(e, mode);
        if (kept !== undefined) entries.push(kept as typeof e);
      }
      if (entries.length === 0) return undefined;
      const { index: _dropped, ...rest } = node;
      return { ...rest, entries };
    }
    case 'container': case 'entry': {
      const children = cutChildren(node.children, mode);
      if (node.kind === 'entry') {
        if (mode === 'nonconfig') {
          const keys = node.schema.keys;
          if (children.length === 0) return undefined;
          const keyLeaves = node.children.filter((c) => keys.includes(c.schema as never));
          return { ...node, children: [...keyLeaves, ...children] };
        }
        return { ...node, children };
      }
      // A container emptied by the cut was only a way to reach the other kind of data; a presence
      // container's existence is configuration, so under content=config it stays.
      const presence = node.schema.kind === 'container' && node.schema.presence !== undefined;
      if (children.length === 0 && node.children.length > 0 && !(mode === 'config' && presence)) return undefined;
      if (children.length === 0 && mode === 'nonconfig') return undefined;
      return { ...node, children };
    }
  }
}
