/**
 * A real Rosetta service for tests of the core and of plugins: a plugins.json and the durable
 * datastores in a temporary folder, port 0 on loopback, the log kept in memory, and a small HTTP client
 * answering status, headers, text and parsed JSON. One helper, so that every suite starts the service
 * the way `rosetta start` does rather than each writing its own.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Writable } from 'node:stream';
import { openDatastores } from '../datastore';
import { resolveConfig } from './config';
import { startService, type RunningService } from './service';

export interface TestPlugin {
  readonly path: string;
  readonly enabled?: boolean;
  readonly config?: Readonly<Record<string, unknown>>;
}

export interface TestServiceOptions {
  /** plugins.json entries: absolute plugin folders, enabled unless said otherwise, with their settings. */
  readonly plugins: readonly TestPlugin[];
  /** Local YANG folders. */
  readonly yangDirs?: readonly string[];
  /** Further members of the service configuration (`schemaFilters`, `callbacks`, ...). */
  readonly config?: Readonly<Record<string, unknown>>;
  /** The data folder (a new temporary one when omitted; give one to restart on the same data). */
  readonly dataDir?: string;
  /** Names the temporary folders (`rosetta-<label>-...`). */
  readonly label?: string;
  /** Write the service's own JSON log here (at the configuration's `log.level`) instead of keeping text lines in `logs`. */
  readonly logTo?: Writable;
}

export interface TestReply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON, undefined when it is not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read response bodies of every shape; each asserts what it reads
  readonly json: any;
}

export interface TestService {
  readonly service: RunningService;
  readonly dataDir: string;
  /** Every log line, errors prefixed `ERROR ` (empty when `logTo` is given). */
  readonly logs: string[];
  /**
   * Sends a request. An object body is sent as JSON; a string body as it is, typed XML when it starts
   * with `<` and JSON otherwise (`headers` may say otherwise).
   */
  request(method: string, p: string, body?: unknown, headers?: Record<string, string>): Promise<TestReply>;
  /** Stops the service and removes its temporary folder (a given dataDir is kept). */
  stop(): Promise<void>;
}

let databaseOf: ((dataDir: string) => Promise<string>) | undefined;

/**
 * Makes the test services keep their Config datastore in a database, `provide(dataDir)` naming the one of
 * each data folder (the same folder again, for a restart, the same database): the RESTCONF request
 * suite run on PostgreSQL (core/test/on-postgres/).
 */
export function keepTestDataInDatabases(provide: (dataDir: string) => Promise<string>): void {
  databaseOf = provide;
}

/** The database the test service of data folder `dataDir` keeps its data in, when they are kept in databases. */
export function testDatabaseOf(dataDir: string): Promise<string | undefined> {
  return databaseOf === undefined ? Promise.resolve(undefined) : databaseOf(dataDir);
}

/** Writes plugins.json and starts the service. */
export async function startTestService(options: TestServiceOptions): Promise<TestService> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `rosetta-${options.label ?? 'test'}-`));
  const plugins = path.join(dir, 'plugins.json');
  fs.writeFileSync(plugins, JSON.stringify({ watch: false, plugins: options.plugins.map((p) => ({ ...p, enabled: p.enabled ?? true })) }));
  const dataDir = options.dataDir ?? path.join(dir, 'data');
  const database = await testDatabaseOf(dataDir);
  const config = resolveConfig(
    {
      port: 0,
      dataDir,
      plugins,
      ...(options.yangDirs ? { yangDirs: options.yangDirs } : {}),
      ...(database !== undefined ? { database: { url: database } } : {}),
      ...options.config,
    },
    dir,
  );
  const logs: string[] = [];
  const service = await startService({
    config,
    openDatastores,
    ...(options.logTo !== undefined
      ? { logTo: options.logTo }
      : { log: { info: (m: string) => logs.push(m), error: (m: string) => logs.push(`ERROR ${m}`) } }),
  });
  return {
    service,
    dataDir,
    logs,
    async request(method, p, body, headers = {}) {
      const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const type =
        text === undefined ? undefined : text.trimStart().startsWith('<') ? 'application/yang-data+xml' : 'application/yang-data+json';
      const res = await fetch(service.url + p, {
        method,
        headers: { ...(type ? { 'content-type': type } : {}), ...headers },
        ...(text !== undefined ? { body: text } : {}),
      });
      const answer = await res.text();
      let json: unknown;
      try {
        json = JSON.parse(answer);
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, text: answer, json };
    },
    async stop() {
      await service.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
