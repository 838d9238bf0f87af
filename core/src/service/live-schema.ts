/**
 * The local schema of a running service while plugins come and go, and the datastores bound to it.
 *
 * The schema is the service's own modules, the `yangDirs` folders and the YANG folders of the loaded
 * plugins that are not translation units. The plugin host asks {@link LiveSchema.check} before it swaps
 * in a set of plugins whose YANG differs (plugins/host.ts `checkLocalYang`): the modules are compiled
 * then, so a plugin whose YANG does not compile is refused like any plugin that fails to load, and the
 * old schema keeps serving. A schema that compiles is installed behind a request barrier, because the
 * data trees are bound to the schema's node objects and a request must not mix two schemas:
 * new requests wait at the gate (usually a few milliseconds), the requests in flight finish on the old
 * schema, the datastores are reopened against the new one with their content carried over (nodes the new
 * schema lacks are dropped, and logged), `ietf-yang-library` is rewritten and `schema.loaded` runs; then
 * the waiting requests go on, on the new schema.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import * as path from 'node:path';
import type { Datastore, Datastores } from '../datastore/datastore';
import type { Database } from '../database';
import type { SecretBox } from '../datastore/secrets';
import { decodeSnapshot } from '../datastore/edit-record';
import { decodeJson } from '../data/json-decode';
import { encodeJson } from '../data/json-encode';
import type { Edit } from '../data/edit';
import type { DataRoot } from '../data/tree';
import type { LocalYangVerdict } from '../plugins/host';
import type { Logger } from '../logger';
import type { ScopeSource } from '../restconf/context';
import type { SchemaContext } from '../yang/schema';
import { assembleSchema, type AssembledSchema } from './schema';
import { yangLibraryJson } from './yang-library';

/**
 * Opens the Config and Operational datastores for a schema under a data folder, sealing secrets with
 * `options.secrets` and telling `options.journal.onCommitted` of each group commit of the journal; with
 * `options.database` the Config datastore's journal is kept in that PostgreSQL database.
 */
export type DatastoreOpener = (
  dataDir: string,
  schema: SchemaContext,
  options?: {
    readonly secrets?: SecretBox;
    readonly journal?: { readonly onCommitted?: (seconds: number, records: number) => void };
    readonly database?: Database;
    readonly onForeignChange?: (edits: readonly Edit[]) => void;
  },
) => Promise<Datastores>;

export interface LiveSchemaOptions {
  /** The configuration's extra YANG folders (always part of the schema). */
  readonly yangDirs: readonly string[];
  readonly dataDir: string;
  readonly openDatastores: DatastoreOpener;
  /** The box of the secrets key, given to every opening of the datastores. */
  readonly secrets?: SecretBox;
  readonly log: Logger;
  /** Longest a schema change waits for requests in flight before it goes ahead anyway (default 10 s). */
  readonly drainMs?: number;
  /** Told of each group commit of the Config journal (the service's metrics), in every opening of the datastores. */
  readonly journalCommitted?: (seconds: number, records: number) => void;
  /** The shared database the Config datastore is kept in (the configuration's `database`), if any. */
  readonly database?: Database;
  /** Told of each change another instance sharing the database committed (ConfigStoreOptions.onForeignChange). */
  readonly onForeignChange?: (edits: readonly Edit[]) => void;
}

/** Holds new requests while a schema change is installed; counts the requests in flight. */
class RequestGate {
  private inFlight = 0;
  private held: Promise<void> | undefined;
  private drained: (() => void) | undefined;

  wrap(handler: RequestListener): RequestListener {
    const admit = (req: IncomingMessage, res: ServerResponse): void => {
      if (this.held !== undefined) {
        void this.held.then(() => admit(req, res));
        return;
      }
      this.inFlight++;
      res.once('close', () => {
        if (--this.inFlight === 0) this.drained?.();
      });
      handler(req, res);
    };
    return admit;
  }

  /** Runs `work` with the gate shut, once the requests in flight are done (or `maxWaitMs` passed). */
  async exclusive<T>(work: () => Promise<T>, maxWaitMs: number, onLate: (count: number) => void): Promise<T> {
    let open!: () => void;
    this.held = new Promise<void>((resolve) => {
      open = resolve;
    });
    try {
      if (this.inFlight > 0) {
        let timer: NodeJS.Timeout | undefined;
        await new Promise<void>((resolve) => {
          this.drained = resolve;
          timer = setTimeout(resolve, maxWaitMs);
        });
        clearTimeout(timer);
        this.drained = undefined;
        if (this.inFlight > 0) onLate(this.inFlight);
      }
      return await work();
    } finally {
      this.held = undefined;
      open();
    }
  }
}

