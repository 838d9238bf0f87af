/**
 * The RESTCONF request suite again, on the Config datastore in PostgreSQL: each file here runs one file
 * of core/test/restconf/ with its services' data in databases (`keepTestDataInDatabases`,
 * database/test-database.ts), the same tests against the real store shared instances use. Without PostgreSQL's server binaries it says so loudly
 * and registers one skipped test instead.
 */
import test from 'ava';
import { keepTestDataInDatabases } from '../../src/service/test-service';
import { databaseForFolder, stopTestDatabase, testDatabasesMade } from '../database/test-database';
import { postgresAbsent } from '../postgres-server';

/** Registers the tests of `suite` (a file of core/test/restconf/, without `.test.js`) to run on PostgreSQL. */
export function requestSuiteOnPostgres(suite: string): void {
  const absent = postgresAbsent();
  if (absent !== undefined) {
    console.warn(`\n*** ${suite} on PostgreSQL: SKIPPING the request suite on the PostgreSQL store: ${absent} ***\n`);
    test.skip(`${suite} on PostgreSQL`, () => undefined);
    return;
  }
  keepTestDataInDatabases(databaseForFolder);
  require(`../restconf/${suite}.test`);
  test.after(`${suite}'s services kept their data in PostgreSQL`, (t) => {
    t.true(testDatabasesMade() > 0, 'no service of the suite opened a database');
  });
  // after the suite's own hooks, which stop its services
  test.after.always(() => stopTestDatabase());
}
