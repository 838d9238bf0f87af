/**
 * The contract between the RESTCONF layer and the datastores: a datastore hands out immutable
 * versions of its tree and applies edits atomically, serialized with other writers, durably for the
 * Config datastore (the promise resolves only once the change is on disk). The implementation lives
 * beside this file; restconf/ and mount/ depend on this contract only.
 */
import type { DataRoot, ListEntryNode, ListNode } from '../data/tree';
import type { Edit, PathStep } from '../data/edit';
import { instancePath } from '../data/path';
import { dataParent, type SchemaContext, type SchemaNode } from '../yang/schema';

export type DatastoreName = 'config' | 'operational';

/** What the caller of `apply` already computed for a write, so that the datastore need not redo it. */
export interface PreparedWrite {
  /**
   * The edits applied to one version of the tree (the RESTCONF commit computes it for the
   * `data.beforeWrite` taps), used instead of applying them again when `base` is still the version
   * the write builds on.
   */
  readonly tree?: { readonly base: DataRoot; readonly next: DataRoot };
  /** For a write of one edit: the text its value was decoded from (a PUT body). */
  readonly source?: ValueSource;
  /**
   * SQL committed with the change, in its transaction, when the datastore is in a database (its
   * data-change events: database/cluster-events.ts); `taken` is told when the datastore includes it
   * (not for a change that stores nothing, nor in a data folder).
   */
  readonly committedWith?: { readonly sql: string; taken(): void };
}

/**
 * RFC 7951 JSON text that `decodeJson(json, schema, { parent, parentPath })` (the parent of the edit's
 * target, as {@link valueDecodeScope} gives it) turns into exactly the edit's value: the
 * document's one top-level node (the whole root for the datastore root). The Config datastore's
 * journal may keep this text instead of encoding the value again (a 100,000-entry PUT would spend
 * about a fifth of its time there), when it has the same schema and nothing in the value is sealed.
 */
export interface ValueSource {
  readonly json: string;
  readonly schema: SchemaContext;
}

/**
 * The scope a value at `target` is decoded in: the data parent of the target's node (none for the
 * datastore root or a top-level node). The RESTCONF write handlers decode request bodies in this
 * scope, and the Config datastore's replay decodes a kept `ValueSource` text in it again.
 */
export function valueDecodeScope(target: readonly PathStep[]): { parent?: SchemaNode; parentPath: string } {
  if (target.length === 0) return { parentPath: '' };
  const parentSteps = target.slice(0, -1);
  const parent = dataParent(target[target.length - 1]!.schema) ?? parentSteps[parentSteps.length - 1]?.schema;
  const parentPath = parentSteps.length > 0 ? instancePath(parentSteps) : '';
  return parent === undefined ? { parentPath } : { parent, parentPath };
}

export interface Datastore {
  readonly name: DatastoreName;
  /**
   * The current version of the tree. It is never changed afterwards: a reader may keep it for as long
   * as it needs and sees a consistent snapshot even while a large write is applied.
   */
  current(): DataRoot;
  /**
   * Applies `edits` in order, all or nothing, after the writes queued before it. `check` runs on the
   * would-be new tree before anything is stored (validation); when it or an edit throws, nothing
   * changes and the error propagates (DataError for data faults). Resolves with the new version once
   * it is durable.
   */
  apply(edits: readonly Edit[], check?: (next: DataRoot, previous: DataRoot) => void, prepared?: PreparedWrite): Promise<DataRoot>;
  /**
   * The version the next write builds on: `current()` plus the writes applied but not yet durable
   * (absent: the same as `current()`). What a caller should prepare a write against.
   */
  newest?(): DataRoot;
  /**
   * The clear value of a leaf marked `rosetta-secret:sensitive` that `steps` name (the store keeps it
   * sealed, sensitive.ts), for the service's own use (a device login, a plugin's outgoing request),
   * never for a response. Undefined when absent, or when the store does not seal secrets.
   */
  revealSecret?(steps: readonly PathStep[]): string | undefined;
  /**
   * For a store other instances write too (the database): brings `current()` up to every write they
   * acknowledged before this call. The dispatcher calls it before each request.
   */
  catchUp?(): Promise<void>;
  /**
   * For a store kept in a database: the entries of `list` (a node of `current()`) for which the
   * SQL/JSON path `filter` holds, selected by the database (jsonb-filter over a large list);
   * undefined when it cannot answer for exactly that data, and the caller filters the list itself.
   */
  selectEntries?(list: ListNode, filter: string): Promise<ReadonlySet<ListEntryNode> | undefined>;
}

/** The two datastores of a running service. */
export interface Datastores {
  readonly config: Datastore;
  /** Written by the service itself (device status, introspection); read-only to clients (405). */
  readonly operational: Datastore;
  /** Finishes queued writes, flushes and closes the store. */
  close(): Promise<void>;
}
