/**
 * The contract between the RESTCONF layer and the datastores: a datastore hands out immutable
 * versions of its tree and applies edits atomically, serialized with other writers, durably for the
 * Config datastore (the promise resolves only once the change is on disk). The implementation lives
 * beside this file; restconf/ and mount/ depend on this contract only.
 */
import type { DataRoot } from '../data/tree';
import type { Edit, PathStep } from '../data/edit';

export type DatastoreName = 'config' | 'operational';

/**
 * The result of applying a write's edits to one version of the tree, computed by the caller (the
 * RESTCONF commit computes it for the `data.beforeWrite` taps). The datastore uses it instead of
 * applying the edits again when `base` is still the version the write builds on.
 */
export interface PreparedWrite {
  readonly base: DataRoot;
  readonly next: DataRoot;
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
}

/** The two datastores of a running service. */
export interface Datastores {
  readonly config: Datastore;
  /** Written by the service itself (device status, introspection); read-only to clients (405). */
  readonly operational: Datastore;
  /** Finishes queued writes, flushes and closes the store. */
  close(): Promise<void>;
}
