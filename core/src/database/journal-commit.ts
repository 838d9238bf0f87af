/**
 * The statements that write a database journal (journal.ts). Those that end a write turn: its records
 * inserted, the work committed alongside them (list-entries.ts rows), the head moved, and COMMIT. A turn is a few
 * round trips and one WAL flush, so the round trips count: the common turn (a few small records, nothing
 * alongside) is one statement; a larger one inserts bound parameters in batches first.
 */
import type { PoolClient } from 'pg';

/** Work committed with a turn's records (statements to run, or SQL text the commit's statement carries); told the outcome. */
export interface AlongsideWork {
  readonly run: ((client: PoolClient) => Promise<void>) | string;
  resolve(): void;
  reject(error: Error): void;
}

/** Most bytes of records a turn writes in the one statement that also moves the head and commits (hex in its text). */
const INLINE_BYTES = 64 * 1024;

/**
 * Inserts `appends` as positions `first`, `first + 1`, ... of journal `name`, runs `alongside`, moves the
 * head to the last and commits, through `client` (inside its transaction holding the head); then runs
 * `after` (SQL, or nothing), in the same round trip as the COMMIT.
 */
export async function writeTurn(
  client: PoolClient,
  name: string,
  first: number,
  appends: ReadonlyArray<{ readonly record: Buffer }>,
  alongside: readonly AlongsideWork[],
  after: string,
  maxBatchBytes = 4 << 20,
): Promise<void> {
  const journal = client.escapeLiteral(name);
  const moveHead = `UPDATE journal_heads SET position = ${Number(first + appends.length - 1)} WHERE journal = ${journal}; COMMIT${after === '' ? '' : `; ${after}`}`;
  let bytes = 0;
  for (const a of appends) bytes += a.record.length;
  const texts = alongside.flatMap((work) => (typeof work.run === 'string' ? [work.run] : []));
  if (texts.length === alongside.length && bytes <= INLINE_BYTES) {
    const values = appends.map((a, i) => `(${journal}, ${first + i}, decode('${a.record.toString('hex')}', 'hex'))`).join(', ');
    const records = appends.length > 0 ? [`INSERT INTO journal_records (journal, position, record) VALUES ${values}`] : [];
    await client.query([...records, ...texts, moveHead].join('; '));
    return;
  }
  for (let from = 0; from < appends.length; ) {
    let to = from + 1;
    for (let size = appends[from]!.record.length; to < appends.length && size + appends[to]!.record.length <= maxBatchBytes; to++)
      size += appends[to]!.record.length;
    const chunk = appends.slice(from, to);
    await client.query(
      'INSERT INTO journal_records (journal, position, record) SELECT $1, p, r FROM unnest($2::bigint[], $3::bytea[]) AS t(p, r)',
      [name, chunk.map((_, i) => first + from + i), chunk.map((a) => a.record)],
    );
    from = to;
  }
  for (const work of alongside) await (typeof work.run === 'string' ? client.query(work.run) : work.run(client));
  await client.query(moveHead);
}

/**
 * Stores `state` as the snapshot at `position` of journal `name` and removes the records and snapshots
 * older than the previous snapshot, in one transaction through `client`; false (nothing written) when
 * the head has moved past `position` meanwhile.
 */
export async function writeSnapshot(client: PoolClient, name: string, position: number, state: Buffer): Promise<boolean> {
  await client.query('BEGIN');
  const { rows } = await client.query<{ position: string; snapshot: string }>(
    'SELECT position, snapshot FROM journal_heads WHERE journal = $1 FOR UPDATE',
    [name],
  );
  if (Number(rows[0]?.position) !== position) {
    await client.query('ROLLBACK');
    return false;
  }
  const previous = Number(rows[0]!.snapshot);
  await client.query('INSERT INTO journal_snapshots (journal, position, state) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
    name,
    position,
    state,
  ]);
  await client.query('DELETE FROM journal_records WHERE journal = $1 AND position <= $2', [name, previous]);
  await client.query('DELETE FROM journal_snapshots WHERE journal = $1 AND position < $2', [name, previous]);
  await client.query('UPDATE journal_heads SET snapshot = $2, compacted = $3 WHERE journal = $1', [name, position, previous]);
  await client.query('COMMIT');
  return true;
}
