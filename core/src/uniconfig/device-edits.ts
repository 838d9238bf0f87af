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
 * Linear in the size of what differs: subtrees shared by identity (copy-on-write edits) are skipped, lists
 * are matched through their key indexes.
 */
import { toJsonValue } from '../data/json-encode';
import { entryKey, listIndex } from '../data/list';
import { entryKeyValues, instancePathOf, valueText, type PathSegment } from '../data/path';
import type { DataNode, DataRoot, LeafListNode, LeafValue, ListEntryNode, ListNode } from '../data/tree';
import type { DeviceEdit, InstancePath, JsonObject } from '../hooks';

/** Where the walk stands: a chain of segments, turned into a path only when an edit is emitted. */
interface Loc {
  readonly parent: Loc | undefined;
  readonly segment: PathSegment;
}

function pathOf(loc: Loc): InstancePath {
  const segments: PathSegment[] = [];
  for (let l: Loc | undefined = loc; l; l = l.parent) segments.push(l.segment);
  return instancePathOf(segments.reverse());
}

function sameValue(a: LeafValue, b: LeafValue): boolean {
  return a === b || (typeof a === typeof b && valueText(a) === valueText(b));
}

/** The node as an edit value: `{"module:name": ...}` (a list entry as a one-entry list), no attributes. */
function editValue(node: DataNode): JsonObject {
  return toJsonValue(node, { attributes: false }) as JsonObject;
}

/** Whether the entries (or values) two ordered-by-user lists share are in a different order. */
function reordered(a: ListNode | LeafListNode, b: ListNode | LeafListNode): boolean {
  if (a.schema.orderedBy !== 'user') return false;
  if (a.kind === 'leaf-list') {
    const bl = b as LeafListNode;
    const inA = new Set(a.values.map(valueText));
    const inB = new Set(bl.values.map(valueText));
    const x = a.values.map(valueText).filter((t) => inB.has(t));
    const y = bl.values.map(valueText).filter((t) => inA.has(t));
    return x.some((t, i) => t !== y[i]);
  }
  const ia = listIndex(a);
  const ib = listIndex(b as ListNode);
  if (ia === undefined || ib === undefined) return false;
  const x = a.entries.map(entryKey).filter((k) => ib.has(k));
  const y = (b as ListNode).entries.map(entryKey).filter((k) => ia.has(k));
  return x.some((k, i) => k !== y[i]);
}

/** Whether the change between two lists cannot be said entry by entry (keyless lists, new order). */
function needsWholeParent(a: DataNode, b: DataNode): boolean {
  if (a === b) return false;
  if (a.kind === 'list') {
    const bl = b as ListNode;
    if (listIndex(a) === undefined || listIndex(bl) === undefined) return true; // keyless: identity is position
    return reordered(a, bl);
  }
  if (a.kind === 'leaf-list') return reordered(a, b as LeafListNode);
  return false;
}

class EditWalk {
  readonly edits: DeviceEdit[] = [];

  /**
   * The children of one parent. `owner` is the parent on the after side (undefined at the root): when
   * one of its lists changed order, the owner is replaced whole.
   */
  children(a: readonly DataNode[], b: readonly DataNode[], parent: Loc | undefined, owner: DataNode | undefined): void {
    if (a === b) return;
    const matched = new Map<DataNode, DataNode>();
    for (const n of a) {
      const m = b.find((x) => x.schema === n.schema);
      if (m !== undefined) matched.set(n, m);
    }
    if (owner !== undefined && parent !== undefined) {
      for (const [n, m] of matched) {
        if (needsWholeParent(n, m)) {
          this.edits.push({ operation: 'replace', path: pathOf(parent), value: editValue(owner) });
          return;
        }
      }
    }
    for (const n of a) {
      const m = matched.get(n);
      const loc: Loc = { parent, segment: { schema: n.schema } };
      if (m === undefined) this.removed(n, loc);
      else this.node(n, m, loc);
    }
    const seen = new Set(matched.values());
    for (const n of b) if (!seen.has(n)) this.created(n, { parent, segment: { schema: n.schema } });
  }

