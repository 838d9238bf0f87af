/**
 * What every RESTCONF handler is given: the schema in force, the two datastores, the plugin host to
 * lease hooks from, the event hub, and the service options that change how requests are read. The service builds
 * one at start-up (service/service.ts); tests build their own.
 */
import type { Logger } from '../logger';
import type { EventHub } from '../events';
import type { Datastores } from '../datastore/datastore';
import type { SecretBox } from '../datastore/secrets';
import type { DataChangeFeed } from '../events/data-change-feed';
import type { MountManager } from '../mount';
import type { PluginScope } from '../plugins/generation';
import type { SchemaContext } from '../yang/schema';

/** Something that hands out leases on the current plugin generation (the PluginHost). */
export interface ScopeSource {
  acquire(): PluginScope;
}

/** Options from the service configuration that the HTTP layer honours. */
export interface RestconfOptions {
  /** Key delimiter as written in URIs (`%22`), null when disabled. */
  readonly keyDelimiter: string | null;
  /** Largest request body in bytes; larger bodies answer 413. */
  readonly bodyLimit: number;
  /** What GET reads when `content` is absent. */
  readonly defaultContent: 'all' | 'config';
}

/** The RESTCONF layer's view of a running service. */
export interface RestconfContext {
  readonly schema: SchemaContext;
  readonly datastores: Datastores;
  readonly plugins: ScopeSource;
  readonly options: RestconfOptions;
  /** Where the HTTP layer reports what only an operator should see (unexpected errors, plugin faults). */
  readonly log: Logger;
  /** Installed devices, served under `yang-ext:mount` (absent: mount paths answer 404). */
  readonly mount?: MountManager;
  /** Where committed writes to the Config datastore are published as data-change events (absent: none are). */
  readonly dataChanges?: DataChangeFeed;
  /** The secrets key: a data-change event carries a sensitive leaf sealed, as the datastore keeps it, never clear. */
  readonly secrets?: SecretBox;
  /** The event streams: producers publish here, the stream resource subscribes (absent: no streams). */
  readonly events?: EventHub;
}
