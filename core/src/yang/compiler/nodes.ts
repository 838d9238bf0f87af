/**
 * Schema nodes (RFC 7950 §7.5-§7.16): turns data definition statements into SchemaNode objects,
 * expanding `uses` in place (with refine and augment inside uses), wrapping shorthand cases, and
 * inheriting config, status, if-feature and when from where a node is placed. A grouping is walked
 * once per `uses`, which is exactly the size of the output; everything that does not depend on the
 * place (types, scopes, parsed if-features) is cached per statement. What a node reads from its own
 * statement regardless of the walk (must, min/max-elements, inherited when/if-feature, augment order)
 * is node-properties.ts.
 *
 * Why this file is longer than 400 lines: expanding `uses` in place, refine and augment inside uses,
 * shorthand cases and the inheritance of config, status, if-feature and when are one recursive walk over
 * one place context; what a node reads from its own statement is already node-properties.ts.
 */
import type { Statement } from '../statement';
import { findSub, findSubs } from '../statement';
import type {
  CaseSchema,
  OperationIOSchema,
  OperationSchema,
  SchemaNode,
  SchemaXPath,
  Status,
  LeafSchema,
  StructureSchema,
} from '../schema';
import type { CompileState, DefaultOrigin, ModuleRecord, NodeBuild, Scope, SourceUnit } from './model';
import { innerScope, opt, resolveQName, splitQName, subArg } from './model';
import type { FeatureTable } from './definitions';
import { extensionInstances, status as statusOf } from './definitions';
import type { TypeCompiler } from './types';
import { instantiateLeafrefs } from './types';
import {
  connectAugmented,
  elements,
  ifFeatureArgs,
  inOperation,
  mustsOf,
  removeNode,
  setConfig,
  statusRank,
  whenOf,
} from './node-properties';

/** Where a statement is being placed: the context every node inherits from. */
export interface PlaceContext {
  /** Lexical scope of the statements being walked (where groupings and typedefs are found). */
  readonly scope: Scope;
  /** The module whose namespace the created nodes are in. */
  readonly record: ModuleRecord;
  readonly parent: SchemaNode | undefined;
  readonly config: boolean;
  /** Inside rpc, action or notification: `config` statements are ignored there. */
  readonly inOperation: boolean;
  readonly status: Status;
  /** if-features and when of the enclosing uses/augment, for the nodes placed directly. */
  readonly ifFeatures: readonly string[];
  readonly when: readonly SchemaXPath[];
  /** Groupings being expanded, to stop circular uses. */
  readonly groupings: readonly Statement[];
}

/** What the compiler keeps about a node besides its public shape. */
export interface NodeInfo {
  readonly stmt: Statement;
  readonly scope: Scope;
  /** list: the key argument; choice: the default case name; list: unique arguments. */
  keyArg?: string;
  defaultCase?: string;
  unique?: Array<{ arg: string; stmt: Statement; scope: Scope }>;
}

const DATA_KEYWORDS = new Set([
  'container',
  'leaf',
  'leaf-list',
  'list',
  'choice',
  'anydata',
  'anyxml',
  'uses',
  'case',
  'action',
  'notification',
  'rpc',
  'input',
  'output',
]);

/** Compiles data definition statements into schema nodes. */
export class NodeCompiler {
  readonly info = new WeakMap<SchemaNode, NodeInfo>();
  /** Every leaf and leaf-list whose type holds a leafref, for resolution once the tree is final. */
  readonly leafrefNodes: SchemaNode[] = [];
  /** Every list and choice, for key/unique/default-case resolution once the tree is final. */
  readonly lists: SchemaNode[] = [];
  readonly choices: SchemaNode[] = [];
  /** Every node with when or must expressions (what -i implements is found there). */
  readonly xpathNodes: SchemaNode[] = [];
  /** Every leaf and leaf-list that has or had a default (a node may be listed more than once). */
  readonly defaultNodes: SchemaNode[] = [];
  /** Where each default value of a node was written (leaf, refine or deviation), latest last. */
  private readonly defaultOrigins = new WeakMap<SchemaNode, DefaultOrigin[]>();
  /** The text each top-level node was written in (augments are applied text by text, as libyang does). */
  readonly topUnit = new WeakMap<SchemaNode, SourceUnit>();

  /** The top-level nodes of rc:yang-data and sx:structure trees, with their structure (see structures.ts). */
  readonly structureOfTop = new WeakMap<SchemaNode, StructureSchema>();

