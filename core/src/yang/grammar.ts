/**
 * Grammar checks over a parsed statement tree (RFC 7950 §7 and §14): the faults the syntax alone
 * cannot see but that a reference implementation (libyang) rejects. Kept to what real modules get
 * wrong plus cheap sanity checks:
 * - the top statement is `module` or `submodule`, with its mandatory header statements;
 * - the module header order: header, linkage (import/include), meta, revisions, body (§7.1);
 * - core keywords are known YANG keywords and take an argument exactly when they must;
 * - argument forms: identifiers for definitions, YYYY-MM-DD dates, `yang-version` values.
 * Anything libyang accepts must pass here: no invented strictness.
 */
import type { Statement, YangDiagnostic } from './statement';

/** Every core keyword of YANG 1 and 1.1 (RFC 7950 §14), mapped to whether it takes an argument. */
const KEYWORDS: ReadonlyMap<string, boolean> = new Map([
  ...[
    'action',
    'anydata',
    'anyxml',
    'argument',
    'augment',
    'base',
    'belongs-to',
    'bit',
    'case',
    'choice',
    'config',
    'contact',
    'container',
    'default',
    'description',
    'deviate',
    'deviation',
    'enum',
    'error-app-tag',
    'error-message',
    'extension',
    'feature',
    'fraction-digits',
    'grouping',
    'identity',
    'if-feature',
    'import',
    'include',
    'key',
    'leaf',
    'leaf-list',
    'length',
    'list',
    'mandatory',
    'max-elements',
    'min-elements',
    'modifier',
    'module',
    'must',
    'namespace',
    'notification',
    'ordered-by',
    'organization',
    'path',
    'pattern',
    'position',
    'prefix',
    'presence',
    'range',
    'reference',
    'refine',
    'require-instance',
    'revision',
    'revision-date',
    'rpc',
    'status',
    'submodule',
    'type',
    'typedef',
    'unique',
    'units',
    'uses',
    'value',
    'when',
    'yang-version',
    'yin-element',
  ].map((k) => [k, true] as const),
  ['input', false],
  ['output', false],
]);

/** Statements whose argument is a plain identifier (RFC 7950 §14 `identifier-arg-str`). */
const IDENTIFIER_ARG = new Set([
  'module',
  'submodule',
  'import',
  'include',
  'belongs-to',
  'prefix',
  'feature',
  'identity',
  'typedef',
  'grouping',
  'container',
  'leaf',
  'leaf-list',
  'list',
  'choice',
  'case',
  'anydata',
  'anyxml',
  'rpc',
  'action',
  'notification',
  'extension',
  'argument',
  'bit',
]);

