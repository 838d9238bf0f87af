/**
 * The Config datastore: the data tree kept durable in a journal directory (journal.ts). Each apply()
 * appends one record holding its edits (edit-record.ts); when the journal asks for compaction, the
 * whole tree is written as a snapshot; on open, the snapshot is decoded and the records after it are
 * replayed.
 *
 * Versions: `latest` is what the next writer builds on (every appended change, durable or not) and
 * `visible` what readers get (acknowledged changes only). A writer holds the write queue while it
 * applies its edits and queues its record, not while the record is fsync'ed, so writers arriving during
 * an fsync share the next one (group commit) and still resolve only once their change is on disk.
 * After an I/O error the journal stops; the next writer reopens it and reloads the tree from disk, the
 * only state that can be trusted then.
 *
 * Data of modules the schema lacks is parked, not dropped (parked-data.ts): recovery hands it to the
 * parked set, `open` writes it to the PARKED file and then a snapshot, so that the journal no longer holds
 * it, and puts back, as one journaled change, what belongs to modules that are in the schema again.
 *
 * Why this file is longer than 400 lines: the two versions (latest and visible), the write queue, the
 * journal's callbacks and the reload after an I/O error are one state machine that must be read together;
 * the record format (edit-record.ts), parking (parked-data.ts) and durability (journal.ts) are already
 * apart.
 */
import * as path from 'node:path';
import { applyEdits, type Edit, type PathStep } from '../data/edit';
import { DataError, fault } from '../data/errors';
import { encodeJson } from '../data/json-encode';
import { emptyRoot, type DataRoot, type ListEntryNode, type ListNode } from '../data/tree';
import type { SchemaContext } from '../yang/schema';
import type { Datastore, PreparedWrite } from './datastore';
import { encodeEditRecord, type ParkedEdit } from './edit-record';
import { DatabaseError, DatabaseJournal, type Database } from '../database';
import { Journal, type JournalOptions } from './journal';
import type { RecordLog } from './record-log';
import { storedReader, type StoredReader } from './record-replay';
import { JournalError } from './journal-error';
import { LargeLists } from './large-lists';
import { isNoSpace, StorageFullError } from './storage-full';
import { WriteQueue } from './write-queue';
import { byModule, ParkedData, type Returning } from './parked-data';
import { readParkedFile, writeParkedFile } from './parked-file';
import type { SecretBox } from './secrets';
import { revealSecret, sealEdits } from './sensitive';

/** Journal settings the Config datastore passes through (recovery and compaction it handles itself). */
export type ConfigJournalOptions = Omit<JournalOptions, 'onSnapshot' | 'onRecord' | 'onCompactionDue' | 'log'>;

/** How the Config datastore is opened. */
export interface ConfigStoreOptions {
  /** Where recovery, dropped nodes and failures are reported; default stderr. */
  readonly log?: (message: string) => void;
  readonly journal?: ConfigJournalOptions;
  /**
   * Seals the values of leaves marked `rosetta-secret:sensitive` (sensitive.ts) before they are kept,
   * in the tree, the journal and snapshots. Without it such values are kept as written.
   */
  readonly secrets?: SecretBox;
  /**
   * Keeps the changes in this PostgreSQL database's journal `config` instead of the directory's
   * journal files; the directory still holds the PARKED file.
   */
  readonly database?: Database;
  /**
   * Told of each change another instance committed, once applied here, in journal order (its edits,
   * secrets sealed): the data-change events of every instance's writes reach this one's subscribers.
   */
  readonly onForeignChange?: (edits: readonly Edit[]) => void;
}

/** The name of the Config datastore's journal in the database. */
export const CONFIG_JOURNAL = 'config';

const DEFAULT_MAX_RECORD_BYTES = 512 << 20;

/**
 * A data fault for a change that could not be stored (the request is not acknowledged): StorageFullError
 * when the disk of `directory` is full, 503 when the database is unreachable (a client may retry), else
 * 500 `operation-failed` naming the cause.
 */
function storageFault(error: unknown, directory: string): DataError {
  if (isNoSpace(error)) return new StorageFullError(directory);
  if (error instanceof DatabaseError && error.code === 'unreachable')
    return new DataError(
      fault(
        'operation-failed',
        '/',
        `the database cannot take the change now, nothing of it was applied: ${error.message}; try again when it is back`,
      ),
      503,
    );
  const message = error instanceof Error ? error.message : String(error);
  return new DataError(fault('operation-failed', '/', `the change could not be stored: ${message}`));
}

