/**
 * `hideEmptyDataNodes=true`: leaves out what holds nothing after the other parameters have cut the
 * data: non-presence containers without children, lists without entries, leaf-lists without values.
 * A presence container stays even when empty (its existence is the data), and so does the target.
 */
import type { DataNode } from '../../data/tree';
import type { ReadTarget } from './target';

/** `target` without empty data nodes below it. */
export function hideEmptyNodes<T extends ReadTarget>(target: T): T {
  switch (target.kind) {
    case 'root': case 'container': case 'entry':
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
    if (n.kind === 'container' && n.children.length === 0 && !(n.schema.kind === 'container' && n.schema.presence !== undefined)) continue;
    if (n.kind === 'list' && n.entries.length === 0) continue;
    if (n.kind === 'leaf-list' && n.values.length === 0) continue;
    out.push(n);
  }
  return out;
}
