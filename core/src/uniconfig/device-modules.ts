/**
 * The YANG modules each NETCONF uniconfig node's device handed over, kept on disk so that the node's
 * stored configuration can be read (and edited in a transaction) while the device is down, across
 * restarts too: the stored JSON needs the device schema to become a tree, and a NETCONF device's schema
 * is its own modules. (A CLI node's schema follows its translation units, known without the device.)
 *
 * Layout: under `<dataDir>/uniconfig-modules` one file per module set, named by the hash of its
 * sorted names, revisions and texts (devices with equal sets share it), written once per set to a
 * temporary name, fsync'ed and renamed, so a crash leaves no half set; which node has which set is a
 * journal under `<dataDir>/uniconfig-node-modules` (keyed-journal.ts), so a thousand nodes installed at
 * once share a few fsyncs instead of writing a file each. A node's record is written only once its
 * set's file is durable. Sets no node names any more are removed. Versions before kept one
 * `node-<hex id>.json` per node beside the sets; those are moved into the journal when found.
 *
 * With the datastores in PostgreSQL both are journals there, shared by the instances
 * (`uniconfig-node-modules`, and `uniconfig-module-sets` for the sets' texts), so that the instance that
 * owns a node after a hand-over can read its stored configuration while the device is down. There a
 * set no node names any more is kept: another instance may be naming it at that moment, and sets are
 * few (devices of one model and version share one).
 */
import type { Logger } from '../logger';
import { createHash } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ensureDirectory, fsyncDirectory, removeIfPresent } from '../datastore/durable-file';
import { KeyedJournal } from '../datastore/keyed-journal';
import type { Database } from '../database';
import type { SchemaSourceText } from '../mount';

