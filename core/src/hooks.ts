/**
 * Every extension point of the Rosetta core, in one place: the typed, frozen object of tapable hooks that
 * plugins tap and the core calls. A reader learns the whole extension surface from this file.
 *
 * How the object is used:
 * - The plugin host builds one hooks object per *generation* of loaded plugins (see plugins/generation.ts)
 *   and replays every plugin's taps into it. A request takes a lease on the current generation
 *   (`PluginHost.acquire()`) and calls that generation's hooks until it finishes, so a plugin swapped in
 *   the middle of a request never changes what the request sees.
 * - Hooks are named by the moment they run, not by who taps them. Keyed families are `HookMap`s:
 *   `device.*` hooks are keyed by southbound protocol (a southbound's descriptor names it), `rpc.invoke` by the qualified
 *   operation name (`module:rpc`), `data.readState` by module name.
 * - The core's own behaviour that a plugin could replace is tapped onto the same hooks by built-in
 *   plugins (e.g. the plugin host's reload RPC and its operational data), with no privileged path.
 *
 * Device and RPC payloads are RFC 7951 JSON values (what a plugin author can produce without the core's
 * data tree); local datastore hooks carry the core's data tree (`data/tree.ts`). Every path a hook hands a
 * plugin (local reads, writes and commits, plugin routes' resolved paths, southbound reads and edits) is
 * an instance path value (`yang/instance-path.ts`): segments with module, name, keys and leaf-list value,
 * so a plugin reads them instead of parsing the text the core would otherwise write, and a plugin that
 * needs text (a message, a URL) writes it with that file's one formatter, `renderInstancePath`. Only URIs
 * as received (`UriParseContext`, `LocalDataAccess`'s arguments) stay text.
 *
 * Why this file is longer than 400 lines: it is the whole extension surface in one file on purpose; each
 * hook's contract is a paragraph beside its context types, so a reader learns every hook here.
 */
import type { RequestListener, Server } from 'node:http';
import {
  AsyncSeriesBailHook,
  AsyncSeriesHook,
  AsyncSeriesWaterfallHook,
  HookMap,
  SyncBailHook,
  SyncHook,
  SyncWaterfallHook,
} from 'tapable';
import type { DataFault } from './data/errors';
import type { DataRoot } from './data/tree';
import type { InstancePath } from './yang/instance-path';
import type { ExtensionInstance, SchemaContext, SchemaNode } from './yang/schema';

export type { InstancePath, InstancePathSegment } from './yang/instance-path';

/** A JSON value as RFC 7951 encodes YANG data (member names `module:name` where the module changes). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [member: string]: JsonValue };
/** A JSON object: the body of a container, list entry, RPC input or output. */
export type JsonObject = { [member: string]: JsonValue };

// ---------------------------------------------------------------------------------------------------
// Contexts handed to taps

/** The RESTCONF URI on its way to the parser; taps may rewrite it before it is read. */
export interface UriParseContext {
  /** The request path as received, from `/rests/` on, percent-encoding intact. Never changed. */
  readonly original: string;
  /** The path the parser will read. A tap may rewrite it (strip a prefix, normalise key quoting). */
  path: string;
  /** The key delimiter in force: `%22` by default, null when disabled (docs/configuration.md#configuration-file, `keyDelimiter`). */
  keyDelimiter: string | null;
}

/** Where a schema was compiled for: the local datastore, or one mounted device. */
export type SchemaScope = { readonly kind: 'local' } | { readonly kind: 'device'; readonly nodeId: string };

export interface SchemaLoadedContext {
  readonly schema: SchemaContext;
  readonly scope: SchemaScope;
}

export type DatastoreName = 'config' | 'operational';

/** A read of the local datastores, as the RESTCONF layer resolved it. */
export interface ReadContext {
  readonly datastore: DatastoreName;
  /** The target; empty for the datastore root. */
  readonly path: InstancePath;
  /** Query parameters as received (`content`, `depth`, `fields`, ...). */
  readonly query: Readonly<Record<string, string>>;
  /** The schema the data is in: the local one, or the mounted device's. */
  readonly schema?: SchemaContext;
  /** The node id when the read is under a device's mount point (`path` then starts at the mount point). */
  readonly device?: string;
}

