/**
 * Starting and stopping a Rosetta service: configuration -> schema -> datastores -> plugins -> event hub ->
 * installed devices -> uniconfig -> HTTP. The plugin host's hooks give the server (`server.create`, plain
 * HTTP when no plugin answers) and extra routes (`server.routes`, per plugin generation); the Operational
 * datastore is seeded with `ietf-yang-library`. With an `auth` object, every request passes the
 * `server.authenticate` gate first (authentication.ts); TLS or authentication configured without the plugin
 * that provides it stops start-up.
 *
 * Stopping (SIGTERM/SIGINT, or `stop()`): the listener closes so no new request is accepted, idle
 * keep-alive connections are closed, requests in flight finish (bounded by a grace period), then uniconfig,
 * the installed devices, the plugins and the datastores are closed (the last flushes the journal). That
 * order is the start-up order reversed: each step pushes its closer on one stack (closers.ts), which a
 * failed start-up unwinds as far as it got.
 *
 * Why this file is longer than 400 lines: it is the one place the layers are wired together, in start-up
 * order with each step's closer beside it; split, that order would have to be read across files.
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Writable } from 'node:stream';
import type { Datastores } from '../datastore/datastore';
import { SecretBox } from '../datastore/secrets';
import { CONFIG_JOURNAL } from '../datastore';
import { BulkNodes, type DeviceCallObserver, MountManager } from '../mount';
import {
  BUILTIN_STREAMS,
  DataChangeFeed,
  DataChangeSubscriptions,
  EventHub,
  type EventInput,
  editsOfRequest,
  eventsDirectory,
  relayedPublisher,
} from '../events';
import type { Edit } from '../data/edit';
import { Uniconfig } from '../uniconfig';
import { JobBoard, tapJobsState } from '../jobs';
import { APIDOC_MODULES_PATH, OPENAPI_PATH, serveApiDocModules, serveOpenApi, withApiDocPage } from '../openapi';
import { PluginHost, builtinTaps, introspectionTaps } from '../plugins';
import type { PluginScope } from '../plugins/generation';
import { createHooks } from '../hooks';
import { createRestconfHandler } from '../restconf/dispatcher';
import { ServiceMetrics } from '../metrics';
import { statusOf } from '../mount/node';
import { withOperability } from '../restconf/operability';
import { tapStreamDiscovery } from '../restconf/streams-monitoring';
import { type Logger, withWarn } from '../logger';
import { ClusterEvents, type Database, NodeLeases, openDatabase, TransactionOwners } from '../database';
import { createJsonLogger } from '../logging/json-logger';
import { withRequestLog } from '../restconf/request-log';
import type { RestconfContext, ScopeSource } from '../restconf/context';
import { RouteTable } from '../restconf/route-table';
import { renderErrorsJson } from '../restconf/errors';
import { localDataAccess } from '../restconf/local-data';
import { createPluginRoutes } from '../restconf/plugin-routes';
import { withRequestLimits } from '../restconf/request-limits';
import type { SchemaContext } from '../yang/schema';
import type { ServiceConfig } from './config';
import { authenticationRequired } from './auth-config';
import { authenticatingHandler, checkSecurityAtStart } from './authentication';
import { unservedSectionWarnings } from './feature-check';
import { LiveSchema, type DatastoreOpener } from './live-schema';
import { CloserStack } from './closers';
import { OWN_YANG_DIR } from './schema';
import { Readiness } from './readiness';

export type { DatastoreOpener } from './live-schema';

export interface StartOptions {
  readonly config: ServiceConfig;
  readonly openDatastores: DatastoreOpener;
  /** Where the service's lines go; without it, JSON lines (logging/json-logger.ts) at the configured level to `logTo`. */
  readonly log?: Logger;
  /** The JSON log's destination when no `log` is given (default stdout; a terminal gets readable lines). */
  readonly logTo?: Writable;
  /** Longest in-flight requests may run after a stop begins (default 10 s). */
  readonly graceMs?: number;
}

/** A running service. */
export interface RunningService {
  /** `http://host:port` actually bound (port 0 in the config picks a free one). */
  readonly url: string;
  readonly port: number;
  readonly schema: SchemaContext;
  readonly datastores: Datastores;
  /** The event streams (tests and embedders publish or subscribe directly). */
  readonly events: EventHub;
  /** Files of the modules loaded from extra YANG folders. */
  readonly extraModules: readonly string[];
  /** The service's own metrics registry (served at /metrics); undefined when `metrics.enabled` is false. */
  readonly metrics: ServiceMetrics | undefined;
  /** Stops accepting, lets requests in flight finish, closes plugins and datastores. Idempotent. */
  stop(): Promise<void>;
}