/** Statements whose argument is `[prefix:]identifier`. */
const IDENTIFIER_REF_ARG = new Set(['uses', 'type', 'base']);

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const IDENTIFIER_REF = /^(?:[A-Za-z_][A-Za-z0-9_.-]*:)?[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Position of each module-level statement group in the order RFC 7950 §7.1 demands. */
const enum Section {
  Header,
  Linkage,
  Meta,
  Revision,
  Body,
}
const SECTION_NAMES = ['header', 'linkage (import, include)', 'meta (organization, contact, description, reference)', 'revision', 'body'];

function sectionOf(keyword: string): Section {
  switch (keyword) {
    case 'yang-version':
    case 'namespace':
    case 'prefix':
    case 'belongs-to':
      return Section.Header;
    case 'import':
    case 'include':
      return Section.Linkage;
    case 'organization':
    case 'contact':
    case 'description':
    case 'reference':
      return Section.Meta;
    case 'revision':
      return Section.Revision;
    default:
      return Section.Body;
  }
}

/**
 * Checks a parsed module or submodule against the rules above. Answers one diagnostic per fault
 * (empty when the module is sound); never throws.
 */
export function checkGrammar(top: Statement): YangDiagnostic[] {
  const diagnostics: YangDiagnostic[] = [];
  const fault = (stmt: Statement, message: string): void => {
    diagnostics.push({ severity: 'error', message, position: stmt.position, module: moduleName });
  };
  const moduleName = top.arg;
  if (top.prefix !== undefined || (top.keyword !== 'module' && top.keyword !== 'submodule')) {
    fault(top, `the file must hold a "module" or "submodule" statement, found "${displayKeyword(top)}"`);
    return diagnostics;
  }
  checkHeader(top, fault);
  // Every statement of the tree, iteratively (deep nesting must not exhaust the call stack).
  const pending: Statement[] = [top];
  while (pending.length > 0) {
    const stmt = pending.pop()!;
    checkStatement(stmt, fault);
    for (let i = stmt.substatements.length - 1; i >= 0; i--) pending.push(stmt.substatements[i]);
  }
  return diagnostics;
}

type Fault = (stmt: Statement, message: string) => void;

function displayKeyword(stmt: Statement): string {
  return stmt.prefix === undefined ? stmt.keyword : `${stmt.prefix}:${stmt.keyword}`;
}

/** Header order and the mandatory header statements of a module or submodule. */
function checkHeader(top: Statement, fault: Fault): void {
  let section = Section.Header;
  let sectionStmt: Statement | undefined;
  const seen = new Set<string>();
  for (const sub of top.substatements) {
    if (sub.prefix !== undefined) continue; // extension statements may appear anywhere
    seen.add(sub.keyword);
    const own = sectionOf(sub.keyword);
    if (own < section && sectionStmt) {
      fault(
        sub,
        `invalid keyword "${sub.keyword}": it cannot appear after "${sectionStmt.keyword}" ` +
          `(RFC 7950 §7.1: ${SECTION_NAMES[own]} statements come before ${SECTION_NAMES[section]} statements)`,
      );
      continue;
    }
    section = own;
    sectionStmt = sub;
  }
  const required = top.keyword === 'module' ? ['namespace', 'prefix'] : ['belongs-to'];
  for (const keyword of required) {
    if (!seen.has(keyword)) fault(top, `${top.keyword} "${top.arg ?? ''}" has no "${keyword}" statement`);
  }
  for (const link of top.substatements) {
    if (link.prefix !== undefined) continue;
    if (
      (link.keyword === 'import' || link.keyword === 'belongs-to') &&
      !link.substatements.some((s) => s.prefix === undefined && s.keyword === 'prefix')
    ) {
      fault(link, `${link.keyword} "${link.arg ?? ''}" has no "prefix" statement`);
    }
  }
}

/** Keyword known, argument present or absent as required, and its form where it matters. */
function checkStatement(stmt: Statement, fault: Fault): void {
  if (stmt.prefix !== undefined) return; // extension instances: their definition decides
  const takesArgument = KEYWORDS.get(stmt.keyword);
  if (takesArgument === undefined) {
    fault(stmt, `unknown keyword "${stmt.keyword}" (an extension statement needs a prefix)`);
    return;
  }
  if (takesArgument && stmt.arg === undefined) {
    fault(stmt, `"${stmt.keyword}" needs an argument`);
    return;
  }
  if (!takesArgument && stmt.arg !== undefined) {
    fault(stmt, `"${stmt.keyword}" takes no argument, found "${stmt.arg}"`);
    return;
  }
  const arg = stmt.arg ?? '';
  if (IDENTIFIER_ARG.has(stmt.keyword) && !IDENTIFIER.test(arg)) {
    fault(stmt, `invalid identifier "${arg}" as the argument of "${stmt.keyword}"`);
  } else if (IDENTIFIER_REF_ARG.has(stmt.keyword) && !IDENTIFIER_REF.test(arg)) {
    fault(stmt, `invalid name "${arg}" as the argument of "${stmt.keyword}" (expected [prefix:]identifier)`);
  } else if (stmt.keyword === 'revision' || stmt.keyword === 'revision-date') {
    const problem = dateProblem(arg);
    if (problem) fault(stmt, `invalid date "${arg}" in "${stmt.keyword}": ${problem}`);
  } else if (stmt.keyword === 'yang-version' && arg !== '1' && arg !== '1.1') {
    fault(stmt, `invalid yang-version "${arg}" (expected "1" or "1.1")`);
  }
}

/** Why `text` is not a YYYY-MM-DD calendar date, or undefined when it is one. */
export function dateProblem(text: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!m) return `expected the form YYYY-MM-DD${text.length !== 10 ? ` (length ${text.length} instead of 10)` : ''}`;
  const year = Number(m[1]),
    month = Number(m[2]),
    day = Number(m[3]);
  if (month < 1 || month > 12) return `month ${m[2]} does not exist`;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  if (day < 1 || day > days) return `day ${m[3]} does not exist in month ${m[2]}`;
  return undefined;
}
