/**
 * The database's tables, created and changed by numbered migrations that the service applies on start.
 * `rosetta_schema` records each migration applied; a database holding a higher number than this build
 * knows was migrated by a newer Rosetta and is refused (its tables may mean something this build would
 * misread). Several instances starting at once take turns through an advisory lock, so each migration
 * runs once. A migration is applied in one transaction with its record: it is all there or not at all.
 * Never edit a released migration; add the next one.
 */
import type { Pool } from 'pg';
import { DatabaseError } from './database-error';

interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** Advisory lock keys of this service (pg_advisory_lock's bigint space, ours from 0x526f7365 "Rose"). */
export const LOCK_KEYS = { migrations: 0x526f736500000001n, clusterEvents: 0x526f736500000002n } as const;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'journals: records and snapshots of each named journal (the Config datastore is "config")',
    sql: `
      CREATE TABLE journal_records (
        journal text NOT NULL,
        position bigint NOT NULL,
        record bytea NOT NULL,
        written_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (journal, position)
      );
      CREATE TABLE journal_snapshots (
        journal text NOT NULL,
        position bigint NOT NULL,
        state bytea NOT NULL,
        written_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (journal, position)
      );`,
  },
  {
    version: 2,
    name: 'journal heads: the position every instance writes after, locked by the writer',
    sql: `
      CREATE TABLE journal_heads (
        journal text PRIMARY KEY,
        position bigint NOT NULL DEFAULT 0,
        snapshot bigint NOT NULL DEFAULT 0,
        compacted bigint NOT NULL DEFAULT 0
      );
      INSERT INTO journal_heads (journal, position, snapshot, compacted)
        SELECT journal, max(position), max(snapshot), max(snapshot)
        FROM (SELECT journal, position, 0 AS snapshot FROM journal_records
              UNION ALL SELECT journal, position, position FROM journal_snapshots) AS stored
        GROUP BY journal;`,
  },
  {
    version: 3,
    name: 'instances and node leases: which live instance owns each installed node',
    sql: `
      CREATE TABLE instances (
        id text PRIMARY KEY,
        url text NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now(),
        seen_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE node_leases (
        node_id text PRIMARY KEY,
        owner text NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE INDEX node_leases_owner ON node_leases (owner);`,
  },
  {
    version: 4,
    name: 'transaction owners: the instance that opened each uniconfig transaction',
    sql: `
      CREATE TABLE transaction_owners (
        id text PRIMARY KEY,
        owner text NOT NULL,
        opened_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX transaction_owners_owner ON transaction_owners (owner);`,
  },
  {
    version: 5,
    name: 'list entries: each entry of a large list as jsonb, for jsonb-filter in the database',
    sql: `
      CREATE TABLE list_entries (
        journal text NOT NULL,
        list text NOT NULL,
        entry text NOT NULL,
        doc jsonb NOT NULL,
        PRIMARY KEY (journal, list, entry)
      );
      CREATE INDEX list_entries_doc ON list_entries USING gin (doc jsonb_path_ops);
      ALTER TABLE journal_heads ADD COLUMN large_lists integer;`,
  },
  {
    version: 6,
    name: 'cluster events: node status and device notifications, relayed to every instance in one order',
    sql: `
      CREATE TABLE cluster_events (
        id bigserial PRIMARY KEY,
        origin text NOT NULL,
        stream text NOT NULL,
        input text NOT NULL,
        at timestamptz NOT NULL DEFAULT now()
      );`,
  },
  {
    version: 7,
    name: "node leases asked for: the instance that wants a node for a commit of several owners' nodes",
    sql: `ALTER TABLE node_leases ADD COLUMN wanted_by text;`,
  },
  {
    version: 8,
    name: 'read leases: the instances reading a journal without asking for its head, and the position each has taken in',
    sql: `
      CREATE TABLE journal_readers (
        journal text NOT NULL,
        instance text NOT NULL,
        position bigint NOT NULL,
        expires timestamptz NOT NULL,
        PRIMARY KEY (journal, instance)
      );`,
  },
  {
    version: 9,
    name: "cluster events are every instance's replay log: each event of every stream, numbered once for all; an instance's own streams' events marked local",
    sql: `ALTER TABLE cluster_events ADD COLUMN local boolean NOT NULL DEFAULT false;
      CREATE INDEX cluster_events_at ON cluster_events (at);`,
  },
];

/** The schema version this build creates and reads. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/**
 * Brings the database's tables to SCHEMA_VERSION; resolves with the migrations applied now (empty when
 * it was current). Rejects with DatabaseError `newer-schema` for a database from a newer build.
 */
export async function migrate(pool: Pool, where: string): Promise<readonly string[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEYS.migrations.toString()]);
    await client.query(`CREATE TABLE IF NOT EXISTS rosetta_schema (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM rosetta_schema');
    const current = rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION)
      throw new DatabaseError(
        'newer-schema',
        `${where} has schema version ${current}, newer than the ${SCHEMA_VERSION} this build of Rosetta knows: it was migrated by a newer Rosetta; run that version, or restore the database from before the upgrade`,
      );
    const applied: string[] = [];
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO rosetta_schema (version, name) VALUES ($1, $2)', [m.version, m.name]);
      applied.push(`${m.version} (${m.name})`);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
