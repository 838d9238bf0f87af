/**
 * What the Config datastore needs of the log its changes are kept in: the data folder's journal
 * (journal.ts) or a journal in the shared PostgreSQL database (database/journal.ts). Both append records
 * in order, each resolved once durable, stand a snapshot for the records before it, and stop after a
 * failure until reopened.
 */
export interface RecordLog {
  /** What the open found: the snapshot's position, records replayed, the next position, bytes cut. */
  readonly recovery: {
    readonly snapshotPosition: number;
    readonly recordsReplayed: number;
    readonly position: number;
    readonly droppedBytes: number;
    readonly dropReason?: string;
  };
  /** The error that stopped the log, if one did. */
  readonly failed: Error | undefined;
  /** Size since the last snapshot, and group commits written. */
  readonly stats: { segmentBytes: number; segmentRecords: number; batchesWritten: number };
  /**
   * For a log several instances write (the database's): takes the log for this instance's next
   * appends, after handing over what the others wrote meanwhile. Called before building a change.
   */
  beginWrite?(): Promise<void>;
  /** For a log several instances write: hands over what the others wrote before this call. */
  catchUp?(): Promise<void>;
  /**
   * For a log several instances read: resolves once every instance reading without asking the log
   * (its read lease) has what this one committed so far. A writer awaits it before it answers.
   */
  readable?(): Promise<void>;
  append(record: Uint8Array | string): Promise<void>;
  snapshot(state: Uint8Array | string): Promise<void>;
  close(): Promise<void>;
}
