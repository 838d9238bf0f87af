/**
 * Absolute schema node identifiers (RFC 7950 §6.5) and the module-level statements that use them:
 * `augment` (applied until no more can be, so augments of augments resolve in any module order)
 * and `deviation` (not-supported, add, replace, delete).
 */
import type { Statement } from '../statement';
import { findSubs } from '../statement';
import type { SchemaNode, ChoiceSchema } from '../schema';
import type { CompileState, ModuleRecord, NodeBuild, SourceUnit } from './model';
import { opt, resolveQName, subArg } from './model';
import type { NodeCompiler } from './nodes';
import { elements, mustsOf, removeNode, setConfig } from './node-properties';

/** An augment or deviation statement waiting for its target. */
export interface PendingTarget {
  readonly stmt: Statement;
  readonly unit: SourceUnit;
}

/**
 * Resolves `/a:x/a:y` written in `unit`. `implement` is called for a module whose data is needed
 * but not compiled yet (libyang implements the targets of augments and deviations).
 */
function resolveAbsolute(
  path: string,
  unit: SourceUnit,
  implement: (r: ModuleRecord) => void,
  nodes?: NodeCompiler,
): { node: SchemaNode } | { error: string } | { disabled: true } {
  const steps = path.split('/').map((s) => s.trim());
  if (steps[0] !== '' || steps.length < 2) return { error: `Invalid absolute-schema-nodeid value "${path}" - missing starting "/".` };
  let current: readonly SchemaNode[] | undefined;
  let node: SchemaNode | undefined;
  let holder: object | undefined;
  for (let i = 1; i < steps.length; i++) {
    const q = resolveQName(steps[i]!, unit);
    if (!q) return { error: `Invalid absolute-schema-nodeid value "${path}" - prefix "${steps[i]}" not defined.` };
    if (!q.record.dataCompiled) implement(q.record);
    if (!current) {
      const m = q.record.module;
      current = [...m.data, ...m.rpcs, ...m.notifications];
    }
    const name = q.name;
    const moduleName = q.record.name;
    node = current.find((n) => n.name === name && n.module.name === moduleName);
    if (!node) return nodes?.isDisabled(holder!, name) ? { disabled: true } : { error: `"${steps[i]}"` };
    holder = node;
    current = node.children;
  }
  return node ? { node } : { error: `"${path}"` };
}

/**
 * Applies pending top-level augments in the order libyang 2.1 does, because that order is the order
 * of the children they add (and so of tree diagrams and of data output):
 *
 * - An augment belongs to the module of its target path's FIRST node (the module whose tree it
 *   extends, even when it goes through nodes another augment added).
 * - Per target module, the candidate list is built module by module in the order the augmenting
 *   modules were loaded (`augmented_by`), each module's augments in source order, submodules after
 *   the main module.
 * - The target module's tree is walked in compile order (a node's own children first, then the
 *   augments of the node itself; nodes an augment adds are walked as they are added). At each node
 *   the list is scanned from the start; an applied augment is removed by moving the LAST entry into
 *   its slot (libyang's `ly_set_rm`) and the scan continues at the same index. That swap is why two
 *   augments of one node can come out in the opposite of source order (ietf-ospf's `instance-id`
 *   before `topologies`, openconfig's `oc-lag:aggregation` before `oc-eth:ethernet`).
 *
 * `loadOrder` ranks modules by when they were loaded. Augments whose target never appears are
 * reported, unless an if-feature left the target out.
 */
