/**
 * Which live instance owns each installed node, when several instances share one database: a lease per
 * node in `node_leases`, renewed by its owner, and the instances themselves in `instances` (each with
 * the time the database last heard from it).
 *
 * - **Even spread**: a node's owner is the live instance with the highest hash of (node, instance)
 *   (rendezvous hashing), so each instance gets about 1/n of the nodes, and an instance joining or
 *   leaving moves only the nodes it gains or held.
 * - **Time** is the database's (`now()`) for every lease and liveness test: an instance whose clock is
 *   far off neither keeps a lease past its end nor takes one before it.
 * - **Never two owners**: a lease is taken only once it has expired (or was released), and an owner
 *   that cannot renew for `leaseSeconds - renewSeconds` (measured on its own monotonic clock from its
 *   last renewal) lets go of its nodes itself, before the lease can expire for the others.
 * - **Hand-over**: a clean stop deletes the instance's leases and its row, and the others take the
 *   nodes at their next renewal; an instance killed (or cut from the database) loses them when their
 *   leases expire, at most `leaseSeconds` after its last renewal, and the others take them within a
 *   renewal after that.
 * - **Borrowing**: a commit of nodes several instances own runs on one instance, which asks for the
 *   others' nodes (`borrow`: `wanted_by` on their leases and a NOTIFY); each owner hands them over at
 *   once (sessions closed, lease deleted), unless a commit of its own holds them, and the asker takes
 *   and connects them. A borrowed node stays pinned until the commit ends (`unpin`), then goes home at
 *   the next renewal like any node held by an instance other than its preferred one.
 * The owner of the lease connects the device (mount/manager.ts); the service wires the two (service/).
 */
import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { databaseErrorOf } from './database-error';
import { type CommitListener, listenForCommits } from './journal-listener';

export interface NodeLeaseOptions {
  /** This instance's id (unique among the live ones) and the URL the others reach it at. */
  readonly instance: string;
  readonly url: string;
  /** The node-ids installed now (the Config datastore's, caught up first). */
  wanted(): Promise<readonly string[]>;
  /** Nodes this instance now owns: connect them. */
  gained(nodeIds: readonly string[]): void;
  /** Nodes this instance no longer owns: close their sessions now (resolving once they are closed). */
  lost(nodeIds: readonly string[]): Promise<void> | void;
  /** Where problems go (an unreachable database, a self-fence). */
  log(message: string): void;
  /**
   * Whether a session of the pool LISTENs for borrow requests, so that this instance hands over at once
   * rather than at its next renewal (default true; it holds one of the pool's clients).
   */
  readonly hearBorrows?: boolean;
  /** Default 10. */
  readonly leaseSeconds?: number;
  /** Default 3. */
  readonly renewSeconds?: number;
}

/** The instance that should own `nodeId` among `instances` (rendezvous hashing). */
export function preferredOwner(nodeId: string, instances: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = '';
  for (const instance of instances) {
    const score = createHash('sha1').update(nodeId).update('\0').update(instance).digest('hex');
    if (best === undefined || score > bestScore) {
      best = instance;
      bestScore = score;
    }
  }
  return best;
}

/** This instance's leases. Start with `NodeLeases.join`; `leave` on a clean stop. */
/** What borrow requests are told by (the NOTIFY channel journal-listener.ts hears). */
const BORROW_NAME = 'node-leases';
/** How often a borrower tries to take the nodes it asked for. */
const BORROW_POLL_MS = 100;

export class NodeLeases {
  private readonly held = new Set<string>();
  /** Nodes a commit here needs: never handed over while pinned (counts: commits may overlap). */
  private readonly pinned = new Map<string, number>();
  /** Hears borrow requests, so that an owner hands over at once rather than at its next renewal. */
  private asked: CommitListener | undefined;
  private timer: NodeJS.Timeout | undefined;
  private fence: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  /** A renewal was asked for while one ran (a borrow request): it runs again once done. */
  private again = false;
  private lastRenewal = performance.now();
  private left = false;

  private constructor(
    private readonly pool: Pool,
    private readonly options: NodeLeaseOptions,
  ) {}

  private get leaseSeconds(): number {
    return this.options.leaseSeconds ?? 10;
  }

  private get renewSeconds(): number {
    return this.options.renewSeconds ?? 3;
  }

  /** Registers this instance, takes its share of the nodes, and renews every `renewSeconds`. */
  static async join(pool: Pool, options: NodeLeaseOptions): Promise<NodeLeases> {
    const leases = new NodeLeases(pool, options);
    await leases.tick();
    leases.timer = setInterval(() => void leases.tick(), leases.renewSeconds * 1000);
    leases.timer.unref();
    // apart from the renewals, which may hang on a database that stopped answering
    leases.fence = setInterval(() => leases.fenceIfLate(), 1000);
    leases.fence.unref();
    if (options.hearBorrows !== false) leases.asked = listenForCommits(pool, BORROW_NAME, options.instance, () => void leases.tick(), 0);
    return leases;
  }

