/**
 * A named journal in the database (table `journal_records`, and `journal_snapshots` for its compacted
 * state), with the same contract as the data folder's journal (datastore/journal.ts): records in
 * order, each append resolved once it is durable (its transaction committed), appends arriving during a
 * commit sharing the next one (group commit: one INSERT of many rows, one WAL flush), a snapshot
 * standing for every record before it, and recovery that hands the newest snapshot and the records
 * after it to the owner. A gap in the positions (a row deleted by hand) refuses the open, naming the
 * journal and the position.
 *
 * One instance writes a journal at a time: the open takes an advisory lock on its name, held by a
 * client of its own for as long as the journal is open, and a second instance is refused naming the
 * holder. Several instances writing one journal is the next step (docs/architecture.md#persistence).
 */
import type { Pool, PoolClient } from 'pg';
import { DatabaseError, databaseErrorOf } from './database-error';
import { LOCK_KEYS } from './migrations';

/** What recovery found (the fields the data folder's journal reports too). */
export interface DatabaseRecovery {
  readonly snapshotPosition: number;
  readonly recordsReplayed: number;
  readonly position: number;
  readonly droppedBytes: 0;
}

export interface DatabaseJournalOptions {
  /** The newest snapshot's state and the records it covers. */
  onSnapshot?(state: Buffer, position: number): void | Promise<void>;
  /** One record after the snapshot, in order. */
  onRecord?(record: Buffer, position: number): void | Promise<void>;
  /** Called once when the records since the last snapshot pass a threshold; answered by `snapshot()`. */
  onCompactionDue?(journal: DatabaseJournal): void;
  /** Told of each group commit: its time and records (metrics). */
  onCommitted?(seconds: number, records: number): void;
  /** Default 64 MiB. */
  compactAfterBytes?: number;
  /** Default 100,000. */
  compactAfterRecords?: number;
  /** Most bytes one group commit carries; a larger single record is written alone. Default 4 MiB. */
  maxBatchBytes?: number;
}

interface QueuedAppend {
  readonly record: Buffer;
  resolve(): void;
  reject(error: Error): void;
}

/** Rows read per query at recovery, so a long journal is never one result in memory. */
const RECOVERY_BATCH = 1000;

/** An open journal in the database. Open with `DatabaseJournal.open`. */
export class DatabaseJournal {
  private queue: QueuedAppend[] = [];
  private committing: Promise<void> | undefined;
  private appended: number;
  private durable: number;
  private failure: Error | undefined;
  private bytesSinceSnapshot = 0;
  private recordsSinceSnapshot = 0;
  private batches = 0;
  private compactionAsked = false;
  private closed = false;

  private constructor(
    private readonly pool: Pool,
    private readonly name: string,
    private readonly where: string,
    private readonly holder: PoolClient,
    private readonly options: DatabaseJournalOptions,
    readonly recovery: DatabaseRecovery,
  ) {
    this.appended = recovery.position;
    this.durable = recovery.position;
    this.recordsSinceSnapshot = recovery.recordsReplayed;
  }