  /** Names of nodes left out because their if-features are false, per parent (or module at the top). */
  private readonly disabled = new WeakMap<object, Set<string>>();

  constructor(
    private readonly state: CompileState,
    readonly types: TypeCompiler,
    private readonly features: FeatureTable,
  ) {}

  /** Compiles the data definition substatements of `stmt` (flattening uses) in `ctx`. */
  children(stmts: readonly Statement[], ctx: PlaceContext): SchemaNode[] {
    const out: SchemaNode[] = [];
    for (const s of stmts) {
      if (s.prefix !== undefined || !DATA_KEYWORDS.has(s.keyword)) continue;
      if (s.keyword === 'uses') {
        for (const n of this.uses(s, ctx)) out.push(n);
        continue;
      }
      if (s.keyword === 'input' || s.keyword === 'output') continue; // built by the operation
      const n = this.node(s, ctx);
      if (n) out.push(n);
      else this.markDisabled(ctx.parent ?? ctx.record, s.arg ?? '');
    }
    if (ctx.parent?.kind === 'choice') return out.map((n) => (n.kind === 'case' ? n : this.shorthandCase(n, ctx)));
    return out;
  }

  /** Compiles one data definition statement, or undefined when its if-features are false. */
  node(stmt: Statement, ctx: PlaceContext): SchemaNode | undefined {
    if (!this.ifFeaturesHold(stmt, ctx.scope)) return undefined;
    const kind = stmt.keyword;
    const ownConfig = subArg(stmt, 'config');
    let config = ctx.config;
    if (!ctx.inOperation && ownConfig !== undefined && kind !== 'rpc' && kind !== 'notification' && kind !== 'action') {
      if (ownConfig === 'true' && !ctx.config) this.error('Configuration node cannot be child of any state data node.', stmt, ctx);
      else config = ownConfig !== 'false';
    }
    const inOperation = ctx.inOperation || kind === 'rpc' || kind === 'action' || kind === 'notification';
    if (inOperation) config = false;
    const ownStatus = subArg(stmt, 'status') as Status | undefined;
    const node: NodeBuild = {
      kind: kind as SchemaNode['kind'],
      name: stmt.arg ?? '',
      module: ctx.record.module as never,
      parent: ctx.parent,
      children: [],
      config,
      status: ownStatus ?? ctx.status,
      ...opt('description', subArg(stmt, 'description')),
      ...opt('reference', subArg(stmt, 'reference')),
      ifFeatures: ifFeatureArgs(stmt, ctx.ifFeatures),
      when: whenOf(stmt, ctx.scope, ctx.when),
      musts: mustsOf(stmt, ctx.scope),
      extensions: extensionInstances(stmt, ctx.scope, this.state),
      position: stmt.position,
    } as NodeBuild;
    this.info.set(node as SchemaNode, { stmt, scope: ctx.scope });
    if (node.when.length > 0 || node.musts.length > 0) this.xpathNodes.push(node as SchemaNode);
    const inner: PlaceContext = {
      scope: innerScope(stmt, ctx.scope),
      record: ctx.record,
      parent: node as SchemaNode,
      config,
      inOperation,
      status: node.status,
      ifFeatures: [],
      when: [],
      groupings: ctx.groupings,
    };
    switch (kind) {
      case 'container':
        if (findSub(stmt, 'presence')) node['presence'] = subArg(stmt, 'presence') ?? '';
        node.children = this.children(stmt.substatements, inner);
        break;
      case 'leaf':
        this.leaf(node, stmt, ctx);
        break;
      case 'leaf-list':
        this.leafList(node, stmt, ctx);
        break;
      case 'list':
        Object.assign(node, elements(stmt), { keys: [], unique: [], orderedBy: subArg(stmt, 'ordered-by') === 'user' ? 'user' : 'system' });
        this.info.get(node as SchemaNode)!.keyArg = subArg(stmt, 'key');
        this.info.get(node as SchemaNode)!.unique = findSubs(stmt, 'unique').map((u) => ({ arg: u.arg ?? '', stmt: u, scope: ctx.scope }));
        node.children = this.children(stmt.substatements, inner);
        this.lists.push(node as SchemaNode);
        break;
      case 'choice':
        node['mandatory'] = subArg(stmt, 'mandatory') === 'true';
        this.info.get(node as SchemaNode)!.defaultCase = subArg(stmt, 'default');
        node.children = this.children(stmt.substatements, inner);
        this.choices.push(node as SchemaNode);
        break;
      case 'case':
        node['shorthand'] = false;
        node.children = this.children(stmt.substatements, inner);
        break;
      case 'anydata':
      case 'anyxml':
        node['mandatory'] = subArg(stmt, 'mandatory') === 'true';
        break;
      case 'rpc':
      case 'action':
        this.operation(node, stmt, inner);
        break;
      case 'notification':
        node.children = this.children(stmt.substatements, inner);
        break;
      default:
        return undefined;
    }
    return node as SchemaNode;
  }