  /**
   * Takes `nodeIds` for a commit here: those another live instance holds are asked for, and taken (and
   * connected, through `gained`) once their owner lets go; all of them stay pinned until `unpin`.
   * Resolves with those held within `waitMs` (an owner whose own commit holds a node keeps it meanwhile).
   */
  async borrow(nodeIds: readonly string[], waitMs = 10_000): Promise<readonly string[]> {
    for (const n of nodeIds) this.pinned.set(n, (this.pinned.get(n) ?? 0) + 1);
    const { instance } = this.options;
    let missing = nodeIds.filter((n) => !this.held.has(n));
    if (missing.length === 0) return nodeIds;
    try {
      await this.pool.query('UPDATE node_leases SET wanted_by = $1 WHERE node_id = ANY($2::text[]) AND owner <> $1', [instance, missing]);
      await this.pool.query("SELECT pg_notify('rosetta_journal', $1)", [`${BORROW_NAME} ${instance}`]);
      for (const deadline = performance.now() + waitMs; missing.length > 0 && performance.now() < deadline; ) {
        await this.take(missing);
        missing = missing.filter((n) => !this.held.has(n));
        if (missing.length > 0) await new Promise((r) => setTimeout(r, BORROW_POLL_MS));
      }
      // not had in time: no longer asked for (or their owner would give them up later for nobody)
      if (missing.length > 0)
        await this.pool.query('UPDATE node_leases SET wanted_by = NULL WHERE node_id = ANY($2::text[]) AND wanted_by = $1', [
          instance,
          missing,
        ]);
    } catch (error) {
      this.options.log(`borrowing nodes for a commit: ${databaseErrorOf(error, 'borrowing node leases', 'the database').message}`);
    }
    return nodeIds.filter((n) => this.held.has(n));
  }

  /** The commit that pinned `nodeIds` (borrow) ended: they may go home at the next renewal. */
  unpin(nodeIds: readonly string[]): void {
    for (const n of nodeIds) {
      const count = (this.pinned.get(n) ?? 0) - 1;
      if (count > 0) this.pinned.set(n, count);
      else this.pinned.delete(n);
    }
  }

  /** Whether this instance owns `nodeId` now. */
  holds(nodeId: string): boolean {
    return this.held.has(nodeId);
  }

