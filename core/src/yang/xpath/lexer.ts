/**
 * The XPath 1.0 tokenizer (W3C XPath 1.0 §3.7), including its disambiguation rules: after a token
 * that can end an operand, `*` is multiplication and `and`/`or`/`mod`/`div` are operators; a name
 * followed by `(` is a function name or node type; a name followed by `::` is an axis.
 * Linear in the input; never throws: a bad character becomes a fault with its offset.
 */

export type TokenKind =
  | '('
  | ')'
  | '['
  | ']'
  | '.'
  | '..'
  | '@'
  | ','
  | '::'
  | 'name' // a NameTest: prefix:local, prefix:*, local, *
  | 'function' // a FunctionName (QName followed by '(')
  | 'nodetype' // node, text, comment, processing-instruction followed by '('
  | 'axis' // an AxisName followed by '::'
  | 'literal'
  | 'number'
  | 'variable'
  | 'operator'; // and or mod div / // | + - = != < <= > >= *

export interface Token {
  readonly kind: TokenKind;
  /** Operator text, literal value, number text, variable name, axis/function/local name. */
  readonly text: string;
  /** For names and functions: the prefix, when one was written. */
  readonly prefix?: string;
  readonly pos: number;
}

export interface LexFault {
  readonly pos: number;
  readonly reason: string;
}

const NODE_TYPES = new Set(['node', 'text', 'comment', 'processing-instruction']);
const OPERATOR_NAMES = new Set(['and', 'or', 'mod', 'div']);
// NCName characters (XML Namespaces): letters, digits, '.', '-', '_', combining marks; no ':'.
const NAME_START = /[\p{L}_]/u;
const NAME_CHAR = /[\p{L}\p{N}\p{M}_.\-\u00B7]/u;