/** A write to the local config datastore: the whole tree before and after the edit, not yet committed. */
export interface WriteContext {
  readonly datastore: 'config';
  readonly operation: 'create' | 'merge' | 'replace' | 'delete' | 'patch';
  /** The request's target; empty for the datastore root. */
  readonly path: InstancePath;
  readonly before: DataRoot;
  readonly after: DataRoot;
  /** A tap rejects the write by pushing faults here (or by throwing a DataError). */
  readonly faults: DataFault[];
}

/** A write body about to be decoded: PUT, POST or plain PATCH, on local data or under a mount point. */
export interface WriteBodyContext {
  readonly method: 'PUT' | 'POST' | 'PATCH';
  /** The request's target; empty for the datastore root (under a mount point, it starts there). */
  readonly path: InstancePath;
  /** Query parameters as received (`unhide`, ...). */
  readonly query: Readonly<Record<string, string>>;
  /** The schema the body is decoded against: the local one, or the mounted device's. */
  readonly schema: SchemaContext;
  /** The node id when the write is under a device's mount point. */
  readonly device?: string;
}

/** How a write body is decoded. Strict by default; `data.decodeBody` taps relax it. */
export interface BodyDecodePolicy {
  /** Members (XML: elements) that name no schema node are dropped with their content, not 400 `unknown-element`. */
  readonly skipUnknown: boolean;
  /**
   * Known nodes for which this answers true are dropped with their content, as if absent from the body.
   * Called for each member met, so it must be cheap (memoize per schema node). Undefined: drop nothing.
   */
  readonly skip: ((schema: SchemaNode) => boolean) | undefined;
}

/** A committed change of the local config datastore. */
export interface CommitContext {
  readonly datastore: 'config';
  readonly before: DataRoot;
  readonly after: DataRoot;
  /** The nodes the commit created, changed or deleted. */
  readonly changed: readonly InstancePath[];
}

/** A request for operational data that a module's owner computes on demand (not stored). */
export interface StateReadContext {
  /** The module whose top-level nodes are asked for. */
  readonly module: string;
  /** The target the client asked for (empty for the root); taps may return more, the core trims. */
  readonly path: InstancePath;
  /**
   * When the target is a list and the answer shows only some of its entries (a page, or just their count):
   * `'keys'` asks for every entry with its key leaves only (which entries exist, cheaply); a set then asks for
   * the full entries of those keys only (a single key's canonical text; several keys as data/list.ts
   * `keyString` writes them). Absent: every entry in full. Taps may return more, the core trims, so a tap
   * that ignores this is correct, only slower.
   */
  readonly entries?: 'keys' | ReadonlySet<string>;
  /**
   * The scheme and authority the request was sent to (`http://host:port`, from its Host header), for state
   * that names URLs on this service (the event streams' locations). Absent when read without a request.
   */
  readonly origin?: string;
}

/** A protocol connection a southbound plugin opened for one device; the plugin owns it. */
export interface DeviceConnection {
  /** Free text for `connected-message` in the node's status. */
  readonly message?: string;
  /** Closes the connection (uninstall, shutdown). Must not throw. */
  close(): Promise<void>;
  /** Capabilities the device advertised (NETCONF hello): the node's `available-capabilities`. */
  readonly capabilities?: readonly string[];
  /**
   * YANG modules obtained from the device (NETCONF get-schema): the core compiles them into the device's
   * schema. Devices whose module sets are equal (same `moduleSetId`) may share one compiled schema.
   */
  readonly schemaSources?: ReadonlyArray<{ readonly name: string; readonly revision?: string; readonly text: string }>;
  /** Identifies the module set of `schemaSources` (a hash of the sorted name@revision list). */
  readonly moduleSetId?: string;
  /** Modules the device lists but that could not be obtained: the node's `unavailable-capabilities`. */
  readonly unavailableSchemas?: ReadonlyArray<{ readonly name: string; readonly revision?: string; readonly reason: string }>;
  /** The connection's state now, for `connection-status` (a plugin that reconnects changes it). */
  status?(): NodeConnectionStatus;
  /** The SHA256 fingerprint of the SSH host key the device presented at its last login: the node's `host-key-fingerprint`. */
  readonly hostKey?: string;
}

