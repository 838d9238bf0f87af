/**
 * Finding the data a RESTCONF target names in a tree: the node of each step (a container, one list
 * entry, a whole list, one leaf-list value, a leaf), walking down by schema node and list key index,
 * so a lookup costs the depth of the path whatever the size of the lists on it.
 */
import type { PathStep } from '../data/edit';
import { findEntry, valueIndex } from '../data/list';
import type { DataNode, DataRoot, LeafListNode } from '../data/tree';

/**
 * The node a target names in `root`, or undefined when absent. A leaf-list value target answers a
 * leaf-list holding just that value (with its attributes); the empty target answers the root.
 */
export function findTarget(root: DataRoot, steps: readonly PathStep[]): DataNode | DataRoot | undefined {
  let here: DataNode | DataRoot = root;
  for (const step of steps) {
    if (here.kind !== 'root' && here.kind !== 'container' && here.kind !== 'entry') return undefined;
    const child: DataNode | undefined = here.children.find((c) => c.schema === step.schema);
    if (child === undefined) return undefined;
    if (child.kind === 'list' && step.keys !== undefined) {
      const entry = findEntry(child, step.keys);
      if (entry === undefined) return undefined;
      here = entry;
    } else if (child.kind === 'leaf-list' && step.value !== undefined) {
      const at = valueIndex(child, step.value);
      if (at < 0) return undefined;
      const one: LeafListNode = { kind: 'leaf-list', schema: child.schema, values: [child.values[at]!] };
      const attrs = child.valueAttributes?.[at];
      if (attrs !== undefined) one.valueAttributes = [attrs];
      here = one;
    } else {
      here = child;
    }
  }
  return here;
}

/** Whether the target holds data in `root`. */
export function targetExists(root: DataRoot, steps: readonly PathStep[]): boolean {
  return findTarget(root, steps) !== undefined;
}
