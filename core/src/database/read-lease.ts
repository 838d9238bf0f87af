/**
 * A journal's read lease (`journal_readers`, migration 8): while it runs, this instance reads from its
 * own data without asking the database for the journal's head, and read-your-writes across instances
 * still holds, because writers wait for it. The contract has two halves:
 *
 * - A reader keeps a row (journal, instance, position, expires), renewed every third of `durationMs`.
 *   It reads without a query only while the pool's LISTEN session (journal-notices.ts) is up and its own
 *   clock says the lease runs. It counts from before it sent the renewal and keeps a tenth back, for
 *   clocks running at slightly different rates. The offset between clocks plays no part: `expires` is
 *   the database's `now()`. On each commit another instance announces, it takes in the records and
 *   acknowledges the position it has then (row and NOTIFY).
 * - A writer, in the round trip that locks the journal's head, finds the other readers whose lease
 *   runs (`holders`); if there are any, it NOTIFYs them in the round trip of its COMMIT, and answers its
 *   client only once each has acknowledged its position or its lease has ended. When one ends, it asks
 *   the database again, since a reader that renewed counts again.
 *
 * A lease that lapses (the session lost, a renewal or an acknowledgement failing, the process paused)
 * sends reads back to asking the database. It is taken again by writing the row while no writer holds
 * the head (`FOR SHARE`), then taking in what was missed: a writer either found the row when it locked
 * the head, or committed before the reader's query.
 * Writers pay for this: with other instances reading, a write's answer waits for their catch-up (a
 * NOTIFY and two round trips), and, with a reader frozen or killed, for its lease to end (`durationMs`
 * at most).
 */
import { performance } from 'node:perf_hooks';
import { escapeLiteral, type Pool } from 'pg';
import { type CommitListener, listenForCommits } from './journal-listener';
import { COMMIT_CHANNEL, JournalNotices, type NoticeListener, READ_CHANNEL } from './journal-notices';

/** Part of a lease a reader keeps back, for clocks running at slightly different rates. */
const RATE_MARGIN = 0.1;
/** Longest a commit no reader waits for goes untold; the commits of that time are told once. */
const ANNOUNCE_MS = 20;

/** A reader whose lease runs and has not acknowledged a commit: `ms` until its lease ends. */
export interface LeaseHolder {
  readonly instance: string;
  readonly ms: number;
}

export interface ReadLeaseOptions {
  readonly pool: Pool;
  readonly journal: string;
  /** This journal's writer token (the row's instance). */
  readonly instance: string;
  /** 0: hold no lease (every read asks the database); writers still wait for the others'. */
  readonly durationMs: number;
  /** The position of the records this instance has taken in. */
  position(): number;
  /** Takes in what the others committed, with a query whatever the lease says; resolves to the position then. */
  catchUp(): Promise<number>;
  /** Another instance committed (the journal's owner takes it in soon, for its events). */
  heard?(): void;
  log?(message: string): void;
}

interface Waiter {
  readonly position: number;
  readonly behind: Set<string>;
  done(): void;
}

export class ReadLease implements NoticeListener {
  private readonly notices: JournalNotices;
  /** Lease end on performance.now()'s clock. */
  private until = Number.NEGATIVE_INFINITY;
  /** Counts the sessions lost: a renewal begun before a loss proves nothing after it. */
  private losses = 0;
  private renewer: NodeJS.Timeout | undefined;
  private renewing = false;
  private acking = false;
  private ackAgain = false;
  /** Without a lease of its own: hears the others' commits for `heard`. */
  private readonly unleased: CommitListener | undefined;
  private readonly waiters = new Set<Waiter>();
  private announcing = false;
  /** The last position each reader acknowledged, as heard: an acknowledgement may come before its writer waits. */
  private readonly acknowledged = new Map<string, number>();
  private closed = false;

