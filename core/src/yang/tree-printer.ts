/**
 * RFC 8340 tree diagrams, printed the way yanglint 2.1.30 (`-f tree`) prints them, so its output is
 * our oracle. Owns the layout rules: sections (module, augment, rpcs, notifications), the
 * `<status>--<flags> <name><opts> <type> <if-features>` line, the `|` sibling marks and the column
 * alignment of types among siblings.
 *
 * Like libyang, the module section is drawn from the compiled schema (groupings expanded, nodes
 * augmented in from other modules carry their module's prefix), while the module's own augments of
 * other modules are drawn from the parsed statements (`+---u grouping` for uses, not expanded).
 * What a line shows of a compiled node (type as written, own if-features, key string) comes from the
 * statement the node was compiled from, found by its source position.
 *
 * After the notifications come the module's extension-defined trees, in source order, as libyang's
 * extension plugins print them: `yang-data NAME:` (RFC 8040, compiled, flags `--`), `structure NAME:`
 * (RFC 8791, compiled, no flags) and `augment-structure PATH:` (parsed, no flags). Nodes in them carry
 * no module prefix, even those another module's augment-structure added (yanglint prints it so).
 * Unlike yanglint 2.1.30, every augment-structure is printed with its own content (yanglint skips
 * those written after an sx:structure and repeats the first of several with the same path).
 *
 * Why this file is longer than 400 lines: yanglint's layout rules interlock (type columns aligned among
 * siblings, the `|` marks, compiled and parsed rows in one section, the extension trees after the
 * notifications); apart, one rule could not be checked against the others in one read.
 */
import type { Statement } from './statement';
import { findSub, findSubs } from './statement';
import type { CompiledModule, ListSchema, SchemaContext, SchemaNode, YangType } from './schema';
import { dataChildren } from './schema';

/** Options of {@link printTree}, after yanglint's. */
export interface TreeOptions {
  /** `-P`: print only the subtree of this data path (`/module:node/node`), with its ancestors. */
  readonly path?: string;
}

/** One line of the diagram before layout, with the lines under it. */
interface Row {
  readonly status: '+' | 'x' | 'o';
  /** `rw`, `ro`, `-w`, `-x`, `-n`, `-u` or `--`. */
  readonly flags: string;
  readonly shape: 'plain' | 'choice' | 'case';
  readonly prefix?: string;
  readonly name: string;
  /** `?`, `*`, `!` or nothing. */
  readonly opts: string;
  readonly keys?: string;
  readonly type?: string;
  readonly ifFeatures: readonly string[];
  /** Parsed trees only: a shorthand data node under a choice, drawn under an implicit case line. */
  readonly implicitCase?: boolean;
  readonly children: Row[];
}

/**
 * Prints the tree diagram of the named modules of a compiled context (each must be in
 * `ctx.modules`), or with `options.path` the subtree at that data path. Unknown names give an
 * explanatory line instead of a tree; never throws.
 */
export function printTree(ctx: SchemaContext, modules: readonly string[], options: TreeOptions = {}): string {
  const statements = new StatementIndex(ctx);
  if (options.path !== undefined) return printSubtree(ctx, statements, options.path);
  let out = '';
  for (const name of modules) {
    const module = ctx.modules.get(name);
    if (!module) {
      out += `(module "${name}" is not in the schema context)\n`;
      continue;
    }
    // yanglint separates the trees of several modules with an empty line.
    out += (out.length > 0 ? '\n' : '') + printModule(module, statements);
  }
  return out;
}

