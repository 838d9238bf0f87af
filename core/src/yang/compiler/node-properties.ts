/**
 * What a schema node takes from its statement and its place, outside the NodeCompiler's walk: inherited
 * if-features and when, must constraints, min/max-elements, status order, config set on a subtree,
 * removal of a node, and where an augmented node goes among its target's children (libyang's order).
 */
import type { Statement } from '../statement';
import { findSub, findSubs } from '../statement';
import type { MustConstraint, SchemaNode, SchemaXPath, Status } from '../schema';
import type { NodeBuild, Scope } from './model';
import { opt, subArg } from './model';

/**
 * Places a node an augment adds among its target's children where libyang 2.1 does
 * (lys_compile_node_connect), which is what tree diagrams and data output follow:
 * after the last child when that one is of the same module; a node of the target's own module
 * before the first node of another module; otherwise after the last node that is of the same
 * module, of a module whose name sorts before, or of the target's module. So augments of several
 * modules end up grouped per module, in module-name order, after the target's own children.
 */
export function connectAugmented(parent: SchemaNode, node: SchemaNode): void {
  const children = parent.children as SchemaNode[];
  const moduleName = node.module.name;
  const last = children[children.length - 1];
  if (!last || last.module.name === moduleName) {
    children.push(node);
    return;
  }
  if (parent.module.name === moduleName) {
    const at = children.findIndex((c) => c.module.name !== moduleName);
    children.splice(at < 0 ? children.length : at, 0, node);
    return;
  }
  for (let i = children.length - 1; i >= 0; i--) {
    const other = children[i]!.module.name;
    if (other === moduleName || other < moduleName || other === parent.module.name) {
      children.splice(i + 1, 0, node);
      return;
    }
  }
  children.unshift(node);
}

/** current < deprecated < obsolete. */
export function statusRank(s: Status): number {
  return s === 'current' ? 0 : s === 'deprecated' ? 1 : 2;
}

/** Whether a node lies inside an rpc, action or notification. */
export function inOperation(node: SchemaNode | undefined): boolean {
  for (let n = node; n; n = n.parent) {
    if (n.kind === 'rpc' || n.kind === 'action' || n.kind === 'notification' || n.kind === 'input' || n.kind === 'output') return true;
  }
  return false;
}

/** Sets config on a node and every descendant (a refine or deviation of config). */
export function setConfig(node: SchemaNode, value: boolean): void {
  (node as NodeBuild).config = value;
  for (const c of node.children) if (value === false || c.config !== false) setConfig(c, value);
}

/** Removes a node from its parent's children, or from `topList` when it has not been placed yet. */
export function removeNode(node: SchemaNode, topList?: SchemaNode[]): void {
  const i = topList ? topList.indexOf(node) : -1;
  if (topList && i >= 0) {
    topList.splice(i, 1);
    return;
  }
  if (node.parent) {
    const siblings = node.parent.children as SchemaNode[];
    const j = siblings.indexOf(node);
    if (j >= 0) siblings.splice(j, 1);
  }
}

/** A node's if-features: those of the uses/augment that places it, then its own. */
export function ifFeatureArgs(stmt: Statement, inherited: readonly string[]): string[] {
  const own = findSubs(stmt, 'if-feature').map((s) => s.arg ?? '');
  return own.length === 0 ? (inherited as string[]) : [...inherited, ...own];
}

/** A node's when conditions: those of the uses/augment that places it (`inherited`), then its own. */
export function whenOf(stmt: Statement, scope: Scope, inherited: readonly SchemaXPath[] = []): SchemaXPath[] {
  const w = findSub(stmt, 'when');
  if (!w) return inherited as SchemaXPath[];
  return [...inherited, { source: w.arg ?? '', contextModule: scope.unit.record.module as never, position: w.position }];
}

/** The `must` constraints of a statement, keeping their error-message and error-app-tag. */
export function mustsOf(stmt: Statement, scope: Scope): MustConstraint[] {
  const musts = findSubs(stmt, 'must');
  if (musts.length === 0) return [];
  return musts.map((m) => ({
    xpath: { source: m.arg ?? '', contextModule: scope.unit.record.module as never, position: m.position },
    ...opt('errorMessage', subArg(m, 'error-message')),
    ...opt('errorAppTag', subArg(m, 'error-app-tag')),
    ...opt('description', subArg(m, 'description')),
  }));
}

/** min-elements / max-elements of a list or leaf-list (keeping `base` values not restated). */
export function elements(
  stmt: Statement,
  base?: { minElements: number; maxElements: number },
): { minElements: number; maxElements: number } {
  const min = subArg(stmt, 'min-elements');
  const max = subArg(stmt, 'max-elements');
  return {
    minElements: min !== undefined ? Number(min) || 0 : (base?.minElements ?? 0),
    maxElements: max !== undefined ? (max === 'unbounded' ? Infinity : Number(max) || Infinity) : (base?.maxElements ?? Infinity),
  };
}
