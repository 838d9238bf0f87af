/**
 * Rotating the secrets key: every sealed value of the Config datastore opened with the old key and
 * sealed again with the new one, for the same leaf (docs/configuration.md#secrets-key).
 *
 * Atomic: the re-sealed tree is written as one snapshot (aside, fsync'ed, renamed) that supersedes the
 * journal, and the new key file is on disk (created durably by its first seal) before that. A crash
 * leaves either the old content, which the old key opens, or the new, which the new key opens; running
 * the rotation again finishes the job either way, since a value that the old key does not open but the
 * new one does is already rotated and kept as it is. It holds the data directory's lock throughout, so
 * the service must be stopped.
 */
import * as path from 'node:path';
import type { PathStep } from '../data/edit';
import { encodeJson } from '../data/json-encode';
import type { SchemaContext, SchemaNode } from '../yang/schema';
import { ConfigStore } from './config-store';
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
  try {
    store = await ConfigStore.open(configDirectory, ctx, { secrets: oldBox, log });
  } catch (error) {
    // Recovery refuses a store whose secrets the key does not open: after a rotation to `newBox` finished
    // and before the configuration named the new key, that is every secret. Opening with the new key tells.
    if (!newBox.hasKey) throw error;
    const done = await ConfigStore.open(configDirectory, ctx, { secrets: newBox, log }).catch(() => undefined);
    if (done === undefined) throw error;
    await done.close();
    return { resealed: 0, kept: 0, alreadyRotated: true };
  }
  try {
    let resealed = 0;
    let kept = 0;
    const clear: string[] = [];
    const openAll = (doc: JsonObject, parent: SchemaNode | undefined, steps: readonly PathStep[]) => {
      openStoredSecrets(doc, parent, secretContext(steps), ctx, oldBox, clear, () => kept++);
      resealed += clear.length;
      clear.length = 0; // clear values are not kept beyond their leaf
    };
    const opened = decodeSnapshot(encodeJson(store.newest()), { ctx, log, where: 'the stored configuration', prepare: openAll });
    await store.rewrite(sealTree(opened, newBox));
    return { resealed, kept, alreadyRotated: false };
  } finally {
    await store.close();
  }
}
