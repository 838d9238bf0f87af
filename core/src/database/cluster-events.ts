/**
 * Events that only one instance makes (a node's status, its device's notifications: the node's owner
 * makes them), relayed through the database so that every instance's subscribers hear every instance's,
 * in one order: `cluster_events` (migration 6) numbers them, and every instance, the maker included,
 * publishes them into its own hub in that order (the maker too, so its subscribers hear them in the
 * same order as the others').
 *
 * - An event is inserted under an advisory lock held to its commit, so ids commit in id order and a
 *   reader going by `id > last` never skips one committed late; the insert NOTIFYs, and each instance's
 *   listener (journal-listener.ts) reads what came after the last id it relayed.
 * - An instance relays what is committed after it starts; what came before is in the replay log of
 *   the instance that was running then. Rows older than RETAIN_MINUTES are removed by any instance.
 * - The database unreachable: the event is published on this instance only (its subscribers still
 *   hear it), and the log says so.
 */
import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { checkout } from './database';
import { databaseErrorOf } from './database-error';
import { type CommitListener, listenForCommits } from './journal-listener';
import { LOCK_KEYS } from './migrations';

/** The name the listener knows these commits by. */
const CHANNEL_NAME = 'cluster-events';
/** Longest an event waits before the instances read it (the events of that time are read together). */
const READ_DELAY_MS = 5;
const READ_BATCH = 500;
const RETAIN_MINUTES = 10;
const PRUNE_EVERY_MS = 60_000;

export interface ClusterEventOptions {
  /** This instance's id (the `origin` of what it inserts). */
  readonly instance: string;
  /** Publishes one event in this instance's hub; called in id order, one at a time. */
  deliver(stream: string, input: unknown): Promise<void>;
  log(message: string): void;
}

export class ClusterEvents {
  private last = 0;
  private reading: Promise<void> = Promise.resolve();
  private listener: CommitListener | undefined;
  private pruner: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly pool: Pool,
    private readonly where: string,
    private readonly options: ClusterEventOptions,
  ) {}

  /** Starts relaying what is committed from now on. */
  static async open(pool: Pool, where: string, options: ClusterEventOptions): Promise<ClusterEvents> {
    const relay = new ClusterEvents(pool, where, options);
    try {
      const { rows } = await pool.query<{ last: string }>('SELECT coalesce(max(id), 0) AS last FROM cluster_events');
      relay.last = Number(rows[0]!.last);
    } catch (error) {
      throw databaseErrorOf(error, 'opening the cluster events', where);
    }
    relay.listener = listenForCommits(pool, CHANNEL_NAME, randomUUID(), () => relay.readSoon(), READ_DELAY_MS);
    relay.pruner = setInterval(() => {
      pool.query(`DELETE FROM cluster_events WHERE at < now() - interval '${RETAIN_MINUTES} minutes'`).catch(() => undefined);
    }, PRUNE_EVERY_MS).unref();
    return relay;
  }

  /** Hands `input` of `stream` to every instance, this one included; resolves once it is committed (or published here alone). */
  async publish(stream: string, input: unknown): Promise<void> {
    let client: Awaited<ReturnType<typeof checkout>> | undefined;
    try {
      client = await checkout(this.pool, 'relaying an event', this.where);
      const lit = (s: string) => client!.escapeLiteral(s);
      await client.query(
        `BEGIN; SELECT pg_advisory_xact_lock(${LOCK_KEYS.clusterEvents.toString()});
         INSERT INTO cluster_events (origin, stream, input) VALUES (${lit(this.options.instance)}, ${lit(stream)}, ${lit(JSON.stringify(input))});
         SELECT pg_notify('rosetta_journal', ${lit(`${CHANNEL_NAME} ${this.options.instance}`)}); COMMIT`,
      );
      client.done();
    } catch (error) {
      await client?.query('ROLLBACK').catch(() => undefined);
      client?.done(true);
      this.options.log(
        `an event of ${stream} reaches this instance's subscribers only: ${databaseErrorOf(error, 'relaying an event', this.where).message}`,
      );
      await this.options.deliver(stream, input);
    }
  }

  close(): void {
    this.closed = true;
    this.listener?.close();
    if (this.pruner !== undefined) clearInterval(this.pruner);
  }

  private readSoon(): void {
    this.reading = this.reading
      .then(() => this.read())
      .catch((error: unknown) => {
        this.options.log(`relaying events of other instances: ${databaseErrorOf(error, 'reading cluster events', this.where).message}`);
      });
  }

  /** Publishes here, in id order, what was committed after the last id relayed. */
  private async read(): Promise<void> {
    for (;;) {
      if (this.closed) return;
      const { rows } = await this.pool.query<{ id: string; stream: string; input: string }>(
        'SELECT id, stream, input FROM cluster_events WHERE id > $1 ORDER BY id LIMIT $2',
        [this.last, READ_BATCH],
      );
      for (const row of rows) {
        this.last = Number(row.id);
        await this.options.deliver(row.stream, JSON.parse(row.input)).catch((error: unknown) => {
          this.options.log(`an event of ${row.stream} from another instance was not published: ${(error as Error).message}`);
        });
      }
      if (rows.length < READ_BATCH) return;
    }
  }
}
