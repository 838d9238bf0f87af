/**
 * The public face of database/: PostgreSQL as the store of several instances (docs/architecture.md#persistence).
 * `openDatabase` connects and migrates; `DatabaseJournal` is a journal kept in its tables; settings.ts
 * reads the URL and the password, never printing it.
 */
export { ClusterEvents, type ClusterEventOptions } from './cluster-events';
export { openDatabase, type Database } from './database';
export { DatabaseError, type DatabaseErrorCode } from './database-error';
export { DatabaseJournal, type DatabaseJournalOptions, type DatabaseRecovery } from './journal';
export { type ListRowChange, largeListThreshold, recordLargeListThreshold, selectListEntries, writeListRows } from './list-entries';
export { MIGRATIONS, SCHEMA_VERSION } from './migrations';
export { NodeLeases, type NodeLeaseOptions, preferredOwner } from './node-leases';
export { TransactionOwners } from './transaction-owners';
export { databaseSettings, databaseUrlProblem, printableUrl, type DatabaseLocation, type DatabaseSettings } from './settings';