  /** Expands a `uses`: the grouping's nodes placed here, refined and augmented as the uses says. */
  uses(stmt: Statement, ctx: PlaceContext): SchemaNode[] {
    if (!this.ifFeaturesHold(stmt, ctx.scope)) return [];
    const qname = stmt.arg ?? '';
    const def = this.findGrouping(qname, ctx.scope);
    if (!def) {
      this.error(`Grouping "${qname}" referenced by a uses statement not found.`, stmt, ctx);
      return [];
    }
    if (ctx.groupings.includes(def.stmt)) {
      this.error(`Grouping "${qname}" references itself through a uses statement.`, stmt, ctx);
      return [];
    }
    const ownStatus = subArg(stmt, 'status') as Status | undefined;
    if (def.scope.unit.record === ctx.scope.unit.record)
      this.checkStatus(ownStatus ?? ctx.status, `uses "${qname}"`, statusOf(def.stmt), `grouping "${def.stmt.arg}"`, stmt, ctx);
    const gctx: PlaceContext = {
      scope: innerScope(def.stmt, def.scope),
      record: ctx.record,
      parent: ctx.parent,
      config: ctx.config,
      inOperation: ctx.inOperation,
      status: ownStatus ?? ctx.status,
      ifFeatures: ifFeatureArgs(stmt, ctx.ifFeatures),
      when: whenOf(stmt, ctx.scope, ctx.when),
      groupings: [...ctx.groupings, def.stmt],
    };
    const nodes = this.children(def.stmt.substatements, gctx);
    for (const r of findSubs(stmt, 'refine')) {
      const target = this.descendant(nodes, r.arg ?? '', ctx.scope, true, ctx.record.name);
      if (!target && this.targetDisabled(ctx.parent ?? ctx.record, nodes, r.arg ?? '', ctx.scope, ctx.record.name)) continue;
      if (!target) {
        this.error(`Refine(s) target node "${r.arg}" in grouping "${qname}" was not found.`, r, ctx);
        continue;
      }
      this.refine(target, r, ctx, nodes);
    }
    for (const a of findSubs(stmt, 'augment')) {
      const target = this.descendant(nodes, a.arg ?? '', ctx.scope, false, ctx.record.name);
      if (!target && this.targetDisabled(ctx.parent ?? ctx.record, nodes, a.arg ?? '', ctx.scope, ctx.record.name)) continue;
      if (!target) {
        this.error(`Augment target node "${a.arg}" in grouping "${qname}" was not found.`, a, ctx);
        continue;
      }
      this.augmentInto(target, a, ctx.scope, ctx.record, ctx.inOperation);
    }
    return nodes;
  }

  /**
   * Adds the content of an `augment` statement (written in `scope`, namespace `record`) under
   * `target`. Returns the nodes added (none when the augment's if-features are false).
   * `ignoreConfig` says config statements do not apply where the target is (an operation or a
   * structure whose nodes are not connected to their top yet, as inside a uses being expanded).
   */
  augmentInto(target: SchemaNode, aug: Statement, scope: Scope, record: ModuleRecord, ignoreConfig = false): SchemaNode[] {
    if (!this.ifFeaturesHold(aug, scope)) return [];
    if (target.kind === 'leaf' || target.kind === 'leaf-list' || target.kind === 'anydata' || target.kind === 'anyxml') {
      this.state.sink.error(`Augment target node "${aug.arg}" is a ${target.kind}, which cannot be augmented.`, aug.position, record.name);
      return [];
    }
    const ctx: PlaceContext = {
      // config statements are ignored in operations and in structures (RFC 8791), as in their own nodes.
      scope: innerScope(aug, scope),
      record,
      parent: target,
      config: target.config,
      inOperation: ignoreConfig || inOperation(target) || this.inStructure(target),
      status: (subArg(aug, 'status') as Status | undefined) ?? target.status,
      ifFeatures: ifFeatureArgs(aug, []),
      when: whenOf(aug, scope),
      groupings: [],
    };
    const added = this.children(aug.substatements, ctx);
    let into: SchemaNode = target;
    if (target.kind === 'rpc' || target.kind === 'action') into = (target as OperationSchema).input; // unusual, but keep nodes reachable
    for (const n of added) connectAugmented(into, n);
    return added;
  }