/** Opens the journal in `directory` and rebuilds the tree it holds. */
async function recover(
  directory: string,
  ctx: SchemaContext,
  options: ConfigStoreOptions,
  log: (m: string) => void,
  onCompactionDue: (journal: RecordLog) => void,
  onForeign: (record: Buffer, position: number) => void,
  onNudge: () => void = () => undefined,
): Promise<Recovered> {
  let root = emptyRoot();
  // What was parked before comes first: the journal's records are newer (and may supersede it).
  const parked = new ParkedData(await readParkedFile(directory));
  const before = parked.size;
  const reader = storedReader(ctx, options.secrets, parked, log);
  const handlers = {
    onSnapshot: (state: Buffer, position: number) => {
      root = reader.snapshot(state, position);
    },
    onRecord: (record: Buffer, position: number) => {
      root = reader.record(root, record, position).root;
    },
  };
  const database = options.database;
  const journal: RecordLog =
    database === undefined
      ? await Journal.open(directory, { ...options.journal, log, onCompactionDue, ...handlers })
      : await DatabaseJournal.open(database.pool, CONFIG_JOURNAL, database.where, {
          ...handlers,
          onForeign: (record, position) => onForeign(record, position),
          ...(options.onForeignChange !== undefined ? { onNudge } : {}),
          onCompactionDue,
          readLeaseMs: database.readLeaseMs,
          ...pick(options.journal, ['compactAfterBytes', 'compactAfterRecords', 'maxBatchBytes', 'onCommitted']),
        });
  const fresh = parked.all().slice(before);
  const returning = parked.takeReturning(ctx, reader.reading, root);
  return { journal, root, parked, reader, fresh, returning };
}

/** What recovery rebuilt: the tree, the parked set, the items it parked now, and those whose modules are back. */
interface Recovered {
  readonly journal: RecordLog;
  readonly root: DataRoot;
  readonly parked: ParkedData;
  readonly reader: StoredReader;
  readonly fresh: readonly ParkedEdit[];
  readonly returning: Returning;
}

/** The members `names` of `options` that are set. */
function pick<T extends object, K extends keyof T>(options: T | undefined, names: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  if (options === undefined) return out;
  for (const name of names) if (options[name] !== undefined) out[name] = options[name];
  return out;
}

/** The journal-backed Config datastore. Open with `ConfigStore.open`. */
export class ConfigStore implements Datastore {
  readonly name = 'config' as const;
  private latest: DataRoot;
  private visible: DataRoot;
  /** Changes appended so far, and the highest one acknowledged (what `visible` shows). */
  private appended = 0;
  private acknowledged = 0;
  /** Resolves once the last appended change is durable (whether or not it succeeded). */
  private lastDurable: Promise<unknown> = Promise.resolve();
  private readonly writers = new WriteQueue();
  private closing: Promise<void> | undefined;
  /** The last write of the PARKED file (each waits for the one before, so the newest content wins). */
  private parkedWritten: Promise<void> = Promise.resolve();
  /** The rows of large lists kept beside a database journal (large-lists.ts), once their threshold is read. */
  private largeLists: LargeLists | undefined;

  private constructor(
    private journal: RecordLog,
    root: DataRoot,
    private readonly directory: string,
    private readonly ctx: SchemaContext,
    private readonly options: ConfigStoreOptions,
    private readonly log: (message: string) => void,
    private parked: ParkedData,
    private reader: StoredReader,
  ) {
    this.latest = root;
    this.visible = root;
  }

