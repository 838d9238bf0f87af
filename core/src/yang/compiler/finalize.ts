/**
 * The checks that need the final tree (after uses, augments and deviations): list keys (marked,
 * moved first in key order as libyang does), unique constraints, choice default cases, and leafref
 * targets (resolved with the XPath module's schema-path resolver).
 */
import type { CaseSchema, LeafSchema, ListSchema, SchemaContext, SchemaNode, StructureSchema, YangType } from '../schema';
import { resolveSchemaPath } from '../xpath/schema-path';
import type { CompileState, NodeBuild } from './model';
import type { NodeCompiler } from './nodes';

/**
 * Whether a node is still part of its module's tree or of its structure (not removed by a deviation
 * or refine). `structures` maps the top nodes of rc:yang-data/sx:structure trees to their structure.
 */
export function attached(node: SchemaNode, structures?: WeakMap<SchemaNode, StructureSchema>): boolean {
  let n = node;
  while (n.parent) {
    if (!(n.parent.children as readonly SchemaNode[]).includes(n) && !isOperationIO(n)) return false;
    n = n.parent;
  }
  const structure = structures?.get(n);
  if (structure) return structure.nodes.includes(n);
  const m = n.module as unknown as { data: SchemaNode[]; rpcs: SchemaNode[]; notifications: SchemaNode[] };
  return m.data.includes(n) || m.rpcs.includes(n) || m.notifications.includes(n);
}

function isOperationIO(n: SchemaNode): boolean {
  return n.kind === 'input' || n.kind === 'output';
}

/** Resolves keys and unique constraints of lists and default cases of choices. */
export function finalizeStructure(nodes: NodeCompiler, state: CompileState): void {
  for (const list of nodes.lists) {
    const info = nodes.info.get(list)!;
    const module = info.scope.unit.record.name;
    const l = list as unknown as NodeBuild & { keys: LeafSchema[]; unique: ListSchema['unique'] };
    if (info.keyArg !== undefined) {
      const keys: LeafSchema[] = [];
      for (const raw of info.keyArg.trim().split(/\s+/)) {
        const name = raw.includes(':') ? raw.slice(raw.indexOf(':') + 1) : raw;
        const leaf = list.children.find((c) => c.name === name && c.kind === 'leaf' && c.module === list.module) as LeafSchema | undefined;
        if (!leaf) {
          state.sink.error(`The list's key "${raw}" not found.`, info.stmt.position, module);
          continue;
        }
        if (keys.includes(leaf)) {
          state.sink.error(`Duplicated key identifier "${raw}".`, info.stmt.position, module);
          continue;
        }
        (leaf as unknown as NodeBuild)['isKey'] = true;
        keys.push(leaf);
      }
      l.keys = keys;
      // libyang places key leaves first, in key order; printers and codecs rely on it.
      if (keys.length > 0) l.children = [...keys, ...list.children.filter((c) => !keys.includes(c as LeafSchema))];
    } else if (list.config && attached(list)) {
      state.sink.error('Missing key in list representing configuration data.', info.stmt.position, module);
    }
    const unique: Array<Array<{ path: string[]; leaf: LeafSchema }>> = [];
    for (const u of info.unique ?? []) {
      const entry: Array<{ path: string[]; leaf: LeafSchema }> = [];
      for (const p of u.arg.trim().split(/\s+/)) {
        const leaf = nodes.descendant(list.children, p, u.scope, true, list.module.name);
        if (leaf?.kind !== 'leaf') {
          state.sink.error(
            `Unique's descendant-schema-nodeid "${p}" refers to ${leaf ? `a ${leaf.kind} node instead of a leaf` : 'a non-existent node'}.`,
            u.stmt.position,
            module,
          );
          continue;
        }
        entry.push({ path: p.split('/').map((s) => (s.includes(':') ? s.slice(s.indexOf(':') + 1) : s)), leaf: leaf as LeafSchema });
      }
      if (entry.length > 0) unique.push(entry);
    }
    l.unique = unique;
  }
  for (const choice of nodes.choices) {
    const info = nodes.info.get(choice)!;
    if (info.defaultCase === undefined) continue;
    const name = info.defaultCase.includes(':') ? info.defaultCase.slice(info.defaultCase.indexOf(':') + 1) : info.defaultCase;
    const c = choice.children.find((k) => k.name === name) as CaseSchema | undefined;
    const module = info.scope.unit.record.name;
    if (!c) {
      state.sink.error(`Default case "${info.defaultCase}" not found.`, info.stmt.position, module);
      continue;
    }
    (choice as unknown as NodeBuild)['defaultCase'] = c;
    // RFC 7950 §7.9.3: no mandatory node directly under the default case, and a choice with a
    // default case is not mandatory.
    if ((choice as unknown as { mandatory: boolean }).mandatory)
      state.sink.error('Invalid mandatory choice with a default case.', info.stmt.position, module);
    const mandatory = firstMandatory(c.children);
    if (mandatory) state.sink.error(`Mandatory node "${mandatory.name}" under the default case "${c.name}".`, mandatory.position, module);
  }
}

