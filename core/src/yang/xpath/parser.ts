/**
 * The XPath 1.0 parser: recursive descent over the tokens of `lexer.ts`, one function per grammar
 * level of W3C XPath 1.0 §3 (or < and < =,!= < <,<=,>,>= < +,- < *,div,mod < unary - < | < paths).
 * `//` is expanded to `/descendant-or-self::node()/`, `.` to `self::node()`, `..` to `parent::node()`,
 * `@x` to `attribute::x`. Nesting is bounded so hostile input cannot exhaust the stack.
 * `compileXPath` parses a model's `SchemaXPath` once and caches the AST in its `parsed` slot.
 */
import type { SchemaXPath } from '../schema';
import { AXES, type Axis, type BinaryOp, type Expr, type NodeTest, type Step } from './ast';
import { tokenize, type Token } from './lexer';

/** A parse fault: 0-based offset in the expression and what was wrong. */
export interface XPathSyntaxError {
  readonly pos: number;
  readonly reason: string;
}

/** Deepest nesting of parentheses, predicates and calls accepted. */
const MAX_DEPTH = 128;
/**
 * Tallest syntax tree accepted (a chain `a or b or c ...` is as tall as it is long): evaluators
 * recurse over the tree, so its height bounds their stack use.
 */
const MAX_HEIGHT = 512;

class Fault {
  constructor(
    readonly pos: number,
    readonly reason: string,
  ) {}
}

/** Parses an XPath 1.0 expression. */
export function parseXPath(source: string): { expr: Expr } | { error: XPathSyntaxError } {
  const lexed = tokenize(source);
  if ('fault' in lexed) return { error: lexed.fault };
  const parser = new Parser(lexed.tokens, source.length);
  try {
    const expr = parser.expr();
    const extra = parser.peek();
    if (extra) return { error: { pos: extra.pos, reason: `unexpected '${extra.text}' after the expression` } };
    if (height(expr) > MAX_HEIGHT) return { error: { pos: 0, reason: `expression has more than ${MAX_HEIGHT} nested operations` } };
    return { expr };
  } catch (e) {
    if (e instanceof Fault) return { error: { pos: e.pos, reason: e.reason } };
    throw e;
  }
}

/** What is cached in `SchemaXPath.parsed`. */
type Cached = { readonly expr: Expr } | { readonly error: XPathSyntaxError };

/**
 * The parsed form of a model's XPath, parsed on first use and cached on the `SchemaXPath`.
 * The error form carries a message with the source text and offset.
 */
export function compileXPath(xpath: SchemaXPath): { expr: Expr } | { error: string } {
  let cached = xpath.parsed as Cached | undefined;
  if (!cached || !('expr' in cached || 'error' in cached)) {
    cached = parseXPath(xpath.source);
    xpath.parsed = cached;
  }
  if ('expr' in cached) return cached;
  return { error: describeSyntaxError(xpath.source, cached.error) };
}

/** `invalid XPath "a +" at offset 3: expected an expression`. */
export function describeSyntaxError(source: string, e: XPathSyntaxError): string {
  return `invalid XPath "${source}" at offset ${e.pos}: ${e.reason}`;
}

class Parser {
  private i = 0;
  private depth = 0;
  constructor(
    private readonly tokens: readonly Token[],
    private readonly end: number,
  ) {}

  peek(offset = 0): Token | undefined {
    return this.tokens[this.i + offset];
  }

  private next(): Token {
    const t = this.tokens[this.i];
    if (!t) throw new Fault(this.end, 'unexpected end of expression');
    this.i++;
    return t;
  }

  private isOp(...ops: string[]): boolean {
    const t = this.peek();
    return t !== undefined && t.kind === 'operator' && ops.includes(t.text);
  }

  private expect(kind: Token['kind'], what: string): Token {
    const t = this.peek();
    if (!t || t.kind !== kind) throw new Fault(t ? t.pos : this.end, `expected ${what}${t ? `, found '${t.text}'` : ''}`);
    this.i++;
    return t;
  }

