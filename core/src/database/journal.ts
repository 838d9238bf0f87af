/**
 * A named journal in the database (`journal_records`, `journal_snapshots` for its compacted state, and
 * its head in `journal_heads`), shared by every instance of the service, with the same contract as the
 * data folder's journal (datastore/journal.ts) for each of them: records in one order, each append
 * resolved once durable (its transaction committed), appends arriving during a commit sharing the next
 * one (group commit), a snapshot standing for every record before it, and recovery handing the newest
 * snapshot and the records after it to the owner. A gap in the positions (a row deleted by hand) is
 * refused, naming the journal and the position.
 *
 * Several instances write one journal. Their writes are serialized by the journal's head row:
 * - a write begins a transaction that locks the head (`SELECT ... FOR UPDATE`), so no other instance
 *   commits meanwhile, and hands the records others committed since this instance last looked to the
 *   owner (`onForeign`) before the owner applies its own edits on top: a change is always checked and
 *   applied on the newest data, never lost or interleaved with another instance's;
 * - the appends of that turn of the owner's write queue go into the transaction, which then inserts
 *   them, moves the head, and commits;
 * - `catchUp` (before a read) asks for the head and hands over what others committed since: a write
 *   acknowledged by any instance is read by every instance right after (read-your-writes). No query is
 *   needed while this instance holds the head, nor while its read lease runs (read-lease.ts).
 * Everything that reads or moves the head runs one at a time (`exclusive`): a record delivered twice
 * or skipped would make this instance's tree differ from the database's.
 *
 * Snapshots remove the records of the snapshot before them, not their own: an instance a snapshot
 * behind still catches up record by record. One further behind (`compacted` beyond what it has) stops
 * with `behind`, and its owner reloads from the newest snapshot.
 */
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { checkout, type TransactionClient } from './database';
import { DatabaseError, databaseErrorOf } from './database-error';
import { type AlongsideWork, writeSnapshot, writeTurn } from './journal-commit';
import { type DatabaseRecovery, missing, READ_BATCH, type RecoveryHandlers, recover } from './journal-recovery';
import { type LeaseHolder, ReadLease } from './read-lease';

export type { DatabaseRecovery } from './journal-recovery';

export interface DatabaseJournalOptions extends RecoveryHandlers {
  /** A record another instance committed, in order, after recovery. */
  onForeign?(record: Buffer, position: number): void;
  /** Called once when the records since the last snapshot pass a threshold; answered by `snapshot()`. */
  onCompactionDue?(journal: DatabaseJournal): void;
  /**
   * Told, soon after, that another instance committed to this journal (a LISTEN on `rosetta_journal`):
   * its owner catches up then, rather than at its next request, so its subscribers hear of it.
   */
  onNudge?(): void;
  /** Milliseconds of the read lease this instance holds (read-lease.ts); 0 (the default): every read asks. */
  readLeaseMs?: number;
  /** Told of each group commit: its time and records (metrics). */
  onCommitted?(seconds: number, records: number): void;
  /** Default 64 MiB. */
  compactAfterBytes?: number;
  /** Default 100,000. */
  compactAfterRecords?: number;
  /** Most bytes one INSERT carries; a larger single record is inserted alone. Default 4 MiB. */
  maxBatchBytes?: number;
}

interface QueuedAppend {
  readonly record: Buffer;
  resolve(): void;
  reject(error: Error): void;
}

/** A write transaction holding the journal's head: the appends it will commit. */
interface WriteTurn {
  readonly client: TransactionClient;
  readonly appends: QueuedAppend[];
  /** Statements committed with the appends (list-entries.ts rows), in order. */
  readonly alongside: AlongsideWork[];
  /** The other instances' read leases running when the head was locked: they must take the commit in. */
  readonly holders: readonly LeaseHolder[];
  /** Set once its commit is scheduled. */
  scheduled: boolean;
}

