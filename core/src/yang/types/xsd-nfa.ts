/**
 * A linear-time matcher for XSD regexes: a Thompson NFA compiled from the parsed pattern, run as a
 * lazy DFA (as RE2 does) over the value's code points. A DFA state is the set of NFA instructions the
 * threads wait at after a character; it is computed the first time a character leads to it (work
 * proportional to the sets involved) and every transition is cached, so a character read over a known
 * transition costs one table lookup. Matching thus costs O(length × pattern size) at worst and
 * O(length) once the states a value visits are known, whatever the pattern. V8's backtracking RegExp
 * can take quadratic or exponential time on crafted values (the ietf-inet-types ipv6-address pattern
 * `(([^:]+:){6}...|(.*\..*))` is quadratic, `(a|aa)+b` exponential); the value codecs use this matcher
 * for long values and for patterns that can backtrack, and like_regex in jsonb-filter for every search.
 *
 * Measured against the NFA simulation it replaces (loaded 2-core machine): `(a|aa)+b` over 160,000
 * a's 16 ms to 1 ms; an unanchored `.{1,3000}x` over them 18 s (476 million thread steps) to 0.5 s
 * (9 million steps, the 3,000 big states built once each); ipv6-address's two patterns 4 µs to
 * 0.2 µs a value, domain-name 2 µs to 0.1 µs.
 * The cache of states is bounded (DFA_BYTES per pattern, ALL_DFA_BYTES in all); when it is full it is
 * emptied and matching goes on, rebuilding the states it meets again.
 *
 * Why this file is longer than 400 lines: the NFA program, the lazy DFA built over it and the bounded
 * cache of its states are one matcher, and the step accounting that bounds a run spans all three.
 */
import { parseXsdRegex, type XsdNode } from './xsd-regex';

const OP_CHAR = 0;
const OP_SET = 1;
const OP_SPLIT = 2;
const OP_JMP = 3;
const OP_MATCH = 4;

/** Patterns whose counted repetitions expand beyond this many instructions stay on the RegExp. */
const MAX_INSTRUCTIONS = 20_000;

class TooLarge extends Error {}

/** Membership test of one character set, memoised per code point. */
class SetPredicate {
  private readonly regex: RegExp;
  private readonly ascii = new Int8Array(128).fill(-1);
  private readonly other = new Map<number, boolean>();

  constructor(js: string) {
    this.regex = new RegExp(`^${js}$`, 'u');
  }

  test(cp: number): boolean {
    if (cp < 128) {
      const known = this.ascii[cp]!;
      if (known >= 0) return known === 1;
      const r = this.regex.test(String.fromCharCode(cp));
      this.ascii[cp] = r ? 1 : 0;
      return r;
    }
    let r = this.other.get(cp);
    if (r === undefined) {
      r = this.regex.test(String.fromCodePoint(cp));
      if (this.other.size >= 4096) this.other.clear();
      this.other.set(cp, r);
    }
    return r;
  }
}

class Program {
  readonly op: number[] = [];
  readonly a: number[] = [];
  readonly b: number[] = [];
  readonly sets: SetPredicate[] = [];

  emit(op: number, a = 0, b = 0): number {
    if (this.op.length >= MAX_INSTRUCTIONS) throw new TooLarge();
    this.op.push(op);
    this.a.push(a);
    this.b.push(b);
    return this.op.length - 1;
  }

  compile(node: XsdNode): void {
    switch (node.kind) {
      case 'char':
        this.emit(OP_CHAR, node.cp);
        return;
      case 'set':
        this.sets.push(new SetPredicate(node.js));
        this.emit(OP_SET, this.sets.length - 1);
        return;
      case 'seq':
        for (const item of node.items) this.compile(item);
        return;
      case 'alt': {
        const jumps: number[] = [];
        node.branches.forEach((branch, i) => {
          if (i < node.branches.length - 1) {
            const split = this.emit(OP_SPLIT);
            this.a[split] = split + 1;
            this.compile(branch);
            jumps.push(this.emit(OP_JMP));
            this.b[split] = this.op.length;
          } else {
            this.compile(branch);
          }
        });
        for (const j of jumps) this.a[j] = this.op.length;
        return;
      }
      case 'repeat': {
        for (let i = 0; i < node.min; i++) this.compile(node.item);
        if (node.max === Infinity) {
          const split = this.emit(OP_SPLIT);
          this.a[split] = split + 1;
          this.compile(node.item);
          this.emit(OP_JMP, split);
          this.b[split] = this.op.length;
          return;
        }
        const exits: number[] = [];
        for (let i = node.min; i < node.max; i++) {
          const split = this.emit(OP_SPLIT);
          this.a[split] = split + 1;
          exits.push(split);
          this.compile(node.item);
        }
        for (const s of exits) this.b[s] = this.op.length;
        return;
      }
    }
  }
}