  private enter(pos: number): void {
    if (++this.depth > MAX_DEPTH) throw new Fault(pos, `expression nested deeper than ${MAX_DEPTH} levels`);
  }

  expr(): Expr {
    const start = this.peek();
    this.enter(start ? start.pos : this.end);
    try {
      return this.binary(0);
    } finally {
      this.depth--;
    }
  }

  // Binary levels from loosest to tightest; unary minus and union sit below them.
  private static readonly LEVELS: readonly (readonly string[])[] = [
    ['or'],
    ['and'],
    ['=', '!='],
    ['<', '<=', '>', '>='],
    ['+', '-'],
    ['*', 'div', 'mod'],
  ];

  private binary(level: number): Expr {
    if (level === Parser.LEVELS.length) return this.unary();
    let left = this.binary(level + 1);
    const ops = Parser.LEVELS[level]!;
    while (this.isOp(...ops)) {
      const op = this.next();
      const right = this.binary(level + 1);
      left = { kind: 'binary', op: op.text as BinaryOp, left, right, pos: op.pos };
    }
    return left;
  }

  private unary(): Expr {
    const minuses: number[] = [];
    while (this.isOp('-')) minuses.push(this.next().pos);
    let e = this.union();
    for (let k = minuses.length - 1; k >= 0; k--) e = { kind: 'negate', operand: e, pos: minuses[k]! };
    return e;
  }

  private union(): Expr {
    let left = this.pathExpr();
    while (this.isOp('|')) {
      const op = this.next();
      left = { kind: 'binary', op: '|', left, right: this.pathExpr(), pos: op.pos };
    }
    return left;
  }

  private pathExpr(): Expr {
    const t = this.peek();
    if (!t) throw new Fault(this.end, 'expected an expression');
    switch (t.kind) {
      case 'variable':
      case '(':
      case 'literal':
      case 'number':
      case 'function': {
        const filter = this.filterExpr();
        if (this.isOp('/', '//')) return { kind: 'path', start: filter, steps: this.relativePath(), pos: t.pos };
        return filter;
      }
      case 'operator':
        if (t.text === '/' || t.text === '//') return this.locationPath();
        throw new Fault(t.pos, `expected an expression, found '${t.text}'`);
      case '.':
      case '..':
      case '@':
      case 'axis':
      case 'name':
      case 'nodetype':
        return this.locationPath();
      default:
        throw new Fault(t.pos, `expected an expression, found '${t.text}'`);
    }
  }

  private filterExpr(): Expr {
    const t = this.next();
    let primary: Expr;
    switch (t.kind) {
      case 'variable':
        primary = { kind: 'variable', name: t.text, pos: t.pos };
        break;
      case 'literal':
        primary = { kind: 'literal', value: t.text, pos: t.pos };
        break;
      case 'number':
        primary = { kind: 'number', value: Number(t.text), pos: t.pos };
        break;
      case '(': {
        primary = this.expr();
        this.expect(')', "')'");
        break;
      }
      case 'function': {
        this.expect('(', "'('");
        const args: Expr[] = [];
        if (this.peek()?.kind !== ')') {
          args.push(this.expr());
          while (this.peek()?.kind === ',') {
            this.i++;
            args.push(this.expr());
          }
        }
        this.expect(')', `')' to close the arguments of ${t.text}`);
        primary = { kind: 'call', prefix: t.prefix, name: t.text, args, pos: t.pos };
        break;
      }
      default:
        throw new Fault(t.pos, `expected an expression, found '${t.text}'`);
    }
    const predicates = this.predicates();
    return predicates.length ? { kind: 'filter', primary, predicates, pos: t.pos } : primary;
  }

