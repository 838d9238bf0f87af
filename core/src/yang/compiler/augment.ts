/**
 * Absolute schema node identifiers (RFC 7950 §6.5) and the module-level statements that use them:
 * `augment` (applied until no more can be, so augments of augments resolve in any module order)
 * and `deviation` (not-supported, add, replace, delete).
 */
import type { Statement } from '../statement';
import { findSubs } from '../statement';
import type { SchemaNode, ChoiceSchema } from '../schema';
import type { CompileState, ModuleRecord, SourceUnit } from './model';
import { resolveQName, subArg } from './model';
import type { NodeBuild, NodeCompiler } from './nodes';
import { elements, mustsOf, removeNode, setConfig } from './nodes';
import { opt } from './types';

/** An augment or deviation statement waiting for its target. */
export interface PendingTarget {
  readonly stmt: Statement;
  readonly unit: SourceUnit;
}

/**
 * Resolves `/a:x/a:y` written in `unit`. `implement` is called for a module whose data is needed
 * but not compiled yet (libyang implements the targets of augments and deviations).
 */
export function resolveAbsolute(path: string, unit: SourceUnit, implement: (r: ModuleRecord) => void, nodes?: NodeCompiler): { node: SchemaNode } | { error: string } | { disabled: true } {
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
 * Applies pending augments until none can make progress (an augment may target what another
 * augment adds), then reports the ones whose target never appeared.
 */
export function applyAugments(pending: PendingTarget[], nodes: NodeCompiler, state: CompileState, implement: (r: ModuleRecord) => void): void {
  let progress = true;
  while (progress && pending.length > 0) {
    progress = false;
    for (let i = 0; i < pending.length; i++) {
      const p = pending[i]!;
      const r = resolveAbsolute(p.stmt.arg ?? '', p.unit, implement, nodes);
      if ('error' in r) continue;
      pending.splice(i--, 1);
      if ('disabled' in r) continue; // the target's if-features left it out: nothing to add to
      progress = true;
      const added = nodes.augmentInto(r.node, p.stmt, p.unit.root, p.unit.record);
      p.unit.record.module.augments.push({ targetPath: p.stmt.arg ?? '', target: r.node, nodes: added, statement: p.stmt });
    }
  }
  for (const p of pending.splice(0)) {
    const r = resolveAbsolute(p.stmt.arg ?? '', p.unit, implement);
    const detail = 'error' in r && !r.error.startsWith('"') ? r.error : `Augment target node "${p.stmt.arg}" from module "${p.unit.record.name}" was not found.`;
    state.sink.error(detail, p.stmt.position, p.unit.record.name);
  }
}

/** Applies the deviations of implemented modules (RFC 7950 §7.20.3). */
export function applyDeviations(pending: PendingTarget[], nodes: NodeCompiler, state: CompileState, implement: (r: ModuleRecord) => void): void {
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
      for (const list of [m.data, m.rpcs, m.notifications]) { const i = list.indexOf(target); if (i >= 0) list.splice(i, 1); }
    }
    return;
  }
  const has = (prop: string): boolean => t[prop] !== undefined;
  const defaults: string[] = [];
  for (const s of d.substatements) {
    if (s.prefix !== undefined) continue;
    const prop = s.keyword;
    switch (prop) {
      case 'units':
        if (how === 'add' && has('units')) { err(s, `Invalid deviation adding "units" property which already exists (with value "${t['units']}").`); break; }
        if (how === 'delete') delete t['units']; else t['units'] = s.arg;
        break;
      case 'default':
        if (how === 'delete') { if (target.kind === 'leaf-list') t['defaults'] = (t['defaults'] as string[]).filter((v) => v !== s.arg); else delete t['default']; break; }
        if (how === 'add' && target.kind === 'leaf' && has('default') && !fromTypedef(target)) { err(s, `Invalid deviation adding "default" property which already exists (with value "${t['default']}").`); break; }
        defaults.push(s.arg ?? '');
        break;
      case 'config':
        setConfig(target, s.arg !== 'false');
        break;
      case 'mandatory':
        t['mandatory'] = s.arg === 'true';
        break;
      case 'min-elements': case 'max-elements':
        Object.assign(t, elements({ ...d, substatements: [s] }, t as never));
        break;
      case 'must':
        if (how === 'delete') t.musts = target.musts.filter((m) => m.xpath.source !== s.arg);
        else t.musts = [...target.musts, ...mustsOf({ ...d, substatements: [s] }, unit.root)];
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
        }
        break;
      default: break;
    }
  }
  if (defaults.length > 0) {
    if (target.kind === 'leaf-list') t['defaults'] = how === 'add' ? [...(t['defaults'] as string[]), ...defaults] : defaults;
    else if (target.kind === 'choice') nodes.info.get(target)!.defaultCase = defaults[0];
    else t['default'] = defaults[0];
  }
  void opt; void subArg; void (null as unknown as ChoiceSchema);
}

function fromTypedef(leaf: SchemaNode): boolean {
  const l = leaf as unknown as { default?: string; type: { typedef?: { default?: string } } };
  return l.type.typedef?.default !== undefined && l.type.typedef.default === l.default;
}
