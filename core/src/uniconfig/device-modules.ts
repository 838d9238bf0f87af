/**
 * The YANG modules each NETCONF uniconfig node's device handed over, kept on disk so that the node's
 * stored configuration can be read (and edited in a transaction) while the device is down, across
 * restarts too: the stored JSON needs the device schema to become a tree, and a NETCONF device's schema
 * is its own modules. (A CLI node's schema follows its translation units, known without the device.)
 *
 * Layout under `<dataDir>/uniconfig-modules`: one file per module set, named by the hash of its
 * sorted names, revisions and texts (devices with equal sets share it), and one small file per node
 * naming its set. Files are written to a temporary name, fsync'ed and renamed, so a crash leaves the
 * old file or the new one. Sets no node names any more are removed.
 */
import type { Logger } from '../logger';
import { createHash } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ensureDirectory, fsyncDirectory, removeIfPresent } from '../datastore/durable-file';
import type { SchemaSourceText } from '../mount';

const DIRECTORY = 'uniconfig-modules';
const NODE_FILE = /^node-((?:[0-9a-f]{2})+)\.json$/;
const SET_NAME = /^[0-9a-f]{64}$/;

/** The hash naming a module set (order-independent). */
function moduleSetHash(sources: readonly SchemaSourceText[]): string {
  const hash = createHash('sha256');
  const sorted = [...sources].sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : (a.revision ?? '') < (b.revision ?? '') ? -1 : 1,
  );
  for (const s of sorted) hash.update(`${s.name}@${s.revision ?? ''}\0${s.text}\0`);
  return hash.digest('hex');
}

function isSources(value: unknown): value is SchemaSourceText[] {
  return (
    Array.isArray(value) &&
    value.every(
      (s) =>
        s !== null &&
        typeof s === 'object' &&
        typeof s.name === 'string' &&
        typeof s.text === 'string' &&
        (s.revision === undefined || typeof s.revision === 'string'),
    )
  );
}

export class DeviceModuleStore {
  private readonly dir: string;
  /** node-id -> the hash of its module set. */
  private readonly setOf = new Map<string, string>();
  /** Module sets read from disk (only needed while a node is down). */
  private readonly loaded = new Map<string, SchemaSourceText[]>();
  /** The hash of a sources array a connection handed over (computed once per array). */
  private readonly hashes = new WeakMap<object, string>();
  private tail: Promise<void> = Promise.resolve();

  constructor(
    dataDir: string,
    private readonly log: Pick<Logger, 'error'>,
  ) {
    this.dir = path.join(dataDir, DIRECTORY);
  }

  /** Reads which node has which set. */
  async open(): Promise<void> {
    await ensureDirectory(this.dir);
    for (const name of await fs.readdir(this.dir)) {
      const m = NODE_FILE.exec(name);
      if (m === null) continue;
      try {
        const set = (JSON.parse(await fs.readFile(path.join(this.dir, name), 'utf8')) as { set?: unknown }).set;
        if (typeof set === 'string' && SET_NAME.test(set)) this.setOf.set(Buffer.from(m[1]!, 'hex').toString('utf8'), set);
      } catch {
        // written by rename after fsync: a file that does not parse is not ours
      }
    }
  }

  /**
   * Keeps the modules a connection handed over as node `nodeId`'s (nothing for a connection without
   * modules, nor when they are the set kept already). Writes one at a time.
   */
  remember(nodeId: string, sources: readonly SchemaSourceText[] | undefined): Promise<void> {
    if (sources === undefined) return Promise.resolve();
    let hash = this.hashes.get(sources);
    if (hash === undefined) {
      hash = moduleSetHash(sources);
      this.hashes.set(sources, hash);
    }
    if (this.setOf.get(nodeId) === hash) return Promise.resolve();
    const set = hash;
    const work = this.tail.then(async () => {
      const setFile = path.join(this.dir, `${set}.json`);
      if (!(await exists(setFile)))
        await writeDurably(
          setFile,
          JSON.stringify(sources.map((s) => ({ name: s.name, ...(s.revision ? { revision: s.revision } : {}), text: s.text }))),
        );
      await writeDurably(this.nodeFile(nodeId), JSON.stringify({ set }));
      await fsyncDirectory(this.dir);
      const previous = this.setOf.get(nodeId);
      this.setOf.set(nodeId, set);
      if (previous !== undefined) await this.dropIfUnused(previous);
    });
    this.tail = work.catch(() => undefined);
    return work;
  }

  /** The modules kept for `nodeId`; undefined when none are (or they cannot be read: logged). */
  sources(nodeId: string): SchemaSourceText[] | undefined {
    const set = this.setOf.get(nodeId);
    if (set === undefined) return undefined;
    const cached = this.loaded.get(set);
    if (cached !== undefined) return cached;
    try {
      // read synchronously: it happens once per set, and only for a node whose device is down
      const parsed: unknown = JSON.parse(readFileSync(path.join(this.dir, `${set}.json`), 'utf8'));
      if (!isSources(parsed)) throw new Error('not a list of modules');
      this.loaded.set(set, parsed);
      return parsed;
    } catch (e) {
      this.log.error(`node ${nodeId}: the kept YANG modules of its device cannot be read (${e instanceof Error ? e.message : String(e)})`);
      return undefined;
    }
  }

  /** Forgets a node's modules (uninstall). */
  forget(nodeId: string): Promise<void> {
    const work = this.tail.then(async () => {
      const set = this.setOf.get(nodeId);
      if (set === undefined) return;
      this.setOf.delete(nodeId);
      await removeIfPresent(this.nodeFile(nodeId));
      await this.dropIfUnused(set);
    });
    this.tail = work.catch(() => undefined);
    return work;
  }

  private nodeFile(nodeId: string): string {
    return path.join(this.dir, `node-${Buffer.from(nodeId, 'utf8').toString('hex')}.json`);
  }

  private async dropIfUnused(set: string): Promise<void> {
    for (const s of this.setOf.values()) if (s === set) return;
    this.loaded.delete(set);
    await removeIfPresent(path.join(this.dir, `${set}.json`));
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

async function writeDurably(file: string, text: string): Promise<void> {
  const temporary = `${file}.tmp`;
  const handle = await fs.open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fs.rename(temporary, file);
}
