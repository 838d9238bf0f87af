/**
 * `if-feature` expressions (RFC 7950 §7.20.2): `feat`, `pfx:feat`, `not`, `and`, `or` and
 * parentheses, with `not` binding tightest, then `and`, then `or`. Parsing is one linear pass over
 * the tokens and never throws; an unknown feature is reported by the evaluator's caller.
 */

/** A parsed if-feature expression. */
export type FeatureExpr =
  | { readonly op: 'ref'; readonly name: string }
  | { readonly op: 'not'; readonly arg: FeatureExpr }
  | { readonly op: 'and' | 'or'; readonly left: FeatureExpr; readonly right: FeatureExpr };

const TOKEN = /\s*(\(|\)|[^\s()]+)/y;

/** Parses an if-feature argument, or returns why it is not a valid expression. */
export function parseFeatureExpr(text: string): { expr: FeatureExpr } | { error: string } {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  let end = 0;
  for (;;) {
    const m = TOKEN.exec(text);
    if (!m) break;
    tokens.push(m[1]!);
    end = TOKEN.lastIndex;
  }
  if (text.slice(end).trim() !== '' || tokens.length === 0) return { error: `Invalid value "${text}" of if-feature - empty expression.` };
  let at = 0;
  let failure: string | undefined;
  // Recursive descent; nesting depth is bounded by the number of "(" tokens, so a hostile input
  // can at worst recurse once per character. Cap it to keep the stack safe.
  let depth = 0;
  const primary = (): FeatureExpr | undefined => {
    const t = tokens[at];
    if (t === undefined) {
      failure ??= 'unexpected end';
      return undefined;
    }
    if (t === 'not') {
      at++;
      const arg = primary();
      return arg && { op: 'not', arg };
    }
    if (t === '(') {
      if (++depth > 200) {
        failure ??= 'too deeply nested';
        return undefined;
      }
      at++;
      const inner = orExpr();
      depth--;
      if (tokens[at] !== ')') {
        failure ??= 'missing ")"';
        return undefined;
      }
      at++;
      return inner;
    }
    if (t === ')' || t === 'and' || t === 'or') {
      failure ??= `unexpected "${t}"`;
      return undefined;
    }
    at++;
    return { op: 'ref', name: t };
  };
  const andExpr = (): FeatureExpr | undefined => {
    let left = primary();
    while (left && tokens[at] === 'and') {
      at++;
      const right = primary();
      left = right && { op: 'and', left, right };
    }
    return left;
  };
  const orExpr = (): FeatureExpr | undefined => {
    let left = andExpr();
    while (left && tokens[at] === 'or') {
      at++;
      const right = andExpr();
      left = right && { op: 'or', left, right };
    }
    return left;
  };
  const expr = orExpr();
  if (!expr || failure || at !== tokens.length)
    return { error: `Invalid value "${text}" of if-feature - ${failure ?? 'unexpected token'}.` };
  return { expr };
}

/** Evaluates an expression given whether each referenced feature is enabled. */
export function evalFeatureExpr(expr: FeatureExpr, enabled: (name: string) => boolean): boolean {
  switch (expr.op) {
    case 'ref':
      return enabled(expr.name);
    case 'not':
      return !evalFeatureExpr(expr.arg, enabled);
    case 'and':
      return evalFeatureExpr(expr.left, enabled) && evalFeatureExpr(expr.right, enabled);
    case 'or':
      return evalFeatureExpr(expr.left, enabled) || evalFeatureExpr(expr.right, enabled);
  }
}