  private node(a: DataNode, b: DataNode, loc: Loc): void {
    if (a === b) return;
    switch (a.kind) {
      case 'leaf':
        if (!sameValue(a.value, (b as typeof a).value)) this.edits.push({ operation: 'replace', path: pathOf(loc), value: editValue(b) });
        return;
      case 'any':
        if (JSON.stringify(a.value) !== JSON.stringify((b as typeof a).value))
          this.edits.push({ operation: 'replace', path: pathOf(loc), value: editValue(b) });
        return;
      case 'container':
        this.children(a.children, (b as typeof a).children, loc, b);
        return;
      case 'list':
        this.list(a, b as ListNode, loc);
        return;
      case 'leaf-list':
        this.leafList(a, b as LeafListNode, loc);
        return;
      case 'entry':
        return; // entries are compared by `list`
    }
  }

  private entryLoc(e: ListEntryNode, list: Loc): Loc {
    return { parent: list.parent, segment: { schema: e.schema, keys: entryKeyValues(e) } };
  }

  private list(a: ListNode, b: ListNode, loc: Loc): void {
    const ia = listIndex(a);
    const ib = listIndex(b);
    if (ia === undefined || ib === undefined || (loc.parent === undefined && reordered(a, b))) {
      // only reached at the top level (elsewhere the parent was replaced): replace in the new order
      for (const e of a.entries) if (ib?.has(entryKey(e)) !== true) this.removed(e, this.entryLoc(e, loc));
      for (const e of b.entries) this.created(e, this.entryLoc(e, loc));
      return;
    }
    for (const e of a.entries) {
      const other = ib.get(entryKey(e));
      if (other === undefined) this.removed(e, this.entryLoc(e, loc));
      else if (other !== e) this.children(e.children, other.children, this.entryLoc(other, loc), other);
    }
    for (const e of b.entries) if (!ia.has(entryKey(e))) this.created(e, this.entryLoc(e, loc));
  }

  private leafList(a: LeafListNode, b: LeafListNode, loc: Loc): void {
    const before = new Set(a.values.map(valueText));
    const after = new Set(b.values.map(valueText));
    for (const v of a.values) if (!after.has(valueText(v))) this.removeValue(a, v, loc);
    this.mergeValues(b, loc, (v) => !before.has(valueText(v)));
  }

  private valueLoc(list: LeafListNode, v: LeafValue, loc: Loc): Loc {
    return { parent: loc.parent, segment: { schema: list.schema, value: v } };
  }

  private removeValue(list: LeafListNode, v: LeafValue, loc: Loc): void {
    this.edits.push({ operation: 'remove', path: pathOf(this.valueLoc(list, v, loc)) });
  }

  /** A merge of each value of `list` that `wanted` picks, each as its RFC 7951 JSON (encoded once for the list). */
  private mergeValues(list: LeafListNode, loc: Loc, wanted: (v: LeafValue) => boolean): void {
    const member = `${list.schema.module.name}:${list.schema.name}`;
    let json: unknown[] | undefined;
    list.values.forEach((v, i) => {
      if (!wanted(v)) return;
      json ??= editValue(list)[member] as unknown[];
      this.edits.push({ operation: 'merge', path: pathOf(this.valueLoc(list, v, loc)), value: { [member]: [json[i]] } as JsonObject });
    });
  }

  private removed(n: DataNode, loc: Loc): void {
    if (n.kind === 'list') for (const e of n.entries) this.edits.push({ operation: 'remove', path: pathOf(this.entryLoc(e, loc)) });
    else if (n.kind === 'leaf-list') for (const v of n.values) this.removeValue(n, v, loc);
    else this.edits.push({ operation: 'remove', path: pathOf(loc) });
  }

  private created(n: DataNode, loc: Loc): void {
    if (n.kind === 'list')
      for (const e of n.entries) this.edits.push({ operation: 'replace', path: pathOf(this.entryLoc(e, loc)), value: editValue(e) });
    else if (n.kind === 'leaf-list') this.mergeValues(n, loc, () => true);
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