export function applyAugments(
  pending: PendingTarget[],
  nodes: NodeCompiler,
  state: CompileState,
  implement: (r: ModuleRecord) => void,
  loadOrder: (r: ModuleRecord) => number,
): void {
  // Implementing a target module compiles its data and may queue more augments: settle that first.
  for (let seen = -1; seen !== pending.length; ) {
    seen = pending.length;
    for (const p of [...pending]) {
      for (const step of (p.stmt.arg ?? '').split('/').slice(1)) {
        const q = resolveQName(step.trim(), p.unit);
        if (q && !q.record.dataCompiled) implement(q.record);
      }
    }
  }
  const byTarget = new Map<ModuleRecord, Candidate[]>();
  const failed: PendingTarget[] = [];
  const ordered = pending
    .splice(0)
    .map((p, i) => ({ p, i }))
    .sort((a, b) => loadOrder(a.p.unit.record) - loadOrder(b.p.unit.record) || a.i - b.i);
  for (const { p } of ordered) {
    const key = targetKey(p.stmt.arg ?? '', p.unit);
    if (key === undefined) {
      failed.push(p);
      continue;
    }
    let list = byTarget.get(key.module);
    if (!list) byTarget.set(key.module, (list = []));
    list.push({ pending: p, key: key.key });
  }
  const targets = [...byTarget.keys()].sort((a, b) => loadOrder(a) - loadOrder(b));
  for (const t of targets) {
    const left = walkTarget(t, byTarget.get(t)!, nodes);
    for (const c of left) failed.push(c.pending);
  }
  for (const p of failed) {
    const r = resolveAbsolute(p.stmt.arg ?? '', p.unit, implement, nodes);
    if ('disabled' in r) continue; // the target's if-features left it out: nothing to add to
    if ('node' in r) {
      // Reached only through a node a deviation or another module's walk placed: apply it late.
      const added = nodes.augmentInto(r.node, p.stmt, p.unit.root, p.unit.record);
      p.unit.record.module.augments.push({ targetPath: p.stmt.arg ?? '', target: r.node, nodes: added, statement: p.stmt });
      continue;
    }
    const detail = !r.error.startsWith('"')
      ? r.error
      : `Augment target node "${p.stmt.arg}" from module "${p.unit.record.name}" was not found.`;
    state.sink.error(detail, p.stmt.position, p.unit.record.name);
  }
}

interface Candidate {
  readonly pending: PendingTarget;
  readonly key: string;
}

/** `module:name/module:name...` of an absolute schema node id, and the module of its first node. */
function targetKey(path: string, unit: SourceUnit): { module: ModuleRecord; key: string } | undefined {
  const steps = path.split('/');
  if (steps[0]!.trim() !== '' || steps.length < 2) return undefined;
  let key = '';
  let first: ModuleRecord | undefined;
  for (const step of steps.slice(1)) {
    const q = resolveQName(step.trim(), unit);
    if (!q) return undefined;
    first ??= q.record;
    key += `/${q.record.name}:${q.name}`;
  }
  return first && { module: first, key };
}

function nodeKey(parentKey: string, node: SchemaNode): string {
  return `${parentKey}/${node.module.name}:${node.name}`;
}

/** Walks one module's tree in libyang's compile order, applying its candidates; returns the unapplied. */
function walkTarget(target: ModuleRecord, candidates: Candidate[], nodes: NodeCompiler): Candidate[] {
  const remaining = [...candidates];
  const wanted = new Map<string, number>();
  for (const c of remaining) wanted.set(c.key, (wanted.get(c.key) ?? 0) + 1);
  const visit = (node: SchemaNode, key: string, depth: number): void => {
    if (depth > 10_000) return; // a tree this deep is not a YANG model; stop rather than overflow
    for (const child of [...node.children]) visit(child, nodeKey(key, child), depth + 1);
    // Nested applications move entries below the scan position (the swap); libyang never loses an
    // augment that way in the corpus, so scan again while this node still has candidates.
    while (wanted.get(key)) scan(node, key, depth);
  };
  const scan = (node: SchemaNode, key: string, depth: number): void => {
    for (let i = 0; i < remaining.length; ) {
      const c = remaining[i]!;
      if (c.key !== key) {
        i++;
        continue;
      }
      const p = c.pending;
      const added = nodes.augmentInto(node, p.stmt, p.unit.root, p.unit.record);
      p.unit.record.module.augments.push({ targetPath: p.stmt.arg ?? '', target: node, nodes: added, statement: p.stmt });
      for (const n of added) visit(n, nodeKey(key, n), depth + 1);
      const at = remaining.indexOf(c);
      remaining[at] = remaining[remaining.length - 1]!;
      remaining.pop();
      wanted.set(key, wanted.get(key)! - 1);
    }
  };
  const m = target.module;
  // libyang compiles each text in turn: its data nodes, then its rpcs, then its notifications.
  const visited = new Set<SchemaNode>();
  for (const unit of [...target.units, undefined]) {
    for (const list of [m.data, m.rpcs, m.notifications] as SchemaNode[][]) {
      for (const top of [...list]) {
        // The last pass (unit undefined) catches top-level nodes of unknown origin.
        if (visited.has(top) || (unit !== undefined && nodes.topUnit.get(top) !== unit)) continue;
        visited.add(top);
        visit(top, nodeKey('', top), 0);
      }
    }
  }
  return remaining;
}

