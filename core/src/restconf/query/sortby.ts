/**
 * `sortby=leaf(asc|desc);...` (docs/restconf-api.md#sortby): orders the entries of the target list by one or more
 * leaves, each a path below the entry (`name`, `config/mtu`, `ietf-ip:ipv4/mtu`), ascending unless
 * `(desc)`. Values are ordered by compareValues, which is the union order rule: no value, empty,
 * boolean, numeric, then string-like; `desc` reverses that whole order. The sort is stable, so
 * entries equal on every key keep their stored order.
 */
import type { LeafValue, ListEntryNode, ListNode } from '../../data/tree';
import type { ListSchema, SchemaNode } from '../../yang/schema';
import { compareValues } from '../../yang/types/values';
import { badQuery } from '../errors';

/** One sort key as written: a path of [module:]names and a direction. */
export interface SortKey {
  readonly path: readonly string[];
  readonly descending: boolean;
}

/** A sort key resolved to schema nodes below the list entry. */
export interface ResolvedKey {
  readonly nodes: readonly SchemaNode[];
  readonly descending: boolean;
}

const KEY =
  /^((?:[A-Za-z_][A-Za-z0-9_.-]*:)?[A-Za-z_][A-Za-z0-9_.-]*(?:\/(?:[A-Za-z_][A-Za-z0-9_.-]*:)?[A-Za-z_][A-Za-z0-9_.-]*)*)(?:\((asc|desc)\))?$/;

/** Parses the value of `sortby`. */
export function parseSortby(value: string): SortKey[] {
  const keys: SortKey[] = [];
  for (const part of value.split(';')) {
    const m = KEY.exec(part.trim());
    if (!m) throw badQuery('sortby', `'${part}' is not leaf, leaf(asc) or leaf(desc) (a leaf may be a path a/b)`);
    keys.push({ path: m[1]!.split('/'), descending: m[2] === 'desc' });
  }
  return keys;
}

function findChild(parent: SchemaNode, id: string): SchemaNode | undefined {
  const colon = id.indexOf(':');
  const module = colon >= 0 ? id.slice(0, colon) : parent.module.name;
  const name = colon >= 0 ? id.slice(colon + 1) : id;
  let bare: SchemaNode | undefined;
  let bareCount = 0;
  const visit = (list: readonly SchemaNode[]): SchemaNode | undefined => {
    for (const c of list) {
      if (c.kind === 'choice' || c.kind === 'case') {
        const f = visit(c.children);
        if (f) return f;
      } else if (c.name === name) {
        if (c.module.name === module) return c;
        bare = c;
        bareCount++;
      }
    }
    return undefined;
  };
  // As in URIs and fields, a bare name that only one child carries also names an augmented child.
  return visit(parent.children) ?? (colon < 0 && bareCount === 1 ? bare : undefined);
}

/** Resolves keys against the list's schema: each must reach a leaf through containers. */
export function resolveKeys(keys: readonly SortKey[], list: ListSchema): ResolvedKey[] {
  return keys.map((k) => {
    const nodes: SchemaNode[] = [];
    let parent: SchemaNode = list;
    for (const id of k.path) {
      const node: SchemaNode | undefined = parent.kind === 'list' || parent.kind === 'container' ? findChild(parent, id) : undefined;
      if (node === undefined) throw badQuery('sortby', `'${k.path.join('/')}' names no node of list '${list.name}' ('${id}' is unknown)`);
      nodes.push(node);
      parent = node;
    }
    if (parent.kind !== 'leaf') throw badQuery('sortby', `'${k.path.join('/')}' is a ${parent.kind}; sortby takes leaves`);
    return { nodes, descending: k.descending };
  });
}

function valueAt(entry: ListEntryNode, nodes: readonly SchemaNode[]): LeafValue | undefined {
  let children = entry.children;
  for (let i = 0; i < nodes.length; i++) {
    const child = children.find((c) => c.schema === nodes[i]);
    if (child === undefined) return undefined;
    if (child.kind === 'leaf') return i === nodes.length - 1 ? child.value : undefined;
    if (child.kind !== 'container') return undefined;
    children = child.children;
  }
  return undefined;
}

/** The list with its entries sorted by `keys` (400 naming sortby when a key is not a leaf of it). */
export function sortEntries(list: ListNode, keys: readonly SortKey[]): ListNode {
  const resolved = resolveKeys(keys, list.schema);
  // Each entry's key values are read once, not once per comparison.
  const rows = list.entries.map((entry, n) => ({ entry, n, values: resolved.map((k) => valueAt(entry, k.nodes)) }));
  rows.sort((a, b) => {
    for (let i = 0; i < resolved.length; i++) {
      const c = compareValues(a.values[i], b.values[i]);
      if (c !== 0) return resolved[i]!.descending ? -c : c;
    }
    return a.n - b.n;
  });
  const { index: _dropped, ...rest } = list;
  return { ...rest, entries: rows.map((r) => r.entry) };
}