/** An open journal in the database. Open with `DatabaseJournal.open`. */
export class DatabaseJournal {
  /** The write transaction open now (this instance holds the head), if any. */
  private turn: WriteTurn | undefined;
  /** The last thing done with the head: each waits for the one before. */
  private exclusive: Promise<unknown> = Promise.resolve();
  /** A catch-up queued behind the exclusive work, which reads arriving now share. */
  private nextCatchUp: Promise<void> | undefined;
  /** The records of the journal this instance has: its own and others', all committed. */
  private known: number;
  private appended: number;
  private failure: Error | undefined;
  private bytesSinceSnapshot = 0;
  private recordsSinceSnapshot = 0;
  private batches = 0;
  private compactionAsked = false;
  private closed = false;
  /** Hears the other instances' commits and reads without a query while it runs; told apart from the others by `token`. */
  private lease!: ReadLease;
  /** The commits' waits for the readers holding a lease (`readable`). */
  private readersHave: Promise<void> = Promise.resolve();
  private readonly token = randomUUID();

  private constructor(
    private readonly pool: Pool,
    private readonly name: string,
    private readonly where: string,
    private readonly options: DatabaseJournalOptions,
    readonly recovery: DatabaseRecovery,
  ) {
    this.known = recovery.position;
    this.appended = recovery.position;
    this.recordsSinceSnapshot = recovery.recordsReplayed;
  }

  /** Recovers the journal `name` through the handlers. Rejects with DatabaseError `corrupt` for a gap in its records. */
  static async open(pool: Pool, name: string, where: string, options: DatabaseJournalOptions = {}): Promise<DatabaseJournal> {
    try {
      await pool.query('INSERT INTO journal_heads (journal) VALUES ($1) ON CONFLICT (journal) DO NOTHING', [name]);
      const recovery = await recover(pool, name, where, options);
      const journal = new DatabaseJournal(pool, name, where, options, recovery);
      journal.lease = new ReadLease({
        pool,
        journal: name,
        instance: journal.token,
        durationMs: options.readLeaseMs ?? 0,
        position: () => journal.known,
        catchUp: () => journal.catchUpNow().then(() => journal.known),
        ...(options.onNudge !== undefined ? { heard: options.onNudge } : {}),
      });
      return journal;
    } catch (error) {
      throw databaseErrorOf(error, `opening journal ${name}`, where);
    }
  }

  /** Records appended so far by this instance or caught up from others (durable or not). */
  get position(): number {
    return this.appended;
  }

  /**
   * The position this instance's data stands at when nothing of its own is being written (every
   * record it has is committed); undefined while a write is open or committing.
   */
  get settled(): number | undefined {
    return this.turn === undefined && this.appended === this.known ? this.known : undefined;
  }

  /** The error that stopped the journal, if one did; it refuses work until reopened. */
  get failed(): Error | undefined {
    return this.failure;
  }

  get stats(): { segmentBytes: number; segmentRecords: number; batchesWritten: number } {
    return { segmentBytes: this.bytesSinceSnapshot, segmentRecords: this.recordsSinceSnapshot, batchesWritten: this.batches };
  }

  /**
   * Makes this instance the journal's writer until the appends that follow are committed: locks the
   * head and hands what others committed meanwhile to `onForeign` first. Call it before building a
   * change, in the owner's write queue; the appends made before that queue's next turn share one
   * transaction.
   */
  async beginWrite(): Promise<void> {
    if (this.turn !== undefined && !this.turn.scheduled) return;
    let holders: LeaseHolder[] = [];
    await this.run(async () => {
      if (this.turn !== undefined && !this.turn.scheduled) return;
      this.usable();
      const client = await checkout(this.pool, `writing journal ${this.name}`, this.where);
      try {
        // one round trip for all three (a durable write is a few round trips and one WAL flush: each counts)
        const results = (await client.query(
          `BEGIN; SELECT position, compacted FROM journal_heads WHERE journal = ${client.escapeLiteral(this.name)} FOR UPDATE;
           ${ReadLease.holders(this.name, this.token)}`,
        )) as unknown as [unknown, { rows: Array<{ position: string; compacted: string }> }, { rows: LeaseHolder[] }];
        await this.takeForeign(client, results[1]?.rows[0]);
        holders = results[2]?.rows ?? [];
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.done(true);
        throw databaseErrorOf(error, `writing journal ${this.name}`, this.where);
      }
      const turn: WriteTurn = { client, appends: [], alongside: [], holders, scheduled: false };
      this.turn = turn;
      // The writers queued now build their changes in this turn of the loop; then the turn ends.
      setImmediate(() => {
        turn.scheduled = true;
        void this.run(() => (turn.appends.length > 0 || turn.alongside.length > 0 ? this.commit(turn) : this.abandon(turn)));
      });
    });
  }

