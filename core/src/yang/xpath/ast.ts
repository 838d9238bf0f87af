/**
 * The parsed form of an XPath 1.0 expression (W3C XPath 1.0 §2-§3). The parser produces it once per
 * `SchemaXPath` (cached in `SchemaXPath.parsed`); the schema-level path resolver and the data-level
 * evaluator both walk it. Every node keeps `pos`, the 0-based offset in the source where it starts,
 * so faults can point at the place in the expression.
 */

/** The axes of XPath 1.0. YANG models use child, parent, self, descendant(-or-self), ancestor(-or-self), following/preceding-sibling. */
export type Axis =
  | 'ancestor'
  | 'ancestor-or-self'
  | 'attribute'
  | 'child'
  | 'descendant'
  | 'descendant-or-self'
  | 'following'
  | 'following-sibling'
  | 'namespace'
  | 'parent'
  | 'preceding'
  | 'preceding-sibling'
  | 'self';

export const AXES: ReadonlySet<string> = new Set<Axis>([
  'ancestor',
  'ancestor-or-self',
  'attribute',
  'child',
  'descendant',
  'descendant-or-self',
  'following',
  'following-sibling',
  'namespace',
  'parent',
  'preceding',
  'preceding-sibling',
  'self',
]);

/** A name test: `prefix:local`, `prefix:*`, `local` or `*` (prefix undefined when none was written). */
export interface NameTest {
  readonly kind: 'name';
  readonly prefix: string | undefined;
  /** The local name, or '*' for any name. */
  readonly local: string;
}

/** A node-type test: `node()`, `text()`, `comment()`, `processing-instruction('x')`. */
export interface TypeTest {
  readonly kind: 'node' | 'text' | 'comment' | 'processing-instruction';
  readonly literal?: string;
}

export type NodeTest = NameTest | TypeTest;

export interface Step {
  readonly axis: Axis;
  readonly test: NodeTest;
  readonly predicates: readonly Expr[];
  readonly pos: number;
}

export type BinaryOp = 'or' | 'and' | '=' | '!=' | '<' | '<=' | '>' | '>=' | '+' | '-' | '*' | 'div' | 'mod' | '|';

export type Expr =
  | { readonly kind: 'binary'; readonly op: BinaryOp; readonly left: Expr; readonly right: Expr; readonly pos: number }
  | { readonly kind: 'negate'; readonly operand: Expr; readonly pos: number }
  | { readonly kind: 'literal'; readonly value: string; readonly pos: number }
  | { readonly kind: 'number'; readonly value: number; readonly pos: number }
  | { readonly kind: 'variable'; readonly name: string; readonly pos: number }
  | {
      readonly kind: 'call';
      readonly prefix: string | undefined;
      readonly name: string;
      readonly args: readonly Expr[];
      readonly pos: number;
    }
  /**
   * A location path, or a filter expression followed by steps (`deref(x)/../y`, `current()/../k`).
   * `start` is 'root' for `/...`, 'context' for a relative path, or the filter expression whose
   * node-set the steps start from.
   */
  | { readonly kind: 'path'; readonly start: 'root' | 'context' | Expr; readonly steps: readonly Step[]; readonly pos: number }
  /** A primary expression with predicates: `(expr)[1]`, `current()[...]`. */
  | { readonly kind: 'filter'; readonly primary: Expr; readonly predicates: readonly Expr[]; readonly pos: number };

export type PathExpr = Extract<Expr, { kind: 'path' }>;

/** Renders an expression back to XPath text (used in messages and tests). */
export function formatExpr(e: Expr): string {
  switch (e.kind) {
    case 'binary':
      return `${formatExpr(e.left)} ${e.op} ${formatExpr(e.right)}`;
    case 'negate':
      return `-${formatExpr(e.operand)}`;
    case 'literal':
      return e.value.includes("'") ? `"${e.value}"` : `'${e.value}'`;
    case 'number':
      return String(e.value);
    case 'variable':
      return `$${e.name}`;
    case 'call':
      return `${e.prefix ? `${e.prefix}:` : ''}${e.name}(${e.args.map(formatExpr).join(', ')})`;
    case 'filter':
      return `(${formatExpr(e.primary)})${e.predicates.map((p) => `[${formatExpr(p)}]`).join('')}`;
    case 'path': {
      const steps = e.steps.map(formatStep).join('/');
      if (e.start === 'root') return `/${steps}`;
      if (e.start === 'context') return steps;
      return `${formatExpr(e.start)}/${steps}`;
    }
  }
}

function formatStep(s: Step): string {
  const test =
    s.test.kind === 'name'
      ? s.test.prefix
        ? `${s.test.prefix}:${s.test.local}`
        : s.test.local
      : `${s.test.kind}(${s.test.literal !== undefined ? `'${s.test.literal}'` : ''})`;
  return `${s.axis}::${test}${s.predicates.map((p) => `[${formatExpr(p)}]`).join('')}`;
}
