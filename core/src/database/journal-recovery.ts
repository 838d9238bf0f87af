/**
 * Reading a journal of the database back (journal.ts): the newest snapshot and the records after it, in
 * one view of the tables (another instance's snapshot may remove records meanwhile), a gap in the
 * positions refused naming the journal and the position.
 */
import type { Pool, PoolClient } from 'pg';
import { checkout } from './database';
import { DatabaseError } from './database-error';

/** What recovery found (the fields the data folder's journal reports too). */
export interface DatabaseRecovery {
  readonly snapshotPosition: number;
  readonly recordsReplayed: number;
  readonly position: number;
  readonly droppedBytes: 0;
}

/** What recovery hands over, in order. */
export interface RecoveryHandlers {
  /** The newest snapshot's state and the records it covers. */
  onSnapshot?(state: Buffer, position: number): void;
  /** One record after the snapshot, in order, at recovery. */
  onRecord?(record: Buffer, position: number): void;
}

/** Rows read per query at recovery and catching up, so a long journal is never one result in memory. */
export const READ_BATCH = 1000;

export function missing(name: string, position: number, next: number): DatabaseError {
  return new DatabaseError(
    'corrupt',
    `journal ${name}: record ${position} is missing (the next stored is ${next}); its rows in journal_records were removed by hand: restore the database from a backup`,
  );
}

/** Hands the newest snapshot and the records after it to the handlers; refuses a gap. */
export async function recover(pool: Pool, name: string, where: string, options: RecoveryHandlers): Promise<DatabaseRecovery> {
  // one view of the tables: another instance's snapshot may remove records meanwhile
  const client = await checkout(pool, `reading journal ${name}`, where);
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const recovery = await recoverIn(client, name, options);
    await client.query('COMMIT');
    client.done();
    return recovery;
  } catch (error) {
    client.done(true);
    throw error;
  }
}

async function recoverIn(pool: PoolClient, name: string, options: RecoveryHandlers): Promise<DatabaseRecovery> {
  const snap = await pool.query<{ position: string; state: Buffer }>(
    'SELECT position, state FROM journal_snapshots WHERE journal = $1 ORDER BY position DESC LIMIT 1',
    [name],
  );
  const snapshotPosition = snap.rows.length === 0 ? 0 : Number(snap.rows[0]!.position);
  if (snap.rows.length > 0) options.onSnapshot?.(snap.rows[0]!.state, snapshotPosition);
  let position = snapshotPosition;
  for (;;) {
    const { rows } = await pool.query<{ position: string; record: Buffer }>(
      'SELECT position, record FROM journal_records WHERE journal = $1 AND position > $2 ORDER BY position LIMIT $3',
      [name, position, READ_BATCH],
    );
    for (const row of rows) {
      const at = Number(row.position);
      if (at !== position + 1) throw missing(name, position + 1, at);
      options.onRecord?.(row.record, at);
      position = at;
    }
    if (rows.length < READ_BATCH) break;
  }
  return { snapshotPosition, recordsReplayed: position - snapshotPosition, position, droppedBytes: 0 };
}
