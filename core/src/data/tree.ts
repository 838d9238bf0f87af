/**
 * The data tree: instances of schema nodes, built mutably (decoders, merges on a private copy) and treated
 * as immutable once stored. The node shapes are declared in yang/instance-tree.ts (yang/'s value codecs
 * and XPath read them, and yang/ sits below data/); this module is where data/ and the layers above take
 * them from, with the empty tree.
 */
import type { DataRoot } from '../yang/instance-tree';

export type {
  LeafValue,
  Attributes,
  ContainerNode,
  ListEntryNode,
  ListNode,
  LeafNode,
  LeafListNode,
  AnyNode,
  DataNode,
  InnerNode,
  DataRoot,
} from '../yang/instance-tree';

export function emptyRoot(): DataRoot {
  return { kind: 'root', children: [] };
}