  /** Whether a node lies inside an rc:yang-data or sx:structure tree. */
  inStructure(node: SchemaNode): boolean {
    let top = node;
    while (top.parent) top = top.parent;
    return this.structureOfTop.has(top);
  }

  private leaf(node: NodeBuild, stmt: Statement, ctx: PlaceContext): void {
    const typeStmt = findSub(stmt, 'type');
    if (!typeStmt) this.error(`Missing mandatory substatement type of leaf "${stmt.arg}".`, stmt, ctx);
    const type = typeStmt
      ? instantiateLeafrefs(this.types.compile(typeStmt, ctx.scope))
      : { builtin: 'string' as const, name: 'string', patterns: [] };
    this.checkTypeStatus(node, type, typeStmt, ctx);
    const own = findSub(stmt, 'default');
    const mandatory = subArg(stmt, 'mandatory') === 'true';
    // A mandatory leaf takes no default from its typedef (it always has a value).
    const def = own ? (own.arg ?? '') : mandatory ? undefined : type.typedef?.default;
    const units = subArg(stmt, 'units') ?? type.typedef?.units;
    Object.assign(node, { type, mandatory, isKey: false, ...opt('default', def), ...opt('units', units) });
    if (type.leafref || type.union) this.leafrefNodes.push(node as SchemaNode);
    if (own) this.addDefaults(node as SchemaNode, [own], ctx.scope.unit);
    else if (def !== undefined) this.defaultNodes.push(node as SchemaNode);
  }

  private leafList(node: NodeBuild, stmt: Statement, ctx: PlaceContext): void {
    const typeStmt = findSub(stmt, 'type');
    if (!typeStmt) this.error(`Missing mandatory substatement type of leaf-list "${stmt.arg}".`, stmt, ctx);
    const type = typeStmt
      ? instantiateLeafrefs(this.types.compile(typeStmt, ctx.scope))
      : { builtin: 'string' as const, name: 'string', patterns: [] };
    this.checkTypeStatus(node, type, typeStmt, ctx);
    const ownStmts = findSubs(stmt, 'default');
    const own = ownStmts.map((d) => d.arg ?? '');
    const defaults = own.length > 0 ? own : type.typedef?.default !== undefined ? [type.typedef.default] : [];
    const units = subArg(stmt, 'units') ?? type.typedef?.units;
    Object.assign(node, {
      type,
      defaults,
      ...elements(stmt),
      orderedBy: subArg(stmt, 'ordered-by') === 'user' ? 'user' : 'system',
      ...opt('units', units),
    });
    if (type.leafref || type.union) this.leafrefNodes.push(node as SchemaNode);
    if (ownStmts.length > 0) this.addDefaults(node as SchemaNode, ownStmts, ctx.scope.unit);
    else if (defaults.length > 0) this.defaultNodes.push(node as SchemaNode);
  }

  private operation(node: NodeBuild, stmt: Statement, inner: PlaceContext): void {
    const io = (kind: 'input' | 'output'): OperationIOSchema => {
      const s = findSub(stmt, kind);
      const ioNode: NodeBuild = {
        kind,
        name: kind,
        module: inner.record.module as never,
        parent: node as SchemaNode,
        children: [],
        config: false,
        status: node.status,
        ifFeatures: [],
        when: [],
        musts: s ? mustsOf(s, inner.scope) : [],
        extensions: s ? extensionInstances(s, inner.scope, this.state) : [],
        position: (s ?? stmt).position,
        declared: s !== undefined,
      } as NodeBuild;
      if (s) {
        this.info.set(ioNode as SchemaNode, { stmt: s, scope: inner.scope });
        if (ioNode.musts.length > 0) this.xpathNodes.push(ioNode as SchemaNode);
        ioNode.children = this.children(s.substatements, { ...inner, scope: innerScope(s, inner.scope), parent: ioNode as SchemaNode });
      }
      return ioNode as unknown as OperationIOSchema;
    };
    const input = io('input');
    const output = io('output');
    Object.assign(node, { input, output });
    node.children = [input, output];
    // Actions and notifications nested in the operation are not allowed; data nodes are under input/output.
  }