  private locationPath(): Expr {
    const t = this.peek()!;
    if (t.kind === 'operator' && t.text === '/') {
      this.i++;
      const n = this.peek();
      const startsStep = n !== undefined && ['.', '..', '@', 'axis', 'name', 'nodetype'].includes(n.kind);
      return { kind: 'path', start: 'root', steps: startsStep ? this.relativePath() : [], pos: t.pos };
    }
    if (t.kind === 'operator' && t.text === '//') {
      // '//' at the start: the steps begin with descendant-or-self::node()
      return { kind: 'path', start: 'root', steps: this.relativePath(), pos: t.pos };
    }
    return { kind: 'path', start: 'context', steps: this.relativePath(), pos: t.pos };
  }

  /**
   * Steps joined by '/' or '//'. A leading '/' or '//' (after a filter expression or at the root) is
   * consumed here too.
   */
  private relativePath(): Step[] {
    const steps: Step[] = [];
    if (this.isOp('/')) this.i++;
    else if (this.isOp('//')) steps.push(descendantOrSelf(this.next().pos));
    steps.push(this.step());
    while (this.isOp('/', '//')) {
      const sep = this.next();
      if (sep.text === '//') steps.push(descendantOrSelf(sep.pos));
      steps.push(this.step());
    }
    return steps;
  }

  private step(): Step {
    const t = this.peek();
    if (!t) throw new Fault(this.end, 'expected a location step');
    if (t.kind === '.') {
      this.i++;
      return { axis: 'self', test: { kind: 'node' }, predicates: [], pos: t.pos };
    }
    if (t.kind === '..') {
      this.i++;
      return { axis: 'parent', test: { kind: 'node' }, predicates: [], pos: t.pos };
    }
    let axis: Axis = 'child';
    if (t.kind === '@') {
      this.i++;
      axis = 'attribute';
    } else if (t.kind === 'axis') {
      if (!AXES.has(t.text)) throw new Fault(t.pos, `unknown axis '${t.text}'`);
      this.i++;
      this.expect('::', "'::'");
      axis = t.text as Axis;
    }
    const test = this.nodeTest();
    return { axis, test, predicates: this.predicates(), pos: t.pos };
  }

  private nodeTest(): NodeTest {
    const t = this.next();
    if (t.kind === 'name') return { kind: 'name', prefix: t.prefix, local: t.text };
    if (t.kind === 'nodetype') {
      this.expect('(', "'('");
      let literal: string | undefined;
      if (t.text === 'processing-instruction' && this.peek()?.kind === 'literal') literal = this.next().text;
      this.expect(')', `')' after ${t.text}(`);
      const kind = t.text as 'node' | 'text' | 'comment' | 'processing-instruction';
      return literal === undefined ? { kind } : { kind, literal };
    }
    throw new Fault(t.pos, `expected a node test, found '${t.text}'`);
  }

  private predicates(): Expr[] {
    const out: Expr[] = [];
    while (this.peek()?.kind === '[') {
      this.i++;
      out.push(this.expr());
      this.expect(']', "']'");
    }
    return out;
  }
}

function descendantOrSelf(pos: number): Step {
  return { axis: 'descendant-or-self', test: { kind: 'node' }, predicates: [], pos };
}

/** The height of a syntax tree, measured without recursion (the tree may be hostile). */
function height(root: Expr): number {
  let max = 0;
  const stack: Array<[Expr, number]> = [[root, 1]];
  const pushAll = (es: readonly Expr[], h: number) => {
    for (const e of es) stack.push([e, h]);
  };
  while (stack.length) {
    const [e, h] = stack.pop()!;
    if (h > max) max = h;
    if (max > MAX_HEIGHT) return max;
    switch (e.kind) {
      case 'binary':
        stack.push([e.left, h + 1], [e.right, h + 1]);
        break;
      case 'negate':
        stack.push([e.operand, h + 1]);
        break;
      case 'call':
        pushAll(e.args, h + 1);
        break;
      case 'filter':
        stack.push([e.primary, h + 1]);
        pushAll(e.predicates, h + 1);
        break;
      case 'path':
        if (typeof e.start === 'object') stack.push([e.start, h + 1]);
        for (const s of e.steps) pushAll(s.predicates, h + 1);
        break;
      default:
        break;
    }
  }
  return max;
}
