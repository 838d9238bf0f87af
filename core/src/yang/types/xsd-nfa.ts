/**
 * A linear-time matcher for XSD regexes: a Thompson NFA simulated over the value's code points, so
 * matching costs O(length × pattern size) whatever the pattern and the value. V8's backtracking
 * RegExp is faster on short values but can take quadratic or exponential time on long crafted ones
 * (the ietf-inet-types ipv6-address pattern `(([^:]+:){6}...|(.*\..*))` is quadratic); the value
 * codecs use this matcher for long values so that no request body can stall the process.
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
 * One match in progress: `advance` runs it for about a given number of steps (a step is one thread
 * of the NFA moved over one character), so a caller can spread a long match over several turns of
 * the event loop and charge its steps to a budget (query/jsonb-filter.ts).
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

/** The thread lists and marks of one run; reused by the next run of the same matcher once it is done. */
interface Buffers {
  current: Int32Array;
  next: Int32Array;
  readonly marks: Uint32Array;
  generation: number;
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
  const { op, a, b, sets } = prog;
  const size = op.length;
  const stack: number[] = [];
  let spare: Buffers | undefined;
  /** Set by addThread when it reached the final instruction. */
  let matched = false;

  /** Adds `pc` and everything reachable from it without consuming a character. */
  const addThread = (list: Int32Array, count: number, pc: number, marks: Uint32Array, generation: number): number => {
    stack.push(pc);
    while (stack.length > 0) {
      const p = stack.pop()!;
      if (marks[p] === generation) continue;
      marks[p] = generation;
      const o = op[p]!;
      if (o === OP_JMP) stack.push(a[p]!);
      else if (o === OP_SPLIT) stack.push(b[p]!, a[p]!);
      else {
        if (o === OP_MATCH) matched = true;
        list[count++] = p;
      }
    }
    return count;
  };

  class Run implements LinearRun {
    result: boolean | undefined;
    private buffers: Buffers | undefined;
    private count: number;
    private i = 0;

    constructor(
      private readonly value: string,
      private readonly prefix: boolean,
    ) {
      const buffers = spare ?? { current: new Int32Array(size), next: new Int32Array(size), marks: new Uint32Array(size), generation: 0 };
      spare = undefined;
      this.buffers = buffers;
      buffers.generation = (buffers.generation + 1) >>> 0 || 1;
      matched = false;
      this.count = addThread(buffers.current, 0, 0, buffers.marks, buffers.generation);
      this.settle(matched);
    }

    /** Decides when no thread is left, the value is consumed, or (prefix mode) a thread matched. */
    private settle(reached: boolean): void {
      const end = this.i >= this.value.length;
      if (reached && (this.prefix || end)) this.result = true;
      else if (end || this.count === 0) this.result = false;
      else return;
      spare = this.buffers;
      this.buffers = undefined;
    }

    advance(steps: number): number {
      const buffers = this.buffers;
      if (buffers === undefined) return 0;
      const value = this.value;
      const length = value.length;
      const marks = buffers.marks;
      let { current, next, generation } = buffers;
      let count = this.count;
      let i = this.i;
      let spent = 0;
      let reached = false;
      while (spent < steps) {
        const cp = value.codePointAt(i)!;
        i += cp > 0xffff ? 2 : 1;
        generation = (generation + 1) >>> 0 || 1;
        matched = false;
        let nextCount = 0;
        for (let t = 0; t < count; t++) {
          const pc = current[t]!;
          const o = op[pc];
          if ((o === OP_CHAR && a[pc] === cp) || (o === OP_SET && sets[a[pc]!]!.test(cp))) {
            nextCount = addThread(next, nextCount, pc + 1, marks, generation);
          }
        }
        spent += count + 1;
        const swap = current;
        current = next;
        next = swap;
        count = nextCount;
        reached = matched;
        if (count === 0 || i >= length || (reached && this.prefix)) break;
      }
      buffers.current = current;
      buffers.next = next;
      buffers.generation = generation;
      this.count = count;
      this.i = i;
      this.settle(reached);
      return spent;
    }
  }

  const matcher = (value: string): boolean => {
    const run = new Run(value, false);
    run.advance(Infinity);
    return run.result!;
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
  if (matchers.size >= 10_000) matchers.clear();
  matchers.set(xsd, matcher);
  return matcher;
}