/**
 * Converts a schema-driven device's XML to RFC 7951 JSON with the device's compiled schema; the core
 * builds one per mounted device and hands it in device contexts (a southbound has no schema of its own).
 */
export interface DeviceDataCodec {
  /**
   * `xml` is one element whose children are the data: the `<data>` of a get/get-config reply (children
   * are top-level nodes; returns `{"module:top": ...}`), or the `<rpc-reply>` of an RPC or action when
   * `operation` names it (`module:rpc`, or the action's instance-identifier; returns the output members,
   * `{}` for `<ok/>`). `content` drops config (`nonconfig`) or state (`config`) nodes. Throws DataError.
   * A data answer is read-only (frozen): returned unchanged from `device.read`, the core reuses the tree
   * it was decoded into instead of decoding it again.
   */
  fromXml(xml: string, options?: { readonly content?: ContentFilter; readonly operation?: string }): JsonObject;
  /**
   * The data of a get/get-config reply decoded as it arrives: `push` the `<data>` document in pieces,
   * each cut just after an end tag's `>`, then `end` with the rest; the answer is `fromXml`'s. Throws
   * (DataError, or any error for text cut elsewhere) whenever `fromXml` of the whole text might say
   * something else: the caller then hands the whole text to `fromXml`, which reports it.
   */
  dataReader(options?: { readonly content?: ContentFilter }): DeviceDataReader;
  /**
   * The XML of an edit's value, written by the core's schema-aware encoder: `value` is RFC 7951 JSON
   * whose one member is the node at instance-identifier `path` (`DeviceEdit.value`; a list entry as a
   * one-entry array). Each of its elements (a list's entries, a leaf-list's values) is in its module's
   * namespace, with no `xmlns` when that is the module of the path's parent; identityref and
   * instance-identifier values declare the prefixes the schema gives their modules; RFC 7952 metadata is
   * left out. `attributes` (text such as ` xmlns:nc="..." nc:operation="merge"`) goes into each
   * element's start tag, after its `xmlns`. Throws DataError when the value does not fit the schema.
   */
  valueXml(path: string, value: JsonObject, options?: { readonly attributes?: string }): string;
  /**
   * The XML of an operation's input members, written by the core's schema-aware encoder: `operation` is
   * `module:rpc` or an action's instance-identifier (as in DeviceInvokeContext), `input` its RFC 7951
   * input members (bare names in the operation's module). The result is the children of the operation's
   * element, in schema order, each with no `xmlns` when in the operation's module; identityref and
   * instance-identifier values declare the prefixes the schema gives their modules. Throws DataError when
   * the device schema has no such operation or the input does not fit it.
   */
  inputXml(operation: string, input: JsonObject): string;
}

/** See DeviceDataCodec.dataReader. */
export interface DeviceDataReader {
  push(piece: string): void;
  end(rest: string): JsonObject;
}

/** One change of a mount-point write, as the RESTCONF request states it (NETCONF edit-config needs it). */
export interface DeviceEdit {
  /** create (POST), replace (PUT), merge (PATCH), delete (DELETE: must exist), remove (may be absent). */
  readonly operation: 'create' | 'merge' | 'replace' | 'delete' | 'remove';
  /** The target under the mount point. (A dry run's input carries it as RFC 7951 text: see SouthboundDryRun.) */
  readonly path: InstancePath;
  /** The target's new content as the request body (`{"module:node": ...}`); absent for delete/remove. */
  readonly value?: JsonObject;
}

/**
 * One translation unit serving a device: which plugin and version, and its definition (the object the
 * SDK's `defineTranslationUnit` builds; the CLI southbound runs it with the SDK's engine).
 */
export interface ServingUnit {
  readonly plugin: string;
  readonly version: string;
  readonly deviceType: string;
  readonly versions: string;
  /** Absolute path of the unit's YANG folder: its modules make up the device's schema. */
  readonly yangDir: string | undefined;
  readonly definition: TranslationUnitDefinition;
}

/**
 * The opaque face of a translation unit as the core sees it. The SDK defines its real shape; the core only
 * hands it from the loaded plugin to the southbound that runs it.
 */
export interface TranslationUnitDefinition {
  readonly kind: 'rosetta-translation-unit';
}