  constructor(private readonly options: ReadLeaseOptions) {
    this.notices = JournalNotices.of(options.pool);
    this.notices.add(this);
    if (options.durationMs <= 0 && options.heard !== undefined)
      this.unleased = listenForCommits(options.pool, options.journal, options.instance, options.heard);
    if (options.durationMs > 0) {
      this.renewer = setInterval(() => void this.renew(), Math.max(1, Math.floor(options.durationMs / 3)));
      this.renewer.unref();
    }
  }

  /** Whether reads may skip asking the database now. */
  get valid(): boolean {
    return this.notices.listening && performance.now() < this.until;
  }

  /**
   * The query of the other readers whose lease runs (`LeaseHolder` rows), run by a writer once it holds
   * the head: a reader taking its lease again waits for the head (`FOR SHARE`), so one that is not in
   * the answer takes the writer's commit in after it commits.
   */
  static holders(journal: string, instance: string): string {
    return holdersBehind(escapeLiteral(journal), escapeLiteral(instance));
  }

  /** The SQL that tells the lease holders of a commit right after it, in its round trip. */
  announcement(): string {
    return `SELECT pg_notify('${COMMIT_CHANNEL}', ${escapeLiteral(`${this.options.journal} ${this.options.instance}`)})`;
  }

  /** Resolves once each of `holders` acknowledged `position` or its lease ended (asking again then). */
  async settle(position: number, holders: readonly LeaseHolder[]): Promise<void> {
    let behind = holders.filter((h) => (this.acknowledged.get(h.instance) ?? 0) < position);
    while (behind.length > 0 && !this.closed) {
      const longest = Math.max(...behind.map((h) => h.ms));
      const all = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          this.waiters.delete(waiter);
          resolve(false);
        }, longest + 5);
        const waiter: Waiter = {
          position,
          behind: new Set(behind.map((h) => h.instance)),
          done: () => {
            clearTimeout(timer);
            this.waiters.delete(waiter);
            resolve(true);
          },
        };
        this.waiters.add(waiter);
      });
      if (all) return;
      const { rows } = await this.options.pool.query<LeaseHolder>(`${holdersBehind('$1', '$2')} AND position < $3`, [
        this.options.journal,
        this.options.instance,
        position,
      ]);
      behind = rows.filter((h) => (this.acknowledged.get(h.instance) ?? 0) < position);
    }
  }

  /**
   * Tells the other instances of a commit no lease holder waits for (their data-change events), once per
   * ANNOUNCE_MS at most and after the commit, not in it: a NOTIFY inside each write's transaction cost a
   * durable PUT a third of its throughput here.
   */
  announce(): void {
    if (this.announcing || this.closed) return;
    this.announcing = true;
    setTimeout(() => {
      this.announcing = false;
      if (this.closed) return;
      const payload = `${this.options.journal} ${this.options.instance}`;
      this.options.pool.query(`SELECT pg_notify('${COMMIT_CHANNEL}', $1)`, [payload]).catch(() => undefined);
    }, ANNOUNCE_MS).unref();
  }

  notice(channel: string, journal: string, rest: string): void {
    if (journal !== this.options.journal) return;
    if (channel === READ_CHANNEL) {
      const space = rest.lastIndexOf(' ');
      const reader = rest.slice(0, space);
      const position = Number(rest.slice(space + 1));
      if (position > (this.acknowledged.get(reader) ?? 0)) this.acknowledged.set(reader, position);
      for (const waiter of [...this.waiters]) {
        if (position >= waiter.position) waiter.behind.delete(reader);
        if (waiter.behind.size === 0) waiter.done();
      }
    } else if (channel === COMMIT_CHANNEL && rest !== this.options.instance && this.options.durationMs > 0) {
      // taking the commit in is what its owner is told `heard` for
      this.acknowledge();
    }
  }

  up(): void {
    if (this.options.durationMs <= 0) return;
    // the rows of instances gone without closing (killed) stay expired until someone clears them
    this.options.pool
      .query("DELETE FROM journal_readers WHERE journal = $1 AND expires < now() - interval '1 hour'", [this.options.journal])
      .catch(() => undefined);
    void this.renew();
  }

  lost(): void {
    this.losses += 1;
    this.until = Number.NEGATIVE_INFINITY;
  }

  /** Gives the lease up (its row goes, so no writer waits for it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.renewer !== undefined) clearInterval(this.renewer);
    this.unleased?.close();
    this.until = Number.NEGATIVE_INFINITY;
    this.notices.remove(this);
    for (const waiter of [...this.waiters]) waiter.done();
    if (this.options.durationMs > 0)
      await this.options.pool
        .query('DELETE FROM journal_readers WHERE journal = $1 AND instance = $2', [this.options.journal, this.options.instance])
        .catch(() => undefined);
  }

  /** Renews the row; a lapsed lease is taken again only after taking in what it missed. */
  private async renew(): Promise<void> {
    if (this.renewing || this.closed || !this.notices.listening) return;
    this.renewing = true;
    const [losses, started, running] = [this.losses, performance.now(), this.valid];
    const [j, me] = [escapeLiteral(this.options.journal), escapeLiteral(this.options.instance)];
    const upsert = `INSERT INTO journal_readers (journal, instance, position, expires)
        VALUES (${j}, ${me}, ${Number(this.options.position())}, now() + ${Number(this.options.durationMs)} * interval '1 millisecond')
      ON CONFLICT (journal, instance) DO UPDATE SET expires = EXCLUDED.expires, position = greatest(journal_readers.position, EXCLUDED.position)`;
    try {
      // taken again: not while a writer holds the head, which found the running leases when it took it
      await this.options.pool.query(
        running ? upsert : `BEGIN; SELECT 1 FROM journal_heads WHERE journal = ${j} FOR SHARE; ${upsert}; COMMIT`,
      );
      if (!running) await this.record(await this.options.catchUp());
      if (losses === this.losses && !this.closed) this.until = started + this.options.durationMs * (1 - RATE_MARGIN);
    } catch (error) {
      this.until = Number.NEGATIVE_INFINITY;
      this.options.log?.(`read lease of journal ${this.options.journal} lapsed: ${(error as Error).message}`);
    } finally {
      this.renewing = false;
    }
  }

  /** Takes in another instance's commit and acknowledges the position then; commits heard meanwhile share the next. */
  private acknowledge(): void {
    if (this.acking) {
      this.ackAgain = true;
      return;
    }
    this.acking = true;
    void (async () => {
      try {
        do {
          this.ackAgain = false;
          await this.record(await this.options.catchUp());
        } while (this.ackAgain && !this.closed);
      } catch (error) {
        // unacknowledged, the writer waits for the lease to end: reads must not trust it meanwhile
        this.until = Number.NEGATIVE_INFINITY;
        this.options.log?.(`read lease of journal ${this.options.journal} lapsed: ${(error as Error).message}`);
      } finally {
        this.acking = false;
      }
    })();
  }

  /**
   * Records `position` as taken in, and tells the writers waiting for it. Not flushed to disk before it
   * is told (a writer is waiting): lost in a crash of the database, it would only make writers wait
   * longer, and every lease lapses with the sessions anyway.
   */
  private async record(position: number): Promise<void> {
    if (this.closed) return;
    const [j, me] = [escapeLiteral(this.options.journal), escapeLiteral(this.options.instance)];
    await this.options.pool.query(
      `BEGIN; SET LOCAL synchronous_commit = off;
       WITH moved AS (UPDATE journal_readers SET position = greatest(position, ${Number(position)}) WHERE journal = ${j} AND instance = ${me} RETURNING position)
       SELECT pg_notify('${READ_CHANNEL}', ${j} || ' ' || ${me} || ' ' || position) FROM moved; COMMIT`,
    );
  }
}

/** The query of the other instances' running leases on `journal` (SQL literals or parameters). */
function holdersBehind(journal: string, instance: string): string {
  return `SELECT instance, ceil(extract(epoch FROM expires - now()) * 1000)::int AS ms
    FROM journal_readers WHERE journal = ${journal} AND instance <> ${instance} AND expires > now()`;
}
