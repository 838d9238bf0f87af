/**
 * The entries of large lists as jsonb rows (`list_entries`, migration 5), so that a `jsonb-filter`
 * runs inside PostgreSQL, over a GIN index where its form allows, rather than entry by entry in the
 * instance. The rows are written in the transaction of the journal write that changed the list
 * (journal.ts `alongside`), so they always describe the journal's head; the owner of the data
 * (datastore/list-rows.ts) decides which lists are large and what each row holds.
 */
import type { Pool, PoolClient } from 'pg';
import { checkout } from './database';
import { DatabaseError, databaseErrorOf } from './database-error';

/** What one write changes in the rows of one list. */
export interface ListRowChange {
  /** The list's name (datastore/list-rows.ts `listName`). */
  readonly list: string;
  /** Remove every row of the list before the upserts. */
  readonly clear: boolean;
  /** Entry key -> its document (jsonb text). */
  readonly upserts: ReadonlyArray<readonly [entry: string, doc: string]>;
  readonly deletes: readonly string[];
}

/** Most rows one statement carries. */
const ROWS_PER_STATEMENT = 5000;
/** How long a filter may run in the database before it is refused (a regular expression can be slow). */
export const FILTER_TIMEOUT_MS = 5000;

/** Writes `changes` of journal `journal` through `client`, inside its open transaction. */
export async function writeListRows(client: PoolClient, journal: string, changes: readonly ListRowChange[]): Promise<void> {
  for (const change of changes) {
    if (change.clear) await client.query('DELETE FROM list_entries WHERE journal = $1 AND list = $2', [journal, change.list]);
    for (let from = 0; from < change.deletes.length; from += ROWS_PER_STATEMENT)
      await client.query('DELETE FROM list_entries WHERE journal = $1 AND list = $2 AND entry = ANY($3::text[])', [
        journal,
        change.list,
        change.deletes.slice(from, from + ROWS_PER_STATEMENT),
      ]);
    for (let from = 0; from < change.upserts.length; from += ROWS_PER_STATEMENT) {
      const rows = change.upserts.slice(from, from + ROWS_PER_STATEMENT);
      await client.query(
        `INSERT INTO list_entries (journal, list, entry, doc)
           SELECT $1, $2, e, d::jsonb FROM unnest($3::text[], $4::text[]) AS t(e, d)
         ON CONFLICT (journal, list, entry) DO UPDATE SET doc = EXCLUDED.doc`,
        [journal, change.list, rows.map((r) => r[0]), rows.map((r) => r[1])],
      );
    }
  }
}

/** The entries of `list` whose document the SQL/JSON path `filter` selects, and the journal's head they describe. */
export interface SelectedEntries {
  readonly position: number;
  readonly entries: readonly string[];
}

/**
 * The keys of the entries of `list` in journal `journal` for which `doc @? filter` holds, read in one
 * statement with the journal's head (one snapshot: the rows describe exactly that position). Rejects
 * with DatabaseError `timeout` when the filter runs longer than FILTER_TIMEOUT_MS, `refused-filter`
 * when PostgreSQL refuses the path, `unreachable` when the database cannot be reached.
 */
export async function selectListEntries(
  pool: Pool,
  where: string,
  journal: string,
  list: string,
  filter: string,
): Promise<SelectedEntries> {
  const client = await checkout(pool, `filtering list ${list}`, where);
  let broken = false;
  try {
    await client.query(`BEGIN READ ONLY; SET LOCAL statement_timeout = ${FILTER_TIMEOUT_MS}`);
    const { rows } = await client.query<{ position: string; entries: string[] }>({
      name: 'rosetta-list-filter',
      text: `SELECT (SELECT position FROM journal_heads WHERE journal = $1) AS position,
                    ARRAY(SELECT entry FROM list_entries WHERE journal = $1 AND list = $2 AND doc @? $3::jsonpath) AS entries`,
      values: [journal, list, filter],
    });
    await client.query('COMMIT');
    return { position: Number(rows[0]!.position), entries: rows[0]!.entries };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    const code = (error as { code?: string }).code;
    if (code === '57014') throw new DatabaseError('timeout', `the filter ran longer than ${FILTER_TIMEOUT_MS} ms in the database`);
    // 22xxx data exceptions, 42xxx syntax: the path as PostgreSQL reads it (a regular expression it refuses)
    if (code !== undefined && (code.startsWith('22') || code.startsWith('42')))
      throw new DatabaseError('refused-filter', `PostgreSQL refused the filter ${filter}: ${(error as Error).message}`);
    broken = true;
    throw databaseErrorOf(error, `filtering list ${list}`, where);
  } finally {
    client.done(broken);
  }
}

/**
 * The entry count from which lists of journal `journal` have rows, as its rows were built with;
 * undefined when they never were (a new database, or one from before migration 5).
 */
export async function largeListThreshold(db: Pool | PoolClient, journal: string): Promise<number | undefined> {
  const { rows } = await db.query<{ large_lists: number | null }>('SELECT large_lists FROM journal_heads WHERE journal = $1', [journal]);
  return rows[0]?.large_lists ?? undefined;
}

/** Records that the rows of journal `journal` were built for lists of `threshold` entries or more (inside a write). */
export async function recordLargeListThreshold(client: PoolClient, journal: string, threshold: number): Promise<void> {
  await client.query('DELETE FROM list_entries WHERE journal = $1', [journal]);
  await client.query('UPDATE journal_heads SET large_lists = $2 WHERE journal = $1', [journal, threshold]);
}
