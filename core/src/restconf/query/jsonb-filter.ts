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
 *
 * No filter may stall the service (docs/restconf-api.md#jsonb-filter): evaluation counts its work in
 * steps (an entry, a node a path visits, a pair compared, a character the like_regex matcher reads, or
 * the instructions it goes through when it must work out a new DFA state) against a budget per
 * request, and answers 400 naming the filter when it is spent; and it gives the event loop back every
 * few milliseconds, so other requests are served while a long filter runs.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { DataNode, DataRoot, LeafValue, ListEntryNode, ListNode } from '../../data/tree';
import { compareValues } from '../../yang/types/values';
import { badQuery } from '../errors';
import type { ComparisonOperator, JsonbFilter, JsonbOperand, JsonbPath, JsonbPredicate } from './jsonb-filter-parse';

export { parseJsonbFilter, type JsonbFilter, type JsonbPredicate } from './jsonb-filter-parse';

/**
 * Steps one request's filter may spend. Ordinary filters over a 100,000-entry list spend 0.7 million
 * (a comparison, starts with) to 2.9 million (a like_regex over 20-character descriptions, anchored or
 * not); a step costs 5 ns (a character over a known DFA transition) to about 60 ns, so a filter that
 * spends the whole budget is refused within about a second (`like_regex "a{1,5000}b"` over 160,000
 * characters, whose DFA states hold up to 10,000 instructions: 0.6 s).
 */
export const FILTER_BUDGET = 20_000_000;
/** How long evaluation keeps the event loop before it lets other work run. */
const SLICE_MS = 4;
/** Steps between two looks at the clock (a look costs about as much as a hundred steps). */
const CHECK_EVERY = 4096;

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

/** The sequence a path yields from `start`; every node it visits is a step charged to `meter`. */
function evaluatePath(path: JsonbPath, start: Inner, meter: Meter): Item[] {
  let current: Inner[] = [start];
  const out: Item[] = [];
  for (let i = 0; i < path.names.length; i++) {
    const last = i === path.names.length - 1;
    const next: Inner[] = [];
    for (const inner of current) {
      meter.charge(inner.children.length);
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
  meter.charge(out.length);
  return out;
}

/**
 * The work a filter has done for one request, and when it last gave the event loop back. `charge`
 * throws the 400 once the budget is spent; `due` says whether the current slice is over.
 */
class Meter {
  spent = 0;
  private nextLook = CHECK_EVERY;
  private sliceEnd = performance.now() + SLICE_MS;

  constructor(
    private readonly filter: JsonbFilter,
    private readonly budget: number,
  ) {}

  charge(steps: number): void {
    this.spent += steps;
    if (this.spent > this.budget) {
      throw badQuery(
        'jsonb-filter',
        `'${this.filter.text}' needs more than the ${this.budget.toLocaleString('en')} steps of work a request may spend; narrow the target list or simplify the filter`,
      );
    }
  }

  /** True once the slice is over (the clock is read only every CHECK_EVERY steps). */
  due(): boolean {
    if (this.spent < this.nextLook) return false;
    this.nextLook = this.spent + CHECK_EVERY;
    return performance.now() >= this.sliceEnd;
  }

  /** Gives the event loop back, then starts a new slice. */
  async pause(): Promise<void> {
    await nextTurn();
    this.sliceEnd = performance.now() + SLICE_MS;
  }
}

/** An evaluation step that may pause: it yields when the meter's slice is over. */
type Stepping<T> = Generator<void, T, void>;

function compareItems(a: Item, b: Item, op: ComparisonOperator): Truth {
  // as PostgreSQL: null against null compares equal (so <= holds); against anything else only != holds
  if (a.t === 'null' && b.t === 'null') return op === '==' || op === '<=' || op === '>=';
  if (a.t === 'null' || b.t === 'null') return op === '!=';
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
  constructor(
    private readonly root: DataRoot,
    private readonly meter: Meter,
  ) {}

  private path(path: JsonbPath, entry: ListEntryNode): Item[] {
    if (!path.absolute) return evaluatePath(path, entry, this.meter);
    let items = this.absolute.get(path);
    if (items === undefined) {
      items = evaluatePath(path, this.root, this.meter);
      this.absolute.set(path, items);
    }
    return items;
  }

  operand(o: JsonbOperand, entry: ListEntryNode): Item[] {
    return o.kind === 'literal' ? [literalItem(o.value, o.text)] : this.path(o, entry);
  }

  *truth(p: JsonbPredicate, entry: ListEntryNode): Stepping<Truth> {
    switch (p.kind) {
      case 'and': {
        const l = yield* this.truth(p.left, entry);
        if (l === false) return false;
        const r = yield* this.truth(p.right, entry);
        return r === false ? false : l === true && r === true ? true : 'unknown';
      }
      case 'or': {
        const l = yield* this.truth(p.left, entry);
        if (l === true) return true;
        const r = yield* this.truth(p.right, entry);
        return r === true ? true : l === false && r === false ? false : 'unknown';
      }
      case 'not': {
        const v = yield* this.truth(p.operand, entry);
        return v === 'unknown' ? v : !v;
      }
      case 'is-unknown':
        return (yield* this.truth(p.operand, entry)) === 'unknown';
      case 'exists':
        return this.path(p.path, entry).length > 0;
      case 'compare':
        return yield* this.existential(this.operand(p.left, entry), this.operand(p.right, entry), (a, b) => compareItems(a, b, p.op));
      case 'like-regex':
        return yield* this.likeRegex(p, this.operand(p.left, entry));
      case 'starts-with':
        return yield* this.existential(this.operand(p.left, entry), this.operand(p.prefix, entry), (a, b) =>
          a.t === 'str' && b.t === 'str' ? a.v.startsWith(b.v) : 'unknown',
        );
    }
  }

  /** True when some pair is true; else unknown when some pair is; else false (also for no pairs). */
  private *existential(left: readonly Item[], right: readonly Item[], test: (a: Item, b: Item) => Truth): Stepping<Truth> {
    let unknown = false;
    for (const a of left) {
      this.meter.charge(right.length);
      if (this.meter.due()) yield;
      for (const b of right) {
        const r = test(a, b);
        if (r === true) return true;
        if (r === 'unknown') unknown = true;
      }
    }
    return unknown ? 'unknown' : false;
  }

  /** like_regex over a sequence (existential, as a comparison): each string searched by a paused-and-resumed run. */
  private *likeRegex(p: Extract<JsonbPredicate, { kind: 'like-regex' }>, items: readonly Item[]): Stepping<Truth> {
    let unknown = false;
    for (const a of items) {
      if (a.t !== 'str') {
        unknown = true;
        continue;
      }
      const run = p.search(p.caseless ? a.v.toLowerCase() : a.v);
      while (run.result === undefined) {
        this.meter.charge(run.advance(CHECK_EVERY));
        if (this.meter.due()) yield;
      }
      if (run.result) return true;
    }
    return unknown ? 'unknown' : false;
  }
}

/**
 * The list with only the entries for which the filter's predicate is true. `root` is the datastore
 * root that absolute paths (`{$/module:top/...}`) read; without it they yield nothing. Throws 400
 * naming the filter when it needs more than `budget` steps; gives the event loop back every few
 * milliseconds while it runs.
 */
export async function filterEntries(
  list: ListNode,
  filter: JsonbFilter,
  root: DataRoot = { kind: 'root', children: [] },
  budget = FILTER_BUDGET,
): Promise<ListNode> {
  const meter = new Meter(filter, budget);
  const evaluator = new Evaluator(root, meter);
  const entries: ListEntryNode[] = [];
  for (const entry of list.entries) {
    meter.charge(1);
    const steps = evaluator.truth(filter.predicate, entry);
    let step = steps.next();
    while (!step.done) {
      await meter.pause();
      step = steps.next();
    }
    if (step.value === true) entries.push(entry);
    if (meter.due()) await meter.pause();
  }
  const { index: _dropped, ...rest } = list;
  return { ...rest, entries };
}