  /**
   * Opens (creating if needed) the Config datastore kept in `directory`: takes the directory's lock,
   * decodes the newest snapshot and replays the records after it. Nodes the schema no longer has are
   * dropped with a log line naming them, except those of modules it lacks, which are parked (and those
   * parked whose modules are back are put back). Rejects with JournalError `locked` when another process holds
   * the directory and `corrupt` when the files are damaged beyond a torn tail.
   */
  static async open(directory: string, ctx: SchemaContext, options: ConfigStoreOptions = {}): Promise<ConfigStore> {
    const log = options.log ?? ((message: string) => process.stderr.write(`[config datastore] ${message}\n`));
    const absolute = path.resolve(directory);
    let store: ConfigStore | undefined;
    const recovered = await recover(
      absolute,
      ctx,
      options,
      log,
      (due) => store?.compact(due),
      (record, position) => store!.absorb(record, position),
      () => void store?.catchUp().catch(() => undefined),
    );
    store = new ConfigStore(recovered.journal, recovered.root, absolute, ctx, options, log, recovered.parked, recovered.reader);
    const report = recovered.journal.recovery;
    if (report.droppedBytes > 0) log(`dropped a torn journal tail of ${report.droppedBytes} byte(s): ${report.dropReason ?? ''}`);
    try {
      await store.settleParked(recovered.fresh.length > 0, recovered.returning);
      if (recovered.journal instanceof DatabaseJournal) await store.openLargeLists(recovered.journal);
    } catch (error) {
      await store.close();
      throw error;
    }
    return store;
  }

  /** Reads the database's large-list threshold, building the lists' rows when they never were. */
  private async openLargeLists(journal: DatabaseJournal): Promise<void> {
    const { lists, unbuilt } = await LargeLists.open(journal, this.options.database?.largeListEntries, this.log);
    if (unbuilt) {
      const { built } = await this.writers.run(async () => {
        await this.beginWrite();
        return { built: lists.build(this.journal as DatabaseJournal, this.latest) };
      });
      await built;
    }
    this.largeLists = lists;
  }

  /**
   * The entries of `list` (in `current()`) for which the SQL/JSON path `filter` holds, selected by the
   * database from the large lists' rows; undefined when it cannot answer for exactly this data (no
   * database, a small or nested list, a write under way): the caller filters the list itself then.
   */
  async selectEntries(list: ListNode, filter: string): Promise<ReadonlySet<ListEntryNode> | undefined> {
    const journal = this.journal;
    if (this.largeLists === undefined || !(journal instanceof DatabaseJournal)) return undefined;
    const settled = journal.settled;
    if (settled === undefined || this.latest !== this.visible) return undefined;
    return this.largeLists.select(journal, this.visible, settled, list, filter);
  }

  /**
   * After recovery: puts back what returned (one journaled change), then writes the PARKED file, then,
   * when the journal held data now parked, a snapshot without it, in that order, so that a crash between
   * two steps leaves the data in both places, never in neither.
   */
  private async settleParked(parkedNow: boolean, returning: Returning): Promise<void> {
    const { edits, gone, misfits } = returning;
    if (parkedNow) this.log(`parked data of modules absent from the schema: ${byModule(this.parked.all())}; kept until they return`);
    if (misfits.length > 0)
      this.log(`parked data that does not fit the schema its modules came back with stays parked: ${byModule(misfits)}`);
    if (gone.length > 0) this.log(`dropped parked data whose node was deleted meanwhile: ${byModule(gone)}`);
    if (edits.length > 0) {
      await this.restore(edits.map((e) => e.edit));
      this.log(`put back parked data of modules back in the schema: ${byModule(edits.map((e) => e.item))}`);
    }
    if (!parkedNow && edits.length === 0 && gone.length === 0) return;
    await writeParkedFile(this.directory, this.parked.all());
    // a shared journal keeps the data this instance parks for the instances that have its modules
    if (parkedNow && !this.shared) await this.writers.run(() => this.journal.snapshot(encodeJson(this.latest)));
  }

  /** Whether the journal is the database's, which other instances read too. */
  private get shared(): boolean {
    return this.journal instanceof DatabaseJournal;
  }

  /** Applies put-back edits together, or one by one (logging how many failed) when together they fail. */
  private async restore(edits: readonly Edit[]): Promise<void> {
    try {
      await this.apply(edits);
      return;
    } catch (error) {
      if (!(error instanceof DataError)) throw error;
    }
    let failed = 0;
    for (const edit of edits) {
      try {
        await this.apply([edit]);
      } catch (error) {
        if (!(error instanceof DataError)) throw error;
        failed++;
      }
    }
    this.log(`${failed} of ${edits.length} parked edit(s) did not apply to the data as it is now, and were dropped`);
  }

  /** Makes the parked set durable after `apply` changed it; written in turn, the newest content last. */
  private persistParked(): void {
    const items = this.parked.all();
    this.parkedWritten = this.parkedWritten.then(() =>
      writeParkedFile(this.directory, items).catch((error: Error) => this.log(`writing the parked data failed: ${error.message}`)),
    );
  }