  /**
   * Takes the journal `name` (its advisory lock) and recovers it through the handlers. Rejects with
   * DatabaseError `held` when another instance has it open, `corrupt` for a gap in its records.
   */
  static async open(pool: Pool, name: string, where: string, options: DatabaseJournalOptions = {}): Promise<DatabaseJournal> {
    const doing = `opening journal ${name}`;
    let holder: PoolClient;
    try {
      holder = await pool.connect();
    } catch (error) {
      throw databaseErrorOf(error, doing, where);
    }
    // a checked-out client's broken connection is an 'error' event: unheard, it would end the process
    const beforeOpen = () => undefined;
    holder.on('error', beforeOpen);
    try {
      const { rows } = await holder.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS taken', [
        Number(LOCK_KEYS.journal & 0x7fffffffn),
        name,
      ]);
      if (rows[0]?.taken !== true) {
        const who = await holder.query<{ application_name: string; client_addr: string | null }>(
          `SELECT a.application_name, a.client_addr::text FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
           WHERE l.locktype = 'advisory' AND l.classid = $1 AND l.objid = hashtext($2)::oid AND l.granted`,
          [Number(LOCK_KEYS.journal & 0x7fffffffn), name],
        );
        const other = who.rows[0];
        throw new DatabaseError(
          'held',
          `${doing}: another instance has it open${other ? ` (${other.application_name || 'unnamed'} from ${other.client_addr ?? 'a local socket'})` : ''}; one instance writes a journal at a time`,
        );
      }
      const recovery = await recover(pool, name, options);
      const journal = new DatabaseJournal(pool, name, where, holder, options, recovery);
      // The lock lives as long as the holder's session: a session lost (the server restarted, the
      // network cut) lost the lock too, so the journal stops and the next write reopens it.
      holder.removeListener('error', beforeOpen);
      holder.on('error', (error) => {
        journal.failure ??= databaseErrorOf(error, `journal ${name} lost its database session`, where);
      });
      return journal;
    } catch (error) {
      holder.release(true);
      throw databaseErrorOf(error, doing, where);
    }
  }

  /** Records appended so far (durable or not). */
  get position(): number {
    return this.appended;
  }

  /** The last durable record's position. */
  get durablePosition(): number {
    return this.durable;
  }

  /** The error that stopped the journal, if one did; it refuses work until reopened. */
  get failed(): Error | undefined {
    return this.failure;
  }

  get stats(): { segmentBytes: number; segmentRecords: number; batchesWritten: number } {
    return { segmentBytes: this.bytesSinceSnapshot, segmentRecords: this.recordsSinceSnapshot, batchesWritten: this.batches };
  }

  /** Queues `record`; resolves once it is committed, rejects if it cannot be. */
  append(record: Uint8Array | string): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new DatabaseError('failed', `journal ${this.name} is closed`));
    const bytes = typeof record === 'string' ? Buffer.from(record, 'utf8') : Buffer.from(record);
    this.appended += 1;
    this.bytesSinceSnapshot += bytes.length;
    this.recordsSinceSnapshot += 1;
    const done = new Promise<void>((resolve, reject) => this.queue.push({ record: bytes, resolve, reject }));
    this.startCommitting();
    this.askCompaction();
    return done;
  }

  /**
   * Stores `state` as standing for every record appended so far, then removes those records and older
   * snapshots. Call it when `state` reflects exactly the records appended (inside the owner's write queue).
   */
  async snapshot(state: Uint8Array | string): Promise<void> {
    const position = this.appended;
    const bytes = typeof state === 'string' ? Buffer.from(state, 'utf8') : Buffer.from(state);
    this.bytesSinceSnapshot = 0;
    this.recordsSinceSnapshot = 0;
    this.compactionAsked = false;
    // the records it stands for are committed first, so the snapshot never covers a missing record
    while (this.committing !== undefined) await this.committing;
    if (this.failure !== undefined) throw this.failure;
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        'INSERT INTO journal_snapshots (journal, position, state) VALUES ($1, $2, $3) ON CONFLICT (journal, position) DO UPDATE SET state = EXCLUDED.state',
        [this.name, position, bytes],
      );
      await client.query('DELETE FROM journal_records WHERE journal = $1 AND position <= $2', [this.name, position]);
      await client.query('DELETE FROM journal_snapshots WHERE journal = $1 AND position < $2', [this.name, position]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw databaseErrorOf(error, `snapshot of journal ${this.name}`, this.where);
    } finally {
      client.release();
    }
  }

  /** Commits what is queued, then lets go of the journal. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.committing !== undefined) await this.committing.catch(() => undefined);
    // releasing the client with an error ends its session, and so its advisory lock
    this.holder.release(true);
  }

  private askCompaction(): void {
    if (this.compactionAsked) return;
    const bytes = this.options.compactAfterBytes ?? 64 << 20;
    const records = this.options.compactAfterRecords ?? 100_000;
    if (this.bytesSinceSnapshot < bytes && this.recordsSinceSnapshot < records) return;
    this.compactionAsked = true;
    this.options.onCompactionDue?.(this);
  }

  private startCommitting(): void {
    if (this.committing !== undefined) return;
    this.committing = this.commitLoop().finally(() => {
      this.committing = undefined;
    });
  }

  /** Commits the queue in batches, one INSERT each, until it is empty. */
  private async commitLoop(): Promise<void> {
    const maxBatch = this.options.maxBatchBytes ?? 4 << 20;
    while (this.queue.length > 0) {
      let bytes = 0;
      let count = 0;
      while (count < this.queue.length && (count === 0 || bytes + this.queue[count]!.record.length <= maxBatch)) {
        bytes += this.queue[count]!.record.length;
        count++;
      }
      const batch = this.queue.splice(0, count);
      const first = this.durable + 1;
      const started = performance.now();
      try {
        if (this.failure !== undefined) throw this.failure;
        await this.pool.query(
          'INSERT INTO journal_records (journal, position, record) SELECT $1, p, r FROM unnest($2::bigint[], $3::bytea[]) AS t(p, r)',
          [this.name, batch.map((_, i) => first + i), batch.map((a) => a.record)],
        );
      } catch (error) {
        this.failure ??= databaseErrorOf(error, `writing journal ${this.name}`, this.where);
        for (const a of [...batch, ...this.queue.splice(0)]) a.reject(this.failure);
        return;
      }
      this.durable += batch.length;
      this.batches += 1;
      this.options.onCommitted?.((performance.now() - started) / 1000, batch.length);
      for (const a of batch) a.resolve();
    }
  }
}

/** Hands the newest snapshot and the records after it to the handlers; refuses a gap. */
async function recover(pool: Pool, name: string, options: DatabaseJournalOptions): Promise<DatabaseRecovery> {
  const snap = await pool.query<{ position: string; state: Buffer }>(
    'SELECT position, state FROM journal_snapshots WHERE journal = $1 ORDER BY position DESC LIMIT 1',
    [name],
  );
  const snapshotPosition = snap.rows.length === 0 ? 0 : Number(snap.rows[0]!.position);
  if (snap.rows.length > 0) await options.onSnapshot?.(snap.rows[0]!.state, snapshotPosition);
  let position = snapshotPosition;
  for (;;) {
    const { rows } = await pool.query<{ position: string; record: Buffer }>(
      'SELECT position, record FROM journal_records WHERE journal = $1 AND position > $2 ORDER BY position LIMIT $3',
      [name, position, RECOVERY_BATCH],
    );
    for (const row of rows) {
      const at = Number(row.position);
      if (at !== position + 1)
        throw new DatabaseError(
          'corrupt',
          `journal ${name}: record ${position + 1} is missing (the next stored is ${at}); its rows in journal_records were removed by hand: restore the database from a backup`,
        );
      await options.onRecord?.(row.record, at);
      position = at;
    }
    if (rows.length < RECOVERY_BATCH) break;
  }
  return { snapshotPosition, recordsReplayed: position - snapshotPosition, position, droppedBytes: 0 };
}
