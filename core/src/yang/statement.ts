/**
 * The parsed form of YANG text: a tree of statements exactly as written (RFC 7950 §6.3), before any
 * resolution. The lexer and parser produce it; the compiler and the tree printer (for a module's own
 * augments, printed in parsed form as yanglint does) read it.
 */

/** Where a statement or a fault stands in its source text (1-based line and column). */
export interface SourcePosition {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

/**
 * One YANG statement. `keyword` is the bare keyword (`container`, `leaf`, ...) for core statements; an
 * extension statement keeps its prefix in `prefix` (`md:annotation` has prefix `md`, keyword
 * `annotation`). `arg` is the argument after unquoting and `+` concatenation, or undefined when the
 * statement has none.
 */
export interface Statement {
  readonly prefix: string | undefined;
  readonly keyword: string;
  readonly arg: string | undefined;
  readonly substatements: Statement[];
  readonly position: SourcePosition;
}

/** A fault found in YANG text or while compiling it: where, and what rule was broken. */
export interface YangDiagnostic {
  readonly severity: 'error' | 'warning';
  readonly message: string;
  readonly position: SourcePosition;
  /** The module the fault belongs to, when known. */
  readonly module?: string;
}

/** Renders a diagnostic the way an operator reads it: `file:line:column: error: message`. */
export function formatDiagnostic(d: YangDiagnostic): string {
  return `${d.position.file}:${d.position.line}:${d.position.column}: ${d.severity}: ${d.message}`;
}

/** The first substatement with the given core keyword, if any. */
export function findSub(stmt: Statement, keyword: string): Statement | undefined {
  for (const s of stmt.substatements) if (s.prefix === undefined && s.keyword === keyword) return s;
  return undefined;
}

/** Every substatement with the given core keyword, in source order. */
export function findSubs(stmt: Statement, keyword: string): Statement[] {
  return stmt.substatements.filter((s) => s.prefix === undefined && s.keyword === keyword);
}