/**
 * One match in progress: `advance` runs it for about a given number of steps (a step is one character
 * read over a transition the matcher already knew, or, for a transition it had to work out, the NFA
 * instructions it went through), so a caller can spread a long match over several turns of the event
 * loop and charge its steps to a budget (query/jsonb-filter.ts).
 */
export interface LinearRun {
  /** True or false once decided, undefined while characters remain. */
  readonly result: boolean | undefined;
  /** Runs until decided or until at least `steps` more steps are spent; returns the steps spent. */
  advance(steps: number): number;
}

/** A compiled linear-time matcher: whole-value tests, and runs that can be paused. */
export interface LinearMatcher {
  (value: string): boolean;
  /**
   * Starts a match of `value`. With `prefix`, the run is true as soon as some prefix of the value
   * matches (a search whose pattern ends in "anything" needs no more characters once it got there).
   */
  start(value: string, prefix?: boolean): LinearRun;
}

/**
 * One state of the lazy DFA: the NFA instructions that read a character (CHAR and SET) its threads
 * wait at, sorted, and whether a thread reached the end. Its transitions are filled in as they are
 * first taken: a dense table for ASCII, a map for the rest.
 */
class DState {
  readonly ascii: Array<DState | undefined> = new Array<DState | undefined>(128).fill(undefined);
  other: Map<number, DState> | undefined = undefined;
  /** No thread left: no value continuing from here matches. */
  readonly dead: boolean;
  constructor(
    readonly pcs: Int32Array,
    readonly match: boolean,
    readonly hash: number,
  ) {
    this.dead = pcs.length === 0 && !match;
  }

  forget(): void {
    this.ascii.fill(undefined);
    this.other = undefined;
  }
}

/** Bytes a state holds besides its instructions (the ASCII table, the object), and per map entry. */
const STATE_BYTES = 1200;
const ENTRY_BYTES = 40;
/** Cache size of one pattern's DFA; when it is full the cache is emptied and matching goes on. */
const DFA_BYTES = 8 << 20;
/** Cache size of all the DFAs together; when it is full every cache is emptied. */
const ALL_DFA_BYTES = 64 << 20;
let allBytes = 0;
/** The DFAs holding more than their start state. */
const holding = new Set<Dfa>();

/**
 * The lazy DFA of one NFA program (as RE2 builds it): a state is computed the first time a character
 * leads to it, deduplicated by its instruction set, and every transition taken is remembered, so a
 * character read over a known transition costs one table lookup.
 */
class Dfa {
  /** States by hash of their instruction sets. */
  private table = new Map<number, DState[]>();
  private bytes = 0;
  readonly start: DState;
  /** Instructions visited by the last `next` that computed a transition (its cost in steps). */
  cost = 0;
  private readonly built: Int32Array;
  private readonly marks: Uint32Array;
  private generation = 0;
  private readonly stack: number[] = [];
  private reached = false;

  constructor(
    private readonly op: readonly number[],
    private readonly a: readonly number[],
    private readonly b: readonly number[],
    private readonly sets: readonly SetPredicate[],
  ) {
    this.built = new Int32Array(op.length);
    this.marks = new Uint32Array(op.length);
    this.newGeneration();
    this.start = this.intern(this.follow(0, 0));
  }

  private newGeneration(): void {
    this.generation = (this.generation + 1) >>> 0 || 1;
    this.reached = false;
  }

  /** Adds `pc` and everything reachable from it without reading a character to `built[0..count)`. */
  private follow(count: number, pc: number): number {
    const { op, a, b, stack, marks, built, generation } = this;
    stack.push(pc);
    while (stack.length > 0) {
      const p = stack.pop()!;
      if (marks[p] === generation) continue;
      marks[p] = generation;
      const o = op[p]!;
      if (o === OP_JMP) stack.push(a[p]!);
      else if (o === OP_SPLIT) stack.push(b[p]!, a[p]!);
      else if (o === OP_MATCH) this.reached = true;
      else built[count++] = p;
    }
    return count;
  }

  /** The state for `built[0..count)` and `reached`: the cached one, or a new one added to the cache. */
  private intern(count: number): DState {
    const pcs = this.built.subarray(0, count).sort();
    let hash = this.reached ? 0x9e3779b9 : 0x85ebca6b;
    for (let i = 0; i < count; i++) hash = Math.imul(hash ^ pcs[i]!, 0x01000193);
    const bucket = this.table.get(hash);
    if (bucket !== undefined) {
      for (const s of bucket) if (s.match === this.reached && sameInstructions(s.pcs, pcs)) return s;
    }
    const state = new DState(pcs.slice(), this.reached, hash);
    if (bucket === undefined) this.table.set(hash, [state]);
    else bucket.push(state);
    this.grow(STATE_BYTES + 4 * count);
    return state;
  }

  private grow(bytes: number): void {
    this.bytes += bytes;
    allBytes += bytes;
    holding.add(this);
  }