/** What the core knows of an installed device when it asks a southbound plugin to act on it. */
export interface DeviceInfo {
  readonly nodeId: string;
  /** The protocol of the southbound that installed it (its descriptor's `protocol`). */
  readonly protocol: string;
  readonly deviceType?: string;
  readonly deviceVersion?: string;
  /** The translation units serving the device in this request's generation (empty for NETCONF). */
  readonly units: readonly ServingUnit[];
  /** Why no unit serves it, when `units` is empty for a device that has a type. */
  readonly unitsMissingReason?: string;
}

/** install-node: connect to a device described by the protocol container of the request. */
export interface DeviceConnectContext {
  readonly device: DeviceInfo;
  /** The protocol container's members with module prefixes removed (`host`, `port`, `username`, ...). */
  readonly settings: Readonly<Record<string, JsonValue>>;
  /**
   * The service's pacing of connection attempts, for the reconnects the connection starts itself after a
   * lost session (the connect this context asks for is paced by its caller already: take no slot in it).
   * Absent when a plugin is driven without the service (its own tests): attempts then run at once.
   */
  readonly pacing?: ConnectPacing;
  /**
   * Where the connection reports what happens to it later, on its own (the core publishes each on the
   * `node-status` and `NETCONF` event streams). Absent when a plugin is driven without the service.
   */
  readonly events?: DeviceEvents;
}

/**
 * What a device connection pushes to the core after connect: `status()` is a pull, and a connection that
 * drops and reconnects by itself would otherwise change its status with nobody told.
 */
export interface DeviceEvents {
  /**
   * `status()` changed (a lost session, a reconnect, giving up). `problem`: why, when the status is not
   * `connected` (the lost session's or the last attempt's error). Cheap; the core drops calls that change nothing.
   */
  statusChanged(problem?: string): void;
  /**
   * A notification the device sent (RFC 5277): the whole `<notification>` element as received. The core
   * decodes it with the device's schema (a southbound whose models are the device's own).
   */
  notification(xml: string): void;
}

/**
 * Connection attempts across the service, bounded (mount/connect-pacing.ts, `fleet.connectConcurrency`
 * in the service configuration) so that thousands of devices coming back at once do not hand the event
 * loop thousands of SSH handshakes in the same second.
 */
export interface ConnectPacing {
  /** Runs one attempt (connect, log in, hello) once a slot is free, first come first served. Never nest. */
  attempt<T>(open: () => Promise<T>): Promise<T>;
}

export type ContentFilter = 'config' | 'nonconfig' | 'all';

export interface DeviceReadContext {
  readonly device: DeviceInfo;
  readonly connection: DeviceConnection;
  /** The target under `yang-ext:mount`; empty for the whole tree. */
  readonly path: InstancePath;
  readonly content: ContentFilter;
  /** The `fields` query parameter as received (decoded), for southbounds that filter at the device. */
  readonly fields?: string;
  /** The device schema's XML codec (schema-driven southbounds: NETCONF). */
  readonly codec?: DeviceDataCodec;
}

export interface DeviceWriteContext {
  readonly device: DeviceInfo;
  readonly connection: DeviceConnection;
  /**
   * The device configuration the request touches, before and after it (RFC 7951 JSON documents).
   * Absent for a mount-point write to a schema-driven southbound (one given `codec`): it sends `edits`
   * as they are and the device itself refuses a create of existing data or a delete of missing data
   * (RFC 6241 §7.2), so the core reads nothing from the device first.
   */
  readonly before?: JsonObject;
  readonly after?: JsonObject;
  /** The request's own edits, in order (NETCONF sends them as edit-config operations). */
  readonly edits?: readonly DeviceEdit[];
  /**
   * Set with a single edit and no before/after: read the edit's target just before writing (in the same
   * exchange, no round trip of its own) and return what it held as the result's `before`; a PUT answers
   * 201 or 204 by it.
   */
  readonly probeTarget?: boolean;
  /**
   * Top-level configuration to read back right after the write, in the same exchange (no round trip of
   * its own; an empty path is the whole configuration), returned as the result's `after`. A southbound
   * that cannot may leave `after` out: the caller then reads the device itself.
   */
  readonly readBack?: readonly InstancePath[];
  readonly codec?: DeviceDataCodec;
}

