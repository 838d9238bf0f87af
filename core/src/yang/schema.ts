/**
 * The compiled schema: what every other part of Rosetta reads to know a model. The compiler
 * (`compiler/`) builds it from parsed statements; the data codecs, validation, URI parser and tree
 * printer only read it. Groupings, uses, refine, augment and deviations are already applied here: a
 * node's `children` are exactly the nodes a data tree can hold under it (plus choice/case, which hold
 * no data of their own), with `module` naming the namespace each node lives in.
 *
 * Why this file is longer than 400 lines: it holds declarations only: the whole compiled schema, one
 * interface per node and restriction kind, which every other part reads; kept whole so one file shows the
 * model.
 */
import type { SourcePosition, Statement } from './statement';

// ---------------------------------------------------------------------------------------------------
// Modules and their module-level definitions

/** A compiled module: its header, its definitions, and the schema nodes it contributes. */
export interface CompiledModule {
  readonly name: string;
  readonly revision: string | undefined;
  readonly namespace: string;
  readonly prefix: string;
  readonly yangVersion: '1' | '1.1';
  readonly organization?: string;
  readonly contact?: string;
  readonly description?: string;
  /** The file the module was read from (its submodules' files are in `submodules`). */
  readonly file: string;
  /** The parsed main module; submodules' statements are in `submodules`. */
  readonly statement: Statement;
  readonly submodules: ReadonlyArray<{
    readonly name: string;
    readonly revision?: string;
    readonly file: string;
    readonly statement: Statement;
  }>;
  /** Implemented (its data nodes, augments and deviations are in force) or only imported. */
  readonly implemented: boolean;
  /** Prefix -> module name, as declared in this module (its own prefix and its imports). */
  readonly prefixes: ReadonlyMap<string, string>;
  readonly imports: ReadonlyArray<{ readonly module: string; readonly prefix: string; readonly revision?: string }>;
  readonly features: ReadonlyMap<string, Feature>;
  readonly identities: ReadonlyMap<string, Identity>;
  readonly typedefs: ReadonlyMap<string, Typedef>;
  readonly extensions: ReadonlyMap<string, ExtensionDefinition>;
  /** RFC 7952 `md:annotation` definitions: the attributes data may carry. */
  readonly annotations: ReadonlyMap<string, Annotation>;
  /** Top-level data nodes (container, list, leaf, leaf-list, choice, anydata, anyxml) in source order. */
  readonly data: ReadonlyArray<SchemaNode>;
  readonly rpcs: ReadonlyArray<OperationSchema>;
  readonly notifications: ReadonlyArray<NotificationSchema>;
  /** What this module's `augment` statements add elsewhere, in source order. */
  readonly augments: ReadonlyArray<AugmentInfo>;
  /** This module's `deviation` statements as applied (targets resolved). */
  readonly deviations: ReadonlyArray<{ readonly target: string; readonly position: SourcePosition }>;
  /**
   * The data trees this module defines outside any datastore: RFC 8040 `rc:yang-data` templates and
   * RFC 8791 `sx:structure`s, in source order (compiled for implemented modules only).
   */
  readonly structures: ReadonlyArray<StructureSchema>;
  /** What this module's RFC 8791 `sx:augment-structure` statements add to structures, in source order. */
  readonly structureAugments: ReadonlyArray<StructureAugmentInfo>;
}

/**
 * A YANG data tree that lives in no datastore: a message body, an error-info or a file format,
 * defined by RFC 8040 `rc:yang-data` (exactly one container, possibly chosen among cases) or RFC
 * 8791 `sx:structure` (any data nodes). Its nodes are ordinary schema nodes whose `parent` is
 * undefined at the top, all with `config` false (config does not apply; keyless lists are allowed).
 * XPath in them (`path`, `must`, `when`) treats the structure as the whole document: an absolute
 * path starts at `nodes`, never in the datastore (RFC 8791 `structure` extension description).
 */
export interface StructureSchema {
  /** `yang-data` for RFC 8040's extension, `structure` for RFC 8791's. */
  readonly extension: 'yang-data' | 'structure';
  /** The structure's name (the extension's argument); one name per module and extension. */
  readonly name: string;
  /** The defining module; augment-structure adds nodes of other modules below the top. */
  readonly module: CompiledModule;
  /**
   * Top-level nodes. Ordered as libyang compiles them (and yanglint prints them): containers, then
   * leaves, leaf-lists, lists, choices, anydata, anyxml, and nodes of `uses` last. Sibling order of
   * a structure's top carries no meaning on the wire, so the oracle's order is kept.
   */
  readonly nodes: readonly SchemaNode[];
  /** `must` statements of an sx:structure (evaluated with the structure as the document). */
  readonly musts: readonly MustConstraint[];
  readonly status: Status;
  readonly description?: string;
  readonly reference?: string;
  /** The extension statement (`rc:yang-data name { ... }`) as parsed. */
  readonly statement: Statement;
}