/** The schema and datastores in force; `schema` and `datastores` change when a plugin's YANG does. */
export class LiveSchema {
  private assembled: AssembledSchema | undefined;
  private stores: Datastores | undefined;
  /** The schema the plugin host last accepted, waiting for `open()` (before start) or being installed. */
  private accepted: { readonly dirs: string; readonly assembled: AssembledSchema } | undefined;
  /** The YANG texts of the schema last accepted (see `yangKey`): an identical set is not compiled again. */
  private acceptedKey: string | undefined;
  private installing: Promise<void> = Promise.resolve();
  /** Accepted schema changes not yet installed (readiness reports the service not ready meanwhile). */
  private pending = 0;
  private scopes: ScopeSource | undefined;
  private readonly gate = new RequestGate();
  private closed = false;

  constructor(private readonly options: LiveSchemaOptions) {}

  private openStores(schema: SchemaContext): Promise<Datastores> {
    const { secrets, journalCommitted, database, onForeignChange } = this.options;
    return this.options.openDatastores(this.options.dataDir, schema, {
      ...(secrets !== undefined ? { secrets } : {}),
      ...(database !== undefined ? { database } : {}),
      ...(onForeignChange !== undefined ? { onForeignChange } : {}),
      ...(journalCommitted !== undefined ? { journal: { onCommitted: journalCommitted } } : {}),
    });
  }

  /** The local schema in force. */
  get schema(): SchemaContext {
    if (this.assembled === undefined) throw new Error('the local schema is not open yet');
    return this.assembled.schema;
  }

  /** Files of the modules loaded from the configuration's extra folders and plugins. */
  get extraModules(): readonly string[] {
    return this.assembled?.extraModules ?? [];
  }

  /** The datastores bound to the schema in force. */
  get datastores(): Datastores {
    if (this.stores === undefined) throw new Error('the datastores are not open yet');
    return this.stores;
  }

  /**
   * The plugin host's `checkLocalYang`: compiles the service's modules with `pluginDirs`. Before `open()`
   * the accepted schema is the one `open()` starts with; after, `commit` installs it behind the gate.
   */
  readonly check = (pluginDirs: readonly string[]): LocalYangVerdict => {
    // A plugin swapped for a version with the same modules (most swaps) keeps the schema and skips the barrier.
    const key = yangKey([...this.options.yangDirs, ...pluginDirs]);
    if (key !== undefined && key === this.acceptedKey) return { ok: true, commit: () => undefined };
    let assembled: AssembledSchema;
    try {
      assembled = assembleSchema([...this.options.yangDirs, ...pluginDirs]);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      return { ok: false, message, files: filesNamedIn(message) };
    }
    return {
      ok: true,
      commit: () => {
        this.acceptedKey = key;
        this.accepted = { dirs: pluginDirs.join('\0'), assembled };
        if (this.stores !== undefined) this.scheduleInstall();
      },
    };
  };

  /**
   * Opens the datastores on the schema the plugin host accepted (`pluginDirs` are the loaded plugins'
   * local YANG folders now), or, without a host, on the service's modules and `yangDirs`. Throws
   * SchemaAssemblyError naming the files when the modules do not compile.
   */
  async open(pluginDirs: readonly string[], scopes: ScopeSource): Promise<void> {
    this.scopes = scopes;
    const accepted = this.accepted?.dirs === pluginDirs.join('\0') ? this.accepted.assembled : undefined;
    if (accepted === undefined) this.acceptedKey = yangKey([...this.options.yangDirs, ...pluginDirs]);
    this.accepted = undefined;
    this.assembled = accepted ?? assembleSchema([...this.options.yangDirs, ...pluginDirs]);
    const stores = await this.openStores(this.assembled.schema);
    try {
      await seedYangLibrary(stores.operational, this.assembled.schema);
    } catch (e) {
      await stores.close();
      throw e;
    }
    this.stores = stores;
    this.announce();
  }

  /** Wraps the service's request handler so that a schema change can hold new requests. */
  gated(handler: RequestListener): RequestListener {
    return this.gate.wrap(handler);
  }

  /** Whether a schema change is accepted and not yet installed (requests wait at the gate meanwhile). */
  get swapping(): boolean {
    return this.pending > 0;
  }

  /** Whether the datastores are open (after `open()`, until `close()`). */
  get storesOpen(): boolean {
    return this.stores !== undefined && !this.closed;
  }

  /** Resolves once every accepted schema change is installed (tests, stop). */
  settled(): Promise<void> {
    return this.installing;
  }

