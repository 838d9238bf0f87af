/**
 * Which instance opened each uniconfig transaction, when several share one database: a transaction
 * lives in the memory of the instance that created it (uniconfig/transactions.ts), so a request naming
 * it that reaches another instance is forwarded to its creator (restconf/forward.ts), found here. A
 * clean stop forgets the instance's rows; a dead instance's rows name an instance no longer live, and
 * its transactions are gone with it, as a restart drops open transactions.
 */
import type { Pool } from 'pg';
import { databaseErrorOf } from './database-error';

/** The transactions this instance opened, as the others find them. */
export class TransactionOwners {
  constructor(
    private readonly pool: Pool,
    /** This instance's id (the node leases' and `instances` table's). */
    private readonly instance: string,
    /** Seconds since its last renewal within which an instance counts as live. */
    private readonly liveSeconds = 10,
  ) {}

  /** Records that this instance opened transaction `id`. */
  async opened(id: string): Promise<void> {
    try {
      await this.pool.query('INSERT INTO transaction_owners (id, owner) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [id, this.instance]);
    } catch (error) {
      throw databaseErrorOf(error, `recording transaction ${id}`, 'the database');
    }
  }

  /** Forgets transaction `id` (committed, closed or expired); a failure only leaves a row naming it. */
  ended(id: string): void {
    this.pool.query('DELETE FROM transaction_owners WHERE id = $1', [id]).catch(() => undefined);
  }

  /** The URL of the other live instance that opened transaction `id`, if one did. */
  async locate(id: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ url: string }>(
      `SELECT i.url FROM transaction_owners t JOIN instances i ON i.id = t.owner
       WHERE t.id = $1 AND t.owner <> $2 AND i.seen_at > now() - $3::interval`,
      [id, this.instance, `${this.liveSeconds} seconds`],
    );
    return rows[0]?.url;
  }

  /** A clean stop: this instance's transactions end with it. */
  async leave(): Promise<void> {
    await this.pool.query('DELETE FROM transaction_owners WHERE owner = $1', [this.instance]).catch(() => undefined);
  }
}