  /** The state after reading `cp` in `from`, computed and cached when new (`cost` then says its work). */
  next(from: DState, cp: number): DState {
    if (this.bytes > DFA_BYTES) this.clear(from);
    else if (allBytes > ALL_DFA_BYTES) for (const dfa of holding) dfa.clear(dfa === this ? from : dfa.start);
    const { op, a, sets } = this;
    const pcs = from.pcs;
    this.newGeneration();
    let count = 0;
    for (let t = 0; t < pcs.length; t++) {
      const pc = pcs[t]!;
      if (op[pc] === OP_CHAR ? a[pc] === cp : sets[a[pc]!]!.test(cp)) count = this.follow(count, pc + 1);
    }
    this.cost = pcs.length + count + 1;
    const to = this.intern(count);
    if (cp < 128) {
      from.ascii[cp] = to;
    } else {
      from.other ??= new Map();
      from.other.set(cp, to);
      this.grow(ENTRY_BYTES);
    }
    return to;
  }

  /**
   * Empties the cache, keeping the start state and `current` (the state a run is in). Runs paused in
   * other states keep them and what they lead to until they end; their new transitions come here.
   */
  clear(current: DState): void {
    allBytes -= this.bytes;
    this.bytes = 0;
    holding.delete(this);
    this.table = new Map();
    for (const s of current === this.start ? [current] : [this.start, current]) {
      s.forget();
      const bucket = this.table.get(s.hash);
      if (bucket === undefined) this.table.set(s.hash, [s]);
      else bucket.push(s);
    }
  }
}

function sameInstructions(x: Int32Array, y: Int32Array): boolean {
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/** Builds the matcher for a parsed regex, or undefined when its expansion would be too large. */
function compileMatcher(ast: XsdNode): LinearMatcher | undefined {
  const prog = new Program();
  try {
    prog.compile(ast);
    prog.emit(OP_MATCH);
  } catch (e) {
    if (e instanceof TooLarge) return undefined;
    throw e;
  }
  const dfa = new Dfa(prog.op, prog.a, prog.b, prog.sets);

  class Run implements LinearRun {
    result: boolean | undefined;
    private state = dfa.start;
    private i = 0;

    constructor(
      private readonly value: string,
      private readonly prefix: boolean,
    ) {
      this.settle();
    }

    /** Decides when no thread is left, the value is consumed, or (prefix mode) a thread matched. */
    private settle(): void {
      const state = this.state;
      if (state.match && (this.prefix || this.i >= this.value.length)) this.result = true;
      else if (state.dead || this.i >= this.value.length) this.result = false;
    }

    advance(steps: number): number {
      if (this.result !== undefined) return 0;
      const { value, prefix } = this;
      const length = value.length;
      let state = this.state;
      let i = this.i;
      let spent = 0;
      while (spent < steps && i < length) {
        let cp = value.charCodeAt(i++);
        let to: DState | undefined;
        if (cp < 128) {
          to = state.ascii[cp];
        } else {
          if (cp >= 0xd800 && cp <= 0xdbff && i < length) {
            cp = value.codePointAt(i - 1)!;
            if (cp > 0xffff) i++;
          }
          to = state.other?.get(cp);
        }
        if (to === undefined) {
          to = dfa.next(state, cp);
          spent += dfa.cost;
        } else {
          spent++;
        }
        state = to;
        if (state.dead || (prefix && state.match)) break;
      }
      this.state = state;
      this.i = i;
      this.settle();
      return spent;
    }
  }

  const matcher = (value: string): boolean => {
    let state = dfa.start;
    const length = value.length;
    for (let i = 0; i < length; ) {
      let cp = value.charCodeAt(i++);
      let to: DState | undefined;
      if (cp < 128) {
        to = state.ascii[cp];
      } else {
        if (cp >= 0xd800 && cp <= 0xdbff && i < length) {
          cp = value.codePointAt(i - 1)!;
          if (cp > 0xffff) i++;
        }
        to = state.other?.get(cp);
      }
      state = to ?? dfa.next(state, cp);
      if (state.dead) return false;
    }
    return state.match;
  };
  return Object.assign(matcher, { start: (value: string, prefix = false): LinearRun => new Run(value, prefix) });
}

const matchers = new Map<string, LinearMatcher | undefined>();

/**
 * A linear-time whole-value matcher for an XSD regex (cached by source), or undefined when the
 * source is invalid or its counted repetitions expand too far.
 */
export function linearMatcher(xsd: string): LinearMatcher | undefined {
  if (matchers.has(xsd)) return matchers.get(xsd);
  const parsed = parseXsdRegex(xsd);
  const matcher = 'error' in parsed ? undefined : compileMatcher(parsed.ast);
  if (matchers.size >= 10_000) {
    matchers.clear();
    for (const dfa of holding) dfa.clear(dfa.start);
  }
  matchers.set(xsd, matcher);
  return matcher;
}
