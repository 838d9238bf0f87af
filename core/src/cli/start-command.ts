/**
 * `rosetta start [--port N] [--config FILE] [--data-dir DIR] [--yang DIR]... [--plugins FILE]`: runs the
 * service until SIGTERM or SIGINT, then stops it cleanly (no new requests, requests in flight finish,
 * plugins and datastores closed). Prints where it listens, the data folder and the modules loaded. A
 * bad flag or configuration field stops it with a message naming the problem (exit 2; 1 when start-up
 * itself fails).
 *
 * Defaults: port 8181 on 127.0.0.1, `./data`, `./plugins.json` when present, no extra YANG.
 * The datastores come from core/src/datastore's `openDatastores(dataDir, schema)`.
 */
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Writable } from 'node:stream';
import * as v8 from 'node:v8';
import { createJsonLogger } from '../logging/json-logger';
import { onHangup } from './reload-on-hangup';
import { ConfigError, type ServiceConfig } from '../service/config';
import { NativeMemoryTrim } from '../service/native-memory';
import { startService, type DatastoreOpener, type RunningService } from '../service/service';
import { SERVICE_OPTIONS, serviceConfig } from './service-options';

const HELP = `usage: rosetta start [--port N] [--config FILE] [--data-dir DIR] [--yang DIR]... [--plugins FILE]

Runs the RESTCONF service (http://127.0.0.1:8181/rests by default) until SIGTERM or SIGINT;
SIGHUP reads the configuration again and applies log.level and metrics.enabled.
  --port N         listen on port N (0 picks a free one); overrides the configuration's port
  --config FILE    JSON configuration file (docs/configuration.md); built-in defaults without it
  --data-dir DIR   where the Config datastore is kept (default ./data)
  --yang DIR       extra YANG modules served from the local datastores; repeatable
  --plugins FILE   plugins.json to load (default ./plugins.json when it exists)
  -h, --help       show this help`;

const OPTIONS = {
  port: { type: 'string' },
  ...SERVICE_OPTIONS,
  help: { type: 'boolean', short: 'h' },
} as const;

/** The datastore implementation, looked up when the service starts (see the file comment). */
function datastoreOpener(): DatastoreOpener {
  let mod: { openDatastores?: unknown } = {};
  try {
    mod = require('../datastore') as { openDatastores?: unknown };
  } catch {
    // reported below
  }
  if (typeof mod.openDatastores !== 'function') {
    throw new Error('no datastore implementation is built: core/src/datastore/index.ts must export openDatastores(dataDir, schema)');
  }
  return mod.openDatastores as DatastoreOpener;
}

/**
 * Node slices small Buffers (under half of `Buffer.poolSize`) out of shared 8 KB slabs, and a slab
 * stays allocated while any slice of it lives. Each SSH session keeps a few tiny Buffers for its whole
 * life (the peer's identification line, an AES-GCM tag), so with thousands of idle devices each one
 * pinned most of a slab: 24 MB of slabs for 5,000 devices, about 5 KB per device
 * (docs/operations.md#memory). With 1 KB slabs the same sessions pin 4 MB. The service owns its process,
 * so `rosetta start` sets this; the core as a library leaves its host's setting alone.
 */
function useSmallBufferPool(): void {
  Buffer.poolSize = 1024;
}

/**
 * V8 grows the old generation ahead of what it uses by a factor it picks itself, up to about twice
 * under allocation pressure, and does not give the room back while the objects in it stay: a fleet's
 * install left 5,000 idle devices with 150 MB of heap in use and about 250 MB committed, 53 KB of RSS
 * per device. Growing by at most 20% each time keeps the committed heap near what is used (47 KB per
 * device, docs/operations.md#memory) for more frequent major collections. A `--heap-growing-percent`
 * given to Node itself wins (0 is V8's own choice).
 */
const HEAP_GROWING_PERCENT = 20;

function useSlowHeapGrowth(): void {
  if (process.execArgv.some((arg) => arg.startsWith('--heap-growing-percent') || arg.startsWith('--heap_growing_percent'))) return;
  if ((process.env.NODE_OPTIONS ?? '').includes('heap-growing-percent')) return;
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

/** The command line's options, checked (throws on an unknown or malformed one). */
function parseOptions(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: false, strict: true }).values;
}

/**
 * Runs `rosetta start`; resolves with the exit code once the service has stopped. Once the configuration
 * is read, every line (these and the service's) is the service's JSON log, to `logTo` (default stdout).
 */
export async function startCommand(argv: readonly string[], opener?: DatastoreOpener, logTo?: Writable): Promise<number> {
  let values: ReturnType<typeof parseOptions>;
  try {
    values = parseOptions(argv);
  } catch (e) {
    console.error(`rosetta start: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  let config: ServiceConfig;
  let port: number | undefined;
  try {
    if (values.port !== undefined) {
      if (!/^\d+$/.test(values.port) || Number(values.port) > 65535)
        throw new ConfigError('--port', `must be an integer from 0 to 65535, not '${values.port}'`);
      port = Number(values.port);
    }
    config = serviceConfig(values, port !== undefined ? { port } : {});
  } catch (e) {
    console.error(`rosetta start: ${(e as Error).message}`);
    return 2;
  }
  useSmallBufferPool();
  useSlowHeapGrowth();
  const log = createJsonLogger({ level: config.log.level, ...(logTo !== undefined ? { destination: logTo } : {}) });
  let service: RunningService;
  try {
    fs.mkdirSync(config.dataDir, { recursive: true });
    service = await startService({ config, openDatastores: opener ?? datastoreOpener(), log });
  } catch (e) {
    console.error(`rosetta start: ${(e as Error).message}`);
    return 1;
  }
  const modules = [...service.schema.modules.values()]
    .filter((m) => m.implemented)
    .map((m) => (m.revision ? `${m.name}@${m.revision}` : m.name));
  // Listening for the signals before saying the service is up: whoever waits for these lines may
  // stop it at once, and a SIGTERM before the handler would kill it without stopping.
  const signalled = new Promise<void>((resolve) => {
    const onSignal = (signal: string) => {
      process.off('SIGTERM', onSignal).off('SIGINT', onSignal);
      log.info(`rosetta: ${signal}: stopping (requests in flight finish)`);
      resolve();
    };
    process.on('SIGTERM', onSignal).on('SIGINT', onSignal);
  });
  log.info(`rosetta: listening on ${service.url}/rests`);
  log.info(`rosetta: data in ${config.dataDir}`);
  log.info(`rosetta: ${modules.length} modules loaded: ${modules.join(', ')}`);
  if (config.pluginsFile) log.info(`rosetta: plugins from ${config.pluginsFile}`);
  const nativeMemory = new NativeMemoryTrim({
    log: { info: (m) => log.info(`rosetta: ${m}`), error: (m) => log.error(`rosetta: ${m}`) },
  });
  const stopReloading = onHangup({
    read: () => serviceConfig(values, port !== undefined ? { port } : {}),
    log,
    metrics: service.metrics,
    started: config,
  });
  await signalled;
  stopReloading();
  nativeMemory.stop();
  await service.stop();
  log.info('rosetta: stopped');
  return 0;
}
