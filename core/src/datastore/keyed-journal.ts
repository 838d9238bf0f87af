/**
 * A durable map from string keys to JSON values, kept in a journal (journal.ts): each change of some
 * keys is one record, and changes arriving while an fsync runs share the next one (group commit), so
 * a thousand nodes saved at once cost a few fsyncs, not a thousand files and a thousand fsyncs. A
 * change resolves only once its record is durable. When the journal asks for compaction the whole map
 * becomes a snapshot. After an I/O error the journal stops; the next change reopens it and reloads the
 * map from what is on disk (what was acknowledged), as the Config datastore does.
 *
 * Records are `[[key, value|null], ...]` (null removes the key); a snapshot is `[[key, value], ...]`.
 *
 * With `database`, the records are a journal of that name in PostgreSQL (database/journal.ts), which
 * several instances write: a change first takes in what the others committed (`onForeign` hears each
 * of their changes), and `catchUp` takes them in on demand (and soon after each of their commits).
 */
import { type Database, DatabaseJournal } from '../database';
import { Journal, type JournalOptions } from './journal';
import type { RecordLog } from './record-log';
import { WriteQueue } from './write-queue';

/** A value the map holds: anything JSON.stringify gives back as it was (never null: null removes). */
export type KeyedValue = string | number | boolean | object;

/** One change: a key and its new value, or null to remove it. */
export type KeyedChange = readonly [key: string, value: KeyedValue | null];

/** How a keyed journal behaves (compaction thresholds, the log, injected I/O in tests; see JournalOptions). */
export type KeyedJournalOptions = Pick<JournalOptions, 'compactAfterBytes' | 'compactAfterRecords' | 'log' | 'io'> & {
  /** Keeps the map in this database, as the journal `name`, shared with the other instances. */
  readonly database?: { readonly database: Database; readonly name: string };
  /** Told of each change another instance committed, once it is in the map (database only). */
  readonly onForeign?: (changes: readonly KeyedChange[]) => void;
};

function pairsOf(text: string, where: string): KeyedChange[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed) || !parsed.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string'))
    throw new Error(`${where}: not a list of [key, value] pairs`);
  return parsed as KeyedChange[];
}

function applyTo(entries: Map<string, KeyedValue>, changes: readonly KeyedChange[]): void {
  for (const [key, value] of changes)
    if (value === null) entries.delete(key);
    else entries.set(key, value);
}

async function recover(directory: string, options: KeyedJournalOptions, onCompactionDue: () => void) {
  const entries = new Map<string, KeyedValue>();
  const handlers = {
    onSnapshot: (state: Buffer, position: number) => {
      entries.clear();
      for (const [key, value] of pairsOf(state.toString('utf8'), `snapshot at record ${position}`))
        if (value !== null) entries.set(key, value);
    },
    onRecord: (record: Buffer, position: number) => applyTo(entries, pairsOf(record.toString('utf8'), `record ${position}`)),
  };
  const shared = options.database;
  const journal: RecordLog =
    shared === undefined
      ? await Journal.open(directory, { ...pickFileOptions(options), onCompactionDue, ...handlers })
      : await DatabaseJournal.open(shared.database.pool, shared.name, shared.database.where, {
          ...handlers,
          onCompactionDue,
          onForeign: (record, position) => {
            const changes = pairsOf(record.toString('utf8'), `record ${position} of journal ${shared.name}`);
            applyTo(entries, changes);
            options.onForeign?.(changes);
          },
          onNudge: () => void journal.catchUp?.().catch(() => undefined),
          readLeaseMs: shared.database.readLeaseMs,
          ...(options.compactAfterBytes !== undefined ? { compactAfterBytes: options.compactAfterBytes } : {}),
          ...(options.compactAfterRecords !== undefined ? { compactAfterRecords: options.compactAfterRecords } : {}),
        });
  return { journal, entries };
}

function pickFileOptions(options: KeyedJournalOptions): JournalOptions {
  const { database: _database, onForeign: _onForeign, ...file } = options;
  return file;
}

export class KeyedJournal {
  private readonly writers = new WriteQueue();

  private constructor(
    private readonly directory: string,
    private readonly options: KeyedJournalOptions,
    private journal: RecordLog,
    private entries: Map<string, KeyedValue>,
  ) {}

  /** Opens (creating when absent) the journal in `directory` and reads the map it holds. */
  static async open(directory: string, options: KeyedJournalOptions = {}): Promise<KeyedJournal> {
    let store: KeyedJournal | undefined;
    const recovered = await recover(directory, options, () => store?.compact());
    store = new KeyedJournal(directory, options, recovered.journal, recovered.entries);
    return store;
  }

  /** The value of a key, as of every change made so far (acknowledged or on its way to disk). */
  get(key: string): KeyedValue | undefined {
    return this.entries.get(key);
  }

  /** Every key and value (the live map: do not change it). */
  all(): ReadonlyMap<string, KeyedValue> {
    return this.entries;
  }

  /** Applies `changes`; resolves once they are durable (rejects on an I/O error: nothing acknowledged). */
  async set(changes: readonly KeyedChange[]): Promise<void> {
    if (changes.length === 0) return;
    const { durable } = await this.writers.run(async () => {
      if (this.journal.failed) await this.reload();
      // a shared journal: the others' changes first, so this one is applied on the newest map
      if (this.journal.beginWrite !== undefined) await this.journal.beginWrite();
      const durable = this.journal.append(JSON.stringify(changes));
      applyTo(this.entries, changes);
      // wrapped: run() must not wait for the fsync, or writers could not share one
      return { durable };
    });
    await durable;
    await this.journal.readable?.();
  }

  /**
   * Takes in what other instances sharing the database committed before this call (`onForeign` hears
   * each change); nothing to do for a journal in a folder. Reloads the map when it fell too far behind.
   */
  async catchUp(): Promise<void> {
    if (this.journal.catchUp === undefined) return;
    try {
      await this.journal.catchUp();
    } catch (error) {
      if (this.journal.failed === undefined) throw error;
      await this.writers.run(() => this.reload());
    }
  }

  /** Finishes queued changes and closes the journal. */
  async close(): Promise<void> {
    await this.writers.idle();
    await this.journal.close();
  }

  private compact(): void {
    // taken in the writers' turn, so the state is exactly the records appended so far; not awaited
    // there, so writers go on appending while it is written
    void this.writers.run(() => {
      this.journal
        .snapshot(JSON.stringify([...this.entries]))
        .catch((e: unknown) => this.options.log?.(`snapshot failed: ${(e as Error).message}`));
    });
  }

  private async reload(): Promise<void> {
    await this.journal.close().catch(() => undefined);
    const recovered = await recover(this.directory, this.options, () => this.compact());
    const before = this.entries;
    this.journal = recovered.journal;
    this.entries = recovered.entries;
    // what the reload changed reaches the owner as the others' changes do
    const changes: KeyedChange[] = [];
    for (const [key, value] of recovered.entries) if (before.get(key) !== value) changes.push([key, value]);
    for (const key of before.keys()) if (!recovered.entries.has(key)) changes.push([key, null]);
    if (changes.length > 0) this.options.onForeign?.(changes);
  }
}
