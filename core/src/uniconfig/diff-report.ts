/**
 * `calculate-diff` output for one node: the changes from the actual to the intended configuration,
 * grouped as created, updated (actual and intended data), deleted and reordered lists, each with its
 * instance path under `configuration` and the data as RFC 7951 JSON text.
 *
 * The report is built by its own walk rather than from data/diff.ts's change list, because a diff of
 * a large configuration is dominated by bookkeeping, not by comparing: here
 * - lists are matched by key through their indexes, and subtrees shared by identity (the copy-on-write
 *   edits of a transaction leave every untouched entry shared with the stored tree) are skipped
 *   without looking inside;
 * - a path is text built once per node the walk descends into (parent path + one segment), never
 *   rebuilt from the root per change, and only for nodes that differ;
 * - output entries are written as they are found (no intermediate change objects).
 * Metadata annotations are not compared: the stores keep configuration without them.
 */
import { entryKey, listIndex } from '../data/list';
import { toJsonValue } from '../data/json-encode';
import { entryKeyValues, quotePredicate, valueText } from '../data/path';
import type { DataNode, DataRoot, LeafListNode, LeafValue, ListEntryNode, ListNode } from '../data/tree';
import type { JsonObject, JsonValue } from '../hooks';
import type { ListSchema, SchemaNode } from '../yang/schema';

function sameValue(a: LeafValue, b: LeafValue): boolean {
  return a === b || (typeof a === typeof b && valueText(a) === valueText(b));
}

function jsonScalar(v: LeafValue): JsonValue {
  return typeof v === 'bigint' ? v.toString() : (v as JsonValue);
}

/** The path of `schema` under a parent whose path is `parentPath` and module `parentModule`. */
function segment(parentPath: string, parentModule: string | undefined, schema: SchemaNode): string {
  const module = schema.module.name;
  return module === parentModule ? `${parentPath}/${schema.name}` : `${parentPath}/${module}:${schema.name}`;
}

function entryPredicates(entry: ListEntryNode): string {
  const keys = (entry.schema as ListSchema).keys;
  const values = entryKeyValues(entry);
  let out = '';
  for (let i = 0; i < keys.length; i++) out += `[${keys[i]!.name}=${quotePredicate(valueText(values[i]!))}]`;
  return out;
}

/**
 * Collects the four groups. Paths are unique by construction (keys, schema nodes), except where data
 * has no identity: entries of a keyless list and repeated leaf-list values share a path, and only the
 * first of them is reported.
 */
class Report {
  readonly created: JsonObject[] = [];
  readonly updated: JsonObject[] = [];
  readonly deleted: JsonObject[] = [];
  readonly reordered: JsonObject[] = [];

  create(path: string, data: string): void {
    this.created.push({ path, data });
  }

  delete(path: string, data: string): void {
    this.deleted.push({ path, data });
  }

  update(path: string, actual: string, intended: string): void {
    this.updated.push({ path, 'data-actual': actual, 'data-intended': intended });
  }

  reorder(path: string, actual: string, intended: string): void {
    this.reordered.push({ path, 'actual-list-keys': actual, 'intended-list-keys': intended });
  }

  /** Walks two sibling sets (the children of one parent). */
  children(a: readonly DataNode[], b: readonly DataNode[], parentPath: string, parentModule: string | undefined): void {
    if (a === b) return;
    // small sibling sets (a node's children): a linear match by schema is the cheapest there is
    const matched: boolean[] = new Array(b.length).fill(false);
    for (const n of a) {
      let at = -1;
      for (let i = 0; i < b.length; i++)
        if (b[i]!.schema === n.schema) {
          at = i;
          break;
        }
      if (at < 0) {
        this.delete(segment(parentPath, parentModule, n.schema), nodeText(n));
        continue;
      }
      matched[at] = true;
      const m = b[at]!;
      if (m !== n) this.node(n, m, parentPath, parentModule);
    }
    for (let i = 0; i < b.length; i++) if (!matched[i]) this.create(segment(parentPath, parentModule, b[i]!.schema), nodeText(b[i]!));
  }

  private node(a: DataNode, b: DataNode, parentPath: string, parentModule: string | undefined): void {
    switch (a.kind) {
      case 'leaf': {
        const bv = (b as typeof a).value;
        if (!sameValue(a.value, bv)) this.update(segment(parentPath, parentModule, a.schema), nodeText(a), nodeText(b));
        return;
      }
      case 'any':
        if (JSON.stringify(a.value) !== JSON.stringify((b as typeof a).value))
          this.update(segment(parentPath, parentModule, a.schema), nodeText(a), nodeText(b));
        return;
      case 'container':
        this.children(a.children, (b as typeof a).children, segment(parentPath, parentModule, a.schema), a.schema.module.name);
        return;
      case 'list':
        this.list(a, b as ListNode, parentPath, parentModule);
        return;
      case 'leaf-list':
        this.leafList(a, b as LeafListNode, parentPath, parentModule);
        return;
      case 'entry':
        return; // entries are compared by `list`
    }
  }

