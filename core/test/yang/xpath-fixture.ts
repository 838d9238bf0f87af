/**
 * Hand-built schemas for the XPath and validation tests: small models shaped like ietf-interfaces,
 * built without the compiler so the XPath engine can be tested on its own. Tests that use the real
 * corpus compile it with the compiler instead.
 */
import type {
  CompiledModule,
  ContainerSchema,
  LeafListSchema,
  LeafSchema,
  ListSchema,
  SchemaContext,
  SchemaNode,
  SchemaXPath,
  YangType,
  ChoiceSchema,
  CaseSchema,
  MustConstraint,
} from '../../src/yang/schema';

const here = { file: 'fixture.yang', line: 1, column: 1 };

export function fixtureModule(name: string, prefix: string, imports: Record<string, string> = {}): CompiledModule {
  const prefixes = new Map<string, string>([[prefix, name], ...Object.entries(imports)]);
  return {
    name,
    revision: undefined,
    namespace: `urn:test:${name}`,
    prefix,
    yangVersion: '1.1',
    file: `${name}.yang`,
    statement: { prefix: undefined, keyword: 'module', arg: name, substatements: [], position: here },
    submodules: [],
    implemented: true,
    prefixes,
    imports: [],
    features: new Map(),
    identities: new Map(),
    typedefs: new Map(),
    extensions: new Map(),
    annotations: new Map(),
    data: [],
    rpcs: [],
    notifications: [],
    augments: [],
    deviations: [],
    structures: [],
    structureAugments: [],
  };
}

let nextLine = 2;

/** An expression at a position of its own (validation tells a node's own `when` by its position). */
export function xp(source: string, module: CompiledModule): SchemaXPath {
  return { source, contextModule: module, position: { file: `${module.name}.yang`, line: nextLine++, column: 5 } };
}

/**
 * Records `when` conditions as written inside the node's own statement, as the parser would have
 * them, so validation evaluates them with the node as context. Conditions not recorded act like
 * those of a `uses` or `augment` (the parent is their context).
 */
