/**
 * What a `data-change` event says about one committed change: the datastore, the node when there is
 * one, the user when authentication is on, and YANG-Patch-like edits (operation, target as a RESTCONF
 * data path, the new value in RFC 7951 JSON, none for a delete). Two sources give the edits:
 * - a client's write to the Config datastore: the request's own edits, as it sent them (a PATCH stays
 *   a merge of what it sent, not a list of what the merge changed);
 * - a uniconfig node's configuration: the difference between the stored trees before and after, since
 *   a transaction's writes or a commit's push are only known as their result.
 *
 * Each edit keeps its target as an instance path value too, which the subscriptions' path filter reads
 * (change-scope.ts) without parsing the text again.
 */
import type { Change } from '../data/diff';
import type { Edit } from '../data/edit';
import { toJsonValue } from '../data/json-encode';
import { instancePathOf } from '../data/path';
import type { DataNode, DataRoot, LeafListNode } from '../data/tree';
import type { JsonObject, JsonValue } from '../hooks';
import { type InstancePath, renderInstancePath } from '../yang/instance-path';

/** The member an event's content is under. */
export const DATA_CHANGE_MEMBER = 'rosetta-events:data-change';

/** Which configuration changed. */
export type ChangeDatastore = 'config' | 'uniconfig-intended' | 'uniconfig-actual';

export type ChangeOperation = 'create' | 'replace' | 'merge' | 'delete';

/** One edit of a change. */
export interface ChangeEdit {
  readonly operation: ChangeOperation;
  /** The target, from the datastore's (or the node configuration's) top. */
  readonly path: InstancePath;
  /** The new value as RFC 7951 JSON (`{"module:name": ...}`); absent for a delete. */
  readonly value?: JsonObject;
}

/** One committed change: what the event is made of. */
export interface DataChange {
  readonly datastore: ChangeDatastore;
  readonly topologyId?: string;
  readonly nodeId?: string;
  readonly user?: string;
  readonly edits: readonly ChangeEdit[];
}

function jsonOf(value: DataNode | DataRoot): JsonObject {
  return toJsonValue(value, { attributes: false }) as JsonObject;
}

/** A client's edits as change edits (`remove` is a delete that did not insist on the data being there). */
export function editsOfRequest(edits: readonly Edit[]): ChangeEdit[] {
  return edits.map((e) => {
    const path = instancePathOf(e.target);
    if (e.operation === 'delete' || e.operation === 'remove') return { operation: 'delete', path };
    return { operation: e.operation, path, ...(e.value !== undefined ? { value: jsonOf(e.value) } : {}) };
  });
}

/** The value a created or updated leaf-list value is written as: the leaf-list holding that one value. */
function leafListValue(change: Change): JsonObject {
  const node: LeafListNode = { kind: 'leaf-list', schema: change.schema as LeafListNode['schema'], values: [change.newValue!] };
  return jsonOf(node);
}

/**
 * A tree difference (data/diff.ts) as change edits: created is `create`, updated and reordered are
 * `replace` with the node now, deleted is `delete`.
 */
export function editsOfDiff(changes: readonly Change[]): ChangeEdit[] {
  return changes.map((c) => {
    if (c.type === 'deleted') return { operation: 'delete', path: c.pathValue };
    const value = c.newNode !== undefined ? jsonOf(c.newNode) : leafListValue(c);
    return { operation: c.type === 'created' ? 'create' : 'replace', path: c.pathValue, value };
  });
}

/** The RESTCONF data path of an edit's target (`/` for the whole datastore). */
export function targetText(path: InstancePath): string {
  return path.length === 0 ? '/' : renderInstancePath(path, { kind: 'uri' });
}

/** The event content: `{"rosetta-events:data-change": {...}}` with edits numbered from 1. */
export function dataChangeContent(change: DataChange, edits: readonly ChangeEdit[] = change.edits): JsonObject {
  const body: { [member: string]: JsonValue } = { datastore: change.datastore };
  if (change.topologyId !== undefined) body['topology-id'] = change.topologyId;
  if (change.nodeId !== undefined) body['node-id'] = change.nodeId;
  if (change.user !== undefined) body['user'] = change.user;
  body['edit'] = edits.map((e, i) => {
    const edit: { [member: string]: JsonValue } = { 'edit-id': String(i + 1), operation: e.operation, target: targetText(e.path) };
    if (e.value !== undefined) edit['value'] = e.value;
    return edit;
  });
  return { [DATA_CHANGE_MEMBER]: body };
}