  /** A shorthand case (RFC 7950 §7.9.2) wrapping a data node placed directly under a choice. */
  private shorthandCase(n: SchemaNode, ctx: PlaceContext): SchemaNode {
    const c: NodeBuild = {
      kind: 'case',
      name: n.name,
      module: n.module,
      parent: ctx.parent,
      children: [n],
      config: n.config,
      status: n.status,
      ifFeatures: [],
      when: [],
      musts: [],
      extensions: [],
      position: n.position,
      shorthand: true,
    } as NodeBuild;
    (n as NodeBuild).parent = c as SchemaNode;
    return c as unknown as CaseSchema;
  }

  /** Applies one `refine` statement to its target. */
  private refine(target: SchemaNode, r: Statement, ctx: PlaceContext, usesNodes: SchemaNode[]): void {
    const t = target as NodeBuild;
    const defaults: Statement[] = [];
    for (const s of r.substatements) {
      if (s.prefix !== undefined) {
        t.extensions = [...t.extensions, ...extensionInstances({ ...r, substatements: [s] }, ctx.scope, this.state)];
        continue;
      }
      switch (s.keyword) {
        case 'description':
          t.description = s.arg;
          break;
        case 'reference':
          t.reference = s.arg;
          break;
        case 'config': {
          const v = s.arg !== 'false';
          const parentConfig = target.parent ? target.parent.config : true;
          if (v && !parentConfig) this.error('Configuration node cannot be child of any state data node.', s, ctx);
          else if (!ctx.inOperation) setConfig(target, v);
          break;
        }
        case 'mandatory':
          t['mandatory'] = s.arg === 'true';
          break;
        case 'presence':
          if (target.kind === 'container') t['presence'] = s.arg ?? '';
          else this.badRefine(s, target, ctx);
          break;
        case 'must':
          t.musts = [...target.musts, ...mustsOf({ ...r, substatements: [s] }, ctx.scope)];
          this.xpathNodes.push(target);
          break;
        case 'default':
          defaults.push(s);
          break;
        case 'min-elements':
        case 'max-elements':
          if (target.kind === 'list' || target.kind === 'leaf-list')
            Object.assign(t, elements({ ...r, substatements: [s] }, target as never));
          else this.badRefine(s, target, ctx);
          break;
        case 'if-feature':
          t.ifFeatures = [...target.ifFeatures, s.arg ?? ''];
          if (!this.features.evaluate(s, ctx.scope.unit)) removeNode(target, usesNodes);
          break;
        default:
          break;
      }
    }
    if (defaults.length > 0) {
      const values = defaults.map((d) => d.arg ?? '');
      if (target.kind === 'leaf') t['default'] = values[0];
      else if (target.kind === 'leaf-list') t['defaults'] = values;
      else if (target.kind === 'choice') this.info.get(target)!.defaultCase = values[0];
      else this.badRefine(findSub(r, 'default')!, target, ctx);
      if (target.kind === 'leaf' || target.kind === 'leaf-list') this.addDefaults(target, defaults, ctx.scope.unit);
    }
  }

  /** RFC 7950 §7.21.2 for a leaf's typedef: only references within one module are restricted. */
  private checkTypeStatus(
    node: NodeBuild,
    type: { typedef?: { module: { name: string }; status: Status; name: string } },
    typeStmt: Statement | undefined,
    ctx: PlaceContext,
  ): void {
    const td = type.typedef;
    if (!td || !typeStmt || td.module.name !== ctx.scope.unit.record.name) return;
    this.checkStatus(node.status, `${node.kind} "${node.name}"`, td.status, `typedef "${td.name}"`, typeStmt, ctx);
  }

  /**
   * RFC 7950 §7.21.2: a "current" definition must not reference a "deprecated" or "obsolete" one,
   * nor a "deprecated" one an "obsolete" one, within the same module (across modules it is allowed:
   * a module cannot control how others age). A node's own status is not a reference: a "current"
   * node under a "deprecated" parent is fine (it just inherits nothing, as the RFC says).
   */
  private checkStatus(from: Status, fromName: string, to: Status, toName: string, at: Statement, ctx: PlaceContext): void {
    if (statusRank(from) >= statusRank(to)) return;
    this.error(`A "${from}" definition ${fromName} is not allowed to reference "${to}" definition ${toName}.`, at, ctx);
  }

  private badRefine(s: Statement, target: SchemaNode, ctx: PlaceContext): void {
    this.error(`Invalid refine of ${target.kind} node - it is not possible to replace "${s.keyword}" property.`, s, ctx);
  }