/** One RFC 8791 `sx:augment-structure` as applied. */
export interface StructureAugmentInfo {
  /** The target path as written (`/dots-signal:dots-signal/dots-signal:message-type`). */
  readonly targetPath: string;
  /** The structure the path's first step names. */
  readonly structure: StructureSchema;
  /** The node inside the structure that received the nodes. */
  readonly target: SchemaNode;
  /** The nodes added under the target, compiled (in the augmenting module's namespace). */
  readonly nodes: readonly SchemaNode[];
  readonly statement: Statement;
}

export interface Feature {
  readonly name: string;
  readonly module: CompiledModule;
  /** Whether the feature is enabled in this schema context (its own if-features included). */
  readonly enabled: boolean;
  readonly ifFeatures: readonly string[];
  readonly status: Status;
  readonly description?: string;
}

export interface Identity {
  readonly name: string;
  readonly module: CompiledModule;
  readonly bases: readonly Identity[];
  /** Every identity derived from this one, directly or not (filled once the context is compiled). */
  readonly derived: ReadonlySet<Identity>;
  readonly ifFeatures: readonly string[];
  readonly status: Status;
  readonly description?: string;
}

export interface Typedef {
  readonly name: string;
  readonly module: CompiledModule;
  readonly type: YangType;
  readonly default?: string;
  readonly units?: string;
  readonly status: Status;
  readonly description?: string;
}

export interface ExtensionDefinition {
  readonly name: string;
  readonly module: CompiledModule;
  /** The argument's name, when the extension takes one. */
  readonly argument?: string;
}

/** One use of an extension on a statement, e.g. `oc-ext:openconfig-version "1.2.0"`. */
export interface ExtensionInstance {
  /** The module that defines the extension (resolved from the prefix). */
  readonly module: string;
  readonly name: string;
  /** The prefix as written where the extension was used. */
  readonly prefix: string;
  readonly arg: string | undefined;
  readonly position: SourcePosition;
  /** Substatements of the extension instance, as parsed. */
  readonly substatements: readonly Statement[];
}

export interface Annotation {
  readonly name: string;
  readonly module: CompiledModule;
  readonly type: YangType;
}

export interface AugmentInfo {
  /** The target path as written (`/if:interfaces/if:interface`). */
  readonly targetPath: string;
  /** The resolved target node, or undefined for a top-level rpc/notification target miss. */
  readonly target: SchemaNode | undefined;
  /** The nodes the augment added under the target, compiled. */
  readonly nodes: readonly SchemaNode[];
  readonly statement: Statement;
}

export type Status = 'current' | 'deprecated' | 'obsolete';

// ---------------------------------------------------------------------------------------------------
// Types

export type BuiltinTypeName =
  | 'binary'
  | 'bits'
  | 'boolean'
  | 'decimal64'
  | 'empty'
  | 'enumeration'
  | 'identityref'
  | 'instance-identifier'
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'leafref'
  | 'string'
  | 'uint8'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'union';

/**
 * An interval of a range restriction. Integers are exact bigints; decimal64 bounds are scaled by
 * 10^fraction-digits (so 1.5 with 2 fraction digits is 150n).
 */
export interface RangeInterval {
  readonly min: bigint;
  readonly max: bigint;
}
/** An interval of a length restriction; max may be Infinity (`max` of a string). */
export interface LengthInterval {
  readonly min: number;
  readonly max: number;
}

/** A restriction's own error-message and error-app-tag, when the model gives them. */
export interface RestrictionError {
  readonly errorMessage?: string;
  readonly errorAppTag?: string;
}

export interface RangeRestriction extends RestrictionError {
  readonly intervals: readonly RangeInterval[];
  readonly source: string;
}
export interface LengthRestriction extends RestrictionError {
  readonly intervals: readonly LengthInterval[];
  readonly source: string;
}
export interface PatternRestriction extends RestrictionError {
  /** The XSD regular expression as written in the model. */
  readonly source: string;
  /** The same expression translated to a JS RegExp, anchored at both ends. */
  readonly regex: RegExp;
  /** `modifier invert-match`. */
  readonly inverted: boolean;
}

export interface EnumMember {
  readonly name: string;
  readonly value: number;
  readonly status: Status;
  readonly ifFeatures: readonly string[];
}
export interface BitMember {
  readonly name: string;
  readonly position: number;
  readonly status: Status;
  readonly ifFeatures: readonly string[];
}

/**
 * A resolved type: the built-in type at the bottom of the typedef chain, with every restriction of
 * the chain combined (ranges and lengths narrowed, patterns accumulated), plus the name as written.
 */