  private list(a: ListNode, b: ListNode, parentPath: string, parentModule: string | undefined): void {
    const listPath = segment(parentPath, parentModule, a.schema);
    const module = a.schema.module.name;
    const ia = listIndex(a);
    const ib = listIndex(b);
    if (ia === undefined || ib === undefined) {
      // keyless (state) lists have no identity but position: entries are compared pairwise
      const n = Math.max(a.entries.length, b.entries.length);
      for (let i = 0; i < n; i++) {
        const x = a.entries[i];
        const y = b.entries[i];
        if (x === undefined) {
          this.create(listPath, nodeText(y!));
          break;
        }
        if (y === undefined) {
          this.delete(listPath, nodeText(x));
          break;
        }
        if (x !== y) this.children(x.children, y.children, listPath, module);
      }
      return;
    }
    if (this.aligned(a, b, listPath, module)) return;
    for (const e of a.entries) {
      const other = ib.get(entryKey(e));
      if (other === undefined) this.delete(listPath + entryPredicates(e), nodeText(e));
      else if (other !== e) this.children(e.children, other.children, listPath + entryPredicates(other), module);
    }
    for (const e of b.entries) if (!ia.has(entryKey(e))) this.create(listPath + entryPredicates(e), nodeText(e));
    if (a.schema.orderedBy === 'user') {
      const before = a.entries.map(entryKey).filter((k) => ib.has(k));
      const after = b.entries.map(entryKey).filter((k) => ia.has(k));
      if (before.some((k, i) => k !== after[i]))
        this.reorder(listPath, JSON.stringify(a.entries.map(entryKey)), JSON.stringify(b.entries.map(entryKey)));
    }
  }

  /**
   * The common case of an edited list, compared without index lookups: the same keys in the same
   * order (entries shared or not). Reports and answers true then; false (nothing reported) otherwise.
   */
  private aligned(a: ListNode, b: ListNode, listPath: string, module: string): boolean {
    const n = a.entries.length;
    if (n !== b.entries.length) return false;
    for (let i = 0; i < n; i++) {
      const x = a.entries[i]!;
      const y = b.entries[i]!;
      if (x !== y && entryKey(x) !== entryKey(y)) return false;
    }
    for (let i = 0; i < n; i++) {
      const x = a.entries[i]!;
      const y = b.entries[i]!;
      if (x !== y) this.children(x.children, y.children, listPath + entryPredicates(y), module);
    }
    return true;
  }

  private leafList(a: LeafListNode, b: LeafListNode, parentPath: string, parentModule: string | undefined): void {
    const listPath = segment(parentPath, parentModule, a.schema);
    const member = `${a.schema.module.name}:${a.schema.name}`;
    const valueData = (v: LeafValue) => JSON.stringify({ [member]: [jsonScalar(v)] });
    const before = new Set(a.values.map(valueText));
    const after = new Set(b.values.map(valueText));
    const reported = new Set<string>(); // a repeated value (state leaf-lists allow them) is one path
    for (const v of a.values) {
      const t = valueText(v);
      if (!after.has(t) && !reported.has(t)) {
        reported.add(t);
        this.delete(`${listPath}[.=${quotePredicate(t)}]`, valueData(v));
      }
    }
    reported.clear();
    for (const v of b.values) {
      const t = valueText(v);
      if (!before.has(t) && !reported.has(t)) {
        reported.add(t);
        this.create(`${listPath}[.=${quotePredicate(t)}]`, valueData(v));
      }
    }
    if (a.schema.orderedBy === 'user') {
      const x = a.values.map(valueText).filter((t) => after.has(t));
      const y = b.values.map(valueText).filter((t) => before.has(t));
      if (x.some((t, i) => t !== y[i]))
        this.reorder(listPath, JSON.stringify(a.values.map(jsonScalar)), JSON.stringify(b.values.map(jsonScalar)));
    }
  }

  /** The node-result members (groups without changes left out). */
  result(): JsonObject {
    const out: { [member: string]: JsonValue } = {};
    if (this.created.length > 0) out['created-data'] = this.created;
    if (this.updated.length > 0) out['updated-data'] = this.updated;
    if (this.deleted.length > 0) out['deleted-data'] = this.deleted;
    if (this.reordered.length > 0) out['reordered-lists'] = this.reordered;
    return out;
  }
}

/** `{"module:name":` per leaf schema, built once. */
const leafPrefixes = new WeakMap<SchemaNode, string>();

/**
 * A node as RFC 7951 JSON text. Leaves (most of what a diff reports) are written directly: their JSON
 * follows from the value's JS type alone (json-encode.ts), so the general mapper is not needed.
 */
function nodeText(node: DataNode): string {
  if (node.kind !== 'leaf') return JSON.stringify(toJsonValue(node, { attributes: false }));
  let prefix = leafPrefixes.get(node.schema);
  if (prefix === undefined) {
    prefix = `{${JSON.stringify(`${node.schema.module.name}:${node.schema.name}`)}:`;
    leafPrefixes.set(node.schema, prefix);
  }
  const v = node.value;
  const json =
    typeof v === 'string'
      ? JSON.stringify(v)
      : typeof v === 'bigint'
        ? `"${v.toString()}"`
        : typeof v === 'number'
          ? Number.isFinite(v)
            ? String(v)
            : 'null'
          : typeof v === 'boolean'
            ? String(v)
            : '[null]';
  return `${prefix}${json}}`;
}

/**
 * The calculate-diff members of one node: what turns `actual` into `intended`, with instance paths
 * (RFC 7951, the module named on the first node and wherever it changes). Deleted and updated come
 * in the order of `actual`, created after the deletions of each level.
 */
export function diffReport(actual: DataRoot, intended: DataRoot): JsonObject {
  const report = new Report();
  report.children(actual.children, intended.children, '', undefined);
  return report.result();
}
