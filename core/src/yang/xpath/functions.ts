/**
 * The XPath function library: XPath 1.0's core functions (§4) and YANG's (RFC 7950 §10):
 * current, re-match, deref, derived-from, derived-from-or-self, enum-value, bit-is-set.
 * Each checks its arity; a wrong call is a fault with the function's name, not an exception.
 */
import type { Identity } from '../schema';
import { translatePattern } from '../types/xsd-regex';
import { patternMatches } from '../types/codecs';
import type { Expr } from './ast';
import { type EvalEnv, type Focus, type XValue, XPathEvalFault, rootOf } from './eval-context';
import { toBoolean, toNumber, toStringValue, stringToNumber } from './values';
import { type XNode, leafType, normalizeSet, stringValue, valueString } from './nodes';
import { leafrefOf } from './schema-path';
import { compileXPath, parseXPath } from './parser';

type Call = Extract<Expr, { kind: 'call' }>;
type Impl = (args: readonly Expr[], focus: Focus, env: EvalEnv, call: Call) => XValue;

/** Calls the function an expression names. */
export function callFunction(call: Call, focus: Focus, env: EvalEnv): XValue {
  const entry = call.prefix === undefined ? LIBRARY.get(call.name) : undefined;
  const name = call.prefix ? `${call.prefix}:${call.name}` : call.name;
  if (!entry) throw new XPathEvalFault(`unknown function ${name}()`);
  const [min, max, impl] = entry;
  if (call.args.length < min || call.args.length > max) {
    const want = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
    throw new XPathEvalFault(`${name}() takes ${want} argument${min === 1 && max === 1 ? '' : 's'}, not ${call.args.length}`);
  }
  return impl(call.args, focus, env, call);
}

// Argument helpers: evaluate and convert.
const str = (e: Expr, f: Focus, env: EvalEnv) => toStringValue(env.evaluate(e, f, env));
const num = (e: Expr, f: Focus, env: EvalEnv) => toNumber(env.evaluate(e, f, env));
function nodes(e: Expr, f: Focus, env: EvalEnv, fn: string): XNode[] {
  const v = env.evaluate(e, f, env);
  if (!Array.isArray(v)) throw new XPathEvalFault(`${fn}() needs a node-set argument`);
  return v;
}
/** The first argument as a string, or the context node's string-value when absent. */
const strOrContext = (args: readonly Expr[], f: Focus, env: EvalEnv) => (args.length ? str(args[0]!, f, env) : stringValue(f.node));
/** The first node of the argument, or the context node when absent. */
function firstNode(args: readonly Expr[], f: Focus, env: EvalEnv, fn: string): XNode | undefined {
  return args.length ? nodes(args[0]!, f, env, fn)[0] : f.node;
}