/** What a southbound sent to apply a write, for logs and for the response. */
export interface DeviceWriteResult {
  readonly commands: readonly string[];
  /** The configuration at the edit's target before the write (RFC 7951, from the top), when `probeTarget` asked. */
  readonly before?: JsonObject;
  /** The configuration at the `readBack` paths after the write (RFC 7951, from the top), when it was asked and read. */
  readonly after?: JsonObject;
}

export interface DeviceInvokeContext {
  readonly device: DeviceInfo;
  readonly connection: DeviceConnection;
  /** `module:rpc`, or for an action the RFC 7951 instance-identifier of the action node. */
  readonly operation: string;
  /** For an action, the action node's instance path (`operation` is its text); absent for an RPC. */
  readonly action?: InstancePath;
  readonly input: JsonObject;
  readonly codec?: DeviceDataCodec;
}

/** A node's connection as its status shows it (`connection-status`). */
export type NodeConnectionStatus = 'connecting' | 'connected' | 'unable-to-connect';

/** One installed node as its southbound renders its status leaves (see SouthboundDescriptor.renderStatus). */
export interface SouthboundNodeStatus {
  readonly nodeId: string;
  readonly status: NodeConnectionStatus;
  /**
   * The `connected-message`: the connection's message (or why there is none), and for a southbound whose
   * models are translation units, which units serve the device or why none does.
   */
  readonly message: string;
  /** The node's connection (the plugin's own object), undefined while it has none. */
  readonly connection: DeviceConnection | undefined;
  /** Modules of the device's own set that did not compile into its schema, with the reason. */
  readonly failedModules: ReadonlyArray<{ readonly module: string; readonly reason: string }>;
}

/**
 * What a device holds after its southbound refused part of a write (a uniconfig commit's `rollback-status`
 * and the detail of the node's error): `complete` when it holds what it held before the write, `fail`
 * when it may keep part of the write, `unknown` when the southbound cannot say.
 */
export interface WriteRollback {
  readonly status: 'complete' | 'fail' | 'unknown';
  /** What was done (or why nothing could be), for the node's error message. */
  readonly detail: string;
}

/** The device operation a southbound previews a write with (sent nowhere: the uniconfig dry run). */
export interface SouthboundDryRun {
  /** The operation, `module:rpc`, run through `device.invoke`. */
  readonly operation: string;
  /**
   * What it is given: `edits`, the write's per-change edits (input member `edits`, each path as its RFC
   * 7951 text, since an operation's input is JSON); `documents`, the device configuration before and
   * after the write (input members `before` and `after`).
   */
  readonly input: 'edits' | 'documents';
  /** The output member listing what the write would send (strings: commands, RPCs). */
  readonly output: string;
}

/**
 * What a southbound plugin tells the core about the devices it serves, so that the core names no
 * southbound: the install-node container and topology its nodes live in, the module of their settings and
 * status leaves, where a device's models come from, and what the uniconfig layer may expect of its writes.
 * Registered through `device.southbounds` (the SDK's `defineSouthbound` checks and freezes one).
 */
export interface SouthboundDescriptor {
  /** The key of its `device.*` hook taps, and its value of uninstall-node's `connection-type`. */
  readonly protocol: string;
  /**
   * The member of connection-manager:install-node's input that installs a device with it: a container
   * the connection-manager module declares, or one the southbound's module augments in (module-qualified).
   */
  readonly installContainer: string;
  /** The network-topology topology its nodes are configured and shown in (not `unified`: the core's own). */
  readonly topology: string;
  /**
   * The module whose leaves hold a node's settings, in the install container and in the node's entry of
   * its topology (its leaves marked `rosetta-secret:sensitive` are sealed), and whose status leaves
   * `renderStatus` fills. The plugin ships it in its YANG folder.
   */
  readonly settingsModule: string;
  /**
   * Where a device's schema comes from: `translation-units`, the units serving its device-type and
   * version (with the southbound's own device operations); `device`, the modules its connection hands
   * over (`DeviceConnection.schemaSources`).
   */
  readonly models: 'translation-units' | 'device';
  /** How the uniconfig dry run asks it what a write would send. */
  readonly dryRun: SouthboundDryRun;
  /** The members the node's entry of `topology` shows beside `node-id` (operational), module-qualified. */
  renderStatus(node: SouthboundNodeStatus): JsonObject;
  /**
   * After its `device.write` tap threw `failure` for a uniconfig commit: what the device holds now (its
   * own undo report, or what the device does on a failed edit). Must not throw.
   */
  rollbackOf(failure: unknown, connection: DeviceConnection): WriteRollback;
}