function printModule(module: CompiledModule, statements: StatementIndex): string {
  const lines: string[] = [`module: ${module.name}`];
  renderFamily(
    module.data.map((n) => compiledRow(n, module, statements)),
    '  ',
    lines,
  );
  let firstAugment = true;
  for (const aug of findSubs(module.statement, 'augment')) {
    if (augmentTargetIsLocal(aug.arg ?? '', module)) continue; // its nodes are in the module section already
    lines.push(...(firstAugment ? ['', `  augment ${aug.arg}:`] : [`  augment ${aug.arg}:`]));
    firstAugment = false;
    renderFamily(parsedChildren(aug, initialParsedContext()), '    ', lines);
  }
  if (module.rpcs.length > 0) {
    lines.push('', '  rpcs:');
    renderFamily(
      module.rpcs.map((n) => compiledRow(n, module, statements)),
      '    ',
      lines,
    );
  }
  if (module.notifications.length > 0) {
    lines.push('', '  notifications:');
    renderFamily(
      module.notifications.map((n) => compiledRow(n, module, statements)),
      '    ',
      lines,
    );
  }
  printStructures(module, statements, lines);
  return `${lines.join('\n')}\n`;
}

/** Data-def substatements of an extension instance in the order libyang stores (and prints) them. */
const EXTENSION_DATA_ORDER = ['container', 'leaf', 'leaf-list', 'list', 'choice', 'anydata', 'anyxml', 'uses', 'case'];

/** The yang-data, structure and augment-structure sections; a blank line where the kind changes. */
function printStructures(module: CompiledModule, statements: StatementIndex, lines: string[]): void {
  let previous: string | undefined;
  for (const text of [module.statement, ...module.submodules.map((s) => s.statement)]) {
    for (const stmt of text.substatements) {
      const kind = extensionKind(stmt, module, text);
      if (kind === undefined) continue;
      let rows: Row[];
      if (kind === 'augment-structure') {
        const ordered = { ...stmt, substatements: EXTENSION_DATA_ORDER.flatMap((k) => findSubs(stmt, k)) };
        rows = parsedChildren(ordered, { ...initialParsedContext(), forcedFlags: '' });
      } else {
        const structure = module.structures.find((x) => x.statement === stmt);
        if (!structure) continue; // refused by the compiler (duplicate, misplaced) or module not implemented
        const style: CompiledStyle = { flags: kind === 'yang-data' ? '--' : '', prefixes: false };
        rows = structure.nodes.map((n) => compiledRow(n, module, statements, style));
      }
      if (previous !== kind) lines.push('');
      previous = kind;
      lines.push(`  ${kind} ${stmt.arg ?? ''}:`);
      renderFamily(rows, '    ', lines);
    }
  }
}

/** Which extension-defined tree a top-level statement of a module text is, by its prefix's module. */
function extensionKind(
  stmt: Statement,
  module: CompiledModule,
  text: Statement,
): 'yang-data' | 'structure' | 'augment-structure' | undefined {
  if (stmt.prefix === undefined) return undefined;
  // A submodule declares its own prefixes; its imports are in the module's prefix map unless renamed.
  const own = text === module.statement ? undefined : findSubs(text, 'import').find((i) => findSub(i, 'prefix')?.arg === stmt.prefix)?.arg;
  const defining = own ?? module.prefixes.get(stmt.prefix);
  if (defining === 'ietf-restconf' && stmt.keyword === 'yang-data') return 'yang-data';
  if (defining === 'ietf-yang-structure-ext' && (stmt.keyword === 'structure' || stmt.keyword === 'augment-structure')) return stmt.keyword;
  return undefined;
}

/** `-P`: the module line, each ancestor of the target on its own line, then the target's subtree. */
function printSubtree(ctx: SchemaContext, statements: StatementIndex, path: string): string {
  const target = findByDataPath(ctx, path);
  if (!target) return `(path "${path}" names no schema node)\n`;
  const module = target.module;
  const chain: SchemaNode[] = [];
  for (let n: SchemaNode | undefined = target; n; n = n.parent) chain.unshift(n);
  const lines: string[] = [`module: ${module.name}`];
  let wrapper = '  ';
  for (const node of chain) {
    const siblings = (node.parent ? childrenInOrder(node.parent) : topLevelOf(node)).map((s) => compiledRow(s, module, statements));
    const row = compiledRow(node, module, statements);
    lines.push(wrapper + renderLine(row, maxGapToType(siblings)));
    if (node === target) renderFamily(row.children, `${wrapper}   `, lines);
    wrapper += '   ';
  }
  return `${lines.join('\n')}\n`;
}

