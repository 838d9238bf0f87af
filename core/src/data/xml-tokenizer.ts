/**
 * A single-pass pull tokenizer for the XML that RESTCONF and NETCONF bodies use: elements, attributes,
 * namespace declarations (left to the caller, they are plain attributes here), the five predefined
 * entities and character references, CDATA; comments, processing instructions and the XML declaration
 * are skipped; a DOCTYPE is refused (no DTD means no entity expansion attacks).
 *
 * Why not fast-xml-parser: its validator plus its parser cost ~2 s on a 100,000-entry list, and its
 * output is a generic object tree that the decoder then walks again; this tokenizer is one linear scan
 * that hands the decoder names and text as it goes (see xml-decode.ts), about 10x faster.
 *
 * A caller that knows how the next element was written last time can have it matched whole instead
 * (`startMatches`, `leafMatches`, `entryMatches`, with the matchers xml-decode-fast.ts compiles): list
 * entries repeat one shape, and comparing text the general path accepted once costs a fraction of
 * tokenizing it again.
 *
 * It is the only XML tokenizer of the service: request bodies (xml-decode.ts), the element trees of
 * NETCONF messages and YANG Patch envelopes (xml-element.ts), and through the SDK the NETCONF plugin's
 * reading of a reply's first tags all go through it, with one depth bound (MAX_XML_DEPTH).
 *
 * Why this file is longer than 400 lines: it is one class whose scanning state (position, depth, the
 * next `&` and CR, the intern tables) every token and every predicted match reads and moves; the
 * predicted matches must stay beside the scan they skip, or they would reach into its private state.
 *
 * Well-formedness is checked as it goes: names, quoting, duplicate attributes, matching end tags,
 * entity and character references, unterminated constructs, text outside the root, nesting deeper than
 * a bound (no recursion anywhere, so depth only costs an array slot). A fault throws `XmlSyntaxError`
 * with the line and column of the offending character, computed only when a fault happens.
 */
/** What {@link XmlTokenizer.next} found. */
export const enum XmlToken {
  /** A start tag: `name`, `attrNames`/`attrValues` (first `attrCount`). A self-closing tag is followed by `End`. */
  Start = 1,
  /** An end tag (or the end of a self-closing tag): `name` is the element closed. */
  End = 2,
  /** A run of character data between markup (see `text()`, `textIsSpace()`). */
  Text = 3,
  /** End of the document (checked complete). */
  Eof = 4,
  /** End of the text given so far, when more is to come (see `XmlTokenizer.extend`). */
  More = 5,
}

/**
 * Deepest element nesting any XML reader of the service accepts (request bodies, device replies,
 * NETCONF messages); RESTCONF and NETCONF data nest far less.
 */
export const MAX_XML_DEPTH = 512;

/** A well-formedness fault, with its place in the text. */
export class XmlSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
    readonly line: number,
    readonly column: number,
  ) {
    super(`malformed XML at line ${line}, column ${column}: ${message}`);
    this.name = 'XmlSyntaxError';
  }
}

/** Slots of the intern tables: at most this many, fewer for a short document (cheaper to set up). */
const INTERN_SLOTS = 1024;
const INTERN_SLOTS_LEAST = 32;
const INTERN_MAX_LENGTH = 96;

const LT = 60,
  GT = 62,
  AMP = 38,
  SLASH = 47,
  QUESTION = 63,
  BANG = 33,
  EQ = 61,
  QUOT = 34,
  APOS = 39,
  CR = 13;

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13;
}

/** XML NameStartChar, with every non-ASCII character accepted (a lenient reading of the ranges). */
function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 58 || c >= 0xc0;
}

function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57) || c === 45 || c === 46 || c === 0xb7;
}