export interface YangType {
  readonly builtin: BuiltinTypeName;
  /** The type name as written where it was used: `string`, `yang:date-and-time`, `interface-ref`. */
  readonly name: string;
  /** The typedef that `name` names, when it is not a built-in type. */
  readonly typedef?: Typedef;
  readonly range?: RangeRestriction;
  readonly length?: LengthRestriction;
  readonly patterns: readonly PatternRestriction[];
  readonly fractionDigits?: number;
  /** Enumeration members in effect (restricted by derived types). */
  readonly enums?: readonly EnumMember[];
  readonly bits?: readonly BitMember[];
  /** Member types of a union, in order. */
  readonly union?: readonly YangType[];
  /** leafref: the path as written, parsed lazily; the target once resolved by the compiler. */
  readonly leafref?: { readonly path: SchemaXPath; readonly requireInstance: boolean; readonly target?: LeafSchema | LeafListSchema };
  /** identityref: the bases; a value must be derived from all of them. */
  readonly identityBases?: readonly Identity[];
  /** instance-identifier's require-instance (default true). */
  readonly requireInstance?: boolean;
}

/**
 * An XPath expression from `when`, `must` or a leafref `path`, with what is needed to resolve its
 * prefixes: the module it was written in (a grouping's prefixes are those of the grouping's module).
 */
export interface SchemaXPath {
  readonly source: string;
  /** Module whose prefix declarations apply to this expression. */
  readonly contextModule: CompiledModule;
  readonly position: SourcePosition;
  /** Cache slot for the parsed expression (owned by the XPath module). */
  parsed?: unknown;
}

export interface MustConstraint extends RestrictionError {
  readonly xpath: SchemaXPath;
  readonly description?: string;
}

// ---------------------------------------------------------------------------------------------------
// Schema nodes

export type SchemaNode =
  | ContainerSchema
  | ListSchema
  | LeafSchema
  | LeafListSchema
  | ChoiceSchema
  | CaseSchema
  | AnySchema
  | OperationSchema
  | OperationIOSchema
  | NotificationSchema;

/** Nodes that hold data instances (not choice/case). */
export type DataSchemaNode = ContainerSchema | ListSchema | LeafSchema | LeafListSchema | AnySchema;

export interface SchemaNodeBase {
  readonly name: string;
  /** The module whose namespace the node is in (an augmenting module for augmented nodes). */
  readonly module: CompiledModule;
  /** The parent in the schema tree (choice and case included); undefined at the top level. */
  readonly parent: SchemaNode | undefined;
  /** Children in schema order, choice and case included. */
  readonly children: readonly SchemaNode[];
  /** Effective config (inherited; false under state, rpc, action, notification). */
  readonly config: boolean;
  readonly status: Status;
  readonly description?: string;
  readonly reference?: string;
  /** if-feature expressions in force on this node (its own and those of enclosing uses/augment). */
  readonly ifFeatures: readonly string[];
  /** `when` conditions: the node's own and those of the uses/augment that placed it. */
  readonly when: readonly SchemaXPath[];
  readonly musts: readonly MustConstraint[];
  readonly extensions: readonly ExtensionInstance[];
  readonly position: SourcePosition;
}

export interface ContainerSchema extends SchemaNodeBase {
  readonly kind: 'container';
  /** The presence statement's argument; undefined for a non-presence container. */
  readonly presence?: string;
}

export interface ListSchema extends SchemaNodeBase {
  readonly kind: 'list';
  /** Key leaves in key order (empty for a keyless state list). */
  readonly keys: readonly LeafSchema[];
  /** Each unique constraint: the descendant leaves named, with their relative paths. */
  readonly unique: ReadonlyArray<ReadonlyArray<{ readonly path: readonly string[]; readonly leaf: LeafSchema }>>;
  readonly minElements: number;
  readonly maxElements: number; // Infinity for unbounded
  readonly orderedBy: 'system' | 'user';
}

export interface LeafSchema extends SchemaNodeBase {
  readonly kind: 'leaf';
  readonly type: YangType;
  /** Default value as written (from the leaf, a refine, a deviation or the typedef chain). */
  readonly default?: string;
  readonly mandatory: boolean;
  readonly units?: string;
  /** True when this leaf is one of its parent list's keys. */
  readonly isKey: boolean;
}

export interface LeafListSchema extends SchemaNodeBase {
  readonly kind: 'leaf-list';
  readonly type: YangType;
  readonly defaults: readonly string[];
  readonly minElements: number;
  readonly maxElements: number;
  readonly orderedBy: 'system' | 'user';
  readonly units?: string;
}

export interface ChoiceSchema extends SchemaNodeBase {
  readonly kind: 'choice';
  readonly defaultCase?: CaseSchema;
  readonly mandatory: boolean;
  readonly children: readonly CaseSchema[];
}

export interface CaseSchema extends SchemaNodeBase {
  readonly kind: 'case';
  /** A case created for a shorthand data node directly under a choice. */
  readonly shorthand: boolean;
}