  /** Hands `onForeign` what others committed before this call (at once under the head or a read lease); reads share a query. */
  catchUp(): Promise<void> {
    if (this.turn !== undefined || this.lease.valid) return Promise.resolve();
    return this.catchUpNow();
  }

  /** `catchUp` with a query, whatever the lease says. */
  private catchUpNow(): Promise<void> {
    if (this.turn !== undefined) return Promise.resolve();
    this.nextCatchUp ??= this.run(async () => {
      this.nextCatchUp = undefined;
      if (this.turn !== undefined) return;
      this.usable();
      try {
        // named: each connection parses and plans it once, and every read asks it
        const { rows } = await this.pool.query<{ position: string; compacted: string }>({
          name: 'rosetta-journal-head',
          text: 'SELECT position, compacted FROM journal_heads WHERE journal = $1',
          values: [this.name],
        });
        await this.takeForeign(this.pool, rows[0]);
      } catch (error) {
        throw databaseErrorOf(error, `reading journal ${this.name}`, this.where);
      }
    });
    return this.nextCatchUp;
  }

  /**
   * Resolves once the instances reading without a query (read-lease.ts) have taken in every record this
   * one committed so far: a writer answers its client after it, so that any instance reads the write.
   */
  readable(): Promise<void> {
    return this.readersHave;
  }

