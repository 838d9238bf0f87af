/**
 * `jsonb-filter` (docs/restconf-api.md#jsonb-filter): keeps the entries of the target list for which a predicate holds,
 * with the semantics of PostgreSQL's SQL/JSON path in lax mode, so a filter means here what it means
 * to a client used to a jsonb store:
 *
 * - a path yields a sequence: a list on the way yields all its entries, a leaf-list all its values,
 *   a missing node nothing; a bare name matches a child of any module, `module:name` only that module;
 * - comparisons are existential over both sequences (true when any pair compares true); comparing
 *   values of different types (a number with a string, an object with anything) is "unknown";
 * - `&&`, `||`, `!` use three-valued logic, `is unknown` tests for it, and an entry is kept only when
 *   the predicate is true.
 *
 * Values are compared by their YANG type, not their RFC 7951 spelling: int64/uint64 and decimal64 are
 * numbers here (exactly, see compareValues), identityrefs are `module:identity` strings, `empty` is null.
 */
import type { DataNode, DataRoot, LeafValue, ListEntryNode, ListNode } from '../../data/tree';
import { compareValues } from '../../yang/types/values';
import type { JsonbOperand, JsonbPath, JsonbPredicate, ComparisonOperator } from './jsonb-filter-parse';

export { parseJsonbFilter, type JsonbPredicate } from './jsonb-filter-parse';

/** A value in a sequence: a typed scalar, or a node with children (an "object"). */
type Item =
  | { readonly t: 'num'; readonly v: number | bigint | string }
  | { readonly t: 'str'; readonly v: string }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'null' }
  | { readonly t: 'object' };

/** Three-valued logic: true, false, or unknown. */
type Truth = true | false | 'unknown';

type Inner = DataRoot | ListEntryNode | Extract<DataNode, { kind: 'container' }>;

function itemOfLeaf(value: LeafValue, decimal: boolean): Item {
  if (value === null) return { t: 'null' };
  if (typeof value === 'boolean') return { t: 'bool', v: value };
  if (typeof value === 'number' || typeof value === 'bigint') return { t: 'num', v: value };
  return decimal ? { t: 'num', v: value } : { t: 'str', v: value };
}

function itemOfJson(value: unknown): Item {
  if (value === null) return { t: 'null' };
  if (typeof value === 'boolean') return { t: 'bool', v: value };
  if (typeof value === 'number') return { t: 'num', v: value };
  if (typeof value === 'string') return { t: 'str', v: value };
  return { t: 'object' };
}

function matches(node: DataNode, name: string): boolean {
  const colon = name.indexOf(':');
  if (colon < 0) return node.schema.name === name;
  return node.schema.name === name.slice(colon + 1) && node.schema.module.name === name.slice(0, colon);
}

/** The sequence a path yields from `start`. */
function evaluatePath(path: JsonbPath, start: Inner): Item[] {
  let current: Inner[] = [start];
  const out: Item[] = [];
  for (let i = 0; i < path.names.length; i++) {
    const last = i === path.names.length - 1;
    const next: Inner[] = [];
    for (const inner of current) {
      for (const child of inner.children) {
        if (!matches(child, path.names[i]!)) continue;
        switch (child.kind) {
          case 'container':
            if (last) out.push({ t: 'object' });
            else next.push(child);
            break;
          case 'list':
            if (last) for (let n = 0; n < child.entries.length; n++) out.push({ t: 'object' });
            else next.push(...child.entries);
            break;
          case 'leaf':
            if (last) out.push(itemOfLeaf(child.value, child.schema.type.builtin === 'decimal64'));
            break;
          case 'leaf-list':
            if (last) for (const v of child.values) out.push(itemOfLeaf(v, child.schema.type.builtin === 'decimal64'));
            break;
          case 'any':
            if (last) out.push(itemOfJson(child.value));
            break;
          default:
            break;
        }
      }
    }
    current = next;
  }
  if (path.names.length === 0) out.push({ t: 'object' }); // `{@}`: the entry itself
  return out;
}

