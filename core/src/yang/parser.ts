/**
 * The YANG statement parser (RFC 7950 §6.3): builds the tree of statements of one module or
 * submodule from the lexer's tokens, then runs the grammar checks of grammar.ts over it.
 *
 * The nesting is tracked with an explicit stack rather than recursion, so a deeply nested or
 * hostile input cannot overflow the call stack; together with the one-pass lexer this keeps parsing
 * linear and exception-free whatever the text.
 */
import { Lexer } from './lexer';
import { checkGrammar } from './grammar';
import type { SourcePosition, Statement, YangDiagnostic } from './statement';

/** The result of parsing one file: the statement tree when the text is sound, and every fault found. */
export interface ParseResult {
  /** The top statement (`module` or `submodule`); present only when no error was found. */
  readonly statement?: Statement;
  readonly diagnostics: YangDiagnostic[];
}

/** Options for {@link parseYang}. */
export interface ParseOptions {
  /** Skip the grammar checks (header order, argument forms); the syntax is still checked. */
  readonly skipGrammar?: boolean;
}

interface MutableStatement {
  prefix: string | undefined;
  keyword: string;
  arg: string | undefined;
  substatements: Statement[];
  position: SourcePosition;
}

/**
 * Parses YANG text (YANG 1 or 1.1) into statements. Never throws: syntax faults and grammar faults
 * come back as diagnostics with file, line and column; `statement` is returned only when there is
 * no error (warnings may accompany it).
 */
export function parseYang(text: string, file: string, options: ParseOptions = {}): ParseResult {
  const syntax = parseStatements(text, file);
  if ('error' in syntax) return { diagnostics: [syntax.error] };
  const diagnostics = options.skipGrammar ? [] : checkGrammar(syntax.statement);
  const failed = diagnostics.some((d) => d.severity === 'error');
  return failed ? { diagnostics } : { statement: syntax.statement, diagnostics };
}

function error(message: string, position: SourcePosition): { error: YangDiagnostic } {
  return { error: { severity: 'error', message, position } };
}

/** The syntax alone: one top-level statement with its nested statements, nothing after it. */
function parseStatements(text: string, file: string): { statement: Statement } | { error: YangDiagnostic } {
  const lexer = new Lexer(text, file);
  const open: MutableStatement[] = [];
  let top: MutableStatement | undefined;
  for (;;) {
    const head = lexer.nextKeyword();
    if (head.kind === 'error') return error(head.message, head.position);
    if (head.kind === 'eof') {
      if (open.length > 0) {
        const unclosed = open[open.length - 1];
        return error(
          `unexpected end of input: "${unclosed.keyword}" opened at line ${unclosed.position.line} is not closed with "}"`,
          head.position,
        );
      }
      if (!top) return error('no YANG statement found: the file is empty', head.position);
      return { statement: top };
    }
    if (head.kind === '}') {
      if (open.length === 0) return error('unexpected "}" with no open statement', head.position);
      open.pop();
      continue;
    }
    if (head.kind !== 'keyword') return error('expected a statement keyword', head.position);
    if (open.length === 0 && top) {
      return error(
        `unexpected statement "${head.name}" after the end of "${top.keyword}" (only one module or submodule per file)`,
        head.position,
      );
    }
    const stmt: MutableStatement = { prefix: head.prefix, keyword: head.name, arg: undefined, substatements: [], position: head.position };
    let next = lexer.nextAfterKeyword();
    if (next.kind === 'argument') {
      stmt.arg = next.value;
      next = lexer.nextAfterArgument();
    }
    if (next.kind === 'error') return error(next.message, next.position);
    if (open.length === 0) top = stmt;
    else open[open.length - 1].substatements.push(stmt);
    if (next.kind === '{') open.push(stmt);
    else if (next.kind !== ';') return error(`expected ";" or "{" after "${head.name}"`, next.position);
  }
}
