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
  append(record: Uint8Array | string): Promise<void>;
  snapshot(state: Uint8Array | string): Promise<void>;
  close(): Promise<void>;
}
