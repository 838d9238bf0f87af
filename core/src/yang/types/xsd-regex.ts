/**
 * Translation of XML Schema regular expressions (XSD 1.0 Part 2, Appendix F: the dialect of YANG
 * `pattern` statements, RFC 7950 §9.4.5) into JavaScript RegExps with the `u` flag.
 *
 * Where the dialects differ:
 * - an XSD regex matches the whole value, so the result is anchored at both ends, and `^`/`$` are
 *   ordinary characters;
 * - `.` is `[^\n\r]`; `\s`, `\i`, `\c`, `\d`, `\w` (and their complements) have XSD meanings;
 * - `\p{IsBlock}` names a Unicode block, expanded here into code point ranges;
 * - character class subtraction `[a-z-[aeiou]]` becomes a negative lookahead before the base class.
 *
 * Like libyang (which hands patterns to PCRE2), the translator accepts a backslash before any ASCII
 * punctuation and a `{`, `}` or `]` that cannot be read as syntax as a literal; an escape of a letter
 * or digit that XSD does not define is an error. Parsing is a single left-to-right pass with bounded
 * nesting, so garbage input costs linear time and yields an error with its position.
 *
 * Why this file is longer than 400 lines: the XSD dialect's parser is one recursive-descent Translator
 * over character classes, escapes, Unicode blocks and subtraction; the check at the end, whether V8's
 * RegExp is safe for a pattern, reads the syntax tree it builds.
 */
import { UNICODE_BLOCKS, XSD_CATEGORIES } from './unicode-blocks';

type Range = readonly [number, number];

/** A set of characters: code point ranges, JS property escapes, and atoms too complex for a class. */
interface CharSet {
  ranges: Range[];
  /** `\p{..}`/`\P{..}` escapes, valid inside a JS character class. */
  props: string[];
  /** Self-contained JS atoms that each match one character (used for complements of properties). */
  complex: string[];
}

interface ClassNode {
  readonly set: CharSet;
  readonly negated: boolean;
  readonly subtract?: ClassNode;
}

/**
 * A parsed XSD regex. Both back ends read it: `toJs` writes the JavaScript RegExp source, and
 * `xsd-nfa.ts` builds a linear-time matcher for long values.
 */
export type XsdNode =
  | { readonly kind: 'seq'; readonly items: readonly XsdNode[] }
  | { readonly kind: 'alt'; readonly branches: readonly XsdNode[] }
  | { readonly kind: 'repeat'; readonly item: XsdNode; readonly min: number; readonly max: number; readonly suffix: string }
  | { readonly kind: 'char'; readonly cp: number }
  /** One character of a set; `js` is a self-contained JS atom (class or lookahead form) matching it. */
  | { readonly kind: 'set'; readonly js: string };

class XsdSyntaxError extends Error {}

const MAX_CODE_POINT = 0x10ffff;
const MAX_NESTING = 100;

const WHITESPACE: Range[] = [
  [0x09, 0x0a],
  [0x0d, 0x0d],
  [0x20, 0x20],
];
// XML 1.0 (fifth edition) NameStartChar and NameChar: what \i and \c mean.
const NAME_START: Range[] = [
  [0x3a, 0x3a],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
  [0xc0, 0xd6],
  [0xd8, 0xf6],
  [0xf8, 0x2ff],
  [0x370, 0x37d],
  [0x37f, 0x1fff],
  [0x200c, 0x200d],
  [0x2070, 0x218f],
  [0x2c00, 0x2fef],
  [0x3001, 0xd7ff],
  [0xf900, 0xfdcf],
  [0xfdf0, 0xfffd],
  [0x10000, 0xeffff],
];
const NAME_CHAR: Range[] = normalize([...NAME_START, [0x2d, 0x2e], [0x30, 0x39], [0xb7, 0xb7], [0x300, 0x36f], [0x203f, 0x2040]]);
/** XSD `\w`: every character except punctuation, separators and "other" (control, format, ...). */
const XSD_WORD = '[^\\p{P}\\p{Z}\\p{C}]';

