/**
 * Rotating the secrets key: every sealed value of the Config datastore opened with the old key and
 * sealed again with the new one, for the same leaf (docs/configuration.md#secrets-key): the served
 * tree, and the parked data of modules the schema lacks (parked-secrets.ts), whose values come back
 * byte for byte when their module returns and must open with the key the service then runs on.
 *
 * Atomic and re-runnable. It holds the data directory's lock throughout, so the service must be
 * stopped. The new key file is created durably by the first seal, before anything is written. Then the
 * PARKED file is replaced (aside, fsync'ed, renamed), and last the re-sealed tree is written as one
 * snapshot (likewise) that supersedes the journal. A crash leaves one of three states:
 * - nothing written: the old key opens everything;
 * - PARKED re-sealed, snapshot not: the served data is still the old key's, so the service still starts
 *   on the old key; the parked values are the new key's, and matter only when their module returns;
 * - both written: the new key opens everything.
 * The snapshot goes last because it decides which key the service starts with; a parked value ahead
 * of it is under a key file that already exists. Running the rotation again finishes the job from any
 * of them: a value the old key does not open but the new one does is already rotated and kept as it
 * is, served or parked, and the store is opened with the new key when the old one no longer opens it.
 * A parked sealed value that neither key opens (its context cannot be rebuilt without its module's
 * schema) refuses the rotation before anything is written, naming its modules: enable their plugins,
 * so the data is served and rotated with the rest.
 */
import * as path from 'node:path';
import type { PathStep } from '../data/edit';
import { encodeJson } from '../data/json-encode';
import type { SchemaContext, SchemaNode } from '../yang/schema';
import { ConfigStore } from './config-store';
import { byModule } from './parked-data';
import { resealParked } from './parked-secrets';
import { decodeSnapshot } from './edit-record';
import type { SecretBox } from './secrets';
import { openStoredSecrets, sealTree, secretContext } from './sensitive';

type JsonObject = Record<string, unknown>;

/** What a rotation did. */
export interface RotationReport {
  /** Values opened with the old key and sealed with the new one. */
  readonly resealed: number;
  /**
   * Sealed values the old key does not open, kept as written: sealed with the new key by an interrupted
   * rotation, or a sealed value copied to another leaf, which opens nowhere.
   */
  readonly kept: number;
  /** The old key opens nothing and the new one opens the store: an earlier rotation to this key finished. */
  readonly alreadyRotated: boolean;
}

/**
 * Re-seals the secrets of the Config datastore in `configDirectory` (opened on `ctx`, the service's
 * schema: records naming nodes it lacks would be dropped) from `oldBox` to `newBox`. Rejects with the
 * datastore's JournalError `locked` while the service runs.
 */
export async function rotateSecretsKey(
  configDirectory: string,
  ctx: SchemaContext,
  oldBox: SecretBox,
  newBox: SecretBox,
  log: (message: string) => void,
): Promise<RotationReport> {
  if (path.resolve(oldBox.file) === path.resolve(newBox.file)) throw new Error(`the new key file is the current one (${newBox.file})`);
  let store: ConfigStore;
  let openedWithNewKey = false;
  try {
    store = await ConfigStore.open(configDirectory, ctx, { secrets: oldBox, log });
  } catch (error) {
    // Recovery refuses a store whose secrets the key does not open: after a rotation to `newBox` wrote
    // its snapshot and before the configuration named the new key, that is every secret. Opening with
    // the new key tells; what the old key still opens (parked values put back meanwhile) is rotated below.
    if (!newBox.hasKey) throw error;
    const done = await ConfigStore.open(configDirectory, ctx, { secrets: newBox, log }).catch(() => undefined);
    if (done === undefined) throw error;
    store = done;
    openedWithNewKey = true;
  }
  try {
    const parked = resealParked(store.parkedItems(), ctx, oldBox, newBox);
    if (parked.unresolved.length > 0) {
      throw new Error(
        `the parked data of ${byModule(parked.unresolved)} holds sealed secrets this rotation cannot seal again without their modules' schema; enable the plugins of those modules (their data is then served again) and run the rotation again; nothing was changed`,
      );
    }
    let resealed = parked.resealed;
    let kept = parked.kept;
    const clear: string[] = [];
    const openAll = (doc: JsonObject, parent: SchemaNode | undefined, steps: readonly PathStep[]) => {
      openStoredSecrets(doc, parent, secretContext(steps), ctx, oldBox, clear, () => kept++);
      resealed += clear.length;
      clear.length = 0; // clear values are not kept beyond their leaf
    };
    const opened = decodeSnapshot(encodeJson(store.newest()), { ctx, log, where: 'the stored configuration', prepare: openAll });
    const tree = sealTree(opened, newBox);
    // Nothing the old key opens, and what is sealed opens with the new one: an earlier run finished.
    if (resealed === 0 && (openedWithNewKey || parked.kept > 0)) return { resealed: 0, kept: 0, alreadyRotated: true };
    await store.rewrite(tree, parked.resealed > 0 ? parked.items : undefined);
    return { resealed, kept, alreadyRotated: false };
  } finally {
    await store.close();
  }
}