function topLevelOf(node: SchemaNode): readonly SchemaNode[] {
  const m = node.module;
  if (node.kind === 'rpc') return m.rpcs;
  if (node.kind === 'notification') return m.notifications;
  return m.data;
}

/** Resolves `/mod:a/b/mod2:c` through data nodes (choice and case looked through). */
function findByDataPath(ctx: SchemaContext, path: string): SchemaNode | undefined {
  const steps = path.split('/').filter((s) => s.length > 0);
  let children: readonly SchemaNode[] = [...ctx.data, ...ctx.rpcs, ...ctx.notifications];
  let moduleName: string | undefined;
  let found: SchemaNode | undefined;
  for (const step of steps) {
    const colon = step.indexOf(':');
    if (colon >= 0) moduleName = step.slice(0, colon);
    const name = colon >= 0 ? step.slice(colon + 1) : step;
    found = undefined;
    for (const c of dataChildren(children)) {
      if (c.name === name && (moduleName === undefined || c.module.name === moduleName)) {
        found = c;
        break;
      }
    }
    if (!found) return undefined;
    children = found.kind === 'rpc' || found.kind === 'action' ? [found.input, found.output] : found.children;
  }
  return found;
}

// ---------------------------------------------------------------------------------------------------
// Rows from the compiled schema

/** Children as libyang lists them: data nodes, then actions, then notifications; empty input/output left out. */
function childrenInOrder(node: SchemaNode): SchemaNode[] {
  if (node.kind === 'rpc' || node.kind === 'action') {
    return [node.input, node.output].filter((io) => io.children.length > 0);
  }
  const data = node.children.filter((c) => c.kind !== 'action' && c.kind !== 'notification');
  const actions = node.children.filter((c) => c.kind === 'action');
  const notifications = node.children.filter((c) => c.kind === 'notification');
  return [...data, ...actions, ...notifications];
}

/** Where a compiled node sits: under rpc/action input or output, or in a notification. */
function operationPlace(node: SchemaNode): 'input' | 'output' | 'notification' | undefined {
  for (let p = node.parent; p; p = p.parent) {
    if (p.kind === 'input' || p.kind === 'output' || p.kind === 'notification') return p.kind;
  }
  return undefined;
}

function compiledFlags(node: SchemaNode): string {
  switch (node.kind) {
    case 'input':
      return '-w';
    case 'output':
      return 'ro';
    case 'rpc':
    case 'action':
      return '-x';
    default:
      break;
  }
  const place = operationPlace(node);
  if (place === 'input') return '-w';
  if (place === 'output') return 'ro';
  // yanglint 2.1.30 prints no config flags for nodes inside a notification (`+---- leaf`).
  if (place === 'notification') return node.kind === 'notification' ? '-n' : '--';
  if (node.kind === 'notification') return '-n';
  return node.config ? 'rw' : 'ro';
}

/** How the nodes of an extension-defined tree are drawn: fixed flags, and whether prefixes show. */
interface CompiledStyle {
  readonly flags: string;
  readonly prefixes: boolean;
}