/**
 * The first mandatory node (RFC 7950 §3) among `nodes`: a mandatory leaf, choice or anydata, a
 * list or leaf-list with min-elements, or a non-presence container holding one; looking through
 * choice and case only where the choice itself is mandatory.
 */
function firstMandatory(nodes: readonly SchemaNode[], depth = 0): SchemaNode | undefined {
  if (depth > 1000) return undefined;
  for (const n of nodes) {
    const m = n as unknown as { mandatory?: boolean; minElements?: number; presence?: string };
    switch (n.kind) {
      case 'leaf':
      case 'anydata':
      case 'anyxml':
      case 'choice':
        if (m.mandatory) return n;
        break;
      case 'list':
      case 'leaf-list':
        if ((m.minElements ?? 0) > 0) return n;
        break;
      case 'container':
        if (m.presence === undefined && firstMandatory(n.children, depth + 1)) return n;
        break;
      default:
        break;
    }
  }
  return undefined;
}

/**
 * Resolves every leafref target; an unresolvable path is an error as in libyang. Inside an
 * rc:yang-data or sx:structure the structure is the whole document (RFC 8791: "The XPath document
 * element is the extension statement itself"), so an absolute path starts at its top-level nodes
 * and cannot reach the datastore.
 */
export function resolveLeafrefs(nodes: NodeCompiler, ctx: SchemaContext, state: CompileState): void {
  const documents = new Map<StructureSchema, SchemaContext>();
  for (const node of nodes.leafrefNodes) {
    if (!attached(node, nodes.structureOfTop)) continue;
    const leaf = node as unknown as { type: YangType };
    if (leaf.type.leafref === undefined && !leaf.type.union) continue;
    let top = node;
    while (top.parent) top = top.parent;
    const structure = nodes.structureOfTop.get(top);
    let document = ctx;
    if (structure) {
      document = documents.get(structure) ?? { ...ctx, data: structure.nodes, rpcs: [], notifications: [] };
      documents.set(structure, document);
    }
    resolveIn(leaf.type, node, document, state, nodes, structure);
  }
}

function resolveIn(
  type: YangType,
  node: SchemaNode,
  ctx: SchemaContext,
  state: CompileState,
  nodes: NodeCompiler,
  structure: StructureSchema | undefined,
): void {
  if (type.leafref) {
    const r = resolveSchemaPath(type.leafref.path, node, ctx);
    if ('error' in r) {
      const info = nodes.info.get(node);
      const where =
        structure === undefined
          ? ''
          : ` (inside ${structure.statement.prefix}:${structure.statement.keyword} "${structure.name}" of module ${structure.module.name}, where absolute paths start at the structure's own top-level nodes, RFC 8791)`;
      state.sink.error(
        `Not found node in path: ${r.error}${where}.`,
        type.leafref.path.position,
        info?.scope.unit.record.name ?? node.module.name,
      );
    } else {
      (type.leafref as { target?: unknown }).target = r.node;
    }
  }
  for (const m of type.union ?? []) resolveIn(m, node, ctx, state, nodes, structure);
}
