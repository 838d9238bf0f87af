/**
 * XPath values (§1, §3.4, §4): the conversions between node-sets, strings, numbers and booleans, and
 * comparisons with node-set semantics. One YANG-specific rule: an identityref value also equals its
 * identity's bare name and any `prefix:name` that names the same identity (see `textsEqual`).
 */
import type { EvalEnv, XValue } from './eval-context';
import { type XNode, isIdentityType, leafType, stringValue } from './nodes';

export function toBoolean(v: XValue): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v);
  return v;
}

const NUMBER_TEXT = /^[\t\n\r ]*-?(?:\d+(?:\.\d*)?|\.\d+)[\t\n\r ]*$/;

export function stringToNumber(s: string): number {
  return NUMBER_TEXT.test(s) ? Number(s) : NaN;
}

export function toNumber(v: XValue): number {
  if (Array.isArray(v)) return v.length ? stringToNumber(stringValue(v[0]!)) : NaN;
  if (typeof v === 'string') return stringToNumber(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v;
}

export function numberToString(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  if (Object.is(n, -0)) return '0';
  const s = String(n);
  if (!s.includes('e')) return s;
  return n.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
}

export function toStringValue(v: XValue): string {
  if (Array.isArray(v)) return v.length ? stringValue(v[0]!) : '';
  if (typeof v === 'number') return numberToString(v);
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return v;
}

type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** A node's text for comparison, marking identityref values (compared by name, see `textsEqual`). */
interface Text {
  readonly text: string;
  readonly identity: boolean;
}

function nodeText(n: XNode): Text {
  const type = leafType(n);
  return { text: stringValue(n), identity: type !== undefined && isIdentityType(type) };
}

/** Compares two values with XPath 1.0 §3.4 semantics (`=`, `!=`, `<`, `<=`, `>`, `>=`). */
export function compare(op: string, a: XValue, b: XValue, env: EvalEnv): boolean {
  const o = op as CompareOp;
  const aSet = Array.isArray(a);
  const bSet = Array.isArray(b);
  if (aSet && bSet) {
    const at = (a as XNode[]).map(nodeText);
    const bt = (b as XNode[]).map(nodeText);
    if (!at.length || !bt.length) return false;
    if ((o === '=' || o === '!=') && !at.some((x) => x.identity) && !bt.some((y) => y.identity)) return setsCompare(o, at, bt);
    return at.some((xt) => bt.some((y) => compareTexts(o, xt, y, env)));
  }
  if (aSet || bSet) {
    const set = (aSet ? a : b) as XNode[];
    const other = (aSet ? b : a) as string | number | boolean;
    const flipped = aSet ? o : flip(o);
    if (typeof other === 'boolean') return compareScalars(flipped, toBoolean(set), other);
    if (typeof other === 'number') return set.some((n) => compareScalars(flipped, stringToNumber(stringValue(n)), other));
    const ot: Text = { text: other, identity: false };
    return set.some((n) => compareTexts(flipped, nodeText(n), ot, env));
  }
  return compareScalars(o, a as string | number | boolean, b as string | number | boolean);
}

/**
 * `=` and `!=` between two non-empty node-sets of plain strings in linear time: `=` holds when the
 * sets share a value; `!=` holds unless both hold one and the same single distinct value.
 */
function setsCompare(op: '=' | '!=', a: readonly Text[], b: readonly Text[]): boolean {
  const bValues = new Set(b.map((y) => y.text));
  if (op === '=') return a.some((x) => bValues.has(x.text));
  if (bValues.size > 1) return true;
  const only = b[0]!.text;
  return a.some((x) => x.text !== only);
}

function flip(op: CompareOp): CompareOp {
  switch (op) {
    case '<':
      return '>';
    case '<=':
      return '>=';
    case '>':
      return '<';
    case '>=':
      return '<=';
    default:
      return op;
  }
}

function compareTexts(op: CompareOp, x: Text, y: Text, env: EvalEnv): boolean {
  if (op === '=' || op === '!=') return textsEqual(x, y, env) === (op === '=');
  return compareScalars(op, stringToNumber(x.text), stringToNumber(y.text));
}

/**
 * String equality, except that an identityref value (`module:identity`) also equals the identity's
 * bare name (`'ACL_IPV4'`, as OpenConfig models write it) and a `prefix:identity` whose prefix the
 * expression's module maps to that module.
 */
function textsEqual(x: Text, y: Text, env: EvalEnv): boolean {
  if (x.text === y.text) return true;
  if (x.identity && identityMatches(x.text, y.text, env)) return true;
  return y.identity && identityMatches(y.text, x.text, env);
}

function identityMatches(value: string, written: string, env: EvalEnv): boolean {
  const colon = value.indexOf(':');
  if (colon < 0) return false;
  const wc = written.indexOf(':');
  if (wc < 0) return written === value.slice(colon + 1);
  return written.slice(wc + 1) === value.slice(colon + 1) && env.resolvePrefix(written.slice(0, wc)) === value.slice(0, colon);
}

function compareScalars(op: CompareOp, a: string | number | boolean, b: string | number | boolean): boolean {
  if (op === '=' || op === '!=') {
    let eq: boolean;
    if (typeof a === 'boolean' || typeof b === 'boolean') eq = toBoolean(a) === toBoolean(b);
    else if (typeof a === 'number' || typeof b === 'number') eq = toNumber(a) === toNumber(b);
    else eq = a === b;
    return eq === (op === '=');
  }
  const x = toNumber(a);
  const y = toNumber(b);
  switch (op) {
    case '<':
      return x < y;
    case '<=':
      return x <= y;
    case '>':
      return x > y;
    default:
      return x >= y;
  }
}
