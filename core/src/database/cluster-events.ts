/**
 * The event log of several instances sharing a database: `cluster_events` (migrations 6 and 9) numbers
 * every event of every instance once, and every instance, the maker included, publishes them into its
 * own hub (events/hub.ts) under that number and in that order. So every instance's subscribers hear
 * every instance's events in one order, with the same ids, and a `Last-Event-ID` or a `start-time`
 * given to any instance resumes there.
 *
 * - An event is inserted under an advisory lock held to its commit, so ids commit in id order and a
 *   reader going by `id > last` never skips one committed late. Events published together go in one
 *   statement (one commit, one flush). The insert NOTIFYs, and each instance's listener
 *   (journal-listener.ts) reads what came after the last id it published.
 * - A Config write's events are inserted in the write's own transaction (`sqlWithin`): one commit
 *   and one flush for both, and the events exist exactly when the write does. Its journal's commit
 *   announcement (`carriedBy`) is what the listeners hear then.
 * - An event of a stream only its maker has (a node's own stream, a path-scoped subscription's) is
 *   `local`: numbered here like the others, published by its maker only.
 * - An instance starting takes in what came after the last id its own replay log holds, bounded by the
 *   log's settings (`events.replayMaxEvents`, `replayMaxAgeSeconds`): a new instance replays what the
 *   others' subscribers could. The database keeps the same bounds: any instance removes older rows.
 * - The database unreachable: the events wait, in order, in memory (up to QUEUE_LIMIT), and go in once
 *   it is back; the publish that found it unreachable is told so at once (its caller logs it).
 */
import { randomUUID } from 'node:crypto';
import { escapeLiteral, type Pool } from 'pg';
import { checkout } from './database';
import { databaseErrorOf } from './database-error';
import { type CommitListener, listenForCommits } from './journal-listener';
import { LOCK_KEYS } from './migrations';

/** The name the listener knows these commits by. */
const CHANNEL_NAME = 'cluster-events';
/** Longest an event waits before the instances read it (the events of that time are read together). */
const READ_DELAY_MS = 5;
const READ_BATCH = 500;
const INSERT_BATCH = 500;
const QUEUE_LIMIT = 10_000;
const RETRY_MS = 1000;
const PRUNE_EVERY_MS = 60_000;

export interface ClusterEventOptions {
  /** This instance's id (the `origin` of what it inserts). */
  readonly instance: string;
  /** The last id this instance's replay log holds: it takes in what the database keeps after it. */
  readonly after: number;
  /** The replay log's bounds, which the database keeps too. */
  readonly keep: { readonly events: number; readonly seconds: number };
  /** The journals whose commits may carry events (`sqlWithin`): their announcements are heard too. */
  readonly carriedBy: readonly string[];
  /** Publishes one event in this instance's hub under `id`; called in id order, one at a time. */
  deliver(stream: string, input: unknown, id: number): Promise<void>;
  log(message: string): void;
}

interface Queued {
  readonly stream: string;
  readonly input: unknown;
  readonly local: boolean;
  resolve(): void;
  reject(error: Error): void;
}