function compareItems(a: Item, b: Item, op: ComparisonOperator): Truth {
  if (a.t === 'null' || b.t === 'null') {
    if (op === '==') return a.t === b.t;
    if (op === '!=') return a.t !== b.t;
    return 'unknown';
  }
  if (a.t !== b.t || a.t === 'object') return 'unknown';
  let c: number;
  if (a.t === 'num') c = compareValues(a.v as LeafValue, (b as typeof a).v as LeafValue);
  else if (a.t === 'str') c = a.v < (b as typeof a).v ? -1 : a.v > (b as typeof a).v ? 1 : 0;
  else c = Number(a.v) - Number((b as Extract<Item, { t: 'bool' }>).v);
  switch (op) {
    case '==':
      return c === 0;
    case '!=':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
  }
}

/** Decimal literal spelled as compareValues orders it exactly (decimal64 values are strings). */
function literalItem(value: string | number | boolean | null, text: string): Item {
  if (typeof value === 'number') {
    if (/^-?[0-9]+$/.test(text)) return { t: 'num', v: BigInt(text) };
    if (/^-?[0-9]+\.[0-9]+$/.test(text)) return { t: 'num', v: text };
    return { t: 'num', v: value };
  }
  return itemOfJson(value);
}

class Evaluator {
  /** Absolute paths give the same sequence for every entry: computed once each. */
  private readonly absolute = new Map<JsonbPath, Item[]>();
  constructor(private readonly root: DataRoot) {}

  private path(path: JsonbPath, entry: ListEntryNode): Item[] {
    if (!path.absolute) return evaluatePath(path, entry);
    let items = this.absolute.get(path);
    if (items === undefined) {
      items = evaluatePath(path, this.root);
      this.absolute.set(path, items);
    }
    return items;
  }

  operand(o: JsonbOperand, entry: ListEntryNode): Item[] {
    return o.kind === 'literal' ? [literalItem(o.value, o.text)] : this.path(o, entry);
  }

  truth(p: JsonbPredicate, entry: ListEntryNode): Truth {
    switch (p.kind) {
      case 'and': {
        const l = this.truth(p.left, entry);
        if (l === false) return false;
        const r = this.truth(p.right, entry);
        return r === false ? false : l === true && r === true ? true : 'unknown';
      }
      case 'or': {
        const l = this.truth(p.left, entry);
        if (l === true) return true;
        const r = this.truth(p.right, entry);
        return r === true ? true : l === false && r === false ? false : 'unknown';
      }
      case 'not': {
        const v = this.truth(p.operand, entry);
        return v === 'unknown' ? v : !v;
      }
      case 'is-unknown':
        return this.truth(p.operand, entry) === 'unknown';
      case 'exists':
        return this.path(p.path, entry).length > 0;
      case 'compare':
        return this.existential(this.operand(p.left, entry), this.operand(p.right, entry), (a, b) => compareItems(a, b, p.op));
      case 'like-regex':
        return this.existential(this.operand(p.left, entry), [{ t: 'null' }], (a) =>
          a.t === 'str' ? p.test(p.caseless ? a.v.toLowerCase() : a.v) : 'unknown',
        );
      case 'starts-with':
        return this.existential(this.operand(p.left, entry), this.operand(p.prefix, entry), (a, b) =>
          a.t === 'str' && b.t === 'str' ? a.v.startsWith(b.v) : 'unknown',
        );
    }
  }

  /** True when some pair is true; else unknown when some pair is; else false (also for no pairs). */
  private existential(left: readonly Item[], right: readonly Item[], test: (a: Item, b: Item) => Truth): Truth {
    let unknown = false;
    for (const a of left) {
      for (const b of right) {
        const r = test(a, b);
        if (r === true) return true;
        if (r === 'unknown') unknown = true;
      }
    }
    return unknown ? 'unknown' : false;
  }
}

/**
 * The list with only the entries for which `predicate` is true. `root` is the datastore root that
 * absolute paths (`{$/module:top/...}`) read; without it they yield nothing.
 */
export function filterEntries(list: ListNode, predicate: JsonbPredicate, root: DataRoot = { kind: 'root', children: [] }): ListNode {
  const evaluator = new Evaluator(root);
  const entries = list.entries.filter((e) => evaluator.truth(predicate, e) === true);
  const { index: _dropped, ...rest } = list;
  return { ...rest, entries };
}