function compiledRow(node: SchemaNode, printed: CompiledModule, statements: StatementIndex, style?: CompiledStyle): Row {
  const stmt = statements.of(node);
  const prefix = node.module.name !== printed.name && (style?.prefixes ?? true) ? node.module.prefix : undefined;
  const base = {
    status: statusMark(node.status),
    flags: style ? style.flags : compiledFlags(node),
    prefix,
    name: node.name,
    ifFeatures: stmt ? findSubs(stmt, 'if-feature').map((s) => s.arg ?? '') : [],
    children: childrenInOrder(node).map((c) => compiledRow(c, printed, statements, style)),
  };
  switch (node.kind) {
    case 'choice':
      return { ...base, shape: 'choice', opts: node.mandatory ? '' : '?' };
    case 'case':
      return { ...base, shape: 'case', opts: '', ifFeatures: node.shorthand ? [] : base.ifFeatures };
    case 'container':
      return { ...base, shape: 'plain', opts: node.presence !== undefined ? '!' : '' };
    case 'list':
      return { ...base, shape: 'plain', opts: '*', ...keysOf(node, stmt) };
    case 'leaf-list':
      return { ...base, shape: 'plain', opts: '*', type: typeText(stmt, node.type) };
    case 'leaf':
      return { ...base, shape: 'plain', opts: node.mandatory || node.isKey ? '' : '?', type: typeText(stmt, node.type) };
    case 'anydata':
    case 'anyxml':
      return { ...base, shape: 'plain', opts: node.mandatory ? '' : '?', type: node.kind };
    default:
      return { ...base, shape: 'plain', opts: '' };
  }
}

function keysOf(list: ListSchema, stmt: Statement | undefined): { keys?: string } {
  const written = stmt ? findSub(stmt, 'key')?.arg : undefined;
  if (written !== undefined && written.trim() !== '') return { keys: written };
  return list.keys.length > 0 ? { keys: list.keys.map((k) => k.name).join(' ') } : {};
}

/** The type as the model wrote it on the node: `-> path` for a leafref path given there, else the name. */
function typeText(stmt: Statement | undefined, type: YangType): string {
  const typeStmt = stmt ? findSub(stmt, 'type') : undefined;
  if (typeStmt) {
    const path = findSub(typeStmt, 'path')?.arg;
    return path !== undefined ? `-> ${path}` : (typeStmt.arg ?? type.name);
  }
  if (type.name === 'leafref' && type.leafref) return `-> ${type.leafref.path.source}`;
  return type.name;
}

function statusMark(status: string | undefined): Row['status'] {
  return status === 'obsolete' ? 'o' : status === 'deprecated' ? 'x' : '+';
}

/**
 * Every statement of every module in the context by source position, so that a compiled node finds
 * the statement it came from (in its own module, a submodule, or the module of a grouping).
 */
class StatementIndex {
  private readonly byPosition = new Map<string, Statement>();

  constructor(ctx: SchemaContext) {
    for (const m of ctx.modules.values()) {
      this.add(m.statement);
      for (const sub of m.submodules) this.add(sub.statement);
    }
  }

  private add(top: Statement): void {
    const pending = [top];
    while (pending.length > 0) {
      const s = pending.pop()!;
      this.byPosition.set(key(s.position.file, s.position.line, s.position.column), s);
      for (const c of s.substatements) pending.push(c);
    }
  }

  /** The statement `node` was compiled from, when its keyword matches the node's kind. */
  of(node: SchemaNode): Statement | undefined {
    const s = this.byPosition.get(key(node.position.file, node.position.line, node.position.column));
    if (!s || s.prefix !== undefined) return undefined;
    if (s.keyword === node.kind) return s;
    return undefined; // e.g. a shorthand case points at its data node
  }
}

function key(file: string, line: number, column: number): string {
  return `${file}\u0000${line}\u0000${column}`;
}

// ---------------------------------------------------------------------------------------------------
// Rows from parsed statements (the module's augments of other modules)

interface ParsedContext {
  readonly ancestor: 'input' | 'output' | 'notification' | undefined;
  readonly status: Row['status'];
  readonly config: 'rw' | 'ro';
  /** The key string of the nearest enclosing list, for telling keys from optional leaves. */
  readonly listKeys: readonly string[];
  /** Flags every row shows regardless of kind (`''` in an augment-structure). */
  readonly forcedFlags?: string;
}

