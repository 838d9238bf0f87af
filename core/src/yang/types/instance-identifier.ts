/**
 * instance-identifier values (RFC 7950 §9.13, RFC 7951 §6.11): parsing either written form, checking
 * each step against the schema, and rendering the canonical JSON form (`/ietf-interfaces:interfaces/
 * interface[name='eth0']`: module name on the first node and wherever the module changes) or the XML
 * form (every node prefixed). Whether the instance exists is the validator's concern, not this one's.
 */
import { findDataChild, type SchemaContext, type SchemaNode } from '../schema';
import type { LeafValue } from '../instance-tree';

/** One `[...]` of a step: a key, a leaf-list value (`.`), or a 1-based position. */
export type IidPredicate =
  | { readonly kind: 'key'; readonly prefix?: string; readonly name: string; readonly value: string }
  | { readonly kind: 'value'; readonly value: string }
  | { readonly kind: 'position'; readonly position: number };

export interface IidStep {
  readonly prefix?: string;
  readonly name: string;
  readonly predicates: readonly IidPredicate[];
}

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_.-]*/y;
const POSITIVE = /[1-9][0-9]*/y;

/** Parses the syntax of an instance-identifier; prefixes are kept as written. */
export function parseInstanceIdentifier(text: string): { steps: IidStep[] } | { error: string } {
  let pos = 0;
  const fail = (reason: string): { error: string } => ({ error: `${reason} at position ${pos + 1}` });
  const skipSpace = (): void => {
    while (text[pos] === ' ' || text[pos] === '\t') pos++;
  };
  const identifier = (): string | undefined => {
    IDENTIFIER.lastIndex = pos;
    const m = IDENTIFIER.exec(text);
    if (!m) return undefined;
    pos += m[0].length;
    return m[0];
  };
  const qualified = (): { prefix?: string; name: string } | undefined => {
    const first = identifier();
    if (first === undefined) return undefined;
    if (text[pos] !== ':') return { name: first };
    pos++;
    const name = identifier();
    return name === undefined ? undefined : { prefix: first, name };
  };
  const quoted = (): string | undefined => {
    const q = text[pos];
    if (q !== "'" && q !== '"') return undefined;
    const end = text.indexOf(q, pos + 1);
    if (end < 0) return undefined;
    const value = text.slice(pos + 1, end);
    pos = end + 1;
    return value;
  };

  const steps: IidStep[] = [];
  if (text.length === 0) return { error: 'an instance-identifier cannot be empty' };
  while (pos < text.length) {
    if (text[pos] !== '/') return fail('expected "/"');
    pos++;
    const node = qualified();
    if (!node) return fail('expected a node name');
    const predicates: IidPredicate[] = [];
    while (text[pos] === '[') {
      pos++;
      skipSpace();
      let predicate: IidPredicate;
      POSITIVE.lastIndex = pos;
      const posMatch = POSITIVE.exec(text);
      if (posMatch) {
        pos += posMatch[0].length;
        predicate = { kind: 'position', position: Number(posMatch[0]) };
      } else {
        let key: { prefix?: string; name: string } | undefined;
        if (text[pos] === '.') pos++;
        else if (!(key = qualified())) return fail('expected a key name, "." or a position');
        skipSpace();
        if (text[pos] !== '=') return fail('expected "="');
        pos++;
        skipSpace();
        const value = quoted();
        if (value === undefined) return fail('expected a quoted value');
        predicate = key ? { kind: 'key', ...key, value } : { kind: 'value', value };
      }
      skipSpace();
      if (text[pos] !== ']') return fail('expected "]"');
      pos++;
      predicates.push(predicate);
    }
    steps.push({ ...node, predicates });
  }
  return { steps };
}

/** Parses and canonicalises one key or leaf-list value in a predicate with the node's own type. */
export type PredicateValueParser = (
  node: SchemaNode & { kind: 'leaf' | 'leaf-list' },
  text: string,
) => { ok: true; value: LeafValue; text: string } | { ok: false; message: string };

/**
 * Checks parsed steps against the schema and returns the canonical JSON form. `moduleFor` maps a
 * step's prefix (or its absence) to a module name; in JSON form the prefix is the module name
 * itself and may only appear where the module changes.
 */