/** Splits `source` into tokens, or returns the first fault. */
export function tokenize(source: string): { tokens: Token[] } | { fault: LexFault } {
  const tokens: Token[] = [];
  const n = source.length;
  let i = 0;

  // Whether the previous token lets the next `*` or NCName be an operator (XPath §3.7).
  const operandEnded = (): boolean => {
    const prev = tokens[tokens.length - 1];
    if (!prev) return false;
    switch (prev.kind) {
      case '@':
      case '::':
      case '(':
      case '[':
      case ',':
      case 'operator':
        return false;
      default:
        return true;
    }
  };
  const skipSpace = (from: number): number => {
    while (from < n && isSpace(source.charCodeAt(from))) from++;
    return from;
  };
  const readNCName = (from: number): number => {
    if (from >= n || !NAME_START.test(charAt(source, from))) return from;
    from += charAt(source, from).length;
    while (from < n && NAME_CHAR.test(charAt(source, from))) from += charAt(source, from).length;
    return from;
  };

  while (i < n) {
    const c = source[i]!;
    if (isSpace(source.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    switch (c) {
      case '(':
      case ')':
      case '[':
      case ']':
      case '@':
      case ',':
        tokens.push({ kind: c, text: c, pos: start });
        i++;
        continue;
      case '.':
        if (source[i + 1] === '.') {
          tokens.push({ kind: '..', text: '..', pos: start });
          i += 2;
          continue;
        }
        if (isDigit(source.charCodeAt(i + 1))) break; // a number like .5
        tokens.push({ kind: '.', text: '.', pos: start });
        i++;
        continue;
      case ':':
        if (source[i + 1] === ':') {
          tokens.push({ kind: '::', text: '::', pos: start });
          i += 2;
          continue;
        }
        return { fault: { pos: start, reason: "unexpected ':'" } };
      case '/':
        if (source[i + 1] === '/') {
          tokens.push({ kind: 'operator', text: '//', pos: start });
          i += 2;
          continue;
        }
        tokens.push({ kind: 'operator', text: '/', pos: start });
        i++;
        continue;
      case '|':
      case '+':
      case '-':
      case '=':
        tokens.push({ kind: 'operator', text: c, pos: start });
        i++;
        continue;
      case '!':
        if (source[i + 1] === '=') {
          tokens.push({ kind: 'operator', text: '!=', pos: start });
          i += 2;
          continue;
        }
        return { fault: { pos: start, reason: "'!' must be followed by '='" } };
      case '<':
      case '>':
        if (source[i + 1] === '=') {
          tokens.push({ kind: 'operator', text: `${c}=`, pos: start });
          i += 2;
          continue;
        }
        tokens.push({ kind: 'operator', text: c, pos: start });
        i++;
        continue;
      case '"':
      case "'": {
        const end = source.indexOf(c, i + 1);
        if (end < 0) return { fault: { pos: start, reason: 'unterminated string literal' } };
        tokens.push({ kind: 'literal', text: source.slice(i + 1, end), pos: start });
        i = end + 1;
        continue;
      }
      case '$': {
        const end = readQNameEnd(i + 1);
        if (end === i + 1) return { fault: { pos: start, reason: "'$' must be followed by a variable name" } };
        tokens.push({ kind: 'variable', text: source.slice(i + 1, end), pos: start });
        i = end;
        continue;
      }
      case '*':
        tokens.push(operandEnded() ? { kind: 'operator', text: '*', pos: start } : { kind: 'name', text: '*', pos: start });
        i++;
        continue;
    }
    if (isDigit(source.charCodeAt(i)) || c === '.') {
      let j = i;
      while (j < n && isDigit(source.charCodeAt(j))) j++;
      if (source[j] === '.') {
        j++;
        while (j < n && isDigit(source.charCodeAt(j))) j++;
      }
      tokens.push({ kind: 'number', text: source.slice(i, j), pos: start });
      i = j;
      continue;
    }
    const nameEnd = readNCName(i);
    if (nameEnd === i) return { fault: { pos: start, reason: `unexpected character '${charAt(source, i)}'` } };
    const first = source.slice(i, nameEnd);
    if (operandEnded()) {
      if (!OPERATOR_NAMES.has(first)) return { fault: { pos: start, reason: `expected an operator, found '${first}'` } };
      tokens.push({ kind: 'operator', text: first, pos: start });
      i = nameEnd;
      continue;
    }
    // prefix:local or prefix:* (but not prefix::axis)
    let prefix: string | undefined;
    let local = first;
    let end = nameEnd;
    if (source[end] === ':' && source[end + 1] !== ':') {
      if (source[end + 1] === '*') {
        prefix = first;
        local = '*';
        end += 2;
      } else {
        const localEnd = readNCName(end + 1);
        if (localEnd === end + 1) return { fault: { pos: end, reason: `expected a local name after '${first}:'` } };
        prefix = first;
        local = source.slice(end + 1, localEnd);
        end = localEnd;
      }
    }
    const after = skipSpace(end);
    if (local !== '*' && source[after] === '(') {
      const kind = prefix === undefined && NODE_TYPES.has(local) ? 'nodetype' : 'function';
      tokens.push(prefix === undefined ? { kind, text: local, pos: start } : { kind, text: local, prefix, pos: start });
    } else if (prefix === undefined && source[after] === ':' && source[after + 1] === ':') {
      tokens.push({ kind: 'axis', text: local, pos: start });
    } else {
      tokens.push(prefix === undefined ? { kind: 'name', text: local, pos: start } : { kind: 'name', text: local, prefix, pos: start });
    }
    i = end;
  }
  return { tokens };

  function readQNameEnd(from: number): number {
    let end = readNCName(from);
    if (end > from && source[end] === ':' && source[end + 1] !== ':') {
      const localEnd = readNCName(end + 1);
      if (localEnd > end + 1) end = localEnd;
    }
    return end;
  }
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** The character (code point, so astral letters count once) at `i`. */
function charAt(s: string, i: number): string {
  const cp = s.codePointAt(i);
  return cp === undefined ? '' : String.fromCodePoint(cp);
}