function recordOwnWhens(kind: string, name: string, module: CompiledModule, whens: readonly SchemaXPath[]): void {
  if (!whens.length) return;
  const substatements = whens.map((w) => ({ prefix: undefined, keyword: 'when', arg: w.source, substatements: [], position: w.position }));
  module.statement.substatements.push({ prefix: undefined, keyword: kind, arg: name, substatements, position: here });
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

interface Extra {
  /** The node's own `when` conditions (context: the node). */
  when?: SchemaXPath[];
  /** `when` conditions of the uses/augment that placed the node (context: its parent). */
  placedWhen?: SchemaXPath[];
  musts?: MustConstraint[];
  config?: boolean;
}

function base(name: string, module: CompiledModule, extra: Extra = {}, kind = 'leaf') {
  recordOwnWhens(kind, name, module, extra.when ?? []);
  return {
    name,
    module,
    parent: undefined as SchemaNode | undefined,
    children: [] as SchemaNode[],
    config: extra.config ?? true,
    status: 'current' as const,
    ifFeatures: [],
    when: [...(extra.placedWhen ?? []), ...(extra.when ?? [])],
    musts: extra.musts ?? [],
    extensions: [],
    position: here,
  };
}

function adopt<T extends SchemaNode>(node: T, children: SchemaNode[]): T {
  (node as Mutable<SchemaNode>).children = children;
  for (const c of children) (c as Mutable<SchemaNode>).parent = node;
  return node;
}

export const stringType: YangType = { builtin: 'string', name: 'string', patterns: [] };
export const uint32Type: YangType = { builtin: 'uint32', name: 'uint32', patterns: [] };

export function leafrefType(path: SchemaXPath, requireInstance = true): YangType {
  return { builtin: 'leafref', name: 'leafref', patterns: [], leafref: { path, requireInstance } };
}

export function container(
  name: string,
  module: CompiledModule,
  children: SchemaNode[],
  extra: Extra & { presence?: string } = {},
): ContainerSchema {
  const node: ContainerSchema = {
    ...base(name, module, extra, 'container'),
    kind: 'container',
    ...(extra.presence ? { presence: extra.presence } : {}),
  };
  return adopt(node, children);
}

export function list(
  name: string,
  module: CompiledModule,
  keys: string[],
  children: SchemaNode[],
  extra: Extra & { min?: number; max?: number; unique?: string[][] } = {},
): ListSchema {
  const keyLeaves = keys.map((k) => children.find((c) => c.name === k) as LeafSchema);
  for (const k of keyLeaves) (k as Mutable<LeafSchema>).isKey = true;
  const unique = (extra.unique ?? []).map((u) =>
    u.map((p) => {
      const path = p.split('/');
      let n: SchemaNode | undefined = { children } as unknown as SchemaNode;
      for (const s of path) n = n!.children.find((c) => c.name === s);
      return { path, leaf: n as LeafSchema };
    }),
  );
  const node: ListSchema = {
    ...base(name, module, extra, 'list'),
    kind: 'list',
    keys: keyLeaves,
    unique,
    minElements: extra.min ?? 0,
    maxElements: extra.max ?? Infinity,
    orderedBy: 'system',
  };
  return adopt(node, children);
}

export function leaf(
  name: string,
  module: CompiledModule,
  type: YangType = stringType,
  extra: Extra & { mandatory?: boolean; default?: string } = {},
): LeafSchema {
  return {
    ...base(name, module, extra),
    kind: 'leaf',
    type,
    mandatory: extra.mandatory ?? false,
    isKey: false,
    ...(extra.default !== undefined ? { default: extra.default } : {}),
  };
}

export function leafList(
  name: string,
  module: CompiledModule,
  type: YangType = stringType,
  extra: Extra & { min?: number; max?: number } = {},
): LeafListSchema {
  return {
    ...base(name, module, extra, 'leaf-list'),
    kind: 'leaf-list',
    type,
    defaults: [],
    minElements: extra.min ?? 0,
    maxElements: extra.max ?? Infinity,
    orderedBy: 'system',
  };
}

export function choice(
  name: string,
  module: CompiledModule,
  cases: CaseSchema[],
  extra: Extra & { mandatory?: boolean } = {},
): ChoiceSchema {
  return adopt(
    { ...base(name, module, extra, 'choice'), kind: 'choice', mandatory: extra.mandatory ?? false, children: cases } as ChoiceSchema,
    cases,
  );
}

export function caseOf(name: string, module: CompiledModule, children: SchemaNode[], extra: Extra = {}): CaseSchema {
  return adopt({ ...base(name, module, extra, 'case'), kind: 'case', shorthand: false } as CaseSchema, children);
}

/** A context holding the given modules, with `top` as their top-level data nodes. */
export function fixtureContext(modules: CompiledModule[], top: SchemaNode[]): SchemaContext {
  for (const m of modules) (m as Mutable<CompiledModule>).data = top.filter((n) => n.module === m);
  return {
    modules: new Map(modules.map((m) => [m.name, m])),
    data: top,
    rpcs: [],
    notifications: [],
    moduleByNamespace: (ns) => modules.find((m) => m.namespace === ns),
    diagnostics: [],
  };
}

// ---------------------------------------------------------------------------------------------------
// Data trees by hand

import type { ContainerNode, DataNode, DataRoot, LeafListNode, LeafNode, LeafValue, ListEntryNode, ListNode } from '../../src/data/tree';

export function dRoot(...children: DataNode[]): DataRoot {
  return { kind: 'root', children };
}
export function dContainer(schema: ContainerSchema, ...children: DataNode[]): ContainerNode {
  return { kind: 'container', schema, children };
}
export function dList(schema: ListSchema, ...entries: DataNode[][]): ListNode {
  return { kind: 'list', schema, entries: entries.map((children): ListEntryNode => ({ kind: 'entry', schema, children })) };
}
export function dLeaf(schema: LeafSchema, value: LeafValue): LeafNode {
  return { kind: 'leaf', schema, value };
}
export function dLeafList(schema: LeafListSchema, ...values: LeafValue[]): LeafListNode {
  return { kind: 'leaf-list', schema, values };
}
/** The child schema node named `name` (looking through choice/case). */
export function child<T extends SchemaNode = SchemaNode>(parent: { children: readonly SchemaNode[] }, name: string): T {
  for (const c of parent.children) {
    if (c.name === name && c.kind !== 'choice' && c.kind !== 'case') return c as T;
    if (c.kind === 'choice' || c.kind === 'case') {
      try {
        return child<T>(c, name);
      } catch {
        /* keep looking */
      }
    }
  }
  throw new Error(`no child ${name}`);
}
