/**
 * The `jsonb-filter` language (docs/restconf-api.md#jsonb-filter): the predicate part of PostgreSQL's SQL/JSON path,
 * over paths written in braces. Grammar (lowest precedence first):
 *
 *   or      = and *( "||" and )
 *   and     = unary *( "&&" unary )
 *   unary   = "!" unary / primary [ "is" "unknown" ]
 *   primary = "(" or ")" / "exists" "(" path ")"
 *           / operand ( cmp operand / "like_regex" string [ "flag" string ] / "starts" "with" operand )
 *   cmp     = "==" / "!=" / "<>" / "<" / "<=" / ">" / ">="
 *   operand = path / string / number / "true" / "false" / "null"
 *   path    = "{@" *( "/" name ) "}" (relative to each list entry) / "{$" 1*( "/" name ) "}" (absolute)
 *   name    = [ module ":" ] identifier
 *
 * Strings are double- or single-quoted with backslash escapes. `like_regex` patterns use the common
 * POSIX/XSD subset (classes, groups, alternation, quantifiers, `^`/`$` at the ends) and run on a
 * linear-time matcher (its runs can be paused and are charged to the request's work budget, see
 * jsonb-filter.ts); flags `i` (caseless) and `q` (literal).
 * Every error is 400 naming `jsonb-filter`, with the offset.
 */
import { linearMatcher, type LinearRun } from '../../yang/types/xsd-nfa';
import { badQuery } from '../errors';

export type JsonbScalar = string | number | boolean | null;

export interface JsonbPath {
  readonly kind: 'path';
  readonly absolute: boolean;
  /** Names as written (`name` or `module:name`). */
  readonly names: readonly string[];
}
export interface JsonbLiteral {
  readonly kind: 'literal';
  readonly value: JsonbScalar;
  readonly text: string;
}
export type JsonbOperand = JsonbPath | JsonbLiteral;
export type ComparisonOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';

export type JsonbPredicate =
  | { readonly kind: 'and' | 'or'; readonly left: JsonbPredicate; readonly right: JsonbPredicate }
  | { readonly kind: 'not'; readonly operand: JsonbPredicate }
  | { readonly kind: 'is-unknown'; readonly operand: JsonbPredicate }
  | { readonly kind: 'compare'; readonly op: ComparisonOperator; readonly left: JsonbOperand; readonly right: JsonbOperand }
  | {
      readonly kind: 'like-regex';
      readonly left: JsonbOperand;
      /** Starts the search of one value; the run decides whether the pattern occurs in it. */
      readonly search: (s: string) => LinearRun;
      readonly caseless: boolean;
      readonly pattern: string;
      /** The flags as written (`i`, `q`). */
      readonly flags: string;
    }
  | { readonly kind: 'starts-with'; readonly left: JsonbOperand; readonly prefix: JsonbOperand }
  | { readonly kind: 'exists'; readonly path: JsonbPath };

/** Nesting of `(` and `!` accepted; keeps the recursive-descent parser's stack bounded. */
const MAX_NESTING = 100;
const NAME = /^(?:[A-Za-z_][A-Za-z0-9_.-]*:)?[A-Za-z_][A-Za-z0-9_.-]*$/;

/** A parsed filter: its predicate, and its text as the client wrote it (errors name it). */
export interface JsonbFilter {
  readonly text: string;
  readonly predicate: JsonbPredicate;
}

/** Parses a jsonb-filter value into a predicate; errors are 400 naming `jsonb-filter`. */
export function parseJsonbFilter(text: string): JsonbFilter {
  const p = new FilterParser(text);
  const predicate = p.or(0);
  p.space();
  if (p.at < text.length) throw p.fail(`unexpected '${text.slice(p.at, p.at + 10)}'`);
  return { text, predicate };
}

class FilterParser {
  at = 0;
  constructor(private readonly text: string) {}

  fail(message: string): ReturnType<typeof badQuery> {
    return badQuery('jsonb-filter', `${message} at offset ${this.at} of '${this.text}'`);
  }

  space(): void {
    while (this.at < this.text.length && /\s/.test(this.text[this.at]!)) this.at++;
  }

  /** Consumes `token` (after spaces) when it is next; words must end at a non-word character. */
  private eat(token: string): boolean {
    this.space();
    if (!this.text.startsWith(token, this.at)) return false;
    const after = this.text[this.at + token.length];
    if (/^[a-z_]/i.test(token) && after !== undefined && /[A-Za-z0-9_]/.test(after)) return false;
    this.at += token.length;
    return true;
  }

  or(nesting: number): JsonbPredicate {
    let left = this.and(nesting);
    while (this.eat('||')) left = { kind: 'or', left, right: this.and(nesting) };
    return left;
  }

  private and(nesting: number): JsonbPredicate {
    let left = this.unary(nesting);
    while (this.eat('&&')) left = { kind: 'and', left, right: this.unary(nesting) };
    return left;
  }

  private unary(nesting: number): JsonbPredicate {
    if (nesting > MAX_NESTING) throw this.fail(`nesting deeper than ${MAX_NESTING}`);
    this.space();
    if (this.text[this.at] === '!' && this.text[this.at + 1] !== '=') {
      this.at++;
      return { kind: 'not', operand: this.unary(nesting + 1) };
    }
    let p = this.primary(nesting);
    while (this.eat('is')) {
      if (!this.eat('unknown')) throw this.fail("expected 'unknown' after 'is'");
      p = { kind: 'is-unknown', operand: p };
    }
    return p;
  }