function initialParsedContext(): ParsedContext {
  return { ancestor: undefined, status: '+', config: 'rw', listKeys: [] };
}

const PARSED_DATA = new Set(['container', 'leaf', 'leaf-list', 'list', 'choice', 'case', 'anydata', 'anyxml', 'uses']);

/** The child rows of a parsed statement: data nodes and uses, then actions, then notifications. */
function parsedChildren(stmt: Statement, ctx: ParsedContext): Row[] {
  const core = stmt.substatements.filter((s) => s.prefix === undefined);
  if (stmt.keyword === 'rpc' || stmt.keyword === 'action') {
    return core
      .filter(
        (s) =>
          (s.keyword === 'input' || s.keyword === 'output') &&
          s.substatements.some((c) => c.prefix === undefined && PARSED_DATA.has(c.keyword)),
      )
      .sort((a, b) => (a.keyword === 'input' ? 0 : 1) - (b.keyword === 'input' ? 0 : 1))
      .map((s) => parsedRow(s, ctx, false));
  }
  const underChoice = stmt.keyword === 'choice';
  return [
    ...core.filter((s) => PARSED_DATA.has(s.keyword)),
    ...core.filter((s) => s.keyword === 'action'),
    ...core.filter((s) => s.keyword === 'notification'),
  ].map((s) => parsedRow(s, ctx, underChoice && s.keyword !== 'case' && s.keyword !== 'list' && s.keyword !== 'uses'));
}

function parsedRow(stmt: Statement, ctx: ParsedContext, implicitCase: boolean): Row {
  const kw = stmt.keyword;
  const own = findSub(stmt, 'status')?.arg;
  const status = kw === 'input' || kw === 'output' ? ctx.status : own !== undefined ? statusMark(own) : ctx.status;
  const ownConfig = findSub(stmt, 'config')?.arg;
  let flags: string;
  if (kw === 'input' || ctx.ancestor === 'input') flags = '-w';
  else if (kw === 'output' || ctx.ancestor === 'output') flags = 'ro';
  else if (ctx.ancestor === 'notification') flags = 'ro';
  else if (kw === 'notification') flags = '-n';
  else if (kw === 'uses') flags = '-u';
  else if (kw === 'rpc' || kw === 'action') flags = '-x';
  else flags = ownConfig === 'false' ? 'ro' : ownConfig === 'true' ? 'rw' : ctx.config;
  if (ctx.forcedFlags !== undefined) flags = ctx.forcedFlags;
  const mandatory = findSub(stmt, 'mandatory')?.arg === 'true';
  let opts = '';
  let shape: Row['shape'] = 'plain';
  if (kw === 'case') shape = 'case';
  else if (kw === 'choice') {
    shape = 'choice';
    opts = mandatory ? '' : '?';
  } else if (kw === 'container' && findSub(stmt, 'presence')) opts = '!';
  else if (kw === 'list' || kw === 'leaf-list') opts = '*';
  else if ((kw === 'anydata' || kw === 'anyxml') && !mandatory) opts = '?';
  else if (kw === 'leaf' && !mandatory && !ctx.listKeys.includes(stmt.arg ?? '')) opts = '?';
  const keyArg = kw === 'list' ? findSub(stmt, 'key')?.arg : undefined;
  const typeStmt = kw === 'leaf' || kw === 'leaf-list' ? findSub(stmt, 'type') : undefined;
  const path = typeStmt ? findSub(typeStmt, 'path')?.arg : undefined;
  const type = typeStmt ? (path !== undefined ? `-> ${path}` : typeStmt.arg) : kw === 'anydata' || kw === 'anyxml' ? kw : undefined;
  const inner: ParsedContext = {
    ...(ctx.forcedFlags !== undefined ? { forcedFlags: ctx.forcedFlags } : {}),
    ancestor: kw === 'input' ? 'input' : kw === 'output' ? 'output' : kw === 'notification' ? 'notification' : ctx.ancestor,
    status: own !== undefined ? statusMark(own) : ctx.status,
    config: ctx.ancestor === 'output' ? 'ro' : ownConfig === 'false' ? 'ro' : ownConfig === 'true' ? 'rw' : ctx.config,
    listKeys: keyArg !== undefined ? keyArg.split(/\s+/).filter((k) => k.length > 0) : ctx.listKeys,
  };
  return {
    status,
    flags,
    shape,
    name: stmt.arg ?? kw,
    opts,
    ...(keyArg !== undefined && keyArg.trim() !== '' ? { keys: keyArg } : {}),
    ...(type !== undefined ? { type } : {}),
    ifFeatures: findSubs(stmt, 'if-feature').map((s) => s.arg ?? ''),
    implicitCase,
    children: kw === 'uses' ? [] : parsedChildren(stmt, inner),
  };
}

