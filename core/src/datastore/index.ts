/**
 * The public face of datastore/: the contract (datastore.ts), `openDatastores` for a running service,
 * and the journal underneath for tools that inspect a data directory.
 */
import * as path from 'node:path';
import type { SchemaContext } from '../yang/schema';
import { ConfigStore, type ConfigStoreOptions } from './config-store';
import type { Datastores } from './datastore';
import { OperationalStore } from './operational-store';
import { SecretBox } from './secrets';

export type { Datastore, DatastoreName, Datastores } from './datastore';
export { CONFIG_JOURNAL, ConfigStore, type ConfigStoreOptions, type ConfigJournalOptions } from './config-store';
export { OperationalStore } from './operational-store';
export { DEFAULT_LARGE_LIST_ENTRIES, documentName, entryDocument, listName } from './list-rows';
export { encodeEditRecord, decodeEditRecord, decodeSnapshot } from './edit-record';
export { Journal, type JournalOptions, type RecoveryReport, type Examination, type FileFinding, type Refusal } from './journal';
export { describeRefusals } from './journal-recovery';
export { DirectoryLock, LOCK_FILE_NAME } from './dir-lock';
export { COMMITTED_FILE_NAME, PARKED_FILE_NAME, segmentFileName } from './data-directory';
export { readParkedFile } from './parked-file';
export { byModule } from './parked-data';
export { writeCommitted } from './committed-file';
export { JournalError, type JournalErrorCode } from './journal-error';
export { SecretBox, SEALED_PREFIX, KEY_FILE } from './secrets';
export {
  isSensitive,
  holdsSensitive,
  secretContext,
  sealEdits,
  sealTree,
  revealSecret,
  SENSITIVE_MODULE,
  SENSITIVE_EXTENSION,
} from './sensitive';

/** Where under the data directory the Config datastore's journal lives. */
export const CONFIG_DIRECTORY = 'config';

/**
 * Opens the datastores of a service: Config, durable under `<dataDir>/config` (created if needed,
 * recovered from its journal, secrets sealed with the data folder's key: secrets.ts), and Operational, in memory. Rejects when the directory is locked by
 * another running service or damaged beyond a torn journal tail (JournalError `locked`/`corrupt`).
 */
export async function openDatastores(dataDir: string, ctx: SchemaContext, options: ConfigStoreOptions = {}): Promise<Datastores> {
  const secrets = options.secrets ?? SecretBox.open(dataDir);
  const config = await ConfigStore.open(path.join(dataDir, CONFIG_DIRECTORY), ctx, { ...options, secrets });
  const operational = new OperationalStore(ctx);
  return {
    config,
    operational,
    async close() {
      await operational.idle();
      await config.close();
    },
  };
}