/** An RPC or action of a local module. */
export interface RpcContext {
  /** `module:rpc` as in the URI. */
  readonly operation: string;
  /** The `input` members, RFC 7951 (validated against the schema before the hook runs). */
  readonly input: JsonObject;
}

/** A tap's answer to an operation: the `output` members, or null when the operation has no output. */
export interface OperationResult {
  readonly output: JsonObject | null;
}

export interface ServerCreateContext {
  /** The request handler the server must serve (the express app). */
  readonly handler: RequestListener;
  /** The `tls` object of the service configuration, as given. */
  readonly tls: Readonly<Record<string, JsonValue>> | undefined;
}

/**
 * One request as the authentication hook sees it, before any route runs (the body is not read yet).
 * The hook runs only when the configuration's `auth` object is present and enabled.
 */
export interface AuthenticateContext {
  readonly method: string;
  /** The request target as received (path and query). */
  readonly url: string;
  /** The `Authorization` header, when sent. */
  readonly authorization: string | undefined;
  /** The client's address as the socket reports it; the key for failed-attempt delays. */
  readonly remoteAddress: string;
  /**
   * The TLS client certificate, only when the TLS layer verified it against the trust store.
   * `subject` is one `attribute=value` per line, in the certificate's order (Node's X509Certificate form).
   */
  readonly clientCertificate: { readonly subject: string; readonly fingerprint256: string } | undefined;
  /** The `auth` object of the service configuration; the core has checked its shape (service/auth-config.ts). */
  readonly config: Readonly<Record<string, JsonValue>>;
}

/** An authentication tap's decision about one request. */
export type AuthenticateVerdict =
  | { readonly allow: true; readonly user: string }
  /** 401 (unknown or missing credentials; the core adds `challenge` as `WWW-Authenticate`) or 403 (role forbids). */
  | { readonly allow: false; readonly status: 401 | 403; readonly message: string; readonly challenge?: string }
  /** 429: not checked, the client must wait (the core sends `retryAfterSeconds` as `Retry-After`). */
  | { readonly allow: false; readonly status: 429; readonly message: string; readonly retryAfterSeconds: number };

/** Minimal route registration surface (an express Router satisfies it), so plugins need not import express. */
export interface RouteRegistrar {
  // biome-ignore lint/suspicious/noExplicitAny: a plugin's handlers take express's own request and response types, which the core does not name
  get(path: string, ...handlers: Array<(req: any, res: any, next: (err?: unknown) => void) => unknown>): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: as get
  post(path: string, ...handlers: Array<(req: any, res: any, next: (err?: unknown) => void) => unknown>): unknown;
  use(...handlers: unknown[]): unknown;
}

export interface ServerRoutesContext {
  /** Routes added here are served before RESTCONF's own. */
  readonly routes: RouteRegistrar;
  /** Read-only access to the local data for those routes (absent where a test builds the app without it). */
  readonly local?: LocalDataAccess;
}

/** A RESTCONF data path resolved against the local schema, for plugin routes. */
export interface ResolvedDataPath {
  /** The node (empty for the datastore root); `renderInstancePath` writes its RFC 7951 text. */
  readonly path: InstancePath;
  /** The schema node's kind (`container`, `list`, `action`, ...), `root` for the datastore root. */
  readonly kind: SchemaNode['kind'] | 'root';
  readonly module: string | undefined;
  readonly name: string | undefined;
  /** The extension instances on the node's definition (module, name, prefix as written, argument). */
  readonly extensions: readonly ExtensionInstance[];
  /** Whether the Config datastore holds the node now (for an action: the node the action belongs to). */
  readonly stored: boolean;
}

