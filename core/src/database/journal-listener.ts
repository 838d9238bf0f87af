/**
 * Hearing the other instances' commits to a journal of the database (journal.ts) or a table kept like
 * one (node leases' borrow requests, cluster events): each commit NOTIFYs `rosetta_journal` with the
 * name and its writer's token; the pool's one LISTEN session (journal-notices.ts) hears them, and the
 * owner is told of the commits but its own soon, rather than at its next request: once per `delayMs`
 * at most, however many commits came meanwhile (under a stream of writes every idle instance catching
 * up once per commit took half the writers' throughput on this 2-core machine).
 */
import type { Pool } from 'pg';
import { COMMIT_CHANNEL, JournalNotices } from './journal-notices';

/** Longest a commit waits before its owner is told; the commits of that time are told once. */
const NUDGE_MS = 100;

export interface CommitListener {
  close(): void;
}

/**
 * Calls `nudge` for each commit to journal `name` whose writer's token is not `token` (at most once per
 * `delayMs`, default NUDGE_MS).
 */
export function listenForCommits(pool: Pool, name: string, token: string, nudge: () => void, delayMs = NUDGE_MS): CommitListener {
  const notices = JournalNotices.of(pool);
  let pending: NodeJS.Timeout | undefined;
  let closed = false;
  const listener = {
    notice(channel: string, journal: string, writer: string) {
      if (channel !== COMMIT_CHANNEL || journal !== name || writer === token) return;
      pending ??= setTimeout(() => {
        pending = undefined;
        if (!closed) nudge();
      }, delayMs);
    },
    up: () => undefined,
    lost: () => undefined,
  };
  notices.add(listener);
  return {
    close() {
      closed = true;
      if (pending !== undefined) clearTimeout(pending);
      notices.remove(listener);
    },
  };
}
