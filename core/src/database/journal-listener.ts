/**
 * Hearing the other instances' commits to a journal of the database (journal.ts): each commit NOTIFYs
 * `rosetta_journal` with the journal's name and its writer's token; a session of its own LISTENs, and
 * tells its owner of every commit but its own, so that the owner catches up at once rather than at its
 * next request. A lost session is opened again 2 s later.
 */
import type { Pool, PoolClient } from 'pg';

export interface CommitListener {
  close(): void;
}

/** Calls `nudge` for each commit to journal `name` whose writer's token is not `token`. */
export function listenForCommits(pool: Pool, name: string, token: string, nudge: () => void): CommitListener {
  let closed = false;
  let session: PoolClient | undefined;
  const listen = async (): Promise<void> => {
    if (closed) return;
    let lost = false;
    const again = (client?: PoolClient) => {
      if (lost) return;
      lost = true;
      if (client !== undefined) {
        if (session === client) session = undefined;
        client.release(true);
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
      if (note.payload !== `${name} ${token}` && note.payload?.startsWith(`${name} `) === true) nudge();
    });
    client.on('error', () => again(client));
    try {
      await client.query('LISTEN rosetta_journal');
    } catch {
      return again(client);
    }
    if (closed) client.release(true);
    else session = client;
  };
  void listen();
  return {
    close() {
      closed = true;
      session?.release(true);
      session = undefined;
    },
  };
}
