/**
 * Removing filtered definitions from a data tree, copy-on-write: a node whose subtree loses nothing
 * is returned as it is (shared with the input, never changed), and only the nodes on the way to a
 * removed one are copied. Subtrees whose schema holds nothing that could be filtered are not walked.
 */
import type { DataNode, DataRoot } from '@rosetta/sdk';
import type { NodeFilter } from './filters';

type Entry = Extract<DataNode, { kind: 'entry' }>;

/** `root` without the filtered definitions (the same object when nothing was removed). */
export function pruneRoot(root: DataRoot, filter: NodeFilter): DataRoot {
  if (!filter.active) return root;
  const children = pruneChildren(root.children, filter);
  return children === root.children ? root : { ...root, children };
}

function pruneChildren(children: DataNode[], filter: NodeFilter): DataNode[] {
  let out: DataNode[] | undefined;
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!;
    const next = filter.filtered(child.schema) ? undefined : filter.touches(child.schema) ? pruneNode(child, filter) : child;
    if (next !== child && out === undefined) out = children.slice(0, i);
    if (out !== undefined && next !== undefined) out.push(next);
  }
  return out ?? children;
}

function pruneEntry(entry: Entry, filter: NodeFilter): Entry {
  const children = pruneChildren(entry.children, filter);
  return children === entry.children ? entry : { ...entry, children };
}

function pruneNode(node: DataNode, filter: NodeFilter): DataNode {
  switch (node.kind) {
    case 'container': {
      const children = pruneChildren(node.children, filter);
      return children === node.children ? node : { ...node, children };
    }
    case 'entry':
      return pruneEntry(node, filter);
    case 'list': {
      let entries: Entry[] | undefined;
      for (let i = 0; i < node.entries.length; i++) {
        const entry = node.entries[i]!;
        const next = pruneEntry(entry, filter);
        if (next !== entry && entries === undefined) entries = node.entries.slice(0, i);
        if (entries !== undefined) entries.push(next);
      }
      if (entries === undefined) return node;
      // A new list object: the key index of the old one must not come along (it points at old entries).
      const copy: DataNode = { kind: 'list', schema: node.schema, entries };
      if (node.attributes !== undefined) copy.attributes = node.attributes;
      return copy;
    }
    default:
      return node;
  }
}