/** Sorts and merges overlapping or adjacent ranges. */
function normalize(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Array<[number, number]> = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** Every code point not in `ranges`. */
function complement(ranges: readonly Range[]): Range[] {
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of normalize(ranges)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

function emptySet(): CharSet {
  return { ranges: [], props: [], complex: [] };
}

function isAsciiAlnum(cp: number): boolean {
  return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a);
}

/** A code point written safely inside a JS `u` character class. */
function classChar(cp: number): string {
  return isAsciiAlnum(cp) ? String.fromCodePoint(cp) : `\\u{${cp.toString(16)}}`;
}

const JS_SYNTAX = new Set('^$\\.*+?()[]{}|/'.split('').map((c) => c.codePointAt(0)!));

/** A code point written as a literal outside a JS `u` character class. */
function literal(cp: number): string {
  if (JS_SYNTAX.has(cp)) return `\\${String.fromCodePoint(cp)}`;
  if (cp > 0x20 && cp < 0x7f) return String.fromCodePoint(cp);
  return `\\u{${cp.toString(16)}}`;
}

function emitSet(set: CharSet, negated: boolean): string {
  const body =
    normalize(set.ranges)
      .map(([lo, hi]) => (lo === hi ? classChar(lo) : hi === lo + 1 ? classChar(lo) + classChar(hi) : `${classChar(lo)}-${classChar(hi)}`))
      .join('') + set.props.join('');
  if (set.complex.length === 0) {
    if (body === '') return negated ? '[\\s\\S]' : '[]';
    return negated ? `[^${body}]` : `[${body}]`;
  }
  const alternatives = body === '' ? set.complex : [`[${body}]`, ...set.complex];
  const positive = `(?:${alternatives.join('|')})`;
  return negated ? `(?:(?!${positive})[\\s\\S])` : positive;
}

function emitClass(node: ClassNode): string {
  const base = emitSet(node.set, node.negated);
  return node.subtract ? `(?:(?!${emitClass(node.subtract)})${base})` : base;
}

/** Single-character escapes XSD defines: `\n`, `\r`, `\t` and escaped metacharacters. */
const SINGLE_ESCAPES: Readonly<Record<string, number>> = { n: 0x0a, r: 0x0d, t: 0x09 };

class Translator {
  private readonly cps: number[];
  private pos = 0;
  private depth = 0;

  constructor(source: string) {
    this.cps = Array.from(source, (c) => c.codePointAt(0)!);
  }

  parse(): XsdNode {
    const root = this.regExp();
    if (this.pos < this.cps.length) this.fail('unmatched ")"');
    return root;
  }

  private fail(reason: string): never {
    throw new XsdSyntaxError(`${reason} at position ${this.pos + 1}`);
  }

  private peek(offset = 0): number | undefined {
    return this.cps[this.pos + offset];
  }

  private isChar(cp: number | undefined, ch: string): boolean {
    return cp === ch.codePointAt(0);
  }

  /** regExp ::= branch ( '|' branch )* */
  private regExp(): XsdNode {
    const branches = [this.branch()];
    while (this.isChar(this.peek(), '|')) {
      this.pos++;
      branches.push(this.branch());
    }
    return branches.length === 1 ? branches[0]! : { kind: 'alt', branches };
  }

  /** branch ::= piece* — ends at `|`, `)` or the end. */
  private branch(): XsdNode {
    const items: XsdNode[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined || this.isChar(c, '|') || this.isChar(c, ')')) return items.length === 1 ? items[0]! : { kind: 'seq', items };
      items.push(this.piece());
    }
  }

  /** piece ::= atom quantifier? */
  private piece(): XsdNode {
    const atom = this.atom();
    const c = this.peek();
    let quantifier = '';
    if (this.isChar(c, '?') || this.isChar(c, '*') || this.isChar(c, '+')) {
      quantifier = String.fromCodePoint(c!);
      this.pos++;
    } else if (this.isChar(c, '{')) {
      quantifier = this.quantity();
    }
    if (quantifier !== '') {
      const next = this.peek();
      // PCRE reads `*?` as a lazy quantifier; under whole-string matching it accepts the same values.
      if (this.isChar(next, '?')) {
        this.pos++;
        quantifier += '?';
      } else if (this.isChar(next, '*') || this.isChar(next, '+') || (this.isChar(next, '{') && this.quantityAhead())) {
        this.fail('a quantifier cannot follow another quantifier');
      }
    }
    if (quantifier === '') return atom;
    const lazy = quantifier.length > 1 && quantifier.endsWith('?');
    const q = lazy ? quantifier.slice(0, -1) : quantifier;
    const m = /^\{(\d+)(,(\d*))?\}$/.exec(q);
    const [min, max] =
      q === '?'
        ? [0, 1]
        : q === '*'
          ? [0, Infinity]
          : q === '+'
            ? [1, Infinity]
            : [Number(m![1]), m![2] === undefined ? Number(m![1]) : m![3] ? Number(m![3]) : Infinity];
    return { kind: 'repeat', item: atom, min, max, suffix: quantifier };
  }

  /** True when the text at the cursor is a well-formed `{n}`, `{n,}` or `{n,m}`. */
  private quantityAhead(): boolean {
    let i = this.pos + 1;
    let digits = 0;
    while (this.cps[i] !== undefined && this.cps[i]! >= 0x30 && this.cps[i]! <= 0x39) {
      i++;
      digits++;
    }
    if (digits === 0) return false;
    if (this.isChar(this.cps[i], ',')) {
      i++;
      while (this.cps[i] !== undefined && this.cps[i]! >= 0x30 && this.cps[i]! <= 0x39) i++;
    }
    return this.isChar(this.cps[i], '}');
  }

  /** `{n}`, `{n,}` or `{n,m}`; a `{` that is not one is a literal (as in PCRE), left for atom(). */
  private quantity(): string {
    if (!this.quantityAhead()) return '';
    const start = this.pos;
    while (!this.isChar(this.peek(), '}')) this.pos++;
    this.pos++;
    const text = String.fromCodePoint(...this.cps.slice(start, this.pos));
    const m = /^\{(\d+)(,(\d*))?\}$/.exec(text)!;
    const min = Number(m[1]);
    const max = m[3] ? Number(m[3]) : undefined;
    if (max !== undefined && max < min) {
      this.pos = start;
      this.fail(`quantifier ${text} has its minimum above its maximum`);
    }
    if (min > 65535 || (max ?? 0) > 65535) {
      this.pos = start;
      this.fail(`quantifier ${text} is too large`);
    }
    return text;
  }

  private atom(): XsdNode {
    const c = this.peek()!;
    switch (String.fromCodePoint(c)) {
      case '(': {
        if (++this.depth > MAX_NESTING) this.fail('groups nested too deeply');
        this.pos++;
        const inner = this.regExp();
        if (!this.isChar(this.peek(), ')')) this.fail('unclosed "("');
        this.pos++;
        this.depth--;
        return inner;
      }
      case '[':
        return { kind: 'set', js: emitClass(this.classExpr()) };
      case '.':
        this.pos++;
        return { kind: 'set', js: '[^\\n\\r]' };
      case '\\': {
        const esc = this.escape();
        return typeof esc === 'number' ? { kind: 'char', cp: esc } : { kind: 'set', js: emitSet(esc, false) };
      }
      case '?':
      case '*':
      case '+':
        return this.fail(`quantifier "${String.fromCodePoint(c)}" has nothing to repeat`);
      default:
        this.pos++;
        return { kind: 'char', cp: c };
    }
  }

  /** charClassExpr ::= '[' ( '^' )? group ( '-' charClassExpr )? ']' */
  private classExpr(): ClassNode {
    if (++this.depth > MAX_NESTING) this.fail('character classes nested too deeply');
    this.pos++; // '['
    let negated = false;
    if (this.isChar(this.peek(), '^')) {
      negated = true;
      this.pos++;
    }
    const set = emptySet();
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) this.fail('unclosed "["');
      if (this.isChar(c, ']')) {
        if (first) this.fail('empty character class');
        this.pos++;
        this.depth--;
        return { set, negated };
      }
      if (this.isChar(c, '-') && !first && this.isChar(this.peek(1), '[')) {
        this.pos++;
        const subtract = this.classExpr();
        if (!this.isChar(this.peek(), ']')) this.fail('a subtracted class must end its character class');
        this.pos++;
        this.depth--;
        return { set, negated, subtract };
      }
      const leadingDash = first && this.isChar(c, '-');
      first = false;
      let lo: number;
      if (this.isChar(c, '\\')) {
        const esc = this.escape();
        if (typeof esc !== 'number') {
          mergeInto(set, esc);
          continue;
        }
        lo = esc;
      } else {
        lo = c;
        this.pos++;
      }
      const next = this.peek(1);
      if (!leadingDash && this.isChar(this.peek(), '-') && next !== undefined && !this.isChar(next, ']') && !this.isChar(next, '[')) {
        this.pos++;
        let hi: number;
        if (this.isChar(this.peek(), '\\')) {
          const esc = this.escape();
          if (typeof esc !== 'number') this.fail('a range cannot end with a multi-character escape');
          hi = esc;
        } else {
          hi = this.peek()!;
          this.pos++;
        }
        if (hi < lo) this.fail(`range ${String.fromCodePoint(lo)}-${String.fromCodePoint(hi)} is out of order`);
        set.ranges.push([lo, hi]);
      } else {
        set.ranges.push([lo, lo]);
      }
    }
  }

  /** An escape at the cursor: a single character, or the set a multi-character escape names. */
  private escape(): number | CharSet {
    this.pos++; // '\'
    const c = this.peek();
    if (c === undefined) this.fail('pattern ends with a lone "\\"');
    this.pos++;
    const ch = String.fromCodePoint(c);
    const single = SINGLE_ESCAPES[ch];
    if (single !== undefined) return single;
    const set = emptySet();
    switch (ch) {
      case 's':
        set.ranges.push(...WHITESPACE);
        return set;
      case 'S':
        set.ranges.push(...complement(WHITESPACE));
        return set;
      case 'i':
        set.ranges.push(...NAME_START);
        return set;
      case 'I':
        set.ranges.push(...complement(NAME_START));
        return set;
      case 'c':
        set.ranges.push(...NAME_CHAR);
        return set;
      case 'C':
        set.ranges.push(...complement(NAME_CHAR));
        return set;
      case 'd':
        set.props.push('\\p{Nd}');
        return set;
      case 'D':
        set.props.push('\\P{Nd}');
        return set;
      case 'w':
        set.complex.push(XSD_WORD);
        return set;
      case 'W':
        set.props.push('\\p{P}', '\\p{Z}', '\\p{C}');
        return set;
      case 'p':
      case 'P':
        return this.property(ch === 'P');
      default:
        // XSD escapes only its metacharacters; PCRE (libyang) takes any escaped ASCII punctuation literally.
        if (c < 0x80 && !isAsciiAlnum(c) && c > 0x20) return c;
        this.pos--;
        return this.fail(`unknown escape "\\${ch}"`);
    }
  }

  /** `\p{Name}` / `\P{Name}` after the `p`: a general category or an `Is` block. */
  private property(complemented: boolean): CharSet {
    if (!this.isChar(this.peek(), '{')) this.fail('"\\p" must be followed by "{"');
    const start = this.pos + 1;
    let end = start;
    while (end < this.cps.length && !this.isChar(this.cps[end], '}')) end++;
    if (end >= this.cps.length) this.fail('unclosed "\\p{"');
    const name = String.fromCodePoint(...this.cps.slice(start, end));
    this.pos = end + 1;
    const set = emptySet();
    if (name.startsWith('Is')) {
      const block = UNICODE_BLOCKS.get(name.slice(2));
      if (!block) this.fail(`unknown Unicode block "${name}"`);
      set.ranges.push(...(complemented ? complement(block) : block));
    } else if (XSD_CATEGORIES.has(name)) {
      set.props.push(`\\${complemented ? 'P' : 'p'}{${name}}`);
    } else {
      this.fail(`unknown Unicode category "${name}"`);
    }
    return set;
  }
}