/** XML 1.0 Char: what a character reference may produce. */
function isXmlChar(code: number): boolean {
  return (
    code === 9 ||
    code === 10 ||
    code === 13 ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

/**
 * Whether `text` holds `known` at `start`. A plain loop for short strings (names, most values): for
 * them the call into the `startsWith` builtin cost more than the comparison (profiled: the intern
 * checks were ~10% of a 100k-entry decode). Past 16 characters (a start tag with a namespace
 * declaration) the builtin's own loop wins: 1-5x faster on a 60-character tag, never slower (measured).
 */
function holdsAt(text: string, known: string, start: number): boolean {
  const length = known.length;
  if (length > 16) return text.startsWith(known, start);
  if (start + length > text.length) return false;
  for (let i = 0; i < length; i++) if (text.charCodeAt(start + i) !== known.charCodeAt(i)) return false;
  return true;
}

/** Line and column (1-based) of an offset. */
export function xmlLineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Pulls tokens from one XML document. After `next()` the fields of the token it returned are valid
 * until the following call.
 */
export class XmlTokenizer {
  /** Element name (qualified, as written) of a Start or End token. */
  name = '';
  /** Attribute names and (decoded) values of a Start token; only the first `attrCount` count. */
  readonly attrNames: string[] = [];
  readonly attrValues: string[] = [];
  attrCount = 0;
  /** Open elements, outermost first. */
  private readonly open: string[] = [];
  private depth = 0;
  private pos = 0;
  /** Offset where the current token starts (for callers' own messages). */
  tokenStart = 0;
  private textStart = 0;
  private textEnd = 0;
  /** Whether the current text run needs decoding (entity, CR) or is CDATA (taken as is). */
  private textRaw = true;
  private cdata = false;
  private pendingEnd = false;
  private rootSeen = false;
  /**
   * Names and short attribute values seen recently, in a small direct-mapped table: a document
   * repeats the same few names and namespaces thousands of times, and handing back the same string
   * object saves an allocation and lets every map lookup reuse the string's cached hash.
   */
  private readonly interned: string[];
  /**
   * Attribute values seen recently that decode to themselves (no reference, no line end): a value
   * written the same again (a namespace declared in every list entry) is handed back without scanning it.
   */
  private readonly plainValues: string[];
  /** Slot count - 1 of both tables. */
  private readonly slotMask: number;
  /** Next offset of '&' / '\r' at or after the scan position (-1: none left); kept so scans stay linear. */
  private nextAmp = -2;
  private nextCr = -2;
  /** Where the last predicted element matched (see `startMatches`). */
  private matchStart = 0;
  private matchEnd = 0;

  /**
   * `partial`: `text` is the start of a document whose rest comes through `extend`; `next` then answers
   * More where the text ends, instead of Eof or a fault.
   */
  constructor(
    private text: string,
    private readonly maxDepth: number,
    private partial = false,
    few = false,
  ) {
    if (text.charCodeAt(0) === 0xfeff) this.pos = 1;
    // a short reply (one leaf, a few) would spend more on clearing the tables than they save
    let slots = INTERN_SLOTS_LEAST;
    while (!few && slots < INTERN_SLOTS && (partial || slots * 16 < text.length)) slots *= 2;
    this.slotMask = slots - 1;
    this.interned = new Array<string>(slots).fill('');
    this.plainValues = new Array<string>(slots).fill('');
  }

  /**
   * A tokenizer that reads only the first few tokens of `text` (an envelope's start tag): the least
   * tables, however long the text. Sized for the whole of a device reply, they were a fifth of the
   * garbage that reading the reply's first tag made.
   */
  static head(text: string, maxDepth: number): XmlTokenizer {
    return new XmlTokenizer(text, maxDepth, false, true);
  }

  /**
   * Appends the next piece of a partial document (`last`: the rest of it). The text so far must end just
   * after a `>` that ends an end tag: every token is then whole. A token cut elsewhere is at worst a
   * fault that the whole document would not have (offsets and lines count from the last cut), never
   * another reading of the text.
   */
  extend(more: string, last: boolean): void {
    this.text = this.text.slice(this.pos) + more;
    this.pos = 0;
    this.tokenStart = 0;
    this.nextAmp = this.nextCr = -2;
    this.partial = !last;
  }

  /** Offset just past the current token. */
  get offset(): number {
    return this.pos;
  }

  /** Nesting depth after the current token (0 at the top level). */
  get level(): number {
    return this.depth;
  }

  /** Throws the syntax fault `message` at `offset`. */
  fail(message: string, offset: number): never {
    const { line, column } = xmlLineColumn(this.text, offset);
    throw new XmlSyntaxError(message, offset, line, column);
  }

  next(): XmlToken {
    if (this.pendingEnd) {
      this.pendingEnd = false;
      this.depth--;
      return XmlToken.End; // name still holds the self-closed element
    }
    const text = this.text;
    const n = text.length;
    for (;;) {
      const start = this.pos;
      this.tokenStart = start;
      if (start >= n) {
        if (this.partial) return XmlToken.More;
        if (this.depth > 0) this.fail(`unclosed element: <${this.open[this.depth - 1]}> is not closed`, n);
        if (!this.rootSeen) this.fail('the document has no element (no root element)', n);
        return XmlToken.Eof;
      }
      if (text.charCodeAt(start) !== LT) return this.charData(start);
      const c = text.charCodeAt(start + 1);
      if (c === SLASH) return this.endTag(start);
      if (c === QUESTION) {
        this.skipPast('?>', start, 'processing instruction');
        continue;
      }
      if (c === BANG) {
        if (text.startsWith('<!--', start)) {
          this.skipPast('-->', start, 'comment');
          continue;
        }
        if (text.startsWith('<![CDATA[', start)) {
          if (this.depth === 0) this.fail('CDATA outside the root element', start);
          const close = text.indexOf(']]>', start + 9);
          if (close < 0) this.fail('CDATA section is not terminated', start);
          this.textStart = start + 9;
          this.textEnd = close;
          this.cdata = true;
          this.pos = close + 3;
          return XmlToken.Text;
        }
        if (text.startsWith('<!DOCTYPE', start)) this.fail('a DOCTYPE is not allowed', start);
        this.fail("unexpected '<!'", start);
      }
      return this.startTag(start);
    }
  }

  // -----------------------------------------------------------------------------------------------
  // Predicted elements: a caller that knows how the next element was written last time (list entries
  // and their children repeat one shape) checks for exactly that text instead of tokenizing it. A
  // match is text the general path has already accepted once, so it is well-formed; anything else
  // (a reference, a comment, another name, an attribute more) fails the match and nothing moves.

  /**
   * Whether `<` + `tag` + `>` is next (whitespace before it allowed), `tag` being a start tag's text
   * as `rawTag` gave it; `pattern` its `elementPattern`, if the caller made one. Remembers where the
   * match ends for `enterMatched`.
   */
  startMatches(tag: string, pattern?: RegExp): boolean {
    const text = this.text;
    const pos = this.skipSpace(this.pos);
    if (pattern !== undefined) {
      pattern.lastIndex = pos;
      if (!pattern.test(text)) return false;
      this.matchStart = pos;
      this.matchEnd = pattern.lastIndex;
      return true;
    }
    const end = pos + tag.length + 1;
    if (text.charCodeAt(pos) !== LT || text.charCodeAt(end) !== GT || !holdsAt(text, tag, pos + 1)) return false;
    this.matchStart = pos;
    this.matchEnd = end + 1;
    return true;
  }

  /** Opens the element `name` whose start tag `startMatches` found: as `next()` returning its Start. */
  enterMatched(name: string): void {
    this.tokenStart = this.matchStart;
    if (this.depth >= this.maxDepth) this.fail(`elements nest deeper than ${this.maxDepth} levels`, this.matchStart);
    this.open[this.depth] = name;
    this.depth++;
    this.pos = this.matchEnd;
  }

  /**
   * The text of a whole element `<tag>text</name>` if it is next: `tag` as in `startMatches`, text
   * without markup, references or CR (taken as is). Undefined if not; `skipMatched` then reads past it.
   */
  leafMatches(tag: string, name: string, pattern?: RegExp): string | undefined {
    if (this.depth >= this.maxDepth) return undefined;
    const text = this.text;
    if (pattern !== undefined) {
      if (!this.startMatches(tag, pattern)) return undefined;
      return text.slice(this.matchStart + tag.length + 2, this.matchEnd - name.length - 3);
    }
    if (!this.startMatches(tag)) return undefined;
    const textStart = this.matchEnd;
    const textEnd = text.indexOf('<', textStart);
    if (textEnd < 0 || text.charCodeAt(textEnd + 1) !== SLASH) return undefined;
    const end = textEnd + 2 + name.length;
    if (text.charCodeAt(end) !== GT || !holdsAt(text, name, textEnd + 2)) return undefined;
    if (this.nextAmp !== -1 && this.nextAmp < textStart) this.nextAmp = text.indexOf('&', textStart);
    if (this.nextAmp >= 0 && this.nextAmp < textEnd) return undefined;
    if (this.nextCr !== -1 && this.nextCr < textStart) this.nextCr = text.indexOf('\r', textStart);
    if (this.nextCr >= 0 && this.nextCr < textEnd) return undefined;
    this.matchEnd = end + 1;
    return text.slice(textStart, textEnd);
  }

  /**
   * The leaves' texts of a whole list entry `pattern` (an `entryPattern`) matches next (whitespace
   * before it allowed), as the match's groups; null if it does not match. `skipMatched` then reads
   * past the entry.
   */
  entryMatches(pattern: RegExp): RegExpExecArray | null {
    if (this.depth + 2 > this.maxDepth) return null;
    const pos = this.skipSpace(this.pos);
    pattern.lastIndex = pos;
    const match = pattern.exec(this.text);
    if (match === null) return null;
    this.matchStart = pos;
    this.matchEnd = pattern.lastIndex;
    return match;
  }

  /** Reads past the element `leafMatches` or `entryMatches` found: as `next()` returning its tokens. */
  skipMatched(): void {
    this.tokenStart = this.matchStart;
    this.pos = this.matchEnd;
  }

  /**
   * The text of the current Start token between `<` and `>` (the name if it has no attributes), for
   * `startMatches` to compare later; undefined for a self-closing tag.
   */
  rawTag(): string | undefined {
    if (this.pendingEnd) return undefined;
    return this.attrCount === 0 && this.pos === this.tokenStart + this.name.length + 2
      ? this.name
      : this.text.slice(this.tokenStart + 1, this.pos - 1);
  }

  /** The decoded text of the current Text token. */
  textValue(): string {
    if (this.cdata || this.textRaw) return this.text.slice(this.textStart, this.textEnd);
    return this.decode(this.textStart, this.textEnd, false);
  }

  /** Whether the current Text token is only whitespace (CDATA never counts as space). */
  textIsSpace(): boolean {
    if (this.cdata) return this.textStart === this.textEnd;
    for (let i = this.textStart; i < this.textEnd; i++) if (!isSpace(this.text.charCodeAt(i))) return false;
    return true;
  }

  private charData(start: number): XmlToken {
    const text = this.text;
    let end = text.indexOf('<', start);
    if (end < 0) {
      if (this.partial) return XmlToken.More; // the text may go on in the next piece
      end = text.length;
    }
    this.textStart = start;
    this.textEnd = end;
    this.cdata = false;
    this.pos = end;
    if (this.nextAmp !== -1 && this.nextAmp < start) this.nextAmp = text.indexOf('&', start);
    if (this.nextCr !== -1 && this.nextCr < start) this.nextCr = text.indexOf('\r', start);
    this.textRaw = !((this.nextAmp >= 0 && this.nextAmp < end) || (this.nextCr >= 0 && this.nextCr < end));
    if (this.depth === 0) {
      if (!this.textIsSpace()) this.fail('text outside the root element', this.firstNonSpace(start, end));
      return this.next();
    }
    if (!this.textRaw) this.decode(start, end, false); // checks references now, so faults point at them
    return XmlToken.Text;
  }

  private firstNonSpace(start: number, end: number): number {
    let i = start;
    while (i < end && isSpace(this.text.charCodeAt(i))) i++;
    return i;
  }

  private skipPast(terminator: string, start: number, what: string): void {
    const close = this.text.indexOf(terminator, start + 2);
    if (close < 0) this.fail(`${what} is not terminated`, start);
    this.pos = close + terminator.length;
  }

  /** The slot of the text between `start` and `end` (not empty) in the intern tables. */
  private slotOf(start: number, end: number): number {
    const text = this.text;
    const length = end - start;
    return (
      (length * 31 + text.charCodeAt(start) * 7 + text.charCodeAt(end - 1) * 3 + text.charCodeAt(start + (length >> 1))) & this.slotMask
    );
  }

  /** The text between `start` and `end`, as the interned string when it was seen before. */
  private intern(start: number, end: number): string {
    const text = this.text;
    const length = end - start;
    if (length > INTERN_MAX_LENGTH || length === 0) return text.slice(start, end);
    const slot = this.slotOf(start, end);
    const known = this.interned[slot]!;
    if (known.length === length && holdsAt(text, known, start)) return known;
    const fresh = text.slice(start, end);
    this.interned[slot] = fresh;
    return fresh;
  }

  /** An attribute value's decoded text: a recent plain value written the same again, else decoded. */
  private attributeValue(start: number, end: number): string {
    const length = end - start;
    if (length > INTERN_MAX_LENGTH || length === 0) return this.decode(start, end, true);
    const slot = this.slotOf(start, end);
    const known = this.plainValues[slot]!;
    if (known.length === length && holdsAt(this.text, known, start)) return known;
    const value = this.decode(start, end, true);
    if (value.length === length && this.text.startsWith(value, start)) this.plainValues[slot] = value; // it decodes to itself
    return value;
  }

  /** Reads a name at `pos`; returns its end offset. */
  private nameEnd(pos: number, what: string): number {
    const text = this.text;
    if (pos >= text.length || !isNameStart(text.charCodeAt(pos))) this.fail(`a ${what} name is expected`, pos);
    let i = pos + 1;
    while (i < text.length && isNameChar(text.charCodeAt(i))) i++;
    return i;
  }

  private skipSpace(pos: number): number {
    const text = this.text;
    while (pos < text.length && isSpace(text.charCodeAt(pos))) pos++;
    return pos;
  }

  private startTag(start: number): XmlToken {
    const text = this.text;
    const nameEnd = this.nameEnd(start + 1, 'element');
    this.name = this.intern(start + 1, nameEnd);
    let count = 0;
    let pos = nameEnd;
    for (;;) {
      const afterSpace = this.skipSpace(pos);
      const c = text.charCodeAt(afterSpace);
      if (c === GT) {
        pos = afterSpace + 1;
        break;
      }
      if (c === SLASH) {
        if (text.charCodeAt(afterSpace + 1) !== GT) this.fail("'>' is expected after '/'", afterSpace + 1);
        pos = afterSpace + 2;
        this.pendingEnd = true;
        break;
      }
      if (afterSpace >= text.length) this.fail(`unterminated start tag: start tag <${this.name}> is not terminated`, start);
      if (afterSpace === pos) this.fail('whitespace is expected before an attribute', pos);
      const attrEnd = this.nameEnd(afterSpace, 'attribute');
      const attrName = this.intern(afterSpace, attrEnd);
      let p = this.skipSpace(attrEnd);
      if (text.charCodeAt(p) !== EQ) this.fail(`attribute '${attrName}' has no value`, p);
      p = this.skipSpace(p + 1);
      const quote = text.charCodeAt(p);
      if (quote !== QUOT && quote !== APOS) this.fail(`the value of attribute '${attrName}' must be quoted`, p);
      const close = text.indexOf(quote === QUOT ? '"' : "'", p + 1);
      if (close < 0) this.fail(`the value of attribute '${attrName}' is not terminated`, p);
      for (let k = 0; k < count; k++) {
        if (this.attrNames[k] === attrName) this.fail(`duplicate attribute: attribute '${attrName}' is repeated`, afterSpace);
      }
      this.attrNames[count] = attrName;
      this.attrValues[count] = this.attributeValue(p + 1, close);
      count++;
      pos = close + 1;
      if (count > 4096) this.fail('more than 4096 attributes on one element', afterSpace);
    }
    this.attrCount = count;
    this.pos = pos;
    if (this.depth >= this.maxDepth) this.fail(`elements nest deeper than ${this.maxDepth} levels`, start);
    if (!this.pendingEnd) this.open[this.depth] = this.name;
    this.depth++;
    this.rootSeen = true;
    return XmlToken.Start;
  }

  private endTag(start: number): XmlToken {
    const text = this.text;
    if (this.depth > 0) {
      // The usual case, checked without scanning the name: `</` + the open element's name + `>`.
      const expected = this.open[this.depth - 1]!;
      const after = start + 2 + expected.length;
      if (text.charCodeAt(after) === GT && holdsAt(text, expected, start + 2)) {
        this.name = expected;
        this.depth--;
        this.pos = after + 1;
        return XmlToken.End;
      }
    }
    const nameEnd = this.nameEnd(start + 2, 'element');
    const p = this.skipSpace(nameEnd);
    if (text.charCodeAt(p) !== GT) this.fail("'>' is expected to end the end tag", p);
    if (this.depth === 0) this.fail(`end tag </${text.slice(start + 2, nameEnd)}> has no start tag`, start);
    const expected = this.open[this.depth - 1]!;
    if (nameEnd - start - 2 !== expected.length || !text.startsWith(expected, start + 2)) {
      this.fail(`end tag </${text.slice(start + 2, nameEnd)}> does not match <${expected}>`, start);
    }
    this.name = expected;
    this.depth--;
    this.pos = p + 1;
    return XmlToken.End;
  }

  /**
   * Decodes text or an attribute value between `start` and `end`: references, and line ends (CRLF and
   * CR become LF; in attributes every whitespace character becomes a space, as XML normalises them).
   */
  private decode(start: number, end: number, attribute: boolean): string {
    const text = this.text;
    let out = '';
    let run = start;
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === AMP) {
        out += text.slice(run, i);
        const semi = text.indexOf(';', i + 1);
        if (semi < 0 || semi >= end || semi - i > 12) this.fail("'&' starts no entity or character reference", i);
        out += this.reference(text.slice(i + 1, semi), i);
        i = semi;
        run = semi + 1;
      } else if (c === CR || (attribute && (c === 10 || c === 9))) {
        out += text.slice(run, i);
        if (attribute) out += ' ';
        else out += '\n';
        if (c === CR && text.charCodeAt(i + 1) === 10) i++;
        run = i + 1;
      } else if (c === LT && attribute) {
        this.fail("'<' in an attribute value", i);
      }
    }
    if (run === start) return attribute ? this.intern(start, end) : text.slice(start, end);
    return out + text.slice(run, end);
  }

  private reference(ref: string, at: number): string {
    switch (ref) {
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'amp':
        return '&';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
      default:
        break;
    }
    let code = NaN;
    if (/^#x[0-9a-fA-F]+$/.test(ref)) code = parseInt(ref.slice(2), 16);
    else if (/^#[0-9]+$/.test(ref)) code = parseInt(ref.slice(1), 10);
    else this.fail(`unknown entity '&${ref};' (only the predefined XML entities are allowed)`, at);
    if (!isXmlChar(code)) this.fail(`character reference '&${ref};' is not an XML character`, at);
    return String.fromCodePoint(code);
  }
}