  /** Adds `record` to the write begun by `beginWrite`; resolves once it is committed, rejects if it cannot be. */
  append(record: Uint8Array | string): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const turn = this.turn;
    if (turn === undefined || turn.scheduled)
      return Promise.reject(new DatabaseError('failed', `journal ${this.name}: an append outside a write (beginWrite)`));
    const bytes = typeof record === 'string' ? Buffer.from(record, 'utf8') : Buffer.from(record);
    this.appended += 1;
    this.counted(bytes.length);
    return new Promise<void>((resolve, reject) => turn.appends.push({ record: bytes, resolve, reject }));
  }

  /**
   * Runs `run` (statements, or SQL text the commit's one statement carries) in the transaction of the
   * write begun by `beginWrite`, after its records are inserted and before it commits: what it writes commits with them or not at all. Resolves once committed;
   * rejects when the write fails, or at once outside a write.
   */
  alongside(run: ((client: PoolClient) => Promise<void>) | string): Promise<void> {
    const turn = this.turn;
    if (turn === undefined || turn.scheduled)
      return Promise.reject(new DatabaseError('failed', `journal ${this.name}: rows written outside a write (beginWrite)`));
    return new Promise<void>((resolve, reject) => turn.alongside.push({ run, resolve, reject }));
  }

  /** For the tables kept beside the journal (list-entries.ts). */
  get table(): { readonly pool: Pool; readonly journal: string; readonly where: string } {
    return { pool: this.pool, journal: this.name, where: this.where };
  }

  /**
   * Stores `state` as standing for every record this instance has, when no other instance has
   * written since (else it is left for a later compaction: `state` would miss their records), and
   * removes the records and snapshots older than the previous snapshot. Call it with the state of
   * exactly the records appended (inside the owner's write queue).
   */
  async snapshot(state: Uint8Array | string): Promise<void> {
    const bytes = typeof state === 'string' ? Buffer.from(state, 'utf8') : Buffer.from(state);
    this.compactionAsked = false;
    // the appends the state holds are committed first: their commit is queued when their turn ends
    if (this.turn !== undefined) await new Promise((resolve) => setImmediate(resolve));
    await this.run(async () => {
      this.usable();
      const position = this.known;
      if (position !== this.appended) return;
      const client = await checkout(this.pool, `snapshot of journal ${this.name}`, this.where);
      try {
        if (!(await writeSnapshot(client, this.name, position, bytes))) return;
        this.bytesSinceSnapshot = 0;
        this.recordsSinceSnapshot = 0;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw databaseErrorOf(error, `snapshot of journal ${this.name}`, this.where);
      } finally {
        client.done();
      }
    });
  }

  /** Commits what is appended, then lets go of the journal. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // the last turn's commit is queued once its appends are in: let it be, then wait for it
    if (this.turn !== undefined) await new Promise((resolve) => setImmediate(resolve));
    await this.exclusive.catch(() => undefined);
    await this.lease.close();
  }

  /** Ends a turn in which no change was appended (every writer's check refused it): lets go of the head. */
  private async abandon(turn: WriteTurn): Promise<void> {
    await turn.client.query('ROLLBACK').catch(() => undefined);
    turn.client.done();
    this.turn = undefined;
  }

  /** Runs `work` after everything queued before it that reads or moves the head. */
  private run<T>(work: () => Promise<T>): Promise<T> {
    const done = this.exclusive.then(work);
    this.exclusive = done.catch(() => undefined);
    return done;
  }

  private usable(): void {
    if (this.failure !== undefined) throw this.failure;
    if (this.closed) throw new DatabaseError('failed', `journal ${this.name} is closed`);
  }

  /** Hands the records between what this instance has and `head` to `onForeign` (inside `run`). */
  private async takeForeign(db: Pool | PoolClient, head: { position: string; compacted: string } | undefined): Promise<void> {
    if (head === undefined)
      throw new DatabaseError('corrupt', `journal ${this.name} has no head row in journal_heads: restore the database from a backup`);
    const last = Number(head.position);
    if (last <= this.known) return;
    if (Number(head.compacted) > this.known) {
      this.failure = new DatabaseError(
        'behind',
        `journal ${this.name}: other instances compacted records ${this.known + 1} to ${head.compacted} before this one read them; reloading`,
      );
      throw this.failure;
    }
    while (this.known < last) {
      const { rows } = await db.query<{ position: string; record: Buffer }>(
        'SELECT position, record FROM journal_records WHERE journal = $1 AND position > $2 AND position <= $3 ORDER BY position LIMIT $4',
        [this.name, this.known, last, READ_BATCH],
      );
      if (rows.length === 0) throw missing(this.name, this.known + 1, last);
      for (const row of rows) {
        const at = Number(row.position);
        if (at !== this.known + 1) throw missing(this.name, this.known + 1, at);
        try {
          this.options.onForeign?.(row.record, at);
        } catch (error) {
          // the owner's tree no longer matches the journal: it must reload
          this.failure = databaseErrorOf(error, `journal ${this.name}: applying record ${at} of another instance`, this.where);
          throw this.failure;
        }
        this.known = at;
        this.appended = at;
        this.counted(row.record.length);
      }
    }
  }

  /** Inserts the turn's appends, moves the head, commits (inside `run`). */
  private async commit(turn: WriteTurn): Promise<void> {
    const { client, appends } = turn;
    const [first, last, started] = [this.known + 1, this.known + appends.length, performance.now()];
    const behind = turn.holders;
    try {
      const after = behind.length > 0 ? this.lease.announcement() : '';
      await writeTurn(client, this.name, first, appends, turn.alongside, after, this.options.maxBatchBytes);
    } catch (error) {
      // Whether a failed COMMIT took effect is unknown: the owner reloads from the database.
      this.failure ??= databaseErrorOf(error, `writing journal ${this.name}`, this.where);
      await client.query('ROLLBACK').catch(() => undefined);
      client.done(true);
      this.turn = undefined;
      for (const a of [...appends, ...turn.alongside]) a.reject(this.failure);
      return;
    }
    client.done();
    this.turn = undefined;
    this.known = last;
    this.batches += 1;
    this.options.onCommitted?.((performance.now() - started) / 1000, appends.length);
    for (const a of [...appends, ...turn.alongside]) a.resolve();
    if (behind.length === 0) this.lease.announce();
    else {
      // told already (the NOTIFY after COMMIT); waited for outside the head's work
      const settled = this.lease.settle(last, behind).catch((error: unknown) => {
        throw databaseErrorOf(error, `journal ${this.name}: record ${last} is committed, not known read by all`, this.where);
      });
      const chain = Promise.all([this.readersHave.catch(() => undefined), settled]).then(() => undefined);
      chain.catch(() => undefined); // heard by the writers awaiting `readable`, if any: never unhandled
      this.readersHave = chain;
    }
    this.askCompaction();
  }

  private counted(bytes: number): void {
    this.bytesSinceSnapshot += bytes;
    this.recordsSinceSnapshot += 1;
  }

  private askCompaction(): void {
    if (this.compactionAsked) return;
    const bytes = this.options.compactAfterBytes ?? 64 << 20;
    const records = this.options.compactAfterRecords ?? 100_000;
    if (this.bytesSinceSnapshot < bytes && this.recordsSinceSnapshot < records) return;
    this.compactionAsked = true;
    this.options.onCompactionDue?.(this);
  }
}
