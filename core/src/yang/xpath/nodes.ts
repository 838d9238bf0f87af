/**
 * The XPath data model over the data tree of `data/tree.ts`: a cursor (`XNode`) is a data node plus
 * its parent cursor, since tree nodes have no parent pointers. The root is the `DataRoot`; each list
 * entry is an element named by the list; each leaf-list value is its own element; choice and case do
 * not appear. The cursor also records where it stands among its parent's children (`slot`, `sub`), so
 * document order is a comparison of those positions from the root down.
 */
import type { LeafListSchema, LeafSchema, YangType } from '../schema';
import type { AnyNode, ContainerNode, DataNode, DataRoot, LeafListNode, LeafNode, LeafValue, ListEntryNode } from '../instance-tree';

/** What a cursor stands on. A `LeafListNode` cursor is one of its values (`sub` is the value's index). */
export type XData = DataRoot | ContainerNode | ListEntryNode | LeafNode | LeafListNode | AnyNode;

/** A node of the XPath data model: a data node with the chain of its ancestors. */
export class XNode {
  private orderKey: number[] | undefined;

  /**
   * @param data the data node (for a leaf-list value: the whole leaf-list)
   * @param parent the parent cursor; undefined only for the root
   * @param slot index of the data node among the parent's `children`
   * @param sub index of the list entry or leaf-list value within that child; 0 otherwise
   */
  constructor(
    readonly data: XData,
    readonly parent: XNode | undefined,
    readonly slot: number,
    readonly sub: number,
  ) {}

  /** The cursor at the top of a tree. */
  static root(root: DataRoot): XNode {
    return new XNode(root, undefined, 0, 0);
  }

  /** The children of this node in document order (a leaf-list contributes one node per value). */
  *children(): Generator<XNode> {
    const d = this.data;
    if (d.kind !== 'root' && d.kind !== 'container' && d.kind !== 'entry') return;
    const kids = d.children;
    for (let i = 0; i < kids.length; i++) yield* expandChild(this, kids[i]!, i);
  }

  /** Whether this node is the same XPath node as `other` (cursors are created afresh by every walk). */
  same(other: XNode): boolean {
    return this.data === other.data && (this.data.kind !== 'leaf-list' || this.sub === other.sub);
  }

  /** Sibling positions from the root down: compares in document order. */
  order(): number[] {
    if (!this.orderKey) {
      const key: number[] = [];
      for (let n: XNode | undefined = this; n?.parent; n = n.parent) key.push(n.sub, n.slot);
      this.orderKey = key.reverse();
    }
    return this.orderKey;
  }

  /** The schema node's name and module, or undefined for the root. */
  get schema(): Exclude<XData, DataRoot>['schema'] | undefined {
    return this.data.kind === 'root' ? undefined : this.data.schema;
  }

  /** The value of a leaf or of one leaf-list value; undefined for other nodes. */
  get value(): LeafValue | undefined {
    if (this.data.kind === 'leaf') return this.data.value;
    if (this.data.kind === 'leaf-list') return this.data.values[this.sub];
    return undefined;
  }
}

/** The cursors one child data node contributes under `parent` at index `slot`. */
export function* expandChild(parent: XNode, child: DataNode, slot: number): Generator<XNode> {
  switch (child.kind) {
    case 'list':
      for (let j = 0; j < child.entries.length; j++) yield new XNode(child.entries[j]!, parent, slot, j);
      return;
    case 'leaf-list':
      for (let j = 0; j < child.values.length; j++) yield new XNode(child, parent, slot, j);
      return;
    default:
      yield new XNode(child, parent, slot, 0);
  }
}

/** Orders two cursors by document order (negative when `a` comes first). */
export function compareOrder(a: XNode, b: XNode): number {
  const ka = a.order();
  const kb = b.order();
  const n = Math.min(ka.length, kb.length);
  for (let i = 0; i < n; i++) if (ka[i] !== kb[i]) return ka[i]! - kb[i]!;
  return ka.length - kb.length;
}

/** Removes duplicates and sorts into document order. */
export function normalizeSet(nodes: XNode[]): XNode[] {
  if (nodes.length < 2) return nodes;
  const seen = new Map<XData, Set<number> | true>();
  const out: XNode[] = [];
  for (const n of nodes) {
    const prior = seen.get(n.data);
    if (n.data.kind === 'leaf-list') {
      const subs = prior instanceof Set ? prior : new Set<number>();
      if (subs.has(n.sub)) continue;
      subs.add(n.sub);
      seen.set(n.data, subs);
    } else {
      if (prior) continue;
      seen.set(n.data, true);
    }
    out.push(n);
  }
  let sorted = true;
  for (let i = 1; i < out.length && sorted; i++) if (compareOrder(out[i - 1]!, out[i]!) > 0) sorted = false;
  if (!sorted) out.sort(compareOrder);
  return out;
}

/** The canonical text of a leaf value (identityref as `module:identity`, booleans as true/false). */
export function valueString(value: LeafValue): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  return String(value);
}

/** The string-value of a node (XPath §5): a leaf's text, or the text of all leaves below, in order. */
export function stringValue(node: XNode): string {
  const d = node.data;
  if (d.kind === 'leaf' || d.kind === 'leaf-list') return valueString(node.value ?? null);
  if (d.kind === 'any') return anyText(d.value);
  let out = '';
  const stack: XNode[] = [node];
  while (stack.length) {
    const n = stack.pop()!;
    if (n.data.kind === 'leaf' || n.data.kind === 'leaf-list') out += valueString(n.value ?? null);
    else if (n.data.kind === 'any') out += anyText(n.data.value);
    else stack.push(...[...n.children()].reverse());
  }
  return out;
}

function anyText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'object') return String(v);
  let out = '';
  for (const x of Object.values(v as object)) out += anyText(x);
  return out;
}

/** Whether a leaf's type holds identityref values (directly, through a union, or a leafref's target). */
export function isIdentityType(type: YangType, depth = 0): boolean {
  if (type.builtin === 'identityref') return true;
  if (depth > 8) return false;
  if (type.union) return type.union.some((m) => isIdentityType(m, depth + 1));
  if (type.leafref?.target) return isIdentityType(type.leafref.target.type, depth + 1);
  return false;
}

/** The type of a leaf or leaf-list cursor. */
export function leafType(node: XNode): YangType | undefined {
  const d = node.data;
  return d.kind === 'leaf' || d.kind === 'leaf-list' ? (d.schema as LeafSchema | LeafListSchema).type : undefined;
}
