/**
 * The one LISTEN session a pool keeps for its journals (journal.ts, read-lease.ts): the commits other
 * instances announce (`rosetta_journal`, payload `<journal> <writer>`) and the positions readers
 * acknowledge (`rosetta_journal_read`, payload `<journal> <reader> <position>`), handed to every
 * journal open on the pool. One session for all of them, not one each: a pool has few clients
 * (database.ts), and every journal listens.
 *
 * A lost session is opened again RELISTEN_MS later. What was announced meanwhile is not heard, so each
 * listener is told when the session is lost (a read lease lapses then) and when it is up again (the lease
 * is taken again, after taking in what was missed).
 */
import type { Pool, PoolClient } from 'pg';

export const COMMIT_CHANNEL = 'rosetta_journal';
export const READ_CHANNEL = 'rosetta_journal_read';
const RELISTEN_MS = 2000;

export interface NoticeListener {
  /** A notice of either channel; `journal` is its first word, `rest` what follows. */
  notice(channel: string, journal: string, rest: string): void;
  /** The session is up: notices from now on are heard. */
  up(): void;
  /** The session was lost: notices may have been missed. */
  lost(): void;
}

export class JournalNotices {
  private readonly listeners = new Set<NoticeListener>();
  private session: PoolClient | undefined;
  private connecting = false;
  private retry: NodeJS.Timeout | undefined;
  private readonly released = new WeakSet<PoolClient>();

  private constructor(private readonly pool: Pool) {}

  /** Whether notices are being heard now. */
  get listening(): boolean {
    return this.session !== undefined;
  }

  add(listener: NoticeListener): void {
    this.listeners.add(listener);
    if (this.session !== undefined) listener.up();
    else void this.listen();
  }

  remove(listener: NoticeListener): void {
    this.listeners.delete(listener);
    if (this.listeners.size > 0) return;
    if (this.retry !== undefined) clearTimeout(this.retry);
    this.retry = undefined;
    if (this.session !== undefined) this.release(this.session);
    this.session = undefined;
  }

  private async listen(): Promise<void> {
    if (this.connecting || this.session !== undefined || this.listeners.size === 0) return;
    this.connecting = true;
    let client: PoolClient | undefined;
    try {
      client = await this.pool.connect();
      const mine = client;
      mine.on('notification', (note) => this.dispatch(note.channel, note.payload ?? ''));
      mine.on('error', () => this.lose(mine));
      mine.on('end', () => this.lose(mine));
      await mine.query(`LISTEN ${COMMIT_CHANNEL}; LISTEN ${READ_CHANNEL}`);
    } catch {
      if (client !== undefined) this.release(client);
      this.connecting = false;
      this.again();
      return;
    }
    this.connecting = false;
    if (this.listeners.size === 0) {
      this.release(client);
      return;
    }
    this.session = client;
    for (const listener of [...this.listeners]) listener.up();
  }

  private dispatch(channel: string, payload: string): void {
    const space = payload.indexOf(' ');
    if (space <= 0) return;
    const journal = payload.slice(0, space);
    const rest = payload.slice(space + 1);
    for (const listener of this.listeners) listener.notice(channel, journal, rest);
  }

  private lose(client: PoolClient): void {
    this.release(client);
    if (this.session !== client) return;
    this.session = undefined;
    for (const listener of [...this.listeners]) listener.lost();
    this.again();
  }

  private again(): void {
    if (this.listeners.size === 0 || this.retry !== undefined) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.listen();
    }, RELISTEN_MS);
    this.retry.unref();
  }

  /** A session closed here may still report its connection's end: released once, whoever comes first. */
  private release(client: PoolClient): void {
    if (this.released.has(client)) return;
    this.released.add(client);
    client.release(true);
  }

  private static readonly byPool = new WeakMap<Pool, JournalNotices>();

  /** The pool's notices (one session however many journals listen). */
  static of(pool: Pool): JournalNotices {
    let notices = JournalNotices.byPool.get(pool);
    if (notices === undefined) {
      notices = new JournalNotices(pool);
      JournalNotices.byPool.set(pool, notices);
    }
    return notices;
  }
}
