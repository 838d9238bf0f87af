/**
 * Which schema children a data node can hold, by the names documents use for them, and in which order
 * a data tree keeps them. Both codecs and the edit operations resolve member/element names here, so a
 * name means the same thing everywhere, and every tree keeps its children in one canonical order:
 * schema order, with a list entry's keys first (in key order), as XML requires.
 *
 * Tables are built once per schema node and cached (schemas are immutable once compiled).
 */
import { isDataNode, type CompiledModule, type ListSchema, type SchemaContext, type SchemaNode } from '../yang/schema';
import type { DataSchemaNode } from '../yang/schema';

/** A schema node that can appear as a child in a data tree, with its place in the canonical order. */
export interface ChildSlot {
  readonly schema: DataSchemaNode | SchemaNode;
  readonly order: number;
}

/**
 * The children one parent can hold. `byQualified` maps `module:name`; `byBare` maps the bare name of
 * children in the parent's own module, and also a bare name that only one child carries (clients
 * often leave the prefix out of augmented nodes; accepting the one unambiguous reading is friendlier
 * than RFC 7951's letter and cannot pick the wrong node).
 */
export interface ChildTable {
  readonly byQualified: ReadonlyMap<string, ChildSlot>;
  readonly byBare: ReadonlyMap<string, ChildSlot>;
  /** Both of the above in one map (a qualified name holds a colon, a bare one never): one lookup per member. */
  readonly byName: ReadonlyMap<string, ChildSlot>;
  /** Module of the parent's data node (undefined at the top level, where every name is qualified). */
  readonly parentModule: CompiledModule | undefined;
  /** Slot of each child schema node. */
  readonly bySchema: ReadonlyMap<SchemaNode, ChildSlot>;
  /**
   * Module namespace -> local name -> slot: how XML names a child (two lookups with strings the
   * document already holds, rather than building `module:name` per element).
   */
  readonly byNamespace: ReadonlyMap<string, ReadonlyMap<string, ChildSlot>>;
}

const tables = new WeakMap<object, ChildTable>();
const notificationTables = new WeakMap<SchemaContext, ChildTable>();

/** The data-bearing children (containers, lists, leaves, leaf-lists, anydata/anyxml) of a schema node. */
export function dataSchemaChildren(children: readonly SchemaNode[], out: SchemaNode[] = []): SchemaNode[] {
  for (const c of children) {
    if (c.kind === 'choice' || c.kind === 'case') dataSchemaChildren(c.children, out);
    else if (isDataNode(c)) out.push(c);
  }
  return out;
}

/**
 * The children a node of schema `parent` may hold in data. For an rpc or action these are its input
 * and output; for input, output and notifications, their data children.
 */
function childrenOf(parent: SchemaNode): SchemaNode[] {
  if (parent.kind === 'rpc' || parent.kind === 'action') return [parent.input, parent.output];
  return dataSchemaChildren(parent.children);
}

function buildTable(children: readonly SchemaNode[], parentModule: CompiledModule | undefined, keys: readonly SchemaNode[]): ChildTable {
  const byQualified = new Map<string, ChildSlot>();
  const byBare = new Map<string, ChildSlot>();
  const bySchema = new Map<SchemaNode, ChildSlot>();
  const bareCount = new Map<string, number>();
  const byNamespace = new Map<string, Map<string, ChildSlot>>();
  children.forEach((schema, i) => {
    const keyIndex = keys.indexOf(schema);
    const slot: ChildSlot = { schema, order: keyIndex >= 0 ? keyIndex - keys.length : i };
    byQualified.set(`${schema.module.name}:${schema.name}`, slot);
    let locals = byNamespace.get(schema.module.namespace);
    if (locals === undefined) byNamespace.set(schema.module.namespace, (locals = new Map()));
    locals.set(schema.name, slot);
    bySchema.set(schema, slot);
    bareCount.set(schema.name, (bareCount.get(schema.name) ?? 0) + 1);
  });
  for (const slot of bySchema.values()) {
    const s = slot.schema;
    if (parentModule === undefined) continue;
    if (s.module.name === parentModule.name || bareCount.get(s.name) === 1) {
      if (!byBare.has(s.name) || s.module.name === parentModule.name) byBare.set(s.name, slot);
    }
  }
  const byName = new Map<string, ChildSlot>([...byQualified, ...byBare]);
  return { byQualified, byBare, byName, parentModule, bySchema, byNamespace };
}

/** The child table of a schema node (container, list, input/output, notification, rpc/action). */
export function childTable(parent: SchemaNode): ChildTable {
  let table = tables.get(parent);
  if (!table) {
    const keys = parent.kind === 'list' ? (parent as ListSchema).keys : [];
    table = buildTable(childrenOf(parent), parent.module, keys);
    tables.set(parent, table);
  }
  return table;
}

/** The table of a context's top level: only module-qualified names, implemented modules' data nodes. */
export function topTable(ctx: SchemaContext): ChildTable {
  let table = tables.get(ctx);
  if (!table) {
    table = buildTable(dataSchemaChildren(ctx.data), undefined, []);
    tables.set(ctx, table);
  }
  return table;
}

/** The table of a context's top-level notifications (what a device's `<notification>` carries). */
export function notificationTable(ctx: SchemaContext): ChildTable {
  let table = notificationTables.get(ctx);
  if (!table) {
    table = buildTable(ctx.notifications, undefined, []);
    notificationTables.set(ctx, table);
  }
  return table;
}
/** Table for a parent given as a schema node, or the top level when undefined. */
export function tableFor(parent: SchemaNode | undefined, ctx: SchemaContext): ChildTable {
  return parent === undefined ? topTable(ctx) : childTable(parent);
}

/**
 * Resolves a member/element name (`module:name` or bare `name`) among a table's children. `module`
 * is given separately by XML (from the namespace); JSON passes the name as written.
 */
export function resolveChild(table: ChildTable, name: string): ChildSlot | undefined {
  return table.byName.get(name);
}

/** Canonical order of a child schema node under a parent (for inserting new children in place). */
export function orderOf(table: ChildTable, schema: SchemaNode): number {
  return table.bySchema.get(schema)?.order ?? Number.MAX_SAFE_INTEGER;
}
