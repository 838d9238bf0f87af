/**
 * The two points where plugins filter what RESTCONF shows and accepts (schema filters, docs/configuration.md#schemafilters):
 * `data.afterRead` over what a GET read, before the query parameters apply (so `fields`, `depth`,
 * paging and `fetch=count` see the filtered tree), and `data.decodeBody`, which relaxes how a write
 * body is decoded (unknown members dropped, definitions ignored on write dropped). Local data and data
 * under mount points go through the same two functions.
 *
 * The read hook is handed the target and its ancestors only (`sliceToTarget`), never the whole
 * datastore: a filter that walks what it is given then costs the path plus the answer, so reading one
 * entry of a 100,000-entry list stays cheap whatever the plugin does.
 */
import type { PathStep } from '../data/edit';
import type { DecodeOptions } from '../data/json-decode';
import { findEntry, valueIndex } from '../data/list';
import type { ContainerNode, DataNode, DataRoot, LeafListNode, ListEntryNode, ListNode } from '../data/tree';
import type { BodyDecodePolicy, ReadContext, WriteBodyContext } from '../hooks';
import type { PluginScope } from '../plugins/generation';

const STRICT: BodyDecodePolicy = Object.freeze({ skipUnknown: false, skip: undefined });

/**
 * A root holding only what lies on the way to the target: each container and list entry on the path
 * (entries keep their keys, so the path still finds them) with just the next step's child, and the
 * target's whole subtree. An absent target gives the part of the path that exists. Shares the target's
 * subtree with `root` (hook taps must copy what they change).
 */
export function sliceToTarget(root: DataRoot, steps: readonly PathStep[]): DataRoot {
  // The datastore root is the target: its whole tree is the answer.
  if (steps.length === 0) return root;
  const top: DataRoot = { kind: 'root', children: [] };
  let here: DataNode | DataRoot = root;
  let holder: { children: DataNode[] } = top;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const last = i === steps.length - 1;
    if (here.kind !== 'root' && here.kind !== 'container' && here.kind !== 'entry') break;
    const child: DataNode | undefined = here.children.find((c) => c.schema === step.schema);
    if (child === undefined) break;
    if (child.kind === 'list' && step.keys !== undefined) {
      const entry = findEntry(child, step.keys);
      if (entry === undefined) break;
      const entryCopy: ListEntryNode = last ? entry : { kind: 'entry', schema: entry.schema, children: keysOf(entry) };
      if (!last && entry.attributes !== undefined) entryCopy.attributes = entry.attributes;
      const list: ListNode = { kind: 'list', schema: child.schema, entries: [entryCopy] };
      if (child.attributes !== undefined) list.attributes = child.attributes;
      place(holder, list);
      here = entry;
      holder = entryCopy;
    } else if (child.kind === 'leaf-list' && step.value !== undefined) {
      const at = valueIndex(child, step.value);
      if (at < 0) break;
      const one: LeafListNode = { kind: 'leaf-list', schema: child.schema, values: [child.values[at]!] };
      const attributes = child.valueAttributes?.[at];
      if (attributes !== undefined) one.valueAttributes = [attributes];
      place(holder, one);
      break;
    } else if (last || child.kind !== 'container') {
      place(holder, child);
      break;
    } else {
      const copy: ContainerNode = { kind: 'container', schema: child.schema, children: [] };
      if (child.attributes !== undefined) copy.attributes = child.attributes;
      place(holder, copy);
      here = child;
      holder = copy;
    }
  }
  return top;
}

/** The key leaves of an entry (first among its children, in key order). */
function keysOf(entry: ListEntryNode): DataNode[] {
  const keys = entry.schema.keys;
  return entry.children.filter((c) => c.kind === 'leaf' && keys.includes(c.schema));
}

/** Adds the next node of the path after the keys already there, unless it is one of them. */
function place(holder: { children: DataNode[] }, node: DataNode): void {
  if (!holder.children.includes(node)) holder.children.push(node);
}

/**
 * The data a read of `steps` found in `root`, after the `data.afterRead` taps (the slice of `root` on
 * the path when any tap listens; `root` itself otherwise).
 */
export async function filterRead(scope: PluginScope, root: DataRoot, steps: readonly PathStep[], read: ReadContext): Promise<DataRoot> {
  const hook = scope.hooks.data.afterRead;
  if (!hook.isUsed()) return root;
  return hook.promise(sliceToTarget(root, steps), read);
}

/** The decoding options a write body gets from the `data.decodeBody` taps (none: strict decoding). */
export function bodyDecodeOptions(scope: PluginScope, body: WriteBodyContext): Pick<DecodeOptions, 'skipUnknown' | 'skip'> {
  const hook = scope.hooks.data.decodeBody;
  if (!hook.isUsed()) return {};
  const policy = hook.call(STRICT, body);
  return { skipUnknown: policy.skipUnknown, ...(policy.skip !== undefined ? { skip: policy.skip } : {}) };
}
