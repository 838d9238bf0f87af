/**
 * `hideEmptyDataNodes=true`: leaves out what holds nothing after the other parameters have cut the
 * data: containers without children, lists without entries, leaf-lists without values, at every
 * depth (a container holding only empty containers is empty too). Attributes do not count as content:
 * a container holding only attributes is empty. Presence containers are hidden like the others (the
 * parameter asks for the data nodes that hold data, as UniConfig's does); a list entry always holds
 * its keys, so it never is empty. The target itself stays, even when empty.
 */
import type { DataNode } from '../../data/tree';
import type { ReadTarget } from './target';

/** `target` without empty data nodes below it. */
export function hideEmptyNodes<T extends ReadTarget>(target: T): T {
  switch (target.kind) {
    case 'root':
    case 'container':
    case 'entry':
      return { ...target, children: prune(target.children) };
    case 'list': {
      const { index: _dropped, ...rest } = target;
      return { ...rest, entries: target.entries.map((e) => hideEmptyNodes(e)) } as T;
    }
    default:
      return target;
  }
}

function prune(children: readonly DataNode[]): DataNode[] {
  const out: DataNode[] = [];
  for (const c of children) {
    const n = hideEmptyNodes(c);
    if (n.kind === 'container' && n.children.length === 0) continue;
    if (n.kind === 'list' && n.entries.length === 0) continue;
    if (n.kind === 'leaf-list' && n.values.length === 0) continue;
    out.push(n);
  }
  return out;
}