/** Applies the deviations of implemented modules (RFC 7950 §7.20.3). */
export function applyDeviations(
  pending: PendingTarget[],
  nodes: NodeCompiler,
  state: CompileState,
  implement: (r: ModuleRecord) => void,
): void {
  for (const p of pending.splice(0)) {
    const module = p.unit.record.name;
    const r = resolveAbsolute(p.stmt.arg ?? '', p.unit, implement, nodes);
    if ('disabled' in r) continue;
    if ('error' in r) {
      state.sink.error(`Deviation(s) target node "${p.stmt.arg}" from module "${module}" was not found.`, p.stmt.position, module);
      continue;
    }
    p.unit.record.module.deviations.push({ target: p.stmt.arg ?? '', position: p.stmt.position });
    for (const d of findSubs(p.stmt, 'deviate')) deviate(r.node, d, p.unit, nodes, state);
  }
}

function deviate(target: SchemaNode, d: Statement, unit: SourceUnit, nodes: NodeCompiler, state: CompileState): void {
  const t = target as NodeBuild;
  const module = unit.record.name;
  const err = (s: Statement, msg: string): void => state.sink.error(msg, s.position, module);
  const how = d.arg;
  if (how === 'not-supported') {
    if (target.parent) removeNode(target);
    else {
      const m = target.module as unknown as { data: SchemaNode[]; rpcs: SchemaNode[]; notifications: SchemaNode[] };
      for (const list of [m.data, m.rpcs, m.notifications]) {
        const i = list.indexOf(target);
        if (i >= 0) list.splice(i, 1);
      }
    }
    return;
  }
  const has = (prop: string): boolean => t[prop] !== undefined;
  const defaults: Statement[] = [];
  for (const s of d.substatements) {
    if (s.prefix !== undefined) continue;
    const prop = s.keyword;
    switch (prop) {
      case 'units':
        if (how === 'add' && has('units')) {
          err(s, `Invalid deviation adding "units" property which already exists (with value "${t['units']}").`);
          break;
        }
        if (how === 'delete') delete t['units'];
        else t['units'] = s.arg;
        break;
      case 'default':
        if (how === 'delete') {
          if (target.kind === 'leaf-list') t['defaults'] = (t['defaults'] as string[]).filter((v) => v !== s.arg);
          else delete t['default'];
          break;
        }
        if (how === 'add' && target.kind === 'leaf' && has('default') && !fromTypedef(target)) {
          err(s, `Invalid deviation adding "default" property which already exists (with value "${t['default']}").`);
          break;
        }
        defaults.push(s);
        break;
      case 'config':
        // RFC 7950 §7.21.1: configuration cannot live under state data.
        if (s.arg !== 'false' && target.parent && !target.parent.config) {
          err(s, 'Configuration node cannot be child of any state data node.');
          break;
        }
        setConfig(target, s.arg !== 'false');
        break;
      case 'mandatory':
        t['mandatory'] = s.arg === 'true';
        break;
      case 'min-elements':
      case 'max-elements':
        Object.assign(t, elements({ ...d, substatements: [s] }, t as never));
        break;
      case 'must':
        if (how === 'delete') t.musts = target.musts.filter((m) => m.xpath.source !== s.arg);
        else {
          t.musts = [...target.musts, ...mustsOf({ ...d, substatements: [s] }, unit.root)];
          nodes.xpathNodes.push(target);
        }
        break;
      case 'unique': {
        const info = nodes.info.get(target);
        if (!info) break;
        if (how === 'delete') info.unique = (info.unique ?? []).filter((u) => u.arg !== s.arg);
        else (info.unique ??= []).push({ arg: s.arg ?? '', stmt: s, scope: unit.root });
        break;
      }
      case 'type':
        if (target.kind === 'leaf' || target.kind === 'leaf-list') {
          t['type'] = nodes.types.compile(s, unit.root);
          if (!nodes.leafrefNodes.includes(target)) nodes.leafrefNodes.push(target);
          nodes.defaultNodes.push(target); // the default, if any, must fit the new type
        }
        break;
      default:
        break;
    }
  }
  if (defaults.length > 0) {
    const values = defaults.map((s) => s.arg ?? '');
    if (target.kind === 'leaf-list') t['defaults'] = how === 'add' ? [...(t['defaults'] as string[]), ...values] : values;
    else if (target.kind === 'choice') nodes.info.get(target)!.defaultCase = values[0];
    else t['default'] = values[0];
    if (target.kind === 'leaf' || target.kind === 'leaf-list') nodes.addDefaults(target, defaults, unit);
  }
  void opt;
  void subArg;
  void (null as unknown as ChoiceSchema);
}

function fromTypedef(leaf: SchemaNode): boolean {
  const l = leaf as unknown as { default?: string; type: { typedef?: { default?: string } } };
  return l.type.typedef?.default !== undefined && l.type.typedef.default === l.default;
}