  /** Resolves a descendant schema node id (`a/pfx:b`) among `nodes`. */
  descendant(nodes: readonly SchemaNode[], path: string, scope: Scope, preferData: boolean, namespace?: string): SchemaNode | undefined {
    const steps = path.split('/').filter((s) => s !== '');
    let current: readonly SchemaNode[] = nodes;
    let found: SchemaNode | undefined;
    for (let i = 0; i < steps.length; i++) {
      const q = resolveQName(steps[i]!.trim(), scope.unit);
      if (!q) return undefined;
      // Names of the text's own module mean the namespace the grouping was placed in.
      const moduleName = q.record === scope.unit.record && namespace !== undefined ? namespace : q.record.name;
      found = current.find((n) => n.name === q.name && n.module.name === moduleName);
      if (!found) return undefined;
      current = found.children;
    }
    // A path ending on a shorthand case of a refine means the data node inside it.
    if (preferData && found?.kind === 'case' && (found as CaseSchema).shorthand) return found.children[0];
    return found;
  }

  /** Records `default` statements written in `unit` as the origin of a node's default values. */
  addDefaults(node: SchemaNode, stmts: readonly Statement[], unit: SourceUnit): void {
    let list = this.defaultOrigins.get(node);
    if (!list) this.defaultOrigins.set(node, (list = []));
    for (const d of stmts) list.push({ value: d.arg ?? '', position: d.position, unit });
    this.defaultNodes.push(node);
  }

  /**
   * The default values a leaf or leaf-list has now, each with where it was written: the latest
   * leaf/refine/deviation statement giving that value, else the typedef that supplied it.
   */
  defaultsOf(node: SchemaNode): DefaultOrigin[] {
    const values =
      node.kind === 'leaf' ? (node.default === undefined ? [] : [node.default]) : node.kind === 'leaf-list' ? node.defaults : [];
    if (values.length === 0) return [];
    const origins = this.defaultOrigins.get(node) ?? [];
    const out: DefaultOrigin[] = [];
    for (const value of values) {
      let found: DefaultOrigin | undefined;
      for (let i = origins.length - 1; i >= 0 && !found; i--) if (origins[i]!.value === value) found = origins[i];
      found ??= this.types.typedefDefaultOrigin((node as LeafSchema).type, value);
      if (found) out.push(found);
    }
    return out;
  }

  /** Remembers that a node named `name` under `owner` was left out by its if-features. */
  markDisabled(owner: object, name: string): void {
    let set = this.disabled.get(owner);
    if (!set) this.disabled.set(owner, (set = new Set()));
    set.add(name);
  }

  /** Whether a node named `name` under `owner` (a node, or a module record at the top) was left out. */
  isDisabled(owner: object, name: string): boolean {
    return this.disabled.get(owner)?.has(name) ?? false;
  }

  /**
   * Whether a schema node id names a node that its if-features left out (libyang keeps such nodes
   * as disabled, so refines and augments of them are not errors). `owner` holds `nodes`.
   */
  targetDisabled(owner: object, nodes: readonly SchemaNode[], path: string, scope: Scope, namespace?: string): boolean {
    const steps = path.split('/').filter((s) => s !== '');
    let current: readonly SchemaNode[] = nodes;
    let holder: object = owner;
    for (const step of steps) {
      const q = resolveQName(step.trim(), scope.unit);
      if (!q) return false;
      const moduleName = q.record === scope.unit.record && namespace !== undefined ? namespace : q.record.name;
      const found = current.find((n) => n.name === q.name && n.module.name === moduleName);
      if (!found) return this.disabled.get(holder)?.has(q.name) ?? false;
      holder = found;
      current = found.children;
    }
    return false;
  }

  /** Finds a grouping by its name as written from `scope`. */
  findGrouping(qname: string, scope: Scope): { stmt: Statement; scope: Scope } | undefined {
    const { prefix, name } = splitQName(qname);
    if (prefix === undefined || scope.unit.prefixes.get(prefix) === scope.unit.record) return scope.grouping(name);
    const q = resolveQName(qname, scope.unit);
    return q?.record.topGroupings.get(q.name);
  }

  /** Evaluates every if-feature of a statement (all must hold). */
  ifFeaturesHold(stmt: Statement, scope: Scope): boolean {
    for (const s of stmt.substatements) {
      if (s.prefix === undefined && s.keyword === 'if-feature' && !this.features.evaluate(s, scope.unit)) return false;
    }
    return true;
  }

  private error(message: string, stmt: Statement, ctx: PlaceContext): void {
    this.state.sink.error(message, stmt.position, ctx.scope.unit.record.name);
  }
}
