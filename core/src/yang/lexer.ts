/**
 * The YANG lexer (RFC 7950 §6.1): turns module text into keywords, arguments and the three
 * punctuation marks `{`, `}`, `;`. It owns every rule about characters: comments, white space,
 * unquoted / single-quoted / double-quoted strings, `+` concatenation, the four legal escapes of a
 * double-quoted string and the indentation stripping of its continuation lines (§6.1.3).
 *
 * One pass over the text with a single index: linear time whatever the input. It never throws; the
 * first fault is kept in `error` and every later call answers an `error` token.
 */
import type { SourcePosition } from './statement';

/** What the parser asks for next: a keyword starts a statement, an argument may follow it. */
export type Token =
  | { readonly kind: 'keyword'; readonly prefix: string | undefined; readonly name: string; readonly position: SourcePosition }
  | { readonly kind: 'argument'; readonly value: string; readonly position: SourcePosition }
  | { readonly kind: '{' | '}' | ';' | 'eof'; readonly position: SourcePosition }
  | { readonly kind: 'error'; readonly message: string; readonly position: SourcePosition };

const SPACE = 0x20,
  TAB = 0x09,
  LF = 0x0a,
  CR = 0x0d,
  DQUOTE = 0x22,
  SQUOTE = 0x27;
const SLASH = 0x2f,
  STAR = 0x2a,
  BACKSLASH = 0x5c,
  PLUS = 0x2b,
  SEMI = 0x3b,
  LBRACE = 0x7b,
  RBRACE = 0x7d;

/** Columns a tab counts for when double-quoted string indentation is measured (RFC 7950 §6.1.3). */
const TAB_WIDTH = 8;

function isIdentStart(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}
function isIdentChar(c: number): boolean {
  return isIdentStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e;
}

/** Characters that end an unquoted string (besides the comment openers `//` and `/*`). */
function endsUnquoted(c: number): boolean {
  return c === SPACE || c === TAB || c === LF || c === CR || c === SEMI || c === LBRACE || c === RBRACE;
}

/** Shows a character in a message without letting control characters garble the terminal. */
function showChar(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  return code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : ch;
}

/**
 * Reads one YANG text token by token. The parser says what it expects next (a keyword, what follows
 * a keyword, what follows an argument), which keeps the lexer free of grammar state.
 */
export class Lexer {
  private pos = 0;
  private line = 1;
  /** Index of the first character of the current line, for columns. */
  private lineStart = 0;
  private failure: Token | undefined;

  constructor(
    private readonly text: string,
    private readonly file: string,
  ) {
    if (text.charCodeAt(0) === 0xfeff) {
      this.pos = 1;
      this.lineStart = 1;
    }
  }

  /** The position of the next unread character. */
  here(): SourcePosition {
    return { file: this.file, line: this.line, column: this.pos - this.lineStart + 1 };
  }

  private fail(message: string, position: SourcePosition = this.here()): Token {
    this.failure ??= { kind: 'error', message, position };
    return this.failure;
  }

  /** Advances over one character, keeping line numbers right (CR LF, LF and a lone CR end a line). */
  private advance(): void {
    const c = this.text.charCodeAt(this.pos++);
    if (c === LF || (c === CR && this.text.charCodeAt(this.pos) !== LF)) {
      this.line++;
      this.lineStart = this.pos;
    }
  }