const LIBRARY = new Map<string, readonly [number, number, Impl]>([
  // --- node-set functions
  ['last', [0, 0, (_a, f) => f.size]],
  ['position', [0, 0, (_a, f) => f.position]],
  ['count', [1, 1, (a, f, env) => nodes(a[0]!, f, env, 'count').length]],
  ['id', [1, 1, () => []]], // no ID-typed attributes in YANG data
  ['local-name', [0, 1, (a, f, env) => firstNode(a, f, env, 'local-name')?.schema?.name ?? '']],
  ['namespace-uri', [0, 1, (a, f, env) => firstNode(a, f, env, 'namespace-uri')?.schema?.module.namespace ?? '']],
  [
    'name',
    [
      0,
      1,
      (a, f, env) => {
        const s = firstNode(a, f, env, 'name')?.schema;
        return s ? `${s.module.name}:${s.name}` : '';
      },
    ],
  ],
  // --- string functions
  ['string', [0, 1, (a, f, env) => strOrContext(a, f, env)]],
  ['concat', [2, Infinity, (a, f, env) => a.map((e) => str(e, f, env)).join('')]],
  ['starts-with', [2, 2, (a, f, env) => str(a[0]!, f, env).startsWith(str(a[1]!, f, env))]],
  ['contains', [2, 2, (a, f, env) => str(a[0]!, f, env).includes(str(a[1]!, f, env))]],
  [
    'substring-before',
    [
      2,
      2,
      (a, f, env) => {
        const s = str(a[0]!, f, env);
        const t = str(a[1]!, f, env);
        const i = s.indexOf(t);
        return i < 0 ? '' : s.slice(0, i);
      },
    ],
  ],
  [
    'substring-after',
    [
      2,
      2,
      (a, f, env) => {
        const s = str(a[0]!, f, env);
        const t = str(a[1]!, f, env);
        const i = s.indexOf(t);
        return i < 0 ? '' : s.slice(i + t.length);
      },
    ],
  ],
  ['substring', [2, 3, (a, f, env) => substring(str(a[0]!, f, env), num(a[1]!, f, env), a.length > 2 ? num(a[2]!, f, env) : Infinity)]],
  ['string-length', [0, 1, (a, f, env) => [...strOrContext(a, f, env)].length]],
  [
    'normalize-space',
    [
      0,
      1,
      (a, f, env) =>
        strOrContext(a, f, env)
          .replace(/[\t\n\r ]+/g, ' ')
          .trim(),
    ],
  ],
  ['translate', [3, 3, (a, f, env) => translate(str(a[0]!, f, env), str(a[1]!, f, env), str(a[2]!, f, env))]],
  // --- boolean functions
  ['boolean', [1, 1, (a, f, env) => toBoolean(env.evaluate(a[0]!, f, env))]],
  ['not', [1, 1, (a, f, env) => !toBoolean(env.evaluate(a[0]!, f, env))]],
  ['true', [0, 0, () => true]],
  ['false', [0, 0, () => false]],
  ['lang', [1, 1, () => false]], // YANG data carries no xml:lang
  // --- number functions
  ['number', [0, 1, (a, f, env) => (a.length ? num(a[0]!, f, env) : stringToNumber(stringValue(f.node)))]],
  ['sum', [1, 1, (a, f, env) => nodes(a[0]!, f, env, 'sum').reduce((s, n) => s + stringToNumber(stringValue(n)), 0)]],
  ['floor', [1, 1, (a, f, env) => Math.floor(num(a[0]!, f, env))]],
  ['ceiling', [1, 1, (a, f, env) => Math.ceil(num(a[0]!, f, env))]],
  ['round', [1, 1, (a, f, env) => xpathRound(num(a[0]!, f, env))]],
  // --- YANG (RFC 7950 §10)
  ['current', [0, 0, (_a, _f, env) => [env.current]]],
  ['re-match', [2, 2, (a, f, env) => reMatch(str(a[0]!, f, env), str(a[1]!, f, env))]],
  ['deref', [1, 1, (a, f, env) => deref(nodes(a[0]!, f, env, 'deref'), env)]],
  ['derived-from', [2, 2, (a, f, env) => derivedFrom(nodes(a[0]!, f, env, 'derived-from'), str(a[1]!, f, env), env, false)]],
  ['derived-from-or-self', [2, 2, (a, f, env) => derivedFrom(nodes(a[0]!, f, env, 'derived-from-or-self'), str(a[1]!, f, env), env, true)]],
  ['enum-value', [1, 1, (a, f, env) => enumValue(nodes(a[0]!, f, env, 'enum-value'))]],
  ['bit-is-set', [2, 2, (a, f, env) => bitIsSet(nodes(a[0]!, f, env, 'bit-is-set'), str(a[1]!, f, env))]],
]);

/** The names of every function the library knows. */
export const FUNCTION_NAMES: ReadonlySet<string> = new Set(LIBRARY.keys());

/** XPath substring(): 1-based, rounding positions, counting characters (code points). */
function substring(s: string, start: number, length: number): string {
  const chars = [...s];
  const first = xpathRound(start);
  const last = first + xpathRound(length);
  let out = '';
  for (let i = 0; i < chars.length; i++) {
    const p = i + 1;
    if (p >= first && p < last) out += chars[i];
  }
  return out;
}

function translate(s: string, from: string, to: string): string {
  const f = [...from];
  const t = [...to];
  const map = new Map<string, string | null>();
  f.forEach((c, i) => {
    if (!map.has(c)) map.set(c, i < t.length ? t[i]! : null);
  });
  let out = '';
  for (const c of s) {
    if (!map.has(c)) out += c;
    else {
      const r = map.get(c);
      if (r !== null) out += r;
    }
  }
  return out;
}

/** XPath round(): halves round towards positive infinity. */
function xpathRound(n: number): number {
  if (!Number.isFinite(n)) return n;
  return Math.floor(n + 0.5);
}

const patternCache = new Map<string, RegExp | string>();

function reMatch(subject: string, pattern: string): boolean {
  let re = patternCache.get(pattern);
  if (re === undefined) {
    const t = translatePattern(pattern);
    re = 'regex' in t ? t.regex : t.error;
    if (patternCache.size > 1000) patternCache.clear();
    patternCache.set(pattern, re);
  }
  if (typeof re === 'string') throw new XPathEvalFault(`re-match() pattern "${pattern}" is invalid: ${re}`);
  // patternMatches switches to a linear-time matcher for long subjects (no catastrophic backtracking on data).
  return patternMatches({ source: pattern, regex: re, inverted: false }, subject);
}

