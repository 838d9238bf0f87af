/**
 * When two texts of one module revision are the same module. Standard modules travel in many copies
 * (the RFC's text, a tool's reformatted one, a trimmed copy shipped with a program), so two texts with
 * the same name and revision are the same module when their compiled schemas agree; only a real
 * difference between them is one.
 *
 * The schemas are compared through the parsed statement trees, normalized so that what a compiled
 * schema does not hold does not count, which costs one walk of each tree instead of two compilations:
 * - documentation is dropped: description, reference, contact, organization, and the revision history
 *   (the newest revision, the one both texts share, is the module's identity and compared before);
 * - a statement that states its default (`config true`, `mandatory false`, `status current`,
 *   `yang-version 1`, ...) is the same as its absence, except under `refine` and `deviate`, where it
 *   overrides something;
 * - order counts only where a schema keeps it: among data definitions (the order of data nodes), and
 *   among `enum`s and `bit`s (values and positions follow it), `type`s (a union tries its members in
 *   order), `default`s (a leaf-list's) and `augment`s; other siblings (typedefs, imports, musts, ...)
 *   are compared as sets;
 * - comments, quoting, concatenation and layout are gone after parsing.
 * Prefixes are compared as written: two texts that name an import differently are reported, though
 * they may compile alike.
 */
import type { SourcePosition, Statement } from './statement';

/** The first real difference between two texts of a module: where in the statement tree, and what. */
export interface ModuleDifference {
  /** The statement path of the differing node (`/container system/leaf name/type`); `/` for the module statement. */
  readonly path: string;
  /** What differs, with the `file:line:column` of each side. */
  readonly what: string;
}

const DOCUMENTATION = new Set(['description', 'reference', 'contact', 'organization', 'revision']);

/** Statements whose argument here is the value their absence means. */
const DEFAULT_ARGUMENT: ReadonlyMap<string, string> = new Map([
  ['config', 'true'],
  ['mandatory', 'false'],
  ['min-elements', '0'],
  ['max-elements', 'unbounded'],
  ['status', 'current'],
  ['ordered-by', 'system'],
  ['require-instance', 'true'],
  ['yin-element', 'false'],
  ['yang-version', '1'],
]);

/** Where a statement stating a default still says something: it overrides the target's property. */
const OVERRIDING = new Set(['refine', 'deviate']);

const DATA_DEFINITION = new Set([
  'container',
  'leaf',
  'leaf-list',
  'list',
  'choice',
  'case',
  'anydata',
  'anyxml',
  'uses',
  'rpc',
  'action',
  'notification',
  'input',
  'output',
]);
const OWN_ORDER = new Set(['enum', 'bit', 'type', 'default', 'augment']);

/**
 * The first difference between two parsed texts of one module (`a` and `b`, each the top `module`
 * statement), or undefined when they are the same module by the rules above.
 */
export function moduleDifference(a: Statement, b: Statement): ModuleDifference | undefined {
  if (a.keyword !== b.keyword || a.arg !== b.arg) {
    return { path: '/', what: `${a.keyword} ${a.arg ?? ''} at ${where(a)} and ${b.keyword} ${b.arg ?? ''} at ${where(b)}` };
  }
  return compareChildren(a, b, '');
}

function compareChildren(a: Statement, b: Statement, path: string): ModuleDifference | undefined {
  const left = significant(a);
  const right = significant(b);
  const unmatchedRight = new Map<string, Statement[]>();
  for (const s of right) {
    const list = unmatchedRight.get(identity(s));
    if (list) list.push(s);
    else unmatchedRight.set(identity(s), [s]);
  }
  const pairs: Array<[Statement, Statement]> = [];
  const onlyLeft: Statement[] = [];
  for (const s of left) {
    const twin = unmatchedRight.get(identity(s))?.shift();
    if (twin) pairs.push([s, twin]);
    else onlyLeft.push(s);
  }
  const onlyRight = right.filter((s) => unmatchedRight.get(identity(s))?.includes(s));
  if (onlyLeft.length > 0 || onlyRight.length > 0) return unmatched(onlyLeft, onlyRight, a, b, path);
  for (const [l, r] of pairs) {
    const found = compareChildren(l, r, `${path}/${step(l)}`);
    if (found) return found;
  }
  return compareOrder(left, right, path);
}

