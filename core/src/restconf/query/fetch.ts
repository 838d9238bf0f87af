/**
 * `fetch=count` (docs/restconf-api.md#fetch): answer a bare number instead of the data: the number of children
 * of the target as the other parameters select them. For a list, its entries (after jsonb-filter,
 * within offset/limit); for a container holding exactly one list (and nothing else), that list's
 * entries; for a leaf-list, its values; otherwise the target's child nodes (a list counting as its
 * entries); a leaf or anydata counts as 1.
 */
import type { DataNode } from '../../data/tree';
import { badQuery } from '../errors';
import type { ReadTarget } from './target';

/** Parses the value of `fetch`: `count` is the only one. */
export function parseFetch(value: string): 'count' {
  if (value === 'count') return value;
  throw badQuery('fetch', `'${value}' is not 'count'`);
}

function nodeCount(children: readonly DataNode[]): number {
  let n = 0;
  for (const c of children) n += c.kind === 'list' ? c.entries.length : 1;
  return n;
}

/** The count `fetch=count` answers for the (already selected) data at a target; 0 for no data. */
export function countTarget(target: ReadTarget | undefined): number {
  if (target === undefined) return 0;
  switch (target.kind) {
    case 'list':
      return target.entries.length;
    case 'leaf-list':
      return target.values.length;
    case 'leaf':
    case 'any':
      return 1;
    case 'container': {
      const only = target.children.length === 1 ? target.children[0]! : undefined;
      if (only?.kind === 'list') return only.entries.length;
      return nodeCount(target.children);
    }
    default:
      return nodeCount(target.children);
  }
}
