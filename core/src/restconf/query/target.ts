/**
 * What a read query acts on: the data at a RESTCONF target (the datastore root, a container, a whole
 * list, one entry, a leaf, a leaf-list, anydata). Every query function takes one and returns a new
 * one: stored trees are shared between versions and readers, so nothing here mutates its input.
 */
import type { DataNode, DataRoot } from '../../data/tree';

/** The data at a read target. */
export type ReadTarget = DataRoot | DataNode;

/** Children of a node that holds children (root, container, list entry), or undefined. */
export function childrenOf(node: ReadTarget): readonly DataNode[] | undefined {
  return node.kind === 'root' || node.kind === 'container' || node.kind === 'entry' ? node.children : undefined;
}

/** A copy of an inner node with other children (the input is not changed). */
export function withChildren<T extends ReadTarget>(node: T, children: DataNode[]): T {
  return { ...node, children } as T;
}