/**
 * deref(): the nodes a leafref leaf refers to (its path's nodes whose value equals the leaf's), or the
 * node an instance-identifier leaf names.
 */
function deref(set: XNode[], env: EvalEnv): XNode[] {
  const leaf = set[0];
  const type = leaf && leafType(leaf);
  if (!leaf || !type) return [];
  const value = valueString(leaf.value ?? null);
  const ref = leafrefOf(type);
  if (ref) {
    const parsed = compileXPath(ref.path);
    if ('error' in parsed) throw new XPathEvalFault(`deref(): ${parsed.error}`);
    const module = ref.path.contextModule;
    const own = leaf.schema?.module.name;
    const inner: EvalEnv = {
      ...env,
      current: leaf,
      contextModule: module,
      resolvePrefix: (p) => module.prefixes.get(p),
      defaultModules: own && own !== module.name ? [module.name, own] : [module.name],
    };
    const targets = env.evaluate(parsed.expr, { node: leaf, position: 1, size: 1 }, inner);
    return Array.isArray(targets) ? targets.filter((t) => stringValue(t) === value) : [];
  }
  if (type.builtin === 'instance-identifier' || type.union?.some((m) => m.builtin === 'instance-identifier')) {
    const r = instanceIdentifierTargets(value, rootOf(leaf), env);
    return 'nodes' in r ? r.nodes : [];
  }
  return [];
}

/**
 * The nodes an RFC 7951 instance-identifier names in the tree under `root` (evaluate.ts's
 * `resolveInstanceIdentifier` is the public entry, which supplies the evaluator).
 */
export function instanceIdentifierTargets(
  text: string,
  root: XNode,
  env: Pick<EvalEnv, 'ctx' | 'session' | 'evaluate'>,
): { nodes: XNode[] } | { error: string } {
  let parsed = env.session.instanceIds.get(text);
  if (!parsed) {
    const p = parseXPath(text);
    parsed =
      'error' in p
        ? { error: `instance-identifier "${text}" is not a path: ${p.error.reason} at offset ${p.error.pos}` }
        : p.expr.kind === 'path' && p.expr.start === 'root'
          ? p
          : { error: `instance-identifier "${text}" is not an absolute path` };
    env.session.instanceIds.set(text, parsed);
  }
  if ('error' in parsed) return parsed;
  const inner: EvalEnv = {
    ctx: env.ctx,
    session: env.session,
    current: root,
    contextModule: undefined,
    defaultModules: [],
    resolvePrefix: (p) => (env.ctx.modules.has(p) ? p : undefined),
    evaluate: env.evaluate,
  };
  try {
    const v = env.evaluate(parsed.expr, { node: root, position: 1, size: 1 }, inner);
    return { nodes: Array.isArray(v) ? normalizeSet(v) : [] };
  } catch (e) {
    if (e instanceof XPathEvalFault) return { error: `instance-identifier "${text}": ${e.reason}` };
    throw e;
  }
}

/** derived-from(-or-self)(): whether some node's identityref value derives from the named identity. */
function derivedFrom(set: XNode[], identityName: string, env: EvalEnv, orSelf: boolean): boolean {
  const base = lookupIdentity(identityName, env, true);
  if (!base) return false;
  return set.some((n) => {
    const id = lookupIdentity(valueString(n.value ?? null), env, false);
    return id !== undefined && ((orSelf && id === base) || base.derived.has(id));
  });
}

/**
 * Finds an identity by `prefix:name` as written in the expression (`written` true: the prefix goes
 * through the expression's module; no prefix means that module) or by the `module:name` of a value.
 */
function lookupIdentity(text: string, env: EvalEnv, written: boolean): Identity | undefined {
  const colon = text.indexOf(':');
  let moduleName: string | undefined;
  if (colon < 0) moduleName = written ? env.contextModule?.name : undefined;
  else moduleName = written ? env.resolvePrefix(text.slice(0, colon)) : text.slice(0, colon);
  if (moduleName === undefined) {
    if (written) throw new XPathEvalFault(`identity "${text}" has an unknown prefix`);
    return undefined;
  }
  return env.ctx.modules.get(moduleName)?.identities.get(colon < 0 ? text : text.slice(colon + 1));
}

function enumValue(set: XNode[]): number {
  const n = set[0];
  const type = n && leafType(n);
  if (!n || !type) return NaN;
  const name = valueString(n.value ?? null);
  const member = (type.enums ?? type.union?.flatMap((m) => m.enums ?? []) ?? []).find((e) => e.name === name);
  return member ? member.value : NaN;
}

function bitIsSet(set: XNode[], bit: string): boolean {
  const n = set[0];
  if (!n || !leafType(n)) return false;
  return valueString(n.value ?? null)
    .split(' ')
    .includes(bit);
}