/** What plugin routes may read of the local data (plugins cannot reach the core's parser or datastores). */
export interface LocalDataAccess {
  /**
   * Resolves the part of a URI after `/rests/data` (percent-encoded as sent) against the local schema.
   * Throws the RESTCONF error a data request would answer (404 for an unknown node, 400 for a bad key);
   * pass it to the route's `next` and the core answers it with the error envelope.
   */
  resolve(path: string): ResolvedDataPath;
  /**
   * The Config datastore's content at such a path, RFC 7951 JSON (`{"module:node": ...}`); undefined when
   * absent. Leaves marked `rosetta-secret:sensitive` are in their sealed form: see `readSecret`.
   */
  readConfig(path: string): JsonObject | undefined;
  /**
   * The clear value of the leaf marked `rosetta-secret:sensitive` at such a path, for the plugin's own use
   * (an outgoing request); never answer or log it. Undefined when the leaf is absent or its stored value
   * does not open (sealed for another leaf, or with another data folder's key); throws as `resolve` does.
   */
  readSecret(path: string): string | undefined;
}

// ---------------------------------------------------------------------------------------------------
// The hooks

/** The typed extension surface. Build with `createHooks()`; never extend at run time. */
export interface RosettaHooks {
  readonly uri: {
    /**
     * Runs first on every RESTCONF request, before the URI parser. Receives the URI context; each tap
     * returns it (possibly rewritten) for the next. The core's own key-delimiter handling is a tap.
     */
    readonly parse: SyncWaterfallHook<[UriParseContext]>;
  };
  readonly schema: {
    /**
     * Runs once a schema context is compiled: the local one at start-up and after a plugin adds modules,
     * each device's when it is mounted. Taps compute derived facts (hidden nodes by extension). Return
     * nothing.
     */
    readonly loaded: SyncHook<[SchemaLoadedContext]>;
  };
  readonly data: {
    /** Before a local datastore read. Receives the read context; returns it (possibly changed). */
    readonly beforeRead: AsyncSeriesWaterfallHook<[ReadContext]>;
    /**
     * After a read, before the query parameters and encoding: local data, and under a mount point the
     * device's answer (`ReadContext.device`). Receives the data read (for local data, the target and its
     * ancestors only, so the cost follows the path, not the datastore) and the context; returns the data
     * (e.g. with hidden nodes removed): `fields`, `depth`, paging and `fetch=count` see what it returns.
     * Must not mutate its input: copy what changes.
     */
    readonly afterRead: AsyncSeriesWaterfallHook<[DataRoot, ReadContext]>;
    /**
     * Before a write is committed, after schema validation. Taps inspect or veto (push faults or throw a
     * DataError); return nothing. All-or-nothing: any fault rejects the whole request.
     */
    readonly beforeWrite: AsyncSeriesHook<[WriteContext]>;
    /**
     * Before a write body (PUT, POST, plain PATCH; local or under a mount point) is decoded. Receives the
     * policy (strict: nothing skipped) and the request; returns the policy, possibly relaxed (schema filters
     * drop unknown members and definitions ignored on write). Throw a DataError to refuse the request.
     */
    readonly decodeBody: SyncWaterfallHook<[BodyDecodePolicy, WriteBodyContext]>;
    /** After a write is durable. Taps notify (callbacks, logs); errors are logged, never sent back. */
    readonly afterCommit: AsyncSeriesHook<[CommitContext]>;
    /**
     * Keyed by module name. Operational data computed on demand: each tap receives the RFC 7951 JSON built
     * so far (top-level members of that module) and returns it with its own members added.
     */
    readonly readState: HookMap<AsyncSeriesWaterfallHook<[JsonObject, StateReadContext]>>;
  };
  readonly device: {
    /**
     * The southbounds serving in this generation: each southbound plugin taps once and returns the list it
     * receives with its descriptor appended. The core calls it with an empty list and iterates what comes
     * back (install-node containers, topologies, status, rollback, dry run); a descriptor whose protocol,
     * install container or topology an earlier one already has is ignored.
     */
    readonly southbounds: SyncWaterfallHook<[readonly SouthboundDescriptor[]]>;
    /**
     * Keyed by protocol (the descriptor's `protocol`). install-node: the first tap that returns a connection claims
     * the device; returning undefined passes. Throw to report the device unreachable (502).
     */
    readonly connect: HookMap<AsyncSeriesBailHook<[DeviceConnectContext], DeviceConnection | undefined>>;
    /** Keyed by protocol. A read under the mount point; the first tap returning JSON answers it. */
    readonly read: HookMap<AsyncSeriesBailHook<[DeviceReadContext], JsonObject | undefined>>;
    /** Keyed by protocol. A config write under the mount point; the first tap returning a result handles it. */
    readonly write: HookMap<AsyncSeriesBailHook<[DeviceWriteContext], DeviceWriteResult | undefined>>;
    /** Keyed by protocol. A device RPC or action; the first tap returning a result answers it. */
    readonly invoke: HookMap<AsyncSeriesBailHook<[DeviceInvokeContext], OperationResult | undefined>>;
  };
  readonly rpc: {
    /**
     * Keyed by `module:rpc`. RPCs and actions of local modules, the core's own included. The first tap
     * returning a result answers; no answer is 501 operation-not-supported.
     */
    readonly invoke: HookMap<AsyncSeriesBailHook<[RpcContext], OperationResult | undefined>>;
  };
  readonly server: {
    /** At start-up: the first tap returning a server (the TLS plugin's HTTPS server) wins; else plain HTTP. */
    readonly create: SyncBailHook<[ServerCreateContext], Server | undefined>;
    /**
     * Once per plugin generation, at its first request, before RESTCONF's routes: taps add their own
     * routes to that generation's router (a hot reload brings new routes with the new generation).
     * Return nothing.
     */
    readonly routes: SyncHook<[ServerRoutesContext]>;
    /**
     * Before every request on every route (plugins' routes included), when the configuration's `auth`
     * object is present and enabled. The first tap returning a verdict decides. Fail closed: no verdict
     * answers 401, and no tap at all (the plugin disabled at run time) answers 503, never the request.
     */
    readonly authenticate: AsyncSeriesBailHook<[AuthenticateContext], AuthenticateVerdict | undefined>;
  };
}