  /** Skips white space and comments; answers an error token for an unterminated block comment. */
  private skipSeparators(): Token | undefined {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === SPACE || c === TAB || c === LF || c === CR) {
        this.advance();
        continue;
      }
      if (c === SLASH && t.charCodeAt(this.pos + 1) === SLASH) {
        const eol = t.indexOf('\n', this.pos);
        if (eol < 0) {
          this.pos = t.length;
          break;
        }
        this.pos = eol; // the newline itself is consumed by advance() on the next turn
        continue;
      }
      if (c === SLASH && t.charCodeAt(this.pos + 1) === STAR) {
        const start = this.here();
        const end = t.indexOf('*/', this.pos + 2);
        if (end < 0) return this.fail('unterminated comment: "/*" has no closing "*/"', start);
        while (this.pos < end + 2) this.advance();
        continue;
      }
      break;
    }
    return undefined;
  }

  /** The first fault met, if any. */
  get error(): Token | undefined {
    return this.failure;
  }

  /**
   * Reads what may start or end a statement: a keyword (`leaf`, `oc-ext:openconfig-version`), `}`,
   * or end of input.
   */
  nextKeyword(): Token {
    if (this.failure) return this.failure;
    const skipped = this.skipSeparators();
    if (skipped) return skipped;
    const t = this.text;
    const position = this.here();
    if (this.pos >= t.length) return { kind: 'eof', position };
    const c = t.charCodeAt(this.pos);
    if (c === RBRACE) {
      this.pos++;
      return { kind: '}', position };
    }
    if (!isIdentStart(c)) {
      return this.fail(`expected a statement keyword, found '${showChar(String.fromCodePoint(t.codePointAt(this.pos) ?? c))}'`, position);
    }
    const start = this.pos;
    let colon = -1;
    while (this.pos < t.length) {
      const d = t.charCodeAt(this.pos);
      if (isIdentChar(d)) {
        this.pos++;
        continue;
      }
      if (d === 0x3a && colon < 0 && isIdentStart(t.charCodeAt(this.pos + 1))) {
        colon = this.pos++;
        continue;
      }
      break;
    }
    const after = t.charCodeAt(this.pos);
    if (
      this.pos < t.length &&
      !endsUnquoted(after) &&
      !(after === SLASH && (t.charCodeAt(this.pos + 1) === SLASH || t.charCodeAt(this.pos + 1) === STAR))
    ) {
      return this.fail(`invalid character '${showChar(t[this.pos])}' in keyword "${t.slice(start, this.pos)}"`, this.here());
    }
    if (colon < 0) return { kind: 'keyword', prefix: undefined, name: t.slice(start, this.pos), position };
    return { kind: 'keyword', prefix: t.slice(start, colon), name: t.slice(colon + 1, this.pos), position };
  }

  /** Reads what follows a keyword: its argument, or `{` / `;` when it has none. */
  nextAfterKeyword(): Token {
    if (this.failure) return this.failure;
    const skipped = this.skipSeparators();
    if (skipped) return skipped;
    const t = this.text;
    const position = this.here();
    if (this.pos >= t.length) return this.fail('unexpected end of input after a keyword', position);
    const c = t.charCodeAt(this.pos);
    if (c === LBRACE) {
      this.pos++;
      return { kind: '{', position };
    }
    if (c === SEMI) {
      this.pos++;
      return { kind: ';', position };
    }
    if (c === RBRACE) return this.fail('unexpected "}" after a keyword: expected an argument, ";" or "{"', position);
    if (c === DQUOTE || c === SQUOTE) return this.readQuotedConcatenation(position);
    const start = this.pos;
    while (this.pos < t.length) {
      const d = t.charCodeAt(this.pos);
      if (endsUnquoted(d)) break;
      if (d === SLASH && (t.charCodeAt(this.pos + 1) === SLASH || t.charCodeAt(this.pos + 1) === STAR)) break;
      this.pos++;
    }
    return { kind: 'argument', value: t.slice(start, this.pos), position };
  }

  /** Reads after an argument: `{` or `;`. */
  nextAfterArgument(): Token {
    if (this.failure) return this.failure;
    const skipped = this.skipSeparators();
    if (skipped) return skipped;
    const position = this.here();
    const c = this.text.charCodeAt(this.pos);
    if (c === LBRACE) {
      this.pos++;
      return { kind: '{', position };
    }
    if (c === SEMI) {
      this.pos++;
      return { kind: ';', position };
    }
    if (this.pos >= this.text.length) return this.fail('unexpected end of input: expected ";" or "{" after an argument', position);
    return this.fail(`expected ";" or "{" after an argument, found '${showChar(this.text[this.pos])}'`, position);
  }

  /** One or more quoted strings joined by `+` (RFC 7950 §6.1.3.1). */
  private readQuotedConcatenation(position: SourcePosition): Token {
    const parts: string[] = [];
    for (;;) {
      const part = this.text.charCodeAt(this.pos) === DQUOTE ? this.readDoubleQuoted() : this.readSingleQuoted();
      if (part === undefined) return this.failure!;
      parts.push(part);
      const skipped = this.skipSeparators();
      if (skipped) return skipped;
      if (this.text.charCodeAt(this.pos) !== PLUS) break;
      this.pos++;
      const skipped2 = this.skipSeparators();
      if (skipped2) return skipped2;
      const c = this.text.charCodeAt(this.pos);
      if (c !== DQUOTE && c !== SQUOTE) return this.fail('expected a quoted string after "+"');
    }
    return { kind: 'argument', value: parts.length === 1 ? parts[0] : parts.join(''), position };
  }

  private readSingleQuoted(): string | undefined {
    const start = this.here();
    const end = this.text.indexOf("'", this.pos + 1);
    if (end < 0) {
      this.fail('unterminated single-quoted string', start);
      return undefined;
    }
    this.pos++;
    const from = this.pos;
    while (this.pos < end) this.advance();
    this.pos++;
    return this.text.slice(from, end);
  }

  /**
   * A double-quoted string with its escapes resolved, trailing white space before each line break
   * removed, and each continuation line's indentation stripped up to the column after the opening
   * quote (tabs counted as 8 columns, RFC 7950 §6.1.3).
   */
  private readDoubleQuoted(): string | undefined {
    const t = this.text;
    const start = this.here();
    // No closing quote anywhere: fail at once instead of assembling a huge value first.
    if (t.indexOf('"', this.pos + 1) < 0) {
      this.fail('unterminated double-quoted string', start);
      return undefined;
    }
    // Measured only when the string spans lines, so long one-line inputs stay linear.
    const quoteIndex = this.pos,
      quoteLineStart = this.lineStart;
    let quoteColumn = -1;
    this.pos++;
    // Finished pieces, and the literal text since the last line break or escape: only that tail
    // may lose trailing blanks, and keeping it apart keeps the work linear in the string length.
    const parts: string[] = [];
    let chunkStart = this.pos;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === DQUOTE) {
        parts.push(t.slice(chunkStart, this.pos));
        this.pos++;
        return parts.length === 1 ? parts[0] : parts.join('');
      }
      if (c === BACKSLASH) {
        parts.push(t.slice(chunkStart, this.pos));
        const e = t[this.pos + 1];
        if (e === 'n') parts.push('\n');
        else if (e === 't') parts.push('\t');
        else if (e === '"') parts.push('"');
        else if (e === '\\') parts.push('\\');
        else if (e === undefined) break;
        else {
          this.fail(`illegal escape '\\${showChar(e)}' in a double-quoted string (only \\n, \\t, \\" and \\\\ are allowed)`);
          return undefined;
        }
        this.pos += 2;
        chunkStart = this.pos;
        continue;
      }
      if (c === LF || c === CR) {
        // Trailing white space before a line break is not part of the value.
        let cut = this.pos;
        while (cut > chunkStart && (t.charCodeAt(cut - 1) === SPACE || t.charCodeAt(cut - 1) === TAB)) cut--;
        parts.push(t.slice(chunkStart, cut), '\n');
        if (c === CR && t.charCodeAt(this.pos + 1) === LF) this.pos++;
        this.advance();
        if (quoteColumn < 0) quoteColumn = this.visualColumn(quoteLineStart, quoteIndex);
        parts.push(this.stripIndentation(quoteColumn));
        chunkStart = this.pos;
        continue;
      }
      this.pos++;
    }
    this.fail('unterminated double-quoted string', start);
    return undefined;
  }

  /**
   * Skips the indentation of a continuation line up to and including `quoteColumn`; answers the
   * spaces left over when a tab reaches past that column.
   */
  private stripIndentation(quoteColumn: number): string {
    const t = this.text;
    let column = 0;
    while (this.pos < t.length && column <= quoteColumn) {
      const c = t.charCodeAt(this.pos);
      if (c === SPACE) column++;
      else if (c === TAB) column += TAB_WIDTH;
      else break;
      this.pos++;
    }
    return column > quoteColumn + 1 ? ' '.repeat(column - quoteColumn - 1) : '';
  }

  /** The 0-based display column of `index` in the line starting at `lineStart` (tabs as 8). */
  private visualColumn(lineStart: number, index: number): number {
    let column = 0;
    for (let i = lineStart; i < index; i++) column += this.text.charCodeAt(i) === TAB ? TAB_WIDTH : 1;
    return column;
  }
}