/** A scope source with no plugins (every hook untapped), when no plugins.json is configured. */
function noPlugins(): ScopeSource {
  const hooks = createHooks();
  const scope: PluginScope = { generation: 0, hooks, unitsFor: () => ({ units: [] }) as never, release: () => undefined };
  return { acquire: () => scope };
}

/** Starts a service; rejects with a message naming the problem when anything fails to start. */
export async function startService(options: StartOptions): Promise<RunningService> {
  const { config } = options;
  const log =
    options.log ?? createJsonLogger({ level: config.log.level, ...(options.logTo !== undefined ? { destination: options.logTo } : {}) });
  // One box of the secrets key for the datastores and the installed devices (secrets.ts).
  let secrets: SecretBox;
  try {
    secrets = SecretBox.open(config.dataDir, config.secretsKeyFile);
  } catch (e) {
    throw new Error(`cannot open the secrets key ${config.secretsKeyFile}: ${e instanceof Error ? e.message : String(e)}`);
  }
  // Every step below that opens something pushes its closer; a failure part-way and stop() both unwind them.
  const closers = new CloserStack();
  // One registry per service (several services may share a process); the parts that count get it.
  // Switched off, there is none: no part times or counts anything for it (docs/configuration.md#metrics).
  const metrics = config.metrics.enabled ? new ServiceMetrics() : undefined;
  if (metrics !== undefined) closers.push(() => metrics.stop());
  const readiness = new Readiness();
  // The shared database, when the configuration names one, opens (and migrates) before anything reads it.
  let database: Database | undefined;
  if (config.database !== undefined) {
    try {
      database = await openDatabase(config.database, (line) => log.info(`rosetta: ${line}`));
    } catch (error) {
      await closers.unwind();
      throw error;
    }
    const opened = database;
    closers.push(() => opened.close());
    log.info(`rosetta: datastores in ${database.where}`);
  }
  // Long work's progress (rosetta-jobs and /metrics): plugins report to it from their setup on, so it comes first.
  const jobs = new JobBoard({ log: (line) => log.info(line) });
  // The plugins start first: the local schema holds their YANG (live-schema.ts), and changes with them.
  // Changes other instances sharing the database committed: their data-change events, once the feed exists.
  let foreignChange: ((edits: readonly Edit[]) => void) | undefined;
  const live = new LiveSchema({
    yangDirs: config.yangDirs,
    dataDir: config.dataDir,
    openDatastores: options.openDatastores,
    secrets,
    log,
    ...(database !== undefined ? { database, onForeignChange: (edits: readonly Edit[]) => foreignChange?.(edits) } : {}),
    ...(metrics !== undefined
      ? { journalCommitted: (seconds: number, records: number) => metrics.journalCommitted(seconds, records) }
      : {}),
  });
  closers.push(() => live.close());
  let mount: MountManager; // declared here for the introspection taps, which list its devices once it exists
  let host: PluginHost | undefined;
  let pluginsLoaded = false;
  try {
    if (config.pluginsFile !== undefined) {
      host = await PluginHost.start({
        configFile: config.pluginsFile,
        logger: withWarn(log),
        checkLocalYang: live.check,
        // The sections plugins read from the configuration file (secrets reach their plugins through hooks).
        serviceConfig: {
          ...(config.schemaFilters !== undefined ? { schemaFilters: config.schemaFilters } : {}),
          ...(config.callbacks !== undefined ? { callbacks: config.callbacks } : {}),
        },
        dataDir: config.dataDir,
        jobs,
      });
      const started = host;
      closers.push(() => started.close());
      host.onChange((report) => metrics?.countReload(report.errors.length === 0));
      host.addBuiltin(introspectionTaps(host, () => (mount === undefined ? [] : mount.installedDevices())));
      // The configured key delimiter is the core's own uri.parse tap; a plugin's tap runs after it and may change it.
      host.addBuiltin(
        builtinTaps('core:key-delimiter', (hooks) =>
          hooks.uri.parse.tap('core:key-delimiter', (uri) => {
            uri.keyDelimiter = config.keyDelimiter;
            return uri;
          }),
        ),
      );
    }
    pluginsLoaded = true;
    await live.open(host?.localYangDirs() ?? [], host ?? noPlugins());
  } catch (e) {
    return closers.abandon(e);
  }
  const plugins: ScopeSource = host ?? noPlugins();
  const pluginHost = host;
  const shared = database;
  readiness.watch({
    storesOpen: () => live.storesOpen,
    schemaSwapping: () => live.swapping,
    pluginsLoaded: () => pluginsLoaded,
    ...(shared !== undefined ? { database: () => shared.state() } : {}),
  });
  if (pluginHost !== undefined)
    metrics?.observe({ plugins: () => ({ generation: pluginHost.generation, states: pluginHost.status().map((p) => p.state) }) });
  // One event hub for the whole service: producers (commits, uniconfig, the mount layer) publish to it,
  // the stream resource subscribes; it closes after all of them (closers unwind newest first).
  let events: EventHub;
  try {
    events = await EventHub.open({
      directory: eventsDirectory(config.dataDir),
      settings: config.events,
      schema: () => live.schema,
      log: (m) => log.error(m),
      // several instances: the database numbers every instance's events (database/cluster-events.ts)
      numberedElsewhere: database !== undefined,
    });
  } catch (e) {
    return closers.abandon(new Error(`cannot open the event replay log: ${e instanceof Error ? e.message : String(e)}`));
  }
  closers.push(() => events.close());
  for (const stream of BUILTIN_STREAMS) events.defineStream(stream);
  // Stream discovery (ietf-restconf-monitoring) is the core's own state tap, over the hub's streams.
  const streamHub = events;
  if (host) host.addBuiltin(builtinTaps('core:restconf-monitoring', (hooks) => tapStreamDiscovery(hooks, streamHub)));
  else tapStreamDiscovery(plugins.acquire().hooks, streamHub);
  // Several instances on one database: this one connects only the nodes whose leases it holds
  // (database/node-leases.ts), taken once it listens (the others reach it at its URL).
  let leases: NodeLeases | undefined;
  // one name of this instance among those sharing the database: its leases' and its transactions'
  const instanceId = database === undefined ? undefined : `${database.instance} ${randomUUID().slice(0, 8)}`;
  const transactionOwners = database === undefined ? undefined : new TransactionOwners(database.pool, instanceId!);
  const heldLeases = (): NodeLeases => {
    if (leases === undefined) throw new Error('the node leases are not taken yet');
    return leases;
  };
  // With several instances every event goes through the database, which numbers them all, so every
  // instance's subscribers hear every instance's events in one order, with the same ids (cluster-events.ts).
  let relay: ClusterEvents | undefined;
  if (database !== undefined) {
    try {
      relay = await ClusterEvents.open(database.pool, database.where, {
        instance: instanceId!,
        after: events.lastId,
        carriedBy: [CONFIG_JOURNAL],
        keep: { events: events.settings.replayMaxEvents, seconds: events.settings.replayMaxAgeSeconds },
        deliver: async (stream, input, id) => void (await events.publish(stream, input as EventInput, id)),
        log: (line) => log.error(`rosetta: ${line}`),
      });
    } catch (e) {
      return closers.abandon(e);
    }
    const opened = relay;
    closers.push(() => opened.close());
  }
  const producers = relay === undefined ? events : relayedPublisher(events, relay);
  // Installed devices: install/uninstall and node status are the core's own taps; remembered nodes reconnect.
  try {
    const southboundYangDirs = host ? () => host.southboundYangDirs() : undefined;
    mount = new MountManager({
      get datastores() {
        return live.datastores;
      },
      get schema() {
        return live.schema;
      },
      scopes: plugins,
      dataDir: config.dataDir,
      secrets,
      importDirs: [OWN_YANG_DIR],
      log,
      connectConcurrency: config.fleet.connectConcurrency,
      events: producers,
      ...(metrics !== undefined
        ? {
            observeDeviceCall: ((protocol, operation, seconds, ok) =>
              metrics.deviceCall(protocol, operation, seconds, ok)) as DeviceCallObserver,
          }
        : {}),
      ...(southboundYangDirs ? { southboundYangDirs } : {}),
      jobs,
      ...(database !== undefined
        ? {
            ownership: {
              claim: (nodeId: string) => heldLeases().claim(nodeId),
              release: (nodeId: string) => heldLeases().release(nodeId),
              holds: (nodeId: string) => leases?.holds(nodeId) === true,
              borrow: (nodeIds: readonly string[]) => heldLeases().borrow(nodeIds),
              unpin: (nodeIds: readonly string[]) => leases?.unpin(nodeIds),
              locate: (nodeId: string) => heldLeases().locate(nodeId),
            },
          }
        : {}),
    });
  } catch (e) {
    return closers.abandon(new Error(`cannot start the installed devices: ${e instanceof Error ? e.message : String(e)}`));
  }
  closers.push(() => mount.close());
  // before the devices close: the others take this instance's nodes at once
  closers.push(async () => {
    await leases?.leave();
    await transactionOwners?.leave();
  });
  metrics?.observe({ sessions: () => mount.installedNodes().map((node) => ({ protocol: node.kind.protocol, status: statusOf(node) })) });
  if (host) host.addBuiltin(builtinTaps('mount', (hooks) => mount.tap(hooks)));
  else mount.tap(plugins.acquire().hooks);
  const restored = database === undefined ? mount.restore() : 0;
  if (restored > 0) log.info(`reconnecting ${restored} installed device(s)`);
  // Path-scoped data-change subscriptions (data-change-events RPCs): kept under the events folder, each
  // a stream of the hub; the feed below hands them the changes in their scope.
  const subscriptions = new DataChangeSubscriptions(eventsDirectory(config.dataDir), events);
  try {
    subscriptions.open();
  } catch (e) {
    return closers.abandon(e);
  }
  if (host) host.addBuiltin(builtinTaps('core:data-change-subscriptions', (hooks) => subscriptions.tap(hooks)));
  else subscriptions.tap(plugins.acquire().hooks);
  const dataChanges = new DataChangeFeed(producers, subscriptions);
  foreignChange = (edits) => {
    dataChanges
      .publishScoped({ datastore: 'config', edits: editsOfRequest(edits) })
      .catch((e: unknown) =>
        log.error(`publishing another instance's data-change event failed: ${e instanceof Error ? e.message : String(e)}`),
      );
  };
  const ctx: RestconfContext = {
    get schema() {
      return live.schema;
    },
    get datastores() {
      return live.datastores;
    },
    plugins,
    log,
    mount,
    events,
    // Config datastore commits and uniconfig changes publish their data-change events through it.
    dataChanges,
    secrets,
    options: { keyDelimiter: config.keyDelimiter, bodyLimit: config.bodyLimit, defaultContent: config.defaultContent },
  };
  // The uniconfig topology (intended and actual configuration per device, transactions, commit): its
  // taps join the core's, its routes go ahead of RESTCONF's own.
  if (host) host.addBuiltin(builtinTaps('core:jobs', (hooks) => tapJobsState(hooks, jobs)));
  else tapJobsState(plugins.acquire().hooks, jobs);
  metrics?.observe({ jobs: () => jobs.runningByKind() });
  const uniconfig = new Uniconfig({
    jobs,
    ctx,
    mount,
    dataDir: config.dataDir,
    commitConcurrency: config.fleet.commitConcurrency,
    health: () => readiness.report(),
    ...(metrics !== undefined ? { commitDone: (ok: boolean) => metrics.countCommit(ok) } : {}),
    ...(transactionOwners !== undefined ? { sharedTransactions: transactionOwners } : {}),
    ...(database !== undefined ? { database } : {}),
  });
  try {
    await uniconfig.open();
  } catch (e) {
    return closers.abandon(
      new Error(`cannot load the uniconfig actual configurations from ${config.dataDir}: ${e instanceof Error ? e.message : String(e)}`),
    );
  }
  closers.push(() => uniconfig.close());
  if (host) host.addBuiltin(builtinTaps('uniconfig', (hooks) => uniconfig.tap(hooks)));
  else uniconfig.tap(plugins.acquire().hooks);
  // The bulk node RPCs run each node through install-node's or uninstall-node's taps, uniconfig's included.
  const bulk = new BulkNodes({
    mount,
    scopes: plugins,
    concurrency: config.fleet.installConcurrency,
    jobs,
    uniconfigLayer: (nodeId) => uniconfig.store.has(nodeId),
  });
  if (host) host.addBuiltin(builtinTaps('bulk', (hooks) => bulk.tap(hooks)));
  else bulk.tap(plugins.acquire().hooks);
  const startScope = plugins.acquire();
  let server: http.Server;
  try {
    // One dispatcher (restconf/dispatcher.ts): the uniconfig layer's routes first, then those plugins add
    // (they follow their generation, restconf/plugin-routes.ts), then the core's resources.
    const routes = new RouteTable();
    uniconfig.addRoutes(routes);
    // The OpenAPI documents declare the Basic scheme when the gate asks for credentials.
    const access = { basicAuth: authenticationRequired(config.auth) };
    const app = createRestconfHandler(ctx, {
      routes,
      pluginRoutes: createPluginRoutes(ctx, localDataAccess(ctx)),
      resources: new Map([
        [
          OPENAPI_PATH,
          (req, res) =>
            serveOpenApi(ctx, req, res, access, { configurationOf: (scope, nodeId) => uniconfig.configurationOf(scope, nodeId) }),
        ],
        [APIDOC_MODULES_PATH, (req, res) => serveApiDocModules(ctx, req, res)],
      ]),
    });
    // The request's own limits come first: a request refused for its URI or repeated headers tries no authentication.
    // Probes and the scrape come before the gate: readiness answers during a schema swap.
    // The API page's fixed files hold nothing of the schema: they are served ahead of authentication too.
    // The request log is outermost: its id reaches every line the request causes, and it counts every
    // request in the metrics, the probes' included.
    const handler = withRequestLog(
      log,
      withOperability(
        ctx,
        metrics,
        () => readiness.report(),
        live.gated(withRequestLimits(ctx, withApiDocPage(ctx, authenticatingHandler(app, plugins, config.auth, log)))),
        config.metrics.auth ? (scrape) => authenticatingHandler(scrape, plugins, config.auth, log) : undefined,
      ),
      metrics,
    );
    // A TLS plugin refuses a bad tls object by throwing an error that names the field.
    const secured = startScope.hooks.server.create.call({ handler, tls: config.tls });
    const warning = checkSecurityAtStart(
      config,
      secured !== undefined && 'setSecureContext' in secured,
      startScope.hooks.server.authenticate.isUsed(),
    );
    if (warning !== undefined) log.error(warning);
    const loadedKinds = new Set<string>(
      host?.status().flatMap((p) => (p.state === 'loaded' && p.kind !== undefined ? [p.kind] : [])) ?? [],
    );
    for (const w of unservedSectionWarnings(config, loadedKinds)) log.error(w);
    server = secured ?? http.createServer(handler);
  } catch (e) {
    return closers.abandon(e);
  } finally {
    startScope.release();
  }
  // A request the HTTP parser cannot read (junk headers, bad request line) still gets the envelope.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const body = renderErrorsJson([
      { type: 'transport', tag: 'malformed-message', message: `the HTTP request cannot be read (${err.code ?? 'parse error'})` },
    ]);
    socket.end(
      `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/yang-data+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((e: NodeJS.ErrnoException) =>
    closers.abandon(new Error(`cannot listen on ${config.host}:${config.port}: ${e.code ?? e.message}`)),
  );
  // Responses in progress, so that a stop can ask them to close their connection when done.
  const active = new Set<http.ServerResponse>();
  let draining = false;
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (draining) res.setHeader('Connection', 'close');
    active.add(res);
    res.once('close', () => active.delete(res));
  });
  const address = server.address() as AddressInfo;
  const scheme = server instanceof http.Server && !('setSecureContext' in server) ? 'http' : 'https';
  const hostText = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `${scheme}://${hostText}:${address.port}`;
  // The listener closes first: no new request, and those in flight finish before anything below them closes.
  closers.push(async () => {
    draining = true;
    for (const res of active) {
      if (!res.headersSent) res.setHeader('Connection', 'close');
      // An event stream never finishes by itself: end it now (its client resumes with Last-Event-ID).
      else if (res.getHeader('content-type') === 'text/event-stream') res.end();
    }
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Connections become idle as their requests finish; close each then rather than at keep-alive timeout.
    server.closeIdleConnections();
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const grace = setTimeout(() => server.closeAllConnections(), options.graceMs ?? 10_000);
    await closed;
    clearInterval(sweep);
    clearTimeout(grace);
  });
  if (database !== undefined) {
    const shared = database;
    try {
      leases = await NodeLeases.join(shared.pool, {
        instance: instanceId!,
        url,
        wanted: async () => {
          await live.datastores.config.catchUp?.();
          return mount.storedNodeIds();
        },
        gained: (nodeIds) => {
          // the actual configurations and device modules their last owner stored come first: the nodes are used right after
          void Promise.all([uniconfig.store.catchUp(), uniconfig.engine.modules.catchUp()])
            .catch((e: unknown) => log.error(`rosetta: taking in the actual configurations of gained nodes: ${(e as Error).message}`))
            .then(() => {
              const connecting = mount.restore(new Set(nodeIds));
              if (connecting > 0) log.info(`node leases: connecting ${connecting} node(s) this instance owns now`);
            });
        },
        lost: (nodeIds) => mount.letGo(nodeIds),
        log: (line) => log.error(`rosetta: ${line}`),
      });
    } catch (e) {
      return closers.abandon(e);
    }
  }
  let stopping: Promise<void> | undefined;
  readiness.phase = 'serving';
  const stop = (): Promise<void> => {
    readiness.phase = 'stopping';
    stopping ??= closers.unwind();
    return stopping;
  };
  return {
    url,
    port: address.port,
    stop,
    events,
    metrics,
    get schema() {
      return live.schema;
    },
    get datastores() {
      return live.datastores;
    },
    get extraModules() {
      return live.extraModules;
    },
  };
}