/** Builds a fresh, frozen hooks object with no taps. */
export function createHooks(): RosettaHooks {
  return Object.freeze({
    uri: Object.freeze({ parse: new SyncWaterfallHook<[UriParseContext]>(['uri'], 'uri.parse') }),
    schema: Object.freeze({ loaded: new SyncHook<[SchemaLoadedContext]>(['context'], 'schema.loaded') }),
    data: Object.freeze({
      beforeRead: new AsyncSeriesWaterfallHook<[ReadContext]>(['read'], 'data.beforeRead'),
      afterRead: new AsyncSeriesWaterfallHook<[DataRoot, ReadContext]>(['data', 'read'], 'data.afterRead'),
      beforeWrite: new AsyncSeriesHook<[WriteContext]>(['write'], 'data.beforeWrite'),
      decodeBody: new SyncWaterfallHook<[BodyDecodePolicy, WriteBodyContext]>(['policy', 'body'], 'data.decodeBody'),
      afterCommit: new AsyncSeriesHook<[CommitContext]>(['commit'], 'data.afterCommit'),
      readState: new HookMap(() => new AsyncSeriesWaterfallHook<[JsonObject, StateReadContext]>(['state', 'read']), 'data.readState'),
    }),
    device: Object.freeze({
      southbounds: new SyncWaterfallHook<[readonly SouthboundDescriptor[]]>(['southbounds'], 'device.southbounds'),
      connect: new HookMap(
        () => new AsyncSeriesBailHook<[DeviceConnectContext], DeviceConnection | undefined>(['connect']),
        'device.connect',
      ),
      read: new HookMap(() => new AsyncSeriesBailHook<[DeviceReadContext], JsonObject | undefined>(['read']), 'device.read'),
      write: new HookMap(() => new AsyncSeriesBailHook<[DeviceWriteContext], DeviceWriteResult | undefined>(['write']), 'device.write'),
      invoke: new HookMap(() => new AsyncSeriesBailHook<[DeviceInvokeContext], OperationResult | undefined>(['invoke']), 'device.invoke'),
    }),
    rpc: Object.freeze({
      invoke: new HookMap(() => new AsyncSeriesBailHook<[RpcContext], OperationResult | undefined>(['rpc']), 'rpc.invoke'),
    }),
    server: Object.freeze({
      create: new SyncBailHook<[ServerCreateContext], Server | undefined>(['server'], 'server.create'),
      routes: new SyncHook<[ServerRoutesContext]>(['routes'], 'server.routes'),
      authenticate: new AsyncSeriesBailHook<[AuthenticateContext], AuthenticateVerdict | undefined>(['request'], 'server.authenticate'),
    }),
  });
}