function mergeInto(target: CharSet, source: CharSet): void {
  target.ranges.push(...source.ranges);
  target.props.push(...source.props);
  target.complex.push(...source.complex);
}

/** JavaScript source for a node; `context` says whether it must be one atom or may be an alternation. */
function toJs(node: XsdNode, context: 'top' | 'seq' | 'atom'): string {
  let body: string;
  switch (node.kind) {
    case 'char':
      return literal(node.cp);
    case 'set':
      return node.js;
    case 'seq':
      body = node.items.map((i) => toJs(i, 'seq')).join('');
      break;
    case 'alt':
      body = node.branches.map((b) => toJs(b, 'top')).join('|');
      if (context === 'seq') return `(?:${body})`;
      break;
    case 'repeat':
      body = toJs(node.item, 'atom') + node.suffix;
      break;
  }
  return context === 'atom' ? `(?:${body})` : body;
}

/** Parses an XSD regular expression; an error names the position and the reason. */
export function parseXsdRegex(xsd: string): { ast: XsdNode } | { error: string } {
  try {
    return { ast: new Translator(xsd).parse() };
  } catch (e) {
    if (e instanceof XsdSyntaxError) return { error: `invalid pattern: ${e.message}` };
    return { error: `invalid pattern: ${e instanceof Error ? e.message : String(e)}` };
  }
}

