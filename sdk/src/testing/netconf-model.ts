/**
 * What the NETCONF device simulator needs from its YANG model, read from the text with a small statement
 * reader (quoted strings, `+` concatenation, comments, blocks): the module's name, namespace and prefix,
 * the keys of every list and the location of every action and RPC. Groupings, augments and typedefs are
 * not resolved: simulator models are small and written for tests.
 */

interface Stmt {
  readonly keyword: string;
  readonly arg: string | undefined;
  readonly children: Stmt[];
}

/** Why a model text cannot be read, with the line. */
export class ModelSyntaxError extends Error {
  constructor(
    readonly line: number,
    reason: string,
  ) {
    super(`YANG model line ${line}: ${reason}`);
    this.name = 'ModelSyntaxError';
  }
}

function tokenize(text: string): Array<{ t: string; quoted: boolean; line: number }> {
  const out: Array<{ t: string; quoted: boolean; line: number }> = [];
  let i = 0;
  let line = 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new ModelSyntaxError(line, 'unterminated comment');
      line += text.slice(i, end).split('\n').length - 1;
      i = end + 2;
      continue;
    }
    if (c === '{' || c === '}' || c === ';') {
      out.push({ t: c, quoted: false, line });
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      let j = i + 1;
      let s = '';
      while (j < text.length && text[j] !== c) {
        if (c === '"' && text[j] === '\\' && j + 1 < text.length) {
          s += text[j + 1] === 'n' ? '\n' : text[j + 1];
          j += 2;
          continue;
        }
        if (text[j] === '\n') line++;
        s += text[j];
        j++;
      }
      if (j >= text.length) throw new ModelSyntaxError(line, 'unterminated string');
      out.push({ t: s, quoted: true, line });
      i = j + 1;
      continue;
    }
    let j = i;
    while (j < text.length && !/[\s{};]/.test(text[j]!)) j++;
    out.push({ t: text.slice(i, j), quoted: false, line });
    i = j;
  }
  return out;
}

function parseStatements(text: string): Stmt {
  const tokens = tokenize(text);
  let i = 0;
  const block = (depth: number): Stmt[] => {
    if (depth > 64) throw new ModelSyntaxError(tokens[i]?.line ?? 0, 'statements nest too deep');
    const list: Stmt[] = [];
    while (i < tokens.length && tokens[i]!.t !== '}') {
      const kw = tokens[i++]!;
      if (kw.quoted || kw.t === '{' || kw.t === ';') throw new ModelSyntaxError(kw.line, `expected a keyword, got ${JSON.stringify(kw.t)}`);
      let arg: string | undefined;
      while (i < tokens.length && tokens[i]!.t !== '{' && tokens[i]!.t !== ';' && tokens[i]!.t !== '}') {
        const tok = tokens[i++]!;
        if (tok.t === '+' && !tok.quoted) continue;
        arg = (arg ?? '') + tok.t;
      }
      const end = tokens[i++];
      if (!end || end.t === '}') throw new ModelSyntaxError(kw.line, `statement ${kw.t} is not terminated`);
      let children: Stmt[] = [];
      if (end.t === '{') {
        children = block(depth + 1);
        if (tokens[i]?.t !== '}') throw new ModelSyntaxError(kw.line, `block of ${kw.t} is not closed`);
        i++;
      }
      list.push({ keyword: kw.t, arg, children });
    }
    return list;
  };
  const top = block(0);
  if (i < tokens.length) throw new ModelSyntaxError(tokens[i]!.line, 'unbalanced }');
  const module = top.find((s) => s.keyword === 'module');
  if (!module || top.length !== 1) throw new ModelSyntaxError(1, 'expected exactly one module statement');
  return module;
}

/** The facts the simulator uses. Paths are `/`-joined local names of data nodes from the top. */
export interface SimulatorModel {
  readonly name: string;
  readonly namespace: string;
  readonly prefix: string;
  readonly revision: string | undefined;
  /** List path -> key leaf names in order. */
  readonly listKeys: ReadonlyMap<string, readonly string[]>;
  /** Action paths (the action's own path, e.g. `/interfaces/interface/reset`). */
  readonly actions: ReadonlySet<string>;
  readonly rpcs: ReadonlySet<string>;
  /** Paths of `config false` subtrees. */
  readonly stateNodes: ReadonlySet<string>;
  readonly text: string;
}

const DATA_KEYWORDS = new Set(['container', 'list', 'leaf', 'leaf-list', 'anydata', 'anyxml']);
const TRANSPARENT = new Set(['choice', 'case']);

/** Reads a model's facts. Throws ModelSyntaxError. */
export function readModel(text: string): SimulatorModel {
  const module = parseStatements(text);
  const sub = (s: Stmt, kw: string) => s.children.find((c) => c.keyword === kw)?.arg;
  const namespace = sub(module, 'namespace');
  const prefix = sub(module, 'prefix');
  if (!module.arg || !namespace || !prefix) throw new ModelSyntaxError(1, 'the module needs a name, namespace and prefix');
  const revisions = module.children
    .filter((c) => c.keyword === 'revision')
    .map((c) => c.arg ?? '')
    .sort();
  const listKeys = new Map<string, string[]>();
  const actions = new Set<string>();
  const rpcs = new Set<string>();
  const stateNodes = new Set<string>();
  const walk = (stmts: readonly Stmt[], at: string) => {
    for (const s of stmts) {
      if (TRANSPARENT.has(s.keyword)) {
        walk(s.children, at);
        continue;
      }
      if (s.keyword === 'action') {
        actions.add(`${at}/${s.arg}`);
        continue;
      }
      if (!DATA_KEYWORDS.has(s.keyword) || !s.arg) continue;
      const path = `${at}/${s.arg}`;
      if (s.keyword === 'list') listKeys.set(path, (sub(s, 'key') ?? '').split(/\s+/).filter(Boolean));
      if (sub(s, 'config') === 'false') stateNodes.add(path);
      walk(s.children, path);
    }
  };
  walk(module.children, '');
  for (const r of module.children.filter((c) => c.keyword === 'rpc')) if (r.arg) rpcs.add(r.arg);
  return { name: module.arg, namespace, prefix, revision: revisions[revisions.length - 1], listKeys, actions, rpcs, stateNodes, text };
}
