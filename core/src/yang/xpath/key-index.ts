/**
 * The key-index fast path of location steps: a child step that names a list and whose first predicate
 * compares a key leaf with a value that does not depend on the entry (`interface[name = current()/../ifname]`)
 * looks the entries up in a key index built once per list and session, so leafref and must checks stay
 * linear in the tree instead of quadratic.
 */
import type { LeafSchema } from '../schema';
import type { ListNode } from '../instance-tree';
import type { Expr, Step } from './ast';
import { type EvalEnv, type XPathSession, moduleMatches } from './eval-context';
import { XNode, isIdentityType, stringValue, valueString } from './nodes';

/**
 * The key-index fast path: `list[key = expr]` where `expr` does not depend on the entry. Returns
 * undefined when the step does not have that shape (the caller then walks the entries).
 */
export function keyLookup(step: Step, node: XNode, env: EvalEnv): XNode[] | undefined {
  const test = step.test;
  const pred = step.predicates[0]!;
  if (test.kind !== 'name' || test.local === '*' || pred.kind !== 'binary' || pred.op !== '=') return undefined;
  const d = node.data;
  if (d.kind !== 'root' && d.kind !== 'container' && d.kind !== 'entry') return undefined;
  let slot = -1;
  for (let i = 0; i < d.children.length; i++) {
    const c = d.children[i]!;
    if (c.kind === 'list' && c.schema.name === test.local) {
      slot = i;
      break;
    }
  }
  if (slot < 0) return undefined;
  const list = d.children[slot] as ListNode;
  if (!list.entries.length) return [];
  if (!moduleMatches(new XNode(list.entries[0]!, node, slot, 0), test.prefix, env)) return undefined;
  for (const [keySide, valueSide] of [
    [pred.left, pred.right],
    [pred.right, pred.left],
  ] as const) {
    const key = keyLeafNamed(list, keySide, env);
    if (!key || isIdentityType(key.type) || !contextFree(valueSide)) continue;
    const v = env.evaluate(valueSide, { node, position: 1, size: 1 }, env);
    const wanted = Array.isArray(v) ? v.map(stringValue) : typeof v === 'string' ? [v] : undefined;
    if (!wanted) return undefined;
    const index = keyIndex(list, key, env.session);
    const hits = new Set<number>();
    for (const w of wanted) for (const j of index.get(w) ?? []) hits.add(j);
    return [...hits].sort((a, b) => a - b).map((j) => new XNode(list.entries[j]!, node, slot, j));
  }
  return undefined;
}

/** The key leaf a predicate side names, when it is a bare child step naming one of the list's keys. */
function keyLeafNamed(list: ListNode, side: Expr, env: EvalEnv): LeafSchema | undefined {
  if (side.kind !== 'path' || side.start !== 'context' || side.steps.length !== 1) return undefined;
  const s = side.steps[0]!;
  if (s.axis !== 'child' || s.predicates.length || s.test.kind !== 'name') return undefined;
  const { prefix, local } = s.test;
  const key = list.schema.keys.find((k) => k.name === local);
  if (!key) return undefined;
  if (
    prefix !== undefined
      ? env.resolvePrefix(prefix) !== key.module.name
      : env.defaultModules.length > 0 && !env.defaultModules.includes(key.module.name)
  )
    return undefined;
  return key;
}

function keyIndex(list: ListNode, key: LeafSchema, session: XPathSession): Map<string, number[]> {
  let perKey = session.keyIndexes.get(list);
  if (!perKey) session.keyIndexes.set(list, (perKey = new Map()));
  let index = perKey.get(key);
  if (index) return index;
  index = new Map();
  list.entries.forEach((entry, j) => {
    for (const c of entry.children) {
      if (c.kind === 'leaf' && c.schema === key) {
        const text = valueString(c.value);
        const at = index!.get(text);
        if (at) at.push(j);
        else index!.set(text, [j]);
        break;
      }
    }
  });
  perKey.set(key, index);
  return index;
}

const contextFreeCache = new WeakMap<Expr, boolean>();
const FOCUS_FUNCTIONS = new Set(['position', 'last']);
const DEFAULTS_TO_CONTEXT = new Set(['string', 'number', 'string-length', 'normalize-space', 'local-name', 'name', 'namespace-uri']);

/** Whether an expression's value is the same at every focus (it reads only the root and current()). */
function contextFree(e: Expr): boolean {
  const cached = contextFreeCache.get(e);
  if (cached !== undefined) return cached;
  let r: boolean;
  switch (e.kind) {
    case 'literal':
    case 'number':
    case 'variable':
      r = true;
      break;
    case 'negate':
      r = contextFree(e.operand);
      break;
    case 'binary':
      r = contextFree(e.left) && contextFree(e.right);
      break;
    case 'filter':
      r = contextFree(e.primary);
      break;
    case 'path':
      r = e.start === 'root' || (e.start !== 'context' && contextFree(e.start));
      break;
    case 'call':
      if (FOCUS_FUNCTIONS.has(e.name) || (e.args.length === 0 && DEFAULTS_TO_CONTEXT.has(e.name))) r = false;
      else r = e.args.every(contextFree);
      break;
  }
  contextFreeCache.set(e, r);
  return r;
}