/** Names the first statement one side has and the other has not; an argument change when both sides have one of that keyword. */
function unmatched(onlyLeft: Statement[], onlyRight: Statement[], a: Statement, b: Statement, path: string): ModuleDifference {
  const first = onlyLeft[0] ?? onlyRight[0]!;
  const counterpart = (onlyLeft[0] ? onlyRight : onlyLeft).find((s) => keywordOf(s) === keywordOf(first));
  if (counterpart) {
    const [l, r] = onlyLeft[0] ? [first, counterpart] : [counterpart, first];
    return {
      path: `${path}/${keywordOf(l)}`,
      what: `${keywordOf(l)} is ${quote(l.arg)} at ${where(l)} and ${quote(r.arg)} at ${where(r)}`,
    };
  }
  const lacks = onlyLeft[0] ? b : a;
  return { path: `${path}/${step(first)}`, what: `defined at ${where(first)} and absent from ${step(lacks)} at ${where(lacks)}` };
}

/** The first pair of siblings whose order matters and differs. */
function compareOrder(left: Statement[], right: Statement[], path: string): ModuleDifference | undefined {
  const classes = new Set(left.map(orderClass).filter((c) => c !== undefined));
  for (const cls of classes) {
    const l = left.filter((s) => orderClass(s) === cls);
    const r = right.filter((s) => orderClass(s) === cls);
    const i = l.findIndex((s, k) => identity(s) !== identity(r[k]!));
    if (i < 0) continue;
    const moved = r[i]!;
    return {
      path: `${path}/${step(moved)}`,
      what: `in another order: it follows ${i === 0 ? 'nothing' : step(r[i - 1]!)} at ${where(moved)}, but ${step(l[i]!)} comes there at ${where(l[i]!)}`,
    };
  }
  return undefined;
}

/** The substatements that a compiled schema keeps, in source order. */
function significant(stmt: Statement): Statement[] {
  const overriding = stmt.prefix === undefined && OVERRIDING.has(stmt.keyword);
  return stmt.substatements.filter((s) => {
    if (s.prefix !== undefined) return true;
    if (DOCUMENTATION.has(s.keyword)) return false;
    return overriding || DEFAULT_ARGUMENT.get(s.keyword) !== s.arg;
  });
}

function orderClass(s: Statement): string | undefined {
  if (s.prefix !== undefined) return undefined;
  if (DATA_DEFINITION.has(s.keyword)) return 'data';
  return OWN_ORDER.has(s.keyword) ? s.keyword : undefined;
}

function keywordOf(s: Statement): string {
  return s.prefix === undefined ? s.keyword : `${s.prefix}:${s.keyword}`;
}

/** A statement's keyword and argument: what pairs it with its twin in the other text. */
function identity(s: Statement): string {
  return s.arg === undefined ? keywordOf(s) : `${keywordOf(s)}\0${s.arg}`;
}

/** One step of a difference's path: `leaf name`, or `augment "/if:interfaces"` for an argument with `/` or spaces. */
function step(s: Statement): string {
  if (s.arg === undefined) return keywordOf(s);
  return `${keywordOf(s)} ${/[\s/"]/.test(s.arg) ? JSON.stringify(s.arg) : s.arg}`;
}

function quote(arg: string | undefined): string {
  return arg === undefined ? '(no argument)' : JSON.stringify(arg);
}

function where(s: { position: SourcePosition }): string {
  return `${s.position.file}:${s.position.line}:${s.position.column}`;
}