  current(): DataRoot {
    return this.visible;
  }

  newest(): DataRoot {
    return this.latest;
  }

  async apply(edits: readonly Edit[], check?: (next: DataRoot, previous: DataRoot) => void, prepared?: PreparedWrite): Promise<DataRoot> {
    const { next, sequence, durable } = await this.writers.run(async () => {
      if (this.closing) throw storageFault(new JournalError('closed', 'the datastore is closed'), this.directory);
      if (this.journal.failed) await this.reload();
      if (this.journal.beginWrite !== undefined) await this.beginWrite();
      const previous = this.latest;
      const box = this.options.secrets;
      const stored = box === undefined ? edits : sealEdits(edits, box);
      // Applying edits is pure (copy-on-write): the caller's result on this very version, with nothing
      // sealed, is the same tree.
      const tree = prepared?.tree;
      const next = tree !== undefined && tree.base === previous && stored === edits ? tree.next : applyEdits(previous, stored, this.ctx);
      check?.(next, previous);
      if (next === previous) {
        // Nothing to store; what it returns may still hold earlier writers' changes: wait for them.
        return { next, sequence: this.appended, durable: this.lastDurable };
      }
      // The body text the value came from, when decoding it here gives the value back (same schema) and
      // keeping it keeps no secret in the clear (nothing was sealed).
      const source = prepared?.source;
      const record = encodeEditRecord(
        stored,
        source !== undefined && source.schema === this.ctx && stored === edits ? source.json : undefined,
      );
      const limit = this.options.journal?.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
      const bytes = Buffer.byteLength(record);
      if (bytes > limit)
        throw new DataError(fault('too-big', '/', `the change needs ${bytes} bytes of journal, more than the ${limit}-byte limit`));
      if (this.parked.size > 0) {
        // Parked data goes with the node it hangs from (a deleted node's settings do not come back).
        const gone = stored.flatMap((edit) => this.parked.supersede(edit));
        if (gone.length > 0) {
          this.log(`dropped parked data with the data it belonged to: ${byModule(gone)}`);
          this.persistParked();
        }
      }
      const durable = this.journal.append(record);
      if (prepared?.committedWith !== undefined && this.journal instanceof DatabaseJournal) {
        this.journal.alongside(prepared.committedWith.sql).catch(() => undefined); // its outcome is the append's
        prepared.committedWith.taken();
      }
      if (this.largeLists !== undefined && this.journal instanceof DatabaseJournal)
        this.largeLists.changed(this.journal, previous, next, stored);
      this.latest = next;
      this.appended += 1;
      this.lastDurable = durable.catch(() => undefined);
      // Wrapped in an object: run() must not wait for the fsync, or writers could not share one.
      return { next, sequence: this.appended, durable };
    });
    try {
      await durable;
    } catch (error) {
      throw storageFault(error, this.directory);
    }
    // Acknowledgements arrive in append order, but continuations of one group commit may interleave.
    if (sequence > this.acknowledged) {
      this.acknowledged = sequence;
      this.visible = next;
    }
    try {
      await this.journal.readable?.();
    } catch (error) {
      throw storageFault(error, this.directory);
    }
    return next;
  }

  /**
   * The clear value of the sensitive leaf that `steps` name in the current tree: for the parts of the
   * service that must use it (a southbound login, a plugin's outgoing request), never for a response.
   * Undefined when the leaf is absent or not sensitive, or no key was given to the store.
   */
  revealSecret(steps: readonly PathStep[]): string | undefined {
    return this.options.secrets === undefined ? undefined : revealSecret(this.visible, steps, this.options.secrets);
  }

  /** Finishes queued writes, then closes the journal. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.writers.idle();
      await this.lastDurable;
      await this.parkedWritten;
      await this.journal.close();
    })();
    return this.closing;
  }

  /** The parked items (data of modules the schema lacks), in stored order. */
  parkedItems(): readonly ParkedEdit[] {
    return this.parked.all();
  }

