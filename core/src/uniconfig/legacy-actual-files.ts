/**
 * The layout in which earlier versions kept uniconfig nodes' actual configurations: one file per node
 * under `<dataDir>/uniconfig-actual`, named by the hex of its node-id, each written by rename after
 * fsync. The node store now keeps them in a journal (node-store.ts); at start-up it moves what it finds
 * here into the journal and the files are removed, so a data folder of an earlier version loses nothing.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fsyncDirectory, removeIfPresent } from '../datastore/durable-file';
import type { JsonObject } from '../hooks';

/** The folder under the data directory. */
const DIRECTORY = 'uniconfig-actual';

function fileNameOf(nodeId: string): string {
  return `${Buffer.from(nodeId, 'utf8').toString('hex')}.json`;
}

function nodeIdOf(fileName: string): string | undefined {
  const m = /^((?:[0-9a-f]{2})+)\.json$/.exec(fileName);
  return m ? Buffer.from(m[1]!, 'hex').toString('utf8') : undefined;
}

/** The actual configurations found in `dataDir`'s one-file-per-node folder (none when it is absent). */
export async function readLegacyActualFiles(dataDir: string): Promise<Array<[string, JsonObject]>> {
  const dir = path.join(dataDir, DIRECTORY);
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const found: Array<[string, JsonObject]> = [];
  for (const name of names) {
    const nodeId = nodeIdOf(name);
    if (nodeId === undefined) continue; // a temporary file of a write cut short
    const text = await fs.readFile(path.join(dir, name), 'utf8');
    try {
      found.push([nodeId, JSON.parse(text) as JsonObject]);
    } catch {
      // Written with rename after fsync, so a torn file cannot be there; anything else is not ours.
    }
  }
  return found;
}

/** Removes the files of `nodeIds` (once what they held is durable elsewhere). */
export async function removeLegacyActualFiles(dataDir: string, nodeIds: readonly string[]): Promise<void> {
  const dir = path.join(dataDir, DIRECTORY);
  for (const nodeId of nodeIds) await removeIfPresent(path.join(dir, fileNameOf(nodeId)));
  await fsyncDirectory(dir);
}
