/**
 * The set-up every PostgreSQL test file of core/test/database shares (not in postgres-server.ts, which
 * the benchmarks import too, outside AVA).
 */
import anyTest, { type TestFn } from 'ava';
import { type PostgresServer, postgresAbsent, startPostgres } from '../postgres-server';

/** The context of a file's PostgreSQL tests: its private server. */
export type PostgresContext = { server: PostgresServer };

/**
 * Sets up a test file's PostgreSQL tests: a private server started before them and destroyed after
 * (`t.context.server`), and the function that declares them, serial, skipped loudly (the warning names
 * `label`) when PostgreSQL's server binaries are absent.
 */
export function postgresTests(label: string): TestFn<PostgresContext>['serial'] | TestFn<PostgresContext>['serial']['skip'] {
  const test = anyTest as TestFn<PostgresContext>;
  const absent = postgresAbsent();
  if (absent !== undefined) console.warn(`\n*** ${label} tests: SKIPPING the PostgreSQL tests: ${absent} ***\n`);
  test.before(async (t) => {
    if (absent === undefined) t.context.server = await startPostgres();
  });
  test.after.always(async (t) => {
    await t.context.server?.destroy();
  });
  return absent === undefined ? test.serial : test.serial.skip;
}
