/**
 * `calculate-diff` output for one node: the changes from the actual to the intended configuration
 * (data/diff.ts), grouped as created, updated (actual and intended data), deleted and reordered lists,
 * each with its instance path under `configuration` and the data as RFC 7951 JSON text.
 */
import type { Change } from '../data/diff';
import { entryKey } from '../data/list';
import { toJsonValue } from '../data/json-encode';
import type { DataNode, LeafValue, ListNode, LeafListNode } from '../data/tree';
import type { JsonObject, JsonValue } from '../hooks';

function dataText(node: DataNode | undefined, value: LeafValue | undefined, change: Change): string {
  if (node !== undefined) return JSON.stringify(toJsonValue(node, { attributes: false }));
  // a leaf-list value: the value under its leaf-list's name
  const member = `${change.schema.module.name}:${change.schema.name}`;
  return JSON.stringify({ [member]: [typeof value === 'bigint' ? value.toString() : value ?? null] });
}

function orderText(node: DataNode | undefined): string {
  if (node?.kind === 'list') return JSON.stringify((node as ListNode).entries.map(entryKey));
  if (node?.kind === 'leaf-list') return JSON.stringify((node as LeafListNode).values.map((v) => (typeof v === 'bigint' ? v.toString() : v)));
  return '[]';
}

/**
 * The node-result members for `changes`. Two changes at one path (a leaf-list value deleted and
 * created again elsewhere) keep the first: paths are the lists' keys.
 */
export function diffResult(changes: readonly Change[]): JsonObject {
  const created: JsonObject[] = [];
  const updated: JsonObject[] = [];
  const deleted: JsonObject[] = [];
  const reordered: JsonObject[] = [];
  const seen = { created: new Set<string>(), updated: new Set<string>(), deleted: new Set<string>(), reordered: new Set<string>() };
  for (const c of changes) {
    if (seen[c.type].has(c.path)) continue;
    seen[c.type].add(c.path);
    switch (c.type) {
      case 'created': created.push({ path: c.path, data: dataText(c.newNode, c.newValue, c) }); break;
      case 'deleted': deleted.push({ path: c.path, data: dataText(c.oldNode, c.oldValue, c) }); break;
      case 'updated': updated.push({ path: c.path, 'data-actual': dataText(c.oldNode, c.oldValue, c), 'data-intended': dataText(c.newNode, c.newValue, c) }); break;
      case 'reordered': reordered.push({ path: c.path, 'actual-list-keys': orderText(c.oldNode), 'intended-list-keys': orderText(c.newNode) }); break;
    }
  }
  const out: { [member: string]: JsonValue } = {};
  if (created.length > 0) out['created-data'] = created;
  if (updated.length > 0) out['updated-data'] = updated;
  if (deleted.length > 0) out['deleted-data'] = deleted;
  if (reordered.length > 0) out['reordered-lists'] = reordered;
  return out;
}
