/**
 * Path-scoped data-change subscriptions (module `data-change-events`, UniConfig's shape): the RPCs that
 * create and delete them (taps on `rpc.invoke`), the list of them (`data.readState`, config false), and
 * their stream, one per subscription, named by its id and defined on the hub.
 *
 * They are kept in one small file, `<dataDir>/events/data-change-subscriptions.json`, rewritten whole
 * (temporary file, fsync, rename, fsync of the directory) before an RPC answers, so a subscription a
 * client was told about survives a restart and a deleted one does not come back. Not in the Config
 * datastore: they are created and removed by RPC only, and a client's PUT there would make a stream
 * without the RPC's checks. A file that cannot be read stops the start with its name, as damage should.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DIRECTORY_MODE, FILE_MODE, fsyncDirectory } from '../datastore/durable-file';
import { FaultError } from '../fault';
import type { JsonObject, JsonValue, OperationResult, RosettaHooks } from '../hooks';
import { type ChangeScope, type ScopeSegment, parseScopePath, ScopePathError, scopePathText } from './change-scope';
import type { EventInput, StreamDefinition } from './types';

export const SUBSCRIPTIONS_MODULE = 'data-change-events';
const SUBSCRIPTIONS_FILE = 'data-change-subscriptions.json';
/** The topology a subscription on a node watches when it names none. */
const DEFAULT_TOPOLOGY = 'uniconfig';

/** What of the hub the data-change producers use (the hub, EventHub, has this surface). */
export interface ChangeStreams {
  defineStream(def: StreamDefinition): void;
  removeStream(name: string): void;
  publish(stream: string, input: EventInput): Promise<unknown>;
  /** With a database: the SQL that inserts `events` in a write's transaction (they are published once it commits). */
  sqlWithin?(events: ReadonlyArray<readonly [string, EventInput]>): string;
}

/** One subscription as kept and listed. */
export interface DataChangeSubscription {
  readonly id: string;
  readonly topologyId?: string;
  readonly nodeId?: string;
  /** The subscribed path as given, canonical (scopePathText). */
  readonly subtreePath: string;
  readonly path: readonly ScopeSegment[];
  readonly scope: ChangeScope;
}

function invalid(message: string, path?: string): FaultError {
  return new FaultError({ tag: 'invalid-value', message, type: 'application', ...(path !== undefined ? { path } : {}) });
}

/**
 * The path of a node subscription without the node's `configuration` segment, which UniConfig clients
 * may write first (`/frinx-uniconfig-topology:configuration/...`); the configuration's own top is `/`.
 */
function underConfiguration(segments: ScopeSegment[]): ScopeSegment[] {
  return segments[0]?.name === 'configuration' ? segments.slice(1) : segments;
}

function streamOf(sub: DataChangeSubscription): StreamDefinition {
  const where = sub.nodeId !== undefined ? `node ${sub.nodeId} of topology ${sub.topologyId}` : 'the Config datastore';
  return {
    name: sub.id,
    description: `data changes of ${where} at ${sub.subtreePath} (scope ${sub.scope})`,
    replay: true,
  };
}

function text(input: JsonObject, member: string): string | undefined {
  const v = input[member];
  return typeof v === 'string' ? v : undefined;
}

