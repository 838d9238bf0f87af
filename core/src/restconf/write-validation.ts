/**
 * Validation of a write, kept proportionate to the write (so a one-entry PUT into a 100,000-entry
 * list does not revalidate 100,000 entries).
 *
 * The stored tree was valid before the write, and a write changes only the subtree at its target. So
 * what can break is: the written subtree itself, and the constraints of the nodes on the path to it
 * (mandatory children, cardinality of the lists it sits in, choices). We validate a *pruned* tree
 * holding exactly that: the top-level node on the path, and at each level on the path every sibling
 * except lists, with the list on the path reduced to the one entry on the path. The real size of each
 * list on the path is checked against its max-elements separately (one comparison).
 *
 * The full tree is validated instead, whenever pruning could hide or invent a fault:
 * - the client asked for leafref checking (`checkForReferences=true`): targets live anywhere;
 * - the target's top-level subtree has any `when`/`must` or instance-identifier (XPath can look
 *   anywhere in the tree), or a list on the path has `unique` or min-elements > 1;
 * - the target is the datastore root.
 * Constraints of *other* top-level subtrees that look into this one (a `must` elsewhere naming this
 * node) are not re-checked on a pruned write; validating the whole tree on every write would make
 * writes cost the size of the datastore, and such cross-module constraints are rare in practice.
 */
import type { PathStep } from '../data/edit';
import type { DataFault } from '../data/errors';
import { fault } from '../data/errors';
import { findEntry, listSize } from '../data/list';
import { instancePath } from '../data/path';
import type { DataNode, DataRoot, ListNode } from '../data/tree';
import { validateTree } from '../data/validate';
import type { ListSchema, SchemaContext, SchemaNode, YangType } from '../yang/schema';

/** How a write is validated. */
export interface WriteValidationOptions {
  /** RESTCONF `checkForReferences=true`: leafref targets must exist. */
  readonly checkReferences: boolean;
}

const xpathInSubtree = new WeakMap<SchemaNode, boolean>();

function typeNeedsXPath(type: YangType): boolean {
  if (type.builtin === 'instance-identifier') return type.requireInstance !== false;
  return type.union?.some(typeNeedsXPath) ?? false;
}

/** Whether any node of a schema subtree carries when/must or a require-instance instance-identifier. */
function hasXPathConstraints(node: SchemaNode): boolean {
  const cached = xpathInSubtree.get(node);
  if (cached !== undefined) return cached;
  let found = node.when.length > 0 || node.musts.length > 0;
  if (!found && (node.kind === 'leaf' || node.kind === 'leaf-list')) found = typeNeedsXPath(node.type);
  if (!found)
    for (const c of node.children)
      if (hasXPathConstraints(c)) {
        found = true;
        break;
      }
  xpathInSubtree.set(node, found);
  return found;
}

function needsFullValidation(steps: readonly PathStep[], options: WriteValidationOptions): boolean {
  if (options.checkReferences || steps.length === 0) return true;
  if (hasXPathConstraints(steps[0]!.schema)) return true;
  for (const step of steps) {
    if (step.schema.kind !== 'list') continue;
    const list = step.schema as ListSchema;
    if (list.unique.length > 0 || list.minElements > 1) return true;
  }
  return false;
}

/** The siblings kept beside the path at one level: everything but lists that may be empty. */
function keepSibling(node: DataNode): boolean {
  return node.kind !== 'list' || node.schema.minElements > 0;
}

/** The pruned copy of `children` along `steps[i..]` (see the file comment). */
function pruneLevel(children: readonly DataNode[], steps: readonly PathStep[], i: number, topLevel: boolean): DataNode[] {
  const step = steps[i];
  if (step === undefined) return children.slice();
  const out: DataNode[] = [];
  for (const child of children) {
    if (child.schema !== step.schema) {
      if (!topLevel && keepSibling(child)) out.push(child);
      continue;
    }
    out.push(pruneNode(child, steps, i));
  }
  return out;
}

function pruneNode(node: DataNode, steps: readonly PathStep[], i: number): DataNode {
  const step = steps[i]!;
  const last = i === steps.length - 1;
  if (node.kind === 'list' && step.keys !== undefined) {
    const entry = findEntry(node, step.keys);
    const list: ListNode = { kind: 'list', schema: node.schema, entries: [] };
    if (entry !== undefined) list.entries.push(last ? entry : { ...entry, children: pruneLevel(entry.children, steps, i + 1, false) });
    return list;
  }
  if (last || node.kind !== 'container') return node;
  return { ...node, children: pruneLevel(node.children, steps, i + 1, false) };
}

/** max-elements of each keyed list on the path, against its real size. */
function checkListSizes(next: DataRoot, steps: readonly PathStep[]): DataFault[] {
  const faults: DataFault[] = [];
  let children: readonly DataNode[] = next.children;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const child = children.find((c) => c.schema === step.schema);
    if (child === undefined) break;
    if (child.kind === 'list') {
      const max = child.schema.maxElements;
      // listSize, not entries.length: a large stored list would build its whole entries array per write.
      const size = listSize(child);
      if (size > max) {
        faults.push(
          fault(
            'operation-failed',
            instancePath([...steps.slice(0, i), { schema: step.schema }]),
            `list "${child.schema.name}" has ${size} entries, more than max-elements ${max}`,
            'too-many-elements',
          ),
        );
      }
      if (step.keys === undefined) break;
      const entry = findEntry(child, step.keys);
      if (entry === undefined) break;
      children = entry.children;
    } else if (child.kind === 'container') {
      children = child.children;
    } else {
      break;
    }
  }
  return faults;
}

/**
 * Validates the configuration tree `next` after a write at `steps`. For a delete, `steps` is the
 * deleted target (its parent's constraints are what may break). Returns the faults (empty: valid).
 */
export function validateWrite(
  next: DataRoot,
  steps: readonly PathStep[],
  ctx: SchemaContext,
  options: WriteValidationOptions,
): DataFault[] {
  if (needsFullValidation(steps, options)) {
    return validateTree(next, ctx, { type: 'config', checkLeafrefs: options.checkReferences });
  }
  const pruned: DataRoot = { kind: 'root', children: pruneLevel(next.children, steps, 0, true) };
  const faults = validateTree(pruned, ctx, { type: 'config' });
  return faults.length > 0 ? faults : checkListSizes(next, steps);
}