  private primary(nesting: number): JsonbPredicate {
    if (this.eat('(')) {
      const inner = this.or(nesting + 1);
      if (!this.eat(')')) throw this.fail("missing ')'");
      return inner;
    }
    if (this.eat('exists')) {
      if (!this.eat('(')) throw this.fail("expected '(' after exists");
      this.space();
      const path = this.path();
      if (!this.eat(')')) throw this.fail("missing ')' after the exists path");
      return { kind: 'exists', path };
    }
    const left = this.operand();
    for (const op of ['==', '!=', '<>', '<=', '>=', '<', '>'] as const) {
      if (this.eat(op)) return { kind: 'compare', op: op === '<>' ? '!=' : op, left, right: this.operand() };
    }
    if (this.eat('like_regex')) return this.likeRegex(left);
    if (this.eat('starts')) {
      if (!this.eat('with')) throw this.fail("expected 'with' after 'starts'");
      return { kind: 'starts-with', left, prefix: this.operand() };
    }
    throw this.fail('expected a comparison, like_regex or starts with');
  }

  private likeRegex(left: JsonbOperand): JsonbPredicate {
    this.space();
    const pattern = this.string();
    let flags = '';
    if (this.eat('flag')) {
      this.space();
      flags = this.string();
      if (!/^[iq]*$/.test(flags)) throw this.fail(`unsupported like_regex flag(s) '${flags}' (i and q are supported)`);
    }
    const caseless = flags.includes('i');
    const source = flags.includes('q') ? quotePattern(pattern) : pattern;
    const search = compileSearch(caseless ? foldPattern(source) : source);
    if (search === undefined) throw this.fail(`like_regex pattern '${pattern}' is not supported or too large`);
    return { kind: 'like-regex', left, search, caseless, pattern, flags };
  }

  private operand(): JsonbOperand {
    this.space();
    const c = this.text[this.at];
    if (c === '{') return this.path();
    if (c === '"' || c === "'") {
      const start = this.at;
      const value = this.string();
      return { kind: 'literal', value, text: this.text.slice(start, this.at) };
    }
    const m = /^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/.exec(this.text.slice(this.at, this.at + 400));
    if (m) {
      this.at += m[0].length;
      const n = Number(m[0]);
      if (!Number.isFinite(n)) throw this.fail(`number '${m[0]}' is out of range`);
      return { kind: 'literal', value: n, text: m[0] };
    }
    for (const [word, value] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.eat(word)) return { kind: 'literal', value, text: word };
    }
    throw this.fail('expected a {path}, a string, a number, true, false or null');
  }

  private path(): JsonbPath {
    if (this.text[this.at] !== '{') throw this.fail("expected a path in braces, e.g. '{@/config/name}'");
    const close = this.text.indexOf('}', this.at);
    if (close < 0) throw this.fail("the path has no closing '}'");
    const body = this.text.slice(this.at + 1, close).trim();
    const root = body[0];
    if (root !== '@' && root !== '$') throw this.fail("a path starts with '@' (the entry) or '$' (the datastore root)");
    const rest = body.slice(1);
    const names = rest === '' ? [] : rest.startsWith('/') ? rest.slice(1).split('/') : [''];
    for (const n of names) if (!NAME.test(n)) throw this.fail(`'${n}' in path '{${body}}' is not a [module:]name`);
    if (root === '$' && names.length === 0) throw this.fail("an absolute path names at least one node: '{$/module:top/...}'");
    this.at = close + 1;
    return { kind: 'path', absolute: root === '$', names };
  }

  private string(): string {
    const quote = this.text[this.at];
    if (quote !== '"' && quote !== "'") throw this.fail('expected a quoted string');
    let out = '';
    let i = this.at + 1;
    for (; i < this.text.length && this.text[i] !== quote; i++) {
      let c = this.text[i]!;
      if (c === '\\') {
        const e = this.text[++i];
        if (e === undefined) break;
        c = e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e;
      }
      out += c;
    }
    if (i >= this.text.length) {
      this.at = i;
      throw this.fail('unterminated string');
    }
    this.at = i + 1;
    return out;
  }
}

/**
 * A search (not whole-value) for a POSIX-style pattern, on the linear-time XSD matcher: a leading
 * `^` and trailing `$` anchor; otherwise the pattern may match anywhere. Without `$` the run stops
 * at the first match (prefix mode) instead of reading the rest of the value. As in PostgreSQL
 * without flag `s`, `.` does not match a newline (XSD's `.` does not either).
 */
function compileSearch(pattern: string): ((s: string) => LinearRun) | undefined {
  let body = pattern;
  const anchoredStart = body.startsWith('^');
  if (anchoredStart) body = body.slice(1);
  const anchoredEnd = body.endsWith('$') && !body.endsWith('\\$');
  if (anchoredEnd) body = body.slice(0, -1);
  const matcher = linearMatcher(`${anchoredStart ? '' : '[\\s\\S]*'}(${body})`);
  return matcher && ((s: string) => matcher.start(s, !anchoredEnd));
}

/** A pattern matching `text` literally (flag `q`). */
function quotePattern(text: string): string {
  return text.replace(/[\\.?*+|{}()[\]^$-]/g, (c) => `\\${c}`);
}

/** Lower-cases a pattern's literal letters (not escapes such as `\D` or `\p{Lu}`), for flag `i`. */
function foldPattern(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c !== '\\') {
      out += c.toLowerCase();
      continue;
    }
    const e = pattern[i + 1] ?? '';
    if ((e === 'p' || e === 'P') && pattern[i + 2] === '{') {
      const close = pattern.indexOf('}', i);
      const end = close < 0 ? pattern.length : close + 1;
      out += pattern.slice(i, end);
      i = end - 1;
    } else {
      out += c + e;
      i++;
    }
  }
  return out;
}