export class DataChangeSubscriptions {
  private readonly byId = new Map<string, DataChangeSubscription>();
  private readonly file: string;
  /** Rewrites of the file run one after another, each writing the set as it is then. */
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly directory: string,
    private readonly streams: ChangeStreams,
  ) {
    this.file = path.join(directory, SUBSCRIPTIONS_FILE);
  }

  /** Reads the kept subscriptions and defines their streams. */
  open(): void {
    let textOfFile: string;
    try {
      textOfFile = readFileSync(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    let kept: unknown;
    try {
      kept = JSON.parse(textOfFile);
    } catch (e) {
      throw new Error(
        `${this.file} is damaged (${e instanceof Error ? e.message : String(e)}); move it away to start without its subscriptions`,
      );
    }
    if (!Array.isArray(kept)) throw new Error(`${this.file} is damaged (not a list); move it away to start without its subscriptions`);
    for (const entry of kept as JsonObject[]) {
      const sub = this.fromInput(entry, text(entry, 'subscription-id'));
      this.byId.set(sub.id, sub);
      this.streams.defineStream(streamOf(sub));
    }
  }

  /** Every subscription in force. */
  all(): IterableIterator<DataChangeSubscription> {
    return this.byId.values();
  }

  get size(): number {
    return this.byId.size;
  }

  /** Creates a subscription from the RPC's input, kept on disk before it resolves; its stream is defined. */
  async create(input: JsonObject): Promise<DataChangeSubscription> {
    const sub = this.fromInput(input, randomUUID());
    this.byId.set(sub.id, sub);
    this.streams.defineStream(streamOf(sub));
    try {
      await this.save();
    } catch (e) {
      this.byId.delete(sub.id);
      this.streams.removeStream(sub.id);
      throw e;
    }
    return sub;
  }

  /** Removes a subscription and its stream (404 for an unknown id). */
  async delete(id: string): Promise<void> {
    const sub = this.byId.get(id);
    if (sub === undefined)
      throw new FaultError({ tag: 'data-missing', message: `no data-change subscription '${id}'`, type: 'application' });
    this.byId.delete(id);
    await this.save();
    this.streams.removeStream(id);
  }

  /** The RPCs and the list of subscriptions. */
  tap(hooks: RosettaHooks): void {
    const rpc = hooks.rpc.invoke;
    rpc.for(`${SUBSCRIPTIONS_MODULE}:create-data-change-subscription`).tapPromise('events', async (ctx): Promise<OperationResult> => {
      const sub = await this.create(ctx.input);
      return { output: { 'subscription-id': sub.id } };
    });
    rpc.for(`${SUBSCRIPTIONS_MODULE}:delete-data-change-subscription`).tapPromise('events', async (ctx): Promise<OperationResult> => {
      await this.delete(text(ctx.input, 'subscription-id') ?? '');
      return { output: null };
    });
    hooks.data.readState.for(SUBSCRIPTIONS_MODULE).tapPromise('events', async (state) => {
      if (this.byId.size === 0) return state;
      const list = [...this.byId.values()].map((s) => this.asJson(s));
      return { ...state, [`${SUBSCRIPTIONS_MODULE}:data-change-subscriptions`]: { subscription: list } };
    });
  }

  private asJson(sub: DataChangeSubscription): JsonObject {
    const out: { [member: string]: JsonValue } = { 'subscription-id': sub.id };
    if (sub.topologyId !== undefined) out['topology-id'] = sub.topologyId;
    if (sub.nodeId !== undefined) out['node-id'] = sub.nodeId;
    out['subtree-path'] = sub.subtreePath;
    out['data-change-scope'] = sub.scope;
    return out;
  }

  /** A subscription from the RPC's input (or a kept entry); 400 naming what is wrong. */
  private fromInput(input: JsonObject, id: string | undefined): DataChangeSubscription {
    if (id === undefined || id === '') throw new Error(`${this.file} is damaged (an entry without subscription-id)`);
    const nodeId = text(input, 'node-id');
    const given = text(input, 'topology-id');
    if (nodeId === undefined && given !== undefined) throw invalid('topology-id is given without node-id', '/input/topology-id');
    const scope = (text(input, 'data-change-scope') ?? 'SUBTREE') as ChangeScope;
    if (scope !== 'BASE' && scope !== 'ONE' && scope !== 'SUBTREE')
      throw invalid(`data-change-scope must be BASE, ONE or SUBTREE, not '${scope}'`, '/input/data-change-scope');
    let segments: ScopeSegment[];
    try {
      segments = parseScopePath(text(input, 'subtree-path') ?? '/');
    } catch (e) {
      if (e instanceof ScopePathError) throw invalid(`subtree-path: ${e.message}`, '/input/subtree-path');
      throw e;
    }
    if (nodeId !== undefined) segments = underConfiguration(segments);
    return {
      id,
      ...(nodeId !== undefined ? { topologyId: given ?? DEFAULT_TOPOLOGY, nodeId } : {}),
      subtreePath: scopePathText(segments),
      path: segments,
      scope,
    };
  }

  /** Writes the whole set atomically; concurrent calls are queued, each writing the newest set. */
  private save(): Promise<void> {
    const next = this.saving.then(() => this.write());
    this.saving = next.catch(() => undefined);
    return next;
  }

  private async write(): Promise<void> {
    await fs.mkdir(this.directory, { recursive: true, mode: DIRECTORY_MODE });
    const body = JSON.stringify([...this.byId.values()].map((s) => this.asJson(s)));
    const temporary = `${this.file}.tmp-${process.pid}`;
    const handle = await fs.open(temporary, 'w', FILE_MODE);
    try {
      await handle.writeFile(body, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temporary, this.file);
    await fsyncDirectory(this.directory);
  }
}