export function resolveInstanceIdentifier(
  steps: readonly IidStep[],
  ctx: SchemaContext,
  form: 'json' | 'xml',
  resolvePrefix: (prefix: string) => string | undefined,
  parsePredicateValue: PredicateValueParser,
): { value: string } | { error: string } {
  let children: readonly SchemaNode[] = ctx.data;
  let parentModule: string | undefined;
  let out = '';
  for (const step of steps) {
    let module: string | undefined;
    if (step.prefix === undefined) {
      if (parentModule === undefined) return { error: `the first node "${step.name}" must be module-qualified` };
      module = form === 'xml' ? (resolvePrefix('') ?? parentModule) : parentModule;
    } else {
      module = resolvePrefix(step.prefix);
      if (module === undefined) return { error: `unknown prefix "${step.prefix}" on node "${step.name}"` };
      if (form === 'json' && module === parentModule) {
        return { error: `node "${step.prefix}:${step.name}" repeats its parent's module name` };
      }
    }
    const node = findDataChild(children, module, step.name);
    if (!node) return { error: `no schema node "${module}:${step.name}" at this point of the path` };
    out += `/${module === parentModule ? '' : `${module}:`}${step.name}`;
    const predicates = canonicalPredicates(node, step.predicates, module, form, resolvePrefix, parsePredicateValue);
    if ('error' in predicates) return predicates;
    out += predicates.text;
    children = node.children;
    parentModule = module;
  }
  return { value: out };
}

function quote(value: string): string {
  return value.includes("'") ? `"${value}"` : `'${value}'`;
}

function canonicalPredicates(
  node: SchemaNode,
  predicates: readonly IidPredicate[],
  module: string,
  form: 'json' | 'xml',
  resolvePrefix: (prefix: string) => string | undefined,
  parseValue: PredicateValueParser,
): { text: string } | { error: string } {
  const where = `node "${node.name}"`;
  if (node.kind === 'list') {
    if (predicates.length === 1 && predicates[0]!.kind === 'position') return { text: `[${predicates[0]!.position}]` };
    if (node.keys.length === 0) return { error: `${where} is a keyless list: only a position can select an entry` };
    const byKey = new Map<string, string>();
    for (const p of predicates) {
      if (p.kind !== 'key') return { error: `${where} is a list: select an entry by its keys` };
      if (p.prefix !== undefined && form === 'xml' && resolvePrefix(p.prefix) !== module) {
        return { error: `key "${p.prefix}:${p.name}" of ${where} is in the wrong namespace` };
      }
      const key = node.keys.find((k) => k.name === p.name);
      if (!key) return { error: `"${p.name}" is not a key of ${where}` };
      if (byKey.has(key.name)) return { error: `key "${p.name}" of ${where} is given twice` };
      const parsed = parseValue(key, p.value);
      if (!parsed.ok) return { error: `key "${p.name}" of ${where}: ${parsed.message}` };
      byKey.set(key.name, parsed.text);
    }
    let text = '';
    for (const key of node.keys) {
      const value = byKey.get(key.name);
      if (value === undefined) return { error: `key "${key.name}" of ${where} is missing` };
      text += `[${key.name}=${quote(value)}]`;
    }
    return { text };
  }
  if (node.kind === 'leaf-list') {
    if (predicates.length === 0) return { text: '' };
    const p = predicates[0]!;
    if (predicates.length > 1) return { error: `${where} is a leaf-list: give one value or position` };
    if (p.kind === 'position') return { text: `[${p.position}]` };
    if (p.kind !== 'value') return { error: `${where} is a leaf-list: select a value with [.='...']` };
    const parsed = parseValue(node, p.value);
    if (!parsed.ok) return { error: `value of ${where}: ${parsed.message}` };
    return { text: `[.=${quote(parsed.text)}]` };
  }
  if (predicates.length > 0) return { error: `${where} is not a list or leaf-list and takes no predicate` };
  return { text: '' };
}

/**
 * Renders a canonical JSON-form instance-identifier in XML form, every node name prefixed with
 * `prefixFor(module)`. Key values are kept as they are.
 */
export function instanceIdentifierToXml(json: string, prefixFor: (module: string) => string): string {
  const parsed = parseInstanceIdentifier(json);
  if ('error' in parsed) return json;
  let module = '';
  let out = '';
  for (const step of parsed.steps) {
    if (step.prefix !== undefined) module = step.prefix;
    const prefix = prefixFor(module);
    out += `/${prefix}:${step.name}`;
    for (const p of step.predicates) {
      if (p.kind === 'position') out += `[${p.position}]`;
      else if (p.kind === 'value') out += `[.=${quote(p.value)}]`;
      else out += `[${prefix}:${p.name}=${quote(p.value)}]`;
    }
  }
  return out;
}