const DIRECTORY = 'uniconfig-modules';
const NODE_JOURNAL = 'uniconfig-node-modules';
/** The journal of the sets' texts, in the database (the folder's files otherwise). */
const SET_JOURNAL = 'uniconfig-module-sets';
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
  private readonly journalDir: string;
  private nodes: KeyedJournal | undefined;
  /** The sets' texts, by hash, when they are kept in the database. */
  private sets: KeyedJournal | undefined;
  /** node-id -> the hash of its module set (as of every change made, durable or on its way). */
  private readonly setOf = new Map<string, string>();
  /** Sets whose file is durable. */
  private readonly stored = new Set<string>();
  /** Set files being written, so nodes installed at once with one set write it once. */
  private readonly writing = new Map<string, Promise<void>>();
  /** Set files are written and removed one at a time, each deciding when its turn comes. */
  private files: Promise<void> = Promise.resolve();
  /** Module sets in memory: handed over by a connection, or read from disk while a node is down. */
  private readonly loaded = new Map<string, SchemaSourceText[]>();
  /** The hash of a sources array a connection handed over (computed once per array). */
  private readonly hashes = new WeakMap<object, string>();

  constructor(
    dataDir: string,
    private readonly log: Pick<Logger, 'error'>,
    private readonly database?: Database,
  ) {
    this.dir = path.join(dataDir, DIRECTORY);
    this.journalDir = path.join(dataDir, NODE_JOURNAL);
  }

  /** Reads which sets are kept and which node has which. */
  async open(): Promise<void> {
    await ensureDirectory(this.dir);
    const database = this.database;
    const nodes = await KeyedJournal.open(
      this.journalDir,
      database === undefined
        ? {}
        : {
            database: { database, name: NODE_JOURNAL },
            onForeign: (changes) => {
              for (const [nodeId, set] of changes)
                if (typeof set === 'string' && SET_NAME.test(set)) this.setOf.set(nodeId, set);
                else this.setOf.delete(nodeId);
            },
          },
    );
    this.nodes = nodes;
    if (database !== undefined) this.sets = await KeyedJournal.open(this.dir, { database: { database, name: SET_JOURNAL } });
    const legacy: Array<[string, string]> = [];
    for (const name of await fs.readdir(this.dir)) {
      if (name.endsWith('.json') && SET_NAME.test(name.slice(0, -5))) this.stored.add(name.slice(0, -5));
      const m = NODE_FILE.exec(name);
      if (m === null) continue;
      try {
        const set = (JSON.parse(await fs.readFile(path.join(this.dir, name), 'utf8')) as { set?: unknown }).set;
        if (typeof set === 'string' && SET_NAME.test(set)) legacy.push([Buffer.from(m[1]!, 'hex').toString('utf8'), set]);
      } catch {
        // written by rename after fsync: a file that does not parse is not ours
      }
    }
    if (legacy.length > 0) {
      // the journal is newer than any file left: a file only fills in what the journal does not hold
      await nodes.set(legacy.filter(([nodeId]) => nodes.get(nodeId) === undefined));
      for (const [nodeId] of legacy) await removeIfPresent(this.nodeFile(nodeId));
      await fsyncDirectory(this.dir);
    }
    for (const [nodeId, set] of nodes.all()) if (typeof set === 'string' && SET_NAME.test(set)) this.setOf.set(nodeId, set);
  }

  /** Closes the journal (service stop). */
  async close(): Promise<void> {
    await this.nodes?.close();
    await this.sets?.close();
    this.nodes = undefined;
    this.sets = undefined;
  }

  /** Takes in which modules other instances sharing the database kept for their nodes before this call. */
  async catchUp(): Promise<void> {
    await this.nodes?.catchUp();
    await this.sets?.catchUp();
  }

  /**
   * Keeps the modules a connection handed over as node `nodeId`'s (nothing for a connection without
   * modules, nor when they are the set kept already): the set's file once per set, then the node's record.
   */
  remember(nodeId: string, sources: readonly SchemaSourceText[] | undefined): Promise<void> {
    if (sources === undefined) return Promise.resolve();
    let hash = this.hashes.get(sources);
    if (hash === undefined) {
      hash = moduleSetHash(sources);
      this.hashes.set(sources, hash);
    }
    const previous = this.setOf.get(nodeId);
    if (previous === hash) return Promise.resolve();
    const set = hash;
    // claimed at once, so that a set another node is leaving is not removed under this one
    this.setOf.set(nodeId, set);
    if (!this.loaded.has(set)) this.loaded.set(set, sources as SchemaSourceText[]);
    return (async () => {
      try {
        await this.storeSet(set, sources);
        await this.journal().set([[nodeId, set]]);
      } catch (e) {
        if (this.setOf.get(nodeId) === set) {
          if (previous === undefined) this.setOf.delete(nodeId);
          else this.setOf.set(nodeId, previous);
        }
        throw e;
      }
      if (previous !== undefined) await this.dropIfUnused(previous);
    })();
  }

  /** The modules kept for `nodeId`; undefined when none are (or they cannot be read: logged). */
  sources(nodeId: string): SchemaSourceText[] | undefined {
    const set = this.setOf.get(nodeId);
    if (set === undefined) return undefined;
    const cached = this.loaded.get(set);
    if (cached !== undefined) return cached;
    try {
      // read synchronously: it happens once per set, and only for a node whose device is down
      const parsed: unknown =
        this.sets !== undefined ? this.sets.get(set) : JSON.parse(readFileSync(path.join(this.dir, `${set}.json`), 'utf8'));
      if (!isSources(parsed)) throw new Error('not a list of modules');
      this.loaded.set(set, parsed);
      return parsed;
    } catch (e) {
      this.log.error(`node ${nodeId}: the kept YANG modules of its device cannot be read (${e instanceof Error ? e.message : String(e)})`, {
        nodeId,
      });
      return undefined;
    }
  }

  /** Forgets a node's modules (uninstall). */
  async forget(nodeId: string): Promise<void> {
    const set = this.setOf.get(nodeId);
    if (set === undefined) return;
    this.setOf.delete(nodeId);
    await this.journal().set([[nodeId, null]]);
    await this.dropIfUnused(set);
  }

  private journal(): KeyedJournal {
    if (this.nodes === undefined) throw new Error('the device module store is not open');
    return this.nodes;
  }

  /** Writes a set's file unless it is there (or being written). */
  private storeSet(set: string, sources: readonly SchemaSourceText[]): Promise<void> {
    if (this.stored.has(set) || this.sets?.get(set) !== undefined) return Promise.resolve();
    let writing = this.writing.get(set);
    if (writing === undefined) {
      const text = JSON.stringify(sources.map((s) => ({ name: s.name, ...(s.revision ? { revision: s.revision } : {}), text: s.text })));
      const sets = this.sets;
      writing = this.inTurn(async () => {
        if (this.stored.has(set)) return;
        if (sets !== undefined) await sets.set([[set, JSON.parse(text) as object]]);
        else {
          await writeDurably(path.join(this.dir, `${set}.json`), text);
          await fsyncDirectory(this.dir);
        }
        this.stored.add(set);
      }).finally(() => this.writing.delete(set));
      this.writing.set(set, writing);
    }
    return writing;
  }

  private nodeFile(nodeId: string): string {
    return path.join(this.dir, `node-${Buffer.from(nodeId, 'utf8').toString('hex')}.json`);
  }

  private dropIfUnused(set: string): Promise<void> {
    if (this.sets !== undefined) return Promise.resolve(); // shared: kept (see the top of this file)
    return this.inTurn(async () => {
      for (const s of this.setOf.values()) if (s === set) return; // (again) in use
      this.loaded.delete(set);
      this.stored.delete(set);
      await removeIfPresent(path.join(this.dir, `${set}.json`));
    });
  }

  private inTurn(work: () => Promise<void>): Promise<void> {
    const turn = this.files.then(work);
    this.files = turn.catch(() => undefined);
    return turn;
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