const translated = new Map<string, { regex: RegExp } | { error: string }>();
const CACHE_LIMIT = 10_000;

/**
 * Translates an XSD regular expression (a YANG `pattern` argument) into an equivalent JavaScript
 * RegExp with the `u` flag, anchored at both ends. Returns an error naming the position and the
 * reason when the expression is not a valid XSD regex. Results are cached by source text, because
 * the same typedefs (ietf-inet-types, ietf-yang-types) are compiled into many schema contexts.
 */
export function translatePattern(xsd: string): { regex: RegExp } | { error: string } {
  const cached = translated.get(xsd);
  if (cached) return cached;
  let result: { regex: RegExp } | { error: string };
  const parsed = parseXsdRegex(xsd);
  if ('error' in parsed) {
    result = parsed;
  } else {
    try {
      result = { regex: new RegExp(`^(?:${toJs(parsed.ast, 'top')})$`, 'u') };
    } catch (e) {
      result = { error: `invalid pattern: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  if (translated.size >= CACHE_LIMIT) translated.clear();
  translated.set(xsd, result);
  return result;
}

/** Value length up to which the value codecs may use the backtracking RegExp (types/codecs.ts). */
export const SHORT_VALUE = 256;
/**
 * Backtracking paths over a short value up to which the RegExp is used. The bound is loose: V8 took
 * under 6 ms on the worst 256-character values found for patterns near it (ietf-inet-types
 * ipv4-address is 160,000; `a*a*b` 66,000), where `a*a*a*a*a*a*b` (3e14) takes hours.
 */
const MAX_PATHS = 1_000_000;

/**
 * An upper bound on the ways a backtracking engine can try `node` over a value of at most `n`
 * characters: one per character or set; a sequence multiplies, an alternation adds; a repetition of
 * a single width item (characters and sets only) can stop after each count; a repetition of anything
 * else multiplies its item's ways once per count, so an unbounded one is Infinity.
 */
function backtrackPaths(node: XsdNode, n: number): number {
  switch (node.kind) {
    case 'char':
    case 'set':
      return 1;
    case 'seq':
      return node.items.reduce((product, item) => product * backtrackPaths(item, n), 1);
    case 'alt':
      return node.branches.reduce((sum, branch) => sum + backtrackPaths(branch, n), 0);
    case 'repeat': {
      const item = backtrackPaths(node.item, n);
      const max = Math.min(node.max, n);
      if (item === 1) return Math.max(1, max - node.min + 1);
      if (node.max === Infinity) return Infinity;
      let total = 0;
      for (let k = node.min; k <= node.max && total < Infinity; k++) total += item ** k;
      return total;
    }
  }
}

const nativeSafety = new Map<string, boolean>();

/**
 * Whether the backtracking RegExp of an XSD pattern is safe on values of up to SHORT_VALUE characters:
 * the bound of {@link backtrackPaths} is small. Nested quantifiers (`(a+)+b`), quantified overlapping
 * alternations (`(a|aa)+b`), long chains of quantifiers (`a*a*a*a*b`) and big counted repeats of
 * choices (`(a|aa){0,60}`) are not, and go to the linear-time matcher (xsd-nfa.ts) whatever the length.
 * False for an invalid pattern.
 */
export function nativeIsSafe(xsd: string): boolean {
  let safe = nativeSafety.get(xsd);
  if (safe === undefined) {
    const parsed = parseXsdRegex(xsd);
    safe = !('error' in parsed) && backtrackPaths(parsed.ast, SHORT_VALUE) <= MAX_PATHS;
    if (nativeSafety.size >= CACHE_LIMIT) nativeSafety.clear();
    nativeSafety.set(xsd, safe);
  }
  return safe;
}
