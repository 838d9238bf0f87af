/**
 * The Config datastore's side of its large lists' rows in the database (list-rows.ts says what they
 * hold, database/list-entries.ts keeps them): writing each change's rows in its journal write, and
 * answering a jsonb-filter from them when they describe exactly the tree a request reads.
 *
 * The threshold is the database's (journal_heads.large_lists), so every instance writes the same rows:
 * the first instance records its `database.largeListEntries`; one configured otherwise says so in its
 * log and follows the database.
 */
import type { Edit } from '../data/edit';
import { DataError, fault } from '../data/errors';
import { listIndex } from '../data/list';
import type { DataRoot, ListEntryNode, ListNode } from '../data/tree';
import {
  DatabaseError,
  type DatabaseJournal,
  largeListThreshold,
  type ListRowChange,
  recordLargeListThreshold,
  selectListEntries,
  writeListRows,
} from '../database';
import { allRows, DEFAULT_LARGE_LIST_ENTRIES, listName, rowChanges, topListChain, topListIn } from './list-rows';

/**
 * Rows one write changes from which the table's statistics are renewed after it commits: PostgreSQL's
 * planner picks the GIN index for an equality only once it knows the table is large (autovacuum's own
 * ANALYZE may come a minute later).
 */
const ANALYZE_AFTER_ROWS = 5000;

export class LargeLists {
  private analyzing = false;

  private constructor(readonly threshold: number) {}

  /**
   * The threshold `journal`'s rows were built with; `build` is handed the work of building them (for
   * `configured` entries) when they never were, to run in a write of its own.
   */
  static async open(
    journal: DatabaseJournal,
    configured: number | undefined,
    log: (message: string) => void,
  ): Promise<{ lists: LargeLists; unbuilt: boolean }> {
    const { pool, journal: name } = journal.table;
    const recorded = await largeListThreshold(pool, name);
    const wanted = configured ?? DEFAULT_LARGE_LIST_ENTRIES;
    if (recorded !== undefined && configured !== undefined && recorded !== configured)
      log(`database.largeListEntries is ${configured}, but the database's lists are kept from ${recorded} entries: using ${recorded}`);
    return { lists: new LargeLists(recorded ?? wanted), unbuilt: recorded === undefined };
  }

  /** Builds the rows of every large list of `root` in the write `journal` holds now; resolves once committed. */
  build(journal: DatabaseJournal, root: DataRoot): Promise<void> {
    const { journal: name } = journal.table;
    const changes = allRows(root, this.threshold);
    const committed = journal.alongside(async (client) => {
      await recordLargeListThreshold(client, name, this.threshold);
      await writeListRows(client, name, changes);
    });
    this.analyzeAfter(journal, committed, changes);
    return committed;
  }

  /** Queues the rows `edits` change (from `previous` to `next`) into the write `journal` holds now. */
  changed(journal: DatabaseJournal, previous: DataRoot, next: DataRoot, edits: readonly Edit[]): void {
    const changes = rowChanges(previous, next, edits, this.threshold);
    if (changes.length === 0) return;
    const { journal: name } = journal.table;
    // the append of the same write reports a failure; this promise only mirrors it
    const committed = journal.alongside((client) => writeListRows(client, name, changes));
    committed.catch(() => undefined);
    this.analyzeAfter(journal, committed, changes);
  }

  /** Renews the table's statistics once `committed` is, when `changes` rewrote many rows (one ANALYZE at a time). */
  private analyzeAfter(journal: DatabaseJournal, committed: Promise<void>, changes: readonly ListRowChange[]): void {
    let rows = 0;
    for (const c of changes) rows += c.upserts.length + c.deletes.length;
    if (rows < ANALYZE_AFTER_ROWS) return;
    void committed.then(
      () => {
        if (this.analyzing) return;
        this.analyzing = true;
        journal.table.pool
          .query('ANALYZE list_entries')
          .catch(() => undefined)
          .finally(() => {
            this.analyzing = false;
          });
      },
      () => undefined,
    );
  }

  /**
   * The entries of `list` (a node of `tree`, the data at journal position `settled`) for which the
   * SQL/JSON path `filter` holds, selected by the database; undefined when the database cannot answer
   * for exactly this tree (the list is small or nested, another instance wrote meanwhile, PostgreSQL
   * refuses the path): the caller filters in the instance then. Throws a 400 DataError when the filter
   * runs past its time in the database, a 503 one when the database is unreachable.
   */
  async select(
    journal: DatabaseJournal,
    tree: DataRoot,
    settled: number,
    list: ListNode,
    filter: string,
  ): Promise<ReadonlySet<ListEntryNode> | undefined> {
    if (list.entries.length < this.threshold || topListChain(list.schema) === undefined) return undefined;
    if (topListIn(tree, list.schema) !== list) return undefined;
    const { pool, journal: name, where } = journal.table;
    let selected: Awaited<ReturnType<typeof selectListEntries>>;
    try {
      selected = await selectListEntries(pool, where, name, listName(list.schema), filter);
    } catch (error) {
      if (!(error instanceof DatabaseError)) throw error;
      if (error.code === 'refused-filter') return undefined;
      if (error.code === 'timeout')
        throw new DataError(fault('invalid-value', '/', `jsonb-filter: ${error.message}; narrow the filter`), 400);
      throw new DataError(
        fault('operation-failed', '/', `the database cannot answer now: ${error.message}; try again when it is back`),
        503,
      );
    }
    if (selected.position !== settled) return undefined;
    const index = listIndex(list);
    const out = new Set<ListEntryNode>();
    for (const key of selected.entries) {
      const entry = index?.get(key);
      if (entry === undefined) return undefined;
      out.add(entry);
    }
    return out;
  }
}
