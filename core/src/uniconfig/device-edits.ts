/**
 * The per-change edits that turn one configuration of a device (actual) into another (intended), as the
 * southbound sends them (DeviceEdit: instance path values under the mount point, RFC 7951 values): only what
 * changed is touched, so device configuration the service does not know about, or that did not change,
 * stays as it is on the device.
 *
 * - A created node is `replace`d at its own path (a created list entry at the entry's path; a created
 *   list expands into its entries, so every entry carries its keys in the path); a leaf-list value that
 *   appeared is `merge`d (`[.='v']`), which adds it and nothing else.
 * - An updated leaf or anydata is `replace`d with its new value.
 * - A deleted node or leaf-list value is `remove`d (not `delete`: a node already gone from the device is
 *   not a reason to refuse the change).
 * - An ordered-by-user list or leaf-list whose common entries changed order: its parent (container or
 *   list entry) is `replace`d whole, which is how NETCONF states an order without insert attributes; a
 *   reordered top-level list has no parent, so its entries are replaced one by one in the new order
 *   (whether the device then follows that order is its own affair; a top-level leaf-list's new order is
 *   not sent at all).
 * - Attributes (RFC 7952 metadata) are not device configuration and are never sent.
 *
 * The walk is data/diff-walk.ts's, the one diff.ts uses too (linear in the size of what differs: subtrees
 * shared by identity are skipped, lists matched through their key indexes); this file says what each
 * difference becomes on the device.
 */
import { DiffWalk, type Loc, orderChanged, pathOf } from '../data/diff-walk';
import { toJsonValue } from '../data/json-encode';
import { entryKey, listIndex } from '../data/list';
import type { DataNode, DataRoot, LeafListNode, LeafValue, ListNode } from '../data/tree';
import type { DeviceEdit, JsonObject } from '../hooks';

/** The node as an edit value: `{"module:name": ...}` (a list entry as a one-entry list), no attributes. */
function editValue(node: DataNode): JsonObject {
  return toJsonValue(node, { attributes: false }) as JsonObject;
}

/** Whether the change between two lists cannot be said entry by entry (keyless lists, new order). */
function needsWholeParent(a: DataNode, b: DataNode): boolean {
  if (a === b) return false;
  if (a.kind === 'list') {
    const bl = b as ListNode;
    if (listIndex(a) === undefined || listIndex(bl) === undefined) return true; // keyless: identity is position
    return orderChanged(a, bl);
  }
  if (a.kind === 'leaf-list') return orderChanged(a, b as LeafListNode);
  return false;
}

class EditWalk extends DiffWalk {
  readonly edits: DeviceEdit[] = [];
  /** The leaf-list whose values `valuesJson` holds, encoded once however many of its values are merged. */
  private encoded: { readonly list: LeafListNode; readonly values: unknown[] } | undefined;

  constructor() {
    super(false);
  }

  /** When one of the owner's lists changed order (or is keyless), the owner is replaced whole. */
  protected override takesParentWhole(
    matched: ReadonlyMap<DataNode, DataNode>,
    parent: Loc | undefined,
    owner: DataNode | undefined,
  ): boolean {
    if (owner === undefined || parent === undefined) return false;
    for (const [n, m] of matched) {
      if (needsWholeParent(n, m)) {
        this.edits.push({ operation: 'replace', path: pathOf(parent), value: editValue(owner) });
        return true;
      }
    }
    return false;
  }

  /** A reordered top-level list has no parent to replace: its entries are replaced in the new order. */
  protected override takesListWhole(a: ListNode, b: ListNode, loc: Loc): boolean {
    if (loc.parent !== undefined || !orderChanged(a, b)) return false;
    this.replaceEntries(a, b, loc);
    return true;
  }

  /** Only reached at the top level (elsewhere the parent was replaced): replaced in the new order. */
  protected keyless(a: ListNode, b: ListNode, loc: Loc): void {
    this.replaceEntries(a, b, loc);
  }

  private replaceEntries(a: ListNode, b: ListNode, loc: Loc): void {
    const ib = listIndex(b);
    for (const e of a.entries) if (ib?.has(entryKey(e)) !== true) this.deleted(e, this.entryLoc(e, loc));
    for (const e of b.entries) this.created(e, this.entryLoc(e, loc));
  }

  protected updated(_before: DataNode, after: DataNode, at: Loc): void {
    this.edits.push({ operation: 'replace', path: pathOf(at), value: editValue(after) });
  }

  protected deletedValue(_list: LeafListNode, _value: LeafValue, at: Loc): void {
    this.edits.push({ operation: 'remove', path: pathOf(at) });
  }

  /** A merge of the value, as its RFC 7951 JSON (the list encoded once for all its values). */
  protected createdValue(list: LeafListNode, index: number, at: Loc): void {
    const member = `${list.schema.module.name}:${list.schema.name}`;
    if (this.encoded?.list !== list) this.encoded = { list, values: editValue(list)[member] as unknown[] };
    this.edits.push({ operation: 'merge', path: pathOf(at), value: { [member]: [this.encoded.values[index]] } as JsonObject });
  }

  protected deleted(n: DataNode, loc: Loc): void {
    if (n.kind === 'list') for (const e of n.entries) this.edits.push({ operation: 'remove', path: pathOf(this.entryLoc(e, loc)) });
    else if (n.kind === 'leaf-list') for (const v of n.values) this.deletedValue(n, v, this.valueLoc(n, v, loc));
    else this.edits.push({ operation: 'remove', path: pathOf(loc) });
  }

  protected created(n: DataNode, loc: Loc): void {
    if (n.kind === 'list')
      for (const e of n.entries) this.edits.push({ operation: 'replace', path: pathOf(this.entryLoc(e, loc)), value: editValue(e) });
    else if (n.kind === 'leaf-list') for (let i = 0; i < n.values.length; i++) this.createdValue(n, i, this.valueLoc(n, n.values[i]!, loc));
    else this.edits.push({ operation: 'replace', path: pathOf(loc), value: editValue(n) });
  }
}

/**
 * The edits that turn configuration `before` into `after` (both of the device's schema), each change
 * at its own path (see the top of this file). Empty when the two hold the same configuration.
 */
export function changeEdits(before: DataRoot, after: DataRoot): DeviceEdit[] {
  const walk = new EditWalk();
  walk.children(before.children, after.children, undefined, undefined);
  return walk.edits;
}
