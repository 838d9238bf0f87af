/**
 * `depth=1..65535|unbounded` (RFC 8040 §4.8.2): how many levels of the target a GET returns. The
 * target is level 1 (at the datastore root, the top-level nodes are level 1); a list and its entries
 * are one level. At the last level a container or entry is returned without children, except that an
 * entry keeps its key leaves (as OpenDaylight does), so that it still names its entry.
 */
import type { DataNode, ListEntryNode } from '../../data/tree';
import { badQuery } from '../errors';
import type { ReadTarget } from './target';

export type Depth = number | 'unbounded';

/** Parses the value of `depth`. */
export function parseDepth(value: string): Depth {
  if (value === 'unbounded') return value;
  if (/^[0-9]{1,5}$/.test(value)) {
    const n = Number(value);
    if (n >= 1 && n <= 65535) return n;
  }
  throw badQuery('depth', `'${value}' is not an integer from 1 to 65535 or 'unbounded'`);
}

/** `target` cut below `depth` levels. */
export function limitDepth<T extends ReadTarget>(target: T, depth: Depth): T {
  if (depth === 'unbounded') return target;
  if (target.kind === 'root') return { ...target, children: target.children.map((c) => cut(c, 1, depth)) };
  return cut(target, 1, depth) as T;
}

function cut(node: DataNode, level: number, depth: number): DataNode {
  switch (node.kind) {
    case 'leaf':
    case 'leaf-list':
    case 'any':
      return node;
    case 'list': {
      const { index: _dropped, ...rest } = node;
      return { ...rest, entries: node.entries.map((e) => cut(e, level, depth) as ListEntryNode) };
    }
    case 'container':
      return { ...node, children: level >= depth ? [] : node.children.map((c) => cut(c, level + 1, depth)) };
    case 'entry':
      if (level >= depth) return { ...node, children: node.children.filter((c) => node.schema.keys.includes(c.schema as never)) };
      return { ...node, children: node.children.map((c) => cut(c, level + 1, depth)) };
  }
}
