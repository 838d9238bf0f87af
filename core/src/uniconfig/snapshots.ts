/**
 * Snapshots (`snapshot-manager`): named copies of nodes' intended configuration, kept in the Config
 * datastore under `snapshot-manager:snapshots/snapshot=<name>/node=<id>/configuration` (anydata), so
 * they are durable and readable as ordinary data. Only the snapshot RPCs write them.
 *
 * Creating or deleting a snapshot changes the Config datastore, not any node's configuration, so each
 * publishes one data-change event of datastore `config` (a `create` of the snapshot entry as stored, or a
 * `delete`), as a client's write there would, once it is durable.
 */
import type { Datastore } from '../datastore/datastore';
import type { Edit, PathStep } from '../data/edit';
import { editsOfRequest } from '../events/data-change';
import type { DataChangeFeed } from '../events/data-change-feed';
import type { Logger } from '../logger';
import { decodeJson } from '../data/json-decode';
import { toJsonValue } from '../data/json-encode';
import type { DataRoot } from '../data/tree';
import type { JsonObject } from '../hooks';
import { RestconfError } from '../restconf/errors';
import { findTarget } from '../restconf/target';
import type { ContainerSchema, ListSchema, SchemaContext } from '../yang/schema';
import type { LocalStores } from './node-store';

const SNAPSHOT_MODULE = 'snapshot-manager';

export class SnapshotStore {
  private found: { schema: SchemaContext; top: ContainerSchema; list: ListSchema } | undefined;

  /** `local`: the schema and datastores as they are at each call (the service may replace them). `changes`: where creates and deletes are published (absent: they are not). */
  constructor(
    private readonly local: LocalStores,
    private readonly changes?: { readonly feed: DataChangeFeed; readonly log: Logger },
  ) {
    this.nodes();
  }

  private nodes(): { top: ContainerSchema; list: ListSchema } {
    const schema = this.local.schema;
    if (this.found?.schema === schema) return this.found;
    const top = schema.data.find((n) => n.name === 'snapshots' && n.module.name === SNAPSHOT_MODULE);
    const list = top?.kind === 'container' ? top.children.find((c) => c.name === 'snapshot') : undefined;
    if (top?.kind !== 'container' || list?.kind !== 'list')
      throw new Error(`the local schema has no ${SNAPSHOT_MODULE}:snapshots/snapshot list`);
    this.found = { schema, top, list };
    return this.found;
  }

  private get config(): Datastore {
    return this.local.datastores.config;
  }

  /** Whether the top container of snapshots is `schema`'s node (for the direct-write guard). */
  isSnapshotsNode(schema: unknown): boolean {
    return schema === this.nodes().top;
  }

  private steps(name: string): PathStep[] {
    const { top, list } = this.nodes();
    return [{ schema: top }, { schema: list, keys: [name] }];
  }

  /** The configurations a snapshot holds, by node-id; undefined when there is no such snapshot. */
  read(name: string): Map<string, JsonObject> | undefined {
    const found = findTarget(this.config.current(), this.steps(name));
    if (found === undefined) return undefined;
    const json = toJsonValue(found) as {
      'snapshot-manager:snapshot'?: Array<{ node?: Array<{ 'node-id'?: string; configuration?: JsonObject }> }>;
    };
    const out = new Map<string, JsonObject>();
    for (const n of json['snapshot-manager:snapshot']?.[0]?.node ?? []) {
      if (typeof n['node-id'] === 'string') out.set(n['node-id'], n.configuration ?? {});
    }
    return out;
  }

  /** Stores a new snapshot (409 when the name is taken). */
  async create(name: string, nodes: ReadonlyMap<string, JsonObject>, user?: string, now = new Date()): Promise<void> {
    const doc = {
      'snapshot-manager:snapshots': {
        snapshot: [
          { name, created: now.toISOString(), node: [...nodes].map(([nodeId, configuration]) => ({ 'node-id': nodeId, configuration })) },
        ],
      },
    };
    const value: DataRoot = decodeJson(doc, this.local.schema, { allowState: false }).root;
    const stored = await this.config.apply([{ operation: 'merge', target: [], value }], (_next, previous) => {
      if (findTarget(previous, this.steps(name)) !== undefined) {
        throw RestconfError.of('data-exists', `snapshot '${name}' exists already; delete it first or pick another name`, {
          type: 'application',
        });
      }
    });
    const entry = findTarget(stored, this.steps(name));
    if (entry !== undefined) await this.publish([{ operation: 'create', target: this.steps(name), value: entry }], user);
  }

  /** Removes a snapshot (404 when there is none). */
  async delete(name: string, user?: string): Promise<void> {
    if (findTarget(this.config.current(), this.steps(name)) === undefined) throw missing(name);
    await this.config.apply([{ operation: 'remove', target: this.steps(name) }]);
    await this.publish([{ operation: 'delete', target: this.steps(name) }], user);
  }

  /** One `config` data-change event of `edits`; a replay log that cannot be written is logged, since the datastore holds the change. */
  private async publish(edits: readonly Edit[], user: string | undefined): Promise<void> {
    if (this.changes === undefined) return;
    try {
      await this.changes.feed.publish({ datastore: 'config', ...(user !== undefined ? { user } : {}), edits: editsOfRequest(edits) });
    } catch (e) {
      this.changes.log.error(`publishing a snapshot's data-change event failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/** 404 for a snapshot that does not exist. */
export function missing(name: string): RestconfError {
  return RestconfError.of('data-missing', `there is no snapshot '${name}'`, { type: 'application' });
}
