/**
 * `hideAttributes=true`: the data without RFC 7952 attributes (docs/restconf-api.md#attributes-in-json). The encoders can also
 * skip attributes while writing (`encodeJson(..., { attributes: false })`); this is the same cut as a
 * pure function over the tree, for callers that hand the data on rather than encode it.
 */
import type { DataNode, ListEntryNode } from '../../data/tree';
import type { ReadTarget } from './target';

function strip<T extends ReadTarget>(node: T): T {
  if (node.kind === 'root') return { ...node, children: node.children.map(strip) };
  const { attributes: _a, ...rest } = node as DataNode;
  switch (rest.kind) {
    case 'container':
    case 'entry':
      return { ...rest, children: rest.children.map(strip) } as unknown as T;
    case 'list': {
      const { index: _i, ...list } = rest;
      return { ...list, entries: list.entries.map((e) => strip(e) as ListEntryNode) } as unknown as T;
    }
    case 'leaf-list': {
      const { valueAttributes: _v, ...ll } = rest;
      return ll as unknown as T;
    }
    default:
      return rest as unknown as T;
  }
}

/** `target` with every attribute removed. */
export function hideAttributes<T extends ReadTarget>(target: T): T {
  return strip(target);
}
