/**
 * Hearing the other instances' commits to a journal of the database (journal.ts): each commit NOTIFYs
 * `rosetta_journal` with the journal's name and its writer's token; a session of its own LISTENs, and
 * tells its owner of the commits but its own, so that the owner catches up soon rather than at its
 * next request: once per NUDGE_MS at most, however many commits came meanwhile (under a stream of writes
 * every idle instance catching up once per commit took half the writers' throughput on this 2-core
 * machine). A lost session is opened again 2 s later.
 */
import type { Pool, PoolClient } from 'pg';

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
  let closed = false;
  let session: PoolClient | undefined;
  let pending: NodeJS.Timeout | undefined;
  // a session closed by `close` may still report its connection's end: released once, whoever comes first
  const released = new WeakSet<PoolClient>();
  const release = (client: PoolClient) => {
    if (released.has(client)) return;
    released.add(client);
    client.release(true);
  };
  const soon = () => {
    pending ??= setTimeout(() => {
      pending = undefined;
      if (!closed) nudge();
    }, delayMs);
  };
  const listen = async (): Promise<void> => {
    if (closed) return;
    let lost = false;
    const again = (client?: PoolClient) => {
      if (lost) return;
      lost = true;
      if (client !== undefined) {
        if (session === client) session = undefined;
        release(client);
      }
      if (!closed) setTimeout(() => void listen(), 2000).unref();
    };
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch {
      return again();
    }
    client.on('notification', (note) => {
      if (note.payload !== `${name} ${token}` && note.payload?.startsWith(`${name} `) === true) soon();
    });
    client.on('error', () => again(client));
    try {
      await client.query('LISTEN rosetta_journal');
    } catch {
      return again(client);
    }
    if (closed) release(client);
    else session = client;
  };
  void listen();
  return {
    close() {
      closed = true;
      if (pending !== undefined) clearTimeout(pending);
      if (session !== undefined) release(session);
      session = undefined;
    },
  };
}