  /**
   * Stores `tree` as the whole content in one snapshot (written aside, fsync'ed and renamed, so a crash
   * leaves the old content or the new one), superseding the journal before it, and, when given,
   * `parked` as the parked items, written durably before the snapshot. For a tool that has the
   * directory to itself (`rosetta secrets rotate-key`, which documents why that order); its values are
   * kept as given, sealed ones included.
   */
  rewrite(tree: DataRoot, parked?: readonly ParkedEdit[]): Promise<void> {
    return this.writers.run(async () => {
      if (this.closing) throw storageFault(new JournalError('closed', 'the datastore is closed'), this.directory);
      await this.lastDurable;
      if (parked !== undefined) {
        await this.parkedWritten;
        await writeParkedFile(this.directory, parked);
        this.parked = new ParkedData(parked);
      }
      await this.journal.snapshot(encodeJson(tree));
      this.latest = tree;
      this.visible = tree;
    });
  }

  /** Journal statistics (segment size since the last snapshot, group commits written). */
  get stats(): RecordLog['stats'] {
    return this.journal.stats;
  }

  /** Snapshot of the tree as of every appended record: taken inside the write queue so they match. */
  private compact(journal: RecordLog): void {
    void this.writers.run(async () => {
      // The journal's delete records supersede parked data on replay: once they are compacted away, the
      // PARKED file must already say the same.
      await this.parkedWritten;
      if (journal !== this.journal || journal.failed) return;
      if (this.shared && this.parked.size > 0) {
        // a snapshot of this tree would drop the parked data for every instance: left to one that has its modules
        this.log(
          `no snapshot from this instance: it parks data of ${byModule(this.parked.all())}, which a snapshot of its tree would drop for the others`,
        );
        return;
      }
      const started = Date.now();
      journal.snapshot(encodeJson(this.latest)).then(
        () => this.log(`snapshot written (${Date.now() - started} ms)`),
        (error: Error) => this.log(`snapshot failed: ${error.message}`),
      );
    });
  }

  /**
   * Brings `current()` up to the writes other instances sharing the database acknowledged before this
   * call (read-your-writes across instances); nothing to do for a journal in the data folder. Rejects
   * with a 503 DataError while the database cannot be reached.
   */
  async catchUp(): Promise<void> {
    const journal = this.journal;
    if (journal.catchUp === undefined || this.closing) return;
    try {
      if (journal.failed === undefined) await journal.catchUp();
      if (journal.failed === undefined) return;
    } catch (error) {
      if (journal.failed === undefined) throw storageFault(error, this.directory);
    }
    await this.writers.run(async () => {
      if (this.journal.failed) await this.reload();
    });
  }

  /** Takes the journal's head for a write (the database's), reloading first when it must. Inside the write queue. */
  private async beginWrite(): Promise<void> {
    try {
      await this.journal.beginWrite!();
      return;
    } catch (error) {
      if (this.journal.failed === undefined) throw storageFault(error, this.directory);
    }
    await this.reload();
    try {
      await this.journal.beginWrite!();
    } catch (error) {
      throw storageFault(error, this.directory);
    }
  }

  /**
   * A change another instance committed (the database's journal hands them over in order, only while
   * every change of this instance is settled): applied to both versions.
   */
  private absorb(record: Buffer, position: number): void {
    if (this.acknowledged !== this.appended)
      throw new Error(`record ${position} of another instance arrived before this one's changes settled`);
    const parked = this.parked.size;
    const { root, edits } = this.reader.record(this.latest, record, position);
    this.latest = root;
    this.visible = root;
    this.appended += 1;
    this.acknowledged = this.appended;
    if (this.parked.size !== parked) this.persistParked();
    this.options.onForeignChange?.(edits);
  }

  /** After an I/O error: reopen the journal and take the tree from disk (run inside the write queue). */
  private async reload(): Promise<void> {
    this.log(`reopening ${this.directory} after: ${this.journal.failed?.message ?? 'an I/O error'}`);
    await this.journal.close().catch(() => undefined);
    let opened: Recovered;
    try {
      opened = await recover(
        this.directory,
        this.ctx,
        this.options,
        this.log,
        (due) => this.compact(due),
        (record, position) => this.absorb(record, position),
        () => void this.catchUp().catch(() => undefined),
      );
    } catch (error) {
      throw storageFault(error, this.directory);
    }
    this.journal = opened.journal;
    this.parked = opened.parked;
    this.reader = opened.reader;
    this.latest = opened.root;
    this.visible = opened.root;
    this.acknowledged = this.appended;
  }
}
