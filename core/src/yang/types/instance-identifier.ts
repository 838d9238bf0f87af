/**
 * instance-identifier values (RFC 7950 §9.13, RFC 7951 §6.11): parsing either written form, checking
 * each step against the schema, and rendering the canonical JSON form (`/ietf-interfaces:interfaces/
 * interface[name='eth0']`: module name on the first node and wherever the module changes) or the XML
 * form (every node prefixed). Whether the instance exists is the validator's concern, not this one's.
 */
import {
  type IidPredicate,
  type IidStep,
  type InstancePathSegment,
  parseJsonInstancePath,
  renderInstancePath,
  setKey,
} from '../instance-path';
import { findDataChild, type SchemaContext, type SchemaNode } from '../schema';
import type { LeafValue } from '../instance-tree';

export { parseInstanceIdentifier, type IidPredicate, type IidStep } from '../instance-path';

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
  const path: InstancePathSegment[] = [];
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
    const selection = canonicalPredicates(node, step.predicates, module, form, resolvePrefix, parsePredicateValue);
    if ('error' in selection) return selection;
    path.push({ module, name: step.name, ...selection });
    children = node.children;
    parentModule = module;
  }
  return { value: renderInstancePath(path) };
}

/** What the predicates of one step select, in the instance path's terms. */
type Selection = Pick<InstancePathSegment, 'keys' | 'value' | 'position'>;

function canonicalPredicates(
  node: SchemaNode,
  predicates: readonly IidPredicate[],
  module: string,
  form: 'json' | 'xml',
  resolvePrefix: (prefix: string) => string | undefined,
  parseValue: PredicateValueParser,
): Selection | { error: string } {
  const where = `node "${node.name}"`;
  if (node.kind === 'list') {
    if (predicates.length === 1 && predicates[0]!.kind === 'position') return { position: predicates[0]!.position };
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
    const keys: Record<string, string> = {};
    for (const key of node.keys) {
      const value = byKey.get(key.name);
      if (value === undefined) return { error: `key "${key.name}" of ${where} is missing` };
      setKey(keys, key.name, value);
    }
    return { keys };
  }
  if (node.kind === 'leaf-list') {
    if (predicates.length === 0) return {};
    const p = predicates[0]!;
    if (predicates.length > 1) return { error: `${where} is a leaf-list: give one value or position` };
    if (p.kind === 'position') return { position: p.position };
    if (p.kind !== 'value') return { error: `${where} is a leaf-list: select a value with [.='...']` };
    const parsed = parseValue(node, p.value);
    if (!parsed.ok) return { error: `value of ${where}: ${parsed.message}` };
    return { value: parsed.text };
  }
  if (predicates.length > 0) return { error: `${where} is not a list or leaf-list and takes no predicate` };
  return {};
}

/**
 * Renders a canonical JSON-form instance-identifier in XML form, every node name prefixed with
 * `prefixFor(module)`. Key values are kept as they are; text that does not read as a path is returned
 * unchanged.
 */
export function instanceIdentifierToXml(json: string, prefixFor: (module: string) => string): string {
  const parsed = parseJsonInstancePath(json);
  return parsed.ok ? renderInstancePath(parsed.path, { kind: 'xml', prefixFor }) : json;
}