export class ClusterEvents {
  private last = 0;
  private reading: Promise<void> = Promise.resolve();
  private readonly queue: Queued[] = [];
  private sending = false;
  private listeners: CommitListener[] = [];
  private pruner: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly pool: Pool,
    private readonly where: string,
    private readonly options: ClusterEventOptions,
  ) {}

  /** Takes in what the database keeps after `options.after`, then relays what is committed from now on. */
  static async open(pool: Pool, where: string, options: ClusterEventOptions): Promise<ClusterEvents> {
    const relay = new ClusterEvents(pool, where, options);
    try {
      // a log ahead of the database (a new or restored database): the database's numbers continue after it
      const { rows } = await pool.query<{ last: string }>(
        `SELECT greatest(coalesce((SELECT max(id) FROM cluster_events), 0), $1) AS last,
                CASE WHEN $1 >= (SELECT last_value FROM cluster_events_id_seq) THEN setval('cluster_events_id_seq', $1) END`,
        [options.after],
      );
      relay.last = Math.max(options.after, Number(rows[0]!.last) - options.keep.events);
      // another token than any journal's: a commit of this instance is heard here too
      const token = randomUUID();
      for (const name of [CHANNEL_NAME, ...options.carriedBy])
        relay.listeners.push(listenForCommits(pool, name, token, () => relay.readSoon(), READ_DELAY_MS));
      await relay.read();
    } catch (error) {
      void relay.close();
      throw databaseErrorOf(error, 'opening the cluster events', where);
    }
    relay.pruner = setInterval(() => relay.prune(), PRUNE_EVERY_MS).unref();
    return relay;
  }

  /**
   * Numbers `input` of `stream` for every instance (`local`: for this one only) and publishes it through
   * them all; resolves once it is committed.
   */
  publish(stream: string, input: unknown, local = false): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.queue.length >= QUEUE_LIMIT) {
        reject(new Error(`an event of ${stream} was dropped: ${QUEUE_LIMIT} events already wait for the database ${this.where}`));
        return;
      }
      this.queue.push({ stream, input, local, resolve, reject });
      void this.send();
    });
  }

  /** Stops relaying; resolves once a read on its way has stopped (before the hub it publishes into closes). */
  close(): Promise<void> {
    this.closed = true;
    for (const listener of this.listeners) listener.close();
    if (this.pruner !== undefined) clearInterval(this.pruner);
    return this.reading;
  }

  /**
   * The SQL that inserts `events` in a transaction (a journal's write, database/journal.ts `alongside`),
   * under the lock that keeps ids in commit order; every instance publishes them once it commits, when
   * its journal announces the commit.
   */
  sqlWithin(events: ReadonlyArray<{ stream: string; input: unknown; local: boolean }>): string {
    return `SELECT pg_advisory_xact_lock(${LOCK_KEYS.clusterEvents.toString()}); INSERT INTO cluster_events (origin, stream, input, local) VALUES ${this.rows(events)}`;
  }

  private rows(events: ReadonlyArray<{ stream: string; input: unknown; local: boolean }>): string {
    const me = escapeLiteral(this.options.instance);
    return events.map((e) => `(${me}, ${escapeLiteral(e.stream)}, ${escapeLiteral(JSON.stringify(e.input))}, ${e.local})`).join(', ');
  }

  /** Inserts what waits, a batch per statement, in order; keeps it while the database is unreachable. */
  private async send(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    let told = false;
    try {
      while (this.queue.length > 0 && !this.closed) {
        const batch = this.queue.slice(0, INSERT_BATCH);
        try {
          await this.insert(batch);
        } catch (error) {
          const failure = databaseErrorOf(error, 'relaying events', this.where);
          if (!told) this.options.log(`events wait for the database (${this.queue.length} now): ${failure.message}`);
          told = true;
          const waiting = new Error(`kept until the database is back (${failure.message})`);
          for (const queued of batch) queued.reject(waiting);
          await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
          continue;
        }
        this.queue.splice(0, batch.length);
        for (const queued of batch) queued.resolve();
      }
    } finally {
      this.sending = false;
    }
  }

  private async insert(batch: readonly Queued[]): Promise<void> {
    const client = await checkout(this.pool, 'relaying events', this.where);
    try {
      await client.query(
        `BEGIN; SELECT pg_advisory_xact_lock(${LOCK_KEYS.clusterEvents.toString()});
         INSERT INTO cluster_events (origin, stream, input, local) VALUES ${this.rows(batch)};
         SELECT pg_notify('rosetta_journal', ${escapeLiteral(`${CHANNEL_NAME} ${this.options.instance}`)}); COMMIT`,
      );
      client.done();
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.done(true);
      throw error;
    }
  }

  private prune(): void {
    const { events, seconds } = this.options.keep;
    this.pool
      .query(`DELETE FROM cluster_events WHERE at < now() - $1 * interval '1 second' OR id <= (SELECT max(id) FROM cluster_events) - $2`, [
        seconds,
        events,
      ])
      .catch(() => undefined);
  }

  private readSoon(): void {
    this.reading = this.reading
      .then(() => this.read())
      .catch((error: unknown) => {
        this.options.log(`relaying events of other instances: ${databaseErrorOf(error, 'reading cluster events', this.where).message}`);
      });
  }

  /** Publishes here, in id order, what was committed after the last id published (another's local events aside). */
  private async read(): Promise<void> {
    for (;;) {
      if (this.closed) return;
      const { rows } = await this.pool.query<{ id: string; stream: string; input: string }>(
        `SELECT id, stream, input FROM cluster_events
         WHERE id > $1 AND (NOT local OR origin = $3) AND at >= now() - $4 * interval '1 second' ORDER BY id LIMIT $2`,
        [this.last, READ_BATCH, this.options.instance, this.options.keep.seconds],
      );
      for (const row of rows) {
        if (this.closed) return;
        const id = Number(row.id);
        this.last = id;
        await this.options.deliver(row.stream, JSON.parse(row.input), id).catch((error: unknown) => {
          this.options.log(`event ${id} of ${row.stream} was not published here: ${(error as Error).message}`);
        });
      }
      if (rows.length < READ_BATCH) return;
    }
  }
}