export interface AnySchema extends SchemaNodeBase {
  readonly kind: 'anydata' | 'anyxml';
  readonly mandatory: boolean;
}

export interface OperationSchema extends SchemaNodeBase {
  readonly kind: 'rpc' | 'action';
  readonly input: OperationIOSchema;
  readonly output: OperationIOSchema;
}

export interface OperationIOSchema extends SchemaNodeBase {
  readonly kind: 'input' | 'output';
  /** False when the model declared no input/output statement (the node is implicit and empty). */
  readonly declared: boolean;
}

export interface NotificationSchema extends SchemaNodeBase {
  readonly kind: 'notification';
}

// ---------------------------------------------------------------------------------------------------
// Lookups every reader of the schema needs

/** True for the nodes that hold data instances themselves. */
export function isDataNode(node: SchemaNode): node is DataSchemaNode {
  switch (node.kind) {
    case 'container':
    case 'list':
    case 'leaf':
    case 'leaf-list':
    case 'anydata':
    case 'anyxml':
      return true;
    default:
      return false;
  }
}

/**
 * The data-bearing children of a node, looking through choice and case (which hold no data). Also
 * yields actions and notifications nested in containers and lists, which data paths can name.
 */
export function* dataChildren(children: readonly SchemaNode[]): Generator<SchemaNode> {
  for (const c of children) {
    if (c.kind === 'choice' || c.kind === 'case') yield* dataChildren(c.children);
    else yield c;
  }
}

/**
 * Finds the child named `name` in module `moduleName` among `children`, looking through choice/case.
 * The same name can appear in two modules under one parent (augments), so both must match.
 */
export function findDataChild(children: readonly SchemaNode[], moduleName: string, name: string): SchemaNode | undefined {
  for (const c of children) {
    if (c.kind === 'choice' || c.kind === 'case') {
      const found = findDataChild(c.children, moduleName, name);
      if (found) return found;
    } else if (c.name === name && c.module.name === moduleName) {
      return c;
    }
  }
  return undefined;
}

/** The nearest ancestor that holds data (skipping choice and case), or undefined at the top. */
export function dataParent(node: SchemaNode): SchemaNode | undefined {
  let p = node.parent;
  while (p && (p.kind === 'choice' || p.kind === 'case')) p = p.parent;
  return p;
}

/** The choice/case chain between a node and its data parent, innermost first. */
export function enclosingCases(node: SchemaNode): CaseSchema[] {
  const cases: CaseSchema[] = [];
  let p = node.parent;
  while (p && (p.kind === 'choice' || p.kind === 'case')) {
    if (p.kind === 'case') cases.push(p);
    p = p.parent;
  }
  return cases;
}

/**
 * The rc:yang-data template or sx:structure `name` that module `moduleName` defines (e.g.
 * `ietf-restconf`, `yang-errors` for RESTCONF error bodies), when that module is in the context.
 */
export function findStructure(ctx: SchemaContext, moduleName: string, name: string): StructureSchema | undefined {
  return ctx.modules.get(moduleName)?.structures.find((s) => s.name === name);
}

/**
 * The rc:yang-data or sx:structure a node belongs to, or undefined for a node of the datastore, an
 * rpc or a notification (found from the node's top ancestor among the context's structures).
 */
export function structureOf(ctx: SchemaContext, node: SchemaNode): StructureSchema | undefined {
  let top = node;
  while (top.parent) top = top.parent;
  for (const m of ctx.modules.values()) {
    for (const s of m.structures) if (s.nodes.includes(top)) return s;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------
// The schema context: a set of modules compiled together

/**
 * Modules compiled together into one namespace of names: the service's own modules, a `--yang`
 * directory, or a NETCONF device's module set. Built by the compiler; shared, never changed.
 */
export interface SchemaContext {
  /**
   * Every module in the context by name (implemented and import-only); of a module present in
   * several revisions, the implemented one, else the newest.
   */
  readonly modules: ReadonlyMap<string, CompiledModule>;
  /**
   * Every module revision in the context, in load order: a module only imported may be there in
   * several revisions beside the one implemented (RFC 7950 §5.6.5). Contexts built by hand may
   * leave it out; then `modules` holds them all.
   */
  readonly moduleRevisions?: readonly CompiledModule[];
  /** Top-level data nodes of all implemented modules, in module order. */
  readonly data: readonly SchemaNode[];
  /** RPCs of all implemented modules. */
  readonly rpcs: readonly OperationSchema[];
  readonly notifications: readonly NotificationSchema[];
  /** Module by XML namespace. */
  moduleByNamespace(namespace: string): CompiledModule | undefined;
  /** Errors and warnings met while compiling, per module; compilation keeps going past errors. */
  readonly diagnostics: readonly import('./statement').YangDiagnostic[];
}