  /** The URL of the other live instance holding `nodeId`'s lease now (asked of the database), if one does. */
  async locate(nodeId: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ url: string }>(
      `SELECT i.url FROM node_leases l JOIN instances i ON i.id = l.owner
       WHERE l.node_id = $1 AND l.expires_at > now() AND l.owner <> $2`,
      [nodeId, this.options.instance],
    );
    return rows[0]?.url;
  }

  /**
   * Takes `nodeId`'s lease for this instance (an install here): undefined when taken (or already held),
   * else the instance that holds it.
   */
  async claim(nodeId: string): Promise<string | undefined> {
    const { instance } = this.options;
    try {
      const taken = await this.pool.query<{ owner: string }>(
        `INSERT INTO node_leases (node_id, owner, expires_at) VALUES ($1, $2, now() + $3::interval)
         ON CONFLICT (node_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
         WHERE node_leases.expires_at < now() OR node_leases.owner = EXCLUDED.owner
         RETURNING owner`,
        [nodeId, instance, `${this.leaseSeconds} seconds`],
      );
      if (taken.rows.length > 0) {
        this.held.add(nodeId);
        return undefined;
      }
      const holder = await this.pool.query<{ owner: string }>('SELECT owner FROM node_leases WHERE node_id = $1', [nodeId]);
      return holder.rows[0]?.owner ?? 'another instance';
    } catch (error) {
      throw databaseErrorOf(error, `taking the lease of node ${nodeId}`, 'the database');
    }
  }

  /** Gives back `nodeId`'s lease (an install that failed). */
  async release(nodeId: string): Promise<void> {
    this.held.delete(nodeId);
    await this.pool.query('DELETE FROM node_leases WHERE node_id = $1 AND owner = $2', [nodeId, this.options.instance]);
  }

  /** One renewal now (also what the timer runs); resolves once it is done. Asked during one, another follows it. */
  tick(): Promise<void> {
    if (this.ticking !== undefined) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = this.renew().finally(() => {
      this.ticking = undefined;
      if (this.again && !this.left) {
        this.again = false;
        void this.tick();
      }
    });
    return this.ticking;
  }

  /** A clean stop: lets go of every node and leaves, so the others take them at once. */
  async leave(): Promise<void> {
    this.left = true;
    this.asked?.close();
    if (this.timer !== undefined) clearInterval(this.timer);
    if (this.fence !== undefined) clearInterval(this.fence);
    await this.ticking?.catch(() => undefined);
    const nodes = [...this.held];
    this.held.clear();
    // sessions closed before the leases go, as on a hand-over
    if (nodes.length > 0) await this.options.lost(nodes);
    try {
      await this.pool.query('DELETE FROM node_leases WHERE owner = $1', [this.options.instance]);
      await this.pool.query('DELETE FROM instances WHERE id = $1', [this.options.instance]);
    } catch (error) {
      this.options.log(
        `leaving: ${databaseErrorOf(error, 'releasing the node leases', 'the database').message}; they expire by themselves`,
      );
    }
  }

  private async renew(): Promise<void> {
    if (this.left) return;
    const { instance, url } = this.options;
    const lease = `${this.leaseSeconds} seconds`;
    try {
      await this.pool.query(
        `INSERT INTO instances (id, url) VALUES ($1, $2)
         ON CONFLICT (id) DO UPDATE SET url = EXCLUDED.url, seen_at = now()`,
        [instance, url],
      );
      // taken before the query: the database's now() in it is no earlier, so the lease outlives this mark
      const sent = performance.now();
      const renewed = await this.pool.query<{ node_id: string }>(
        'UPDATE node_leases SET expires_at = now() + $2::interval WHERE owner = $1 RETURNING node_id',
        [instance, lease],
      );
      this.lastRenewal = sent;
      // a lease this instance thought it held but the table no longer gives it (removed by an uninstall elsewhere)
      const still = new Set(renewed.rows.map((r) => r.node_id));
      void this.drop([...this.held].filter((n) => !still.has(n)));
      const live = await this.pool.query<{ id: string }>('SELECT id FROM instances WHERE seen_at > now() - $1::interval ORDER BY id', [
        lease,
      ]);
      const instances = live.rows.map((r) => r.id);
      const wanted = new Set(await this.options.wanted());
      const asked = await this.pool.query<{ node_id: string }>(
        'SELECT node_id FROM node_leases WHERE owner = $1 AND wanted_by IS NOT NULL AND wanted_by <> $1',
        [instance],
      );
      const askedFor = new Set(asked.rows.map((r) => r.node_id));
      // Hand over what another live instance should own or asked for, and what is no longer installed,
      // but not what a commit here holds.
      const handOver = [...this.held].filter(
        (n) => !this.pinned.has(n) && (!wanted.has(n) || askedFor.has(n) || preferredOwner(n, instances) !== instance),
      );
      if (handOver.length > 0) {
        // sessions closed before the leases go: the next owner may connect the moment they are gone
        await this.drop(handOver);
        await this.pool.query('DELETE FROM node_leases WHERE owner = $1 AND node_id = ANY($2::text[])', [instance, handOver]);
      }
      // Take what this instance should own and nobody holds (free, released, or its lease expired); not
      // what it just handed over because another instance asked for it.
      const mine = [...wanted].filter((n) => !this.held.has(n) && !askedFor.has(n) && preferredOwner(n, instances) === instance);
      if (mine.length > 0) await this.take(mine);
    } catch (error) {
      this.options.log(`node leases not renewed: ${databaseErrorOf(error, 'renewing the node leases', 'the database').message}`);
    }
  }

  /**
   * Takes the leases of `nodeIds` that nobody holds (free, released, or expired), no longer asked for by
   * anyone, and connects them (`gained`).
   */
  private async take(nodeIds: readonly string[]): Promise<void> {
    const taken = await this.pool.query<{ node_id: string }>(
      `INSERT INTO node_leases (node_id, owner, expires_at) SELECT n, $1, now() + $3::interval FROM unnest($2::text[]) AS t(n)
       ON CONFLICT (node_id) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at, wanted_by = NULL
       WHERE node_leases.expires_at < now() OR node_leases.owner = EXCLUDED.owner
       RETURNING node_id`,
      [this.options.instance, nodeIds, `${this.leaseSeconds} seconds`],
    );
    const gained = taken.rows.map((r) => r.node_id);
    for (const n of gained) this.held.add(n);
    if (gained.length > 0) this.options.gained(gained);
  }

  /** Lets go of every node when the last renewal is too old for the leases to be still ours for sure. */
  private fenceIfLate(): void {
    const since = (performance.now() - this.lastRenewal) / 1000;
    if (this.held.size === 0 || since < this.leaseSeconds - this.renewSeconds) return;
    this.options.log(
      `node leases: no renewal for ${since.toFixed(1)} s; closing the sessions of ${this.held.size} node(s) before their leases can pass to another instance`,
    );
    void this.drop([...this.held]);
  }

  private async drop(nodeIds: readonly string[]): Promise<void> {
    if (nodeIds.length === 0) return;
    for (const n of nodeIds) this.held.delete(n);
    await this.options.lost(nodeIds);
  }
}