  /** Waits for a change being installed, then closes the datastores. */
  async close(): Promise<void> {
    this.closed = true;
    await this.installing;
    await this.stores?.close();
  }

  private scheduleInstall(): void {
    this.pending++;
    this.installing = this.installing
      .then(() => this.installAccepted())
      .catch((e: unknown) => {
        this.options.log.error(`installing the new local schema failed: ${e instanceof Error ? e.message : String(e)}`);
      })
      .finally(() => {
        this.pending--;
      });
  }

  private async installAccepted(): Promise<void> {
    const next = this.accepted;
    this.accepted = undefined;
    if (next === undefined || this.closed) return;
    const { log, drainMs = 10_000 } = this.options;
    await this.gate.exclusive(
      async () => {
        const started = Date.now();
        const old = this.stores!;
        const oldConfig = old.config.current();
        const oldOperational = old.operational.current();
        await old.close();
        let opened: Datastores;
        try {
          opened = await this.openStores(next.assembled.schema);
        } catch (e) {
          // Keep serving on the old schema rather than not at all.
          this.stores = await this.openStores(this.assembled!.schema);
          await carryOver(this.stores.config, oldConfig, this.assembled!.schema, () => undefined);
          await carryOver(this.stores.operational, oldOperational, this.assembled!.schema, () => undefined);
          throw e;
        }
        const dropped = (m: string) => log.error(`local schema change: ${m}`);
        await carryOver(opened.config, oldConfig, next.assembled.schema, dropped);
        await carryOver(opened.operational, oldOperational, next.assembled.schema, dropped);
        await seedYangLibrary(opened.operational, next.assembled.schema);
        this.assembled = next.assembled;
        this.stores = opened;
        this.announce();
        log.info(`local schema changed (${next.assembled.schema.modules.size} modules) in ${Date.now() - started} ms`);
      },
      drainMs,
      (count) => log.error(`local schema change: ${count} request(s) still running after ${drainMs} ms; changing anyway`),
    );
  }

  /** `schema.loaded` for the local schema, on the current generation's hooks. */
  private announce(): void {
    const scope = this.scopes?.acquire();
    if (scope === undefined) return;
    try {
      if (scope.hooks.schema.loaded.isUsed()) scope.hooks.schema.loaded.call({ schema: this.schema, scope: { kind: 'local' } });
    } catch (e) {
      this.options.log.error(`a schema.loaded tap failed: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      scope.release();
    }
  }
}

/**
 * A digest of every `.yang` file under `dirs` (path and text), or undefined when a folder cannot be read
 * (then the schema is compiled, which reports the problem). Bounded: past 5,000 files it gives up.
 */
function yangKey(dirs: readonly string[]): string | undefined {
  const hash = createHash('sha256');
  let files = 0;
  const walk = (dir: string): boolean => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!walk(full)) return false;
      } else if (e.name.endsWith('.yang')) {
        if (++files > 5000) return false;
        try {
          hash.update(`${full}\0${fs.readFileSync(full, 'utf8')}\0`);
        } catch {
          return false;
        }
      }
    }
    return true;
  };
  for (const dir of dirs) {
    hash.update(`dir\0${dir}\0`);
    if (!walk(dir)) return undefined;
  }
  return hash.digest('hex');
}

/** The `.yang` files a SchemaAssemblyError message names (`/path/file.yang:3:5: ...`). */
function filesNamedIn(message: string): string[] {
  return [...new Set([...message.matchAll(/(?:^|\n)([^\n:]+\.yang)(?::\d+:\d+)?:/g)].map((m) => m[1]!))];
}

/**
 * Puts `previous` (a tree of another schema) into `store` re-read against `schema`, unless the store
 * opened with content: a durable store read it back from its journal, parked and put back as it should,
 * and replacing it with `previous` would undo what it put back.
 */
async function carryOver(store: Datastore, previous: DataRoot, schema: SchemaContext, log: (m: string) => void): Promise<void> {
  if (previous.children.length === 0 || store.current().children.length > 0) return;
  const wanted = decodeSnapshot(encodeJson(previous), { ctx: schema, log, where: 'stored data' });
  if (wanted.children.length === 0) return;
  await store.apply([{ operation: 'replace', target: [], value: wanted }]);
}

/** Writes the schema's `ietf-yang-library` (yang-library and modules-state) into the Operational datastore. */
async function seedYangLibrary(operational: Datastore, schema: SchemaContext): Promise<void> {
  const library = decodeJson(yangLibraryJson(schema), schema, {});
  await operational.apply(
    library.root.children.map((node) => ({ operation: 'replace' as const, target: [{ schema: node.schema }], value: node })),
  );
}