/** True when an augment's target path starts in the module itself (then it is not printed separately). */
function augmentTargetIsLocal(target: string, module: CompiledModule): boolean {
  const first = target.replace(/^\s*\//, '').split('/')[0] ?? '';
  const colon = first.indexOf(':');
  if (colon < 0) return true;
  return module.prefixes.get(first.slice(0, colon)) === module.name;
}

// ---------------------------------------------------------------------------------------------------
// Layout

const GAP_BEFORE_TYPE = 4;

/** Columns from the flags to the end of name and opts (libyang counts a prefix without its colon). */
function gapToOpts(row: Row): number {
  if (row.keys !== undefined) return 0;
  let len = row.flags.length + 1;
  if (row.shape !== 'plain') len += 2;
  return len + (row.prefix?.length ?? 0) + row.name.length + row.opts.length;
}

function gapToType(row: Row): number {
  if (row.keys !== undefined) return 0;
  const opts = row.opts.length;
  return gapToOpts(row) + (opts >= GAP_BEFORE_TYPE ? 1 : opts > 0 ? GAP_BEFORE_TYPE - opts : GAP_BEFORE_TYPE);
}

function maxGapToType(rows: readonly Row[]): number {
  let max = 0;
  for (const r of rows) max = Math.max(max, gapToType(r));
  return max;
}

/** Appends the lines of `rows` (siblings) and their subtrees; `wrapper` is the text before each status mark. */
function renderFamily(rows: readonly Row[], wrapper: string, lines: string[]): void {
  const gap = maxGapToType(rows);
  rows.forEach((row, i) => {
    const more = i < rows.length - 1;
    let at = wrapper;
    if (row.implicitCase) {
      lines.push(at + renderLine({ ...row, shape: 'case', flags: '--', type: undefined, ifFeatures: [], keys: undefined }, 0));
      at += more ? '|  ' : '   ';
    }
    lines.push(at + renderLine(row, gap));
    renderFamily(row.children, at + (more ? '|  ' : '   '), lines);
  });
}

function renderLine(row: Row, maxGap: number): string {
  const name = (row.prefix !== undefined ? `${row.prefix}:` : '') + row.name;
  let text: string;
  if (row.shape === 'case') text = `${row.status}--:(${name})${row.opts}`;
  else if (row.shape === 'choice') text = `${row.status}--${row.flags} (${name})${row.opts}`;
  else text = `${row.status}--${row.flags} ${name}${row.opts}`;
  if (row.keys !== undefined) text += ` [${row.keys}]`;
  if (row.type !== undefined) {
    const gap =
      maxGap > 0 ? (row.keys !== undefined ? 1 : maxGap - gapToOpts(row)) : row.opts.length > 0 ? GAP_BEFORE_TYPE - 1 : GAP_BEFORE_TYPE;
    text += ' '.repeat(Math.max(1, gap)) + row.type;
  }
  if (row.ifFeatures.length > 0) text += ` {${row.ifFeatures.join(',')}}?`;
  return text;
}
