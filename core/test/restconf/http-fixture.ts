/**
 * A real Rosetta service on 127.0.0.1 (port 0) for request-level tests: the service's own modules plus
 * the compact test models of example-jukebox and ietf-interfaces (linked from core/test/models into a
 * temporary folder, so each service loads only the models named), with an in-memory implementation of
 * the datastore contract (serialized, all-or-nothing, check before commit) standing in for the durable
 * store, or, when the suite runs on PostgreSQL (core/test/on-postgres/), the real Config datastore in a
 * fresh database (`suiteStore`).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openDatastores } from '../../src/datastore';
import type { Datastore, Datastores } from '../../src/datastore/datastore';
import { applyEdits, type Edit } from '../../src/data/edit';
import { emptyRoot, type DataRoot } from '../../src/data/tree';
import type { SchemaContext } from '../../src/yang/schema';
import { resolveConfig, type ServiceConfig } from '../../src/service/config';
import { startService, type RunningService } from '../../src/service/service';
import { testDatabaseOf } from '../../src/service/test-service';
import type { DatastoreOpener } from '../../src/service/live-schema';
import { TEST_MODELS } from '../test-models';

class MemoryStore implements Datastore {
  private tree: DataRoot = emptyRoot();
  private queue: Promise<unknown> = Promise.resolve();
  constructor(
    readonly name: 'config' | 'operational',
    private readonly ctx: SchemaContext,
  ) {}
  current(): DataRoot {
    return this.tree;
  }
  apply(edits: readonly Edit[], check?: (next: DataRoot, previous: DataRoot) => void): Promise<DataRoot> {
    const run = this.queue.then(() => {
      const previous = this.tree;
      const next = applyEdits(previous, edits, this.ctx);
      check?.(next, previous);
      this.tree = next;
      return next;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}

export async function memoryDatastores(_dir: string, ctx: SchemaContext): Promise<Datastores> {
  return { config: new MemoryStore('config', ctx), operational: new MemoryStore('operational', ctx), close: async () => undefined };
}

/**
 * What a service of the request suite keeps its data in: the configuration's `database` and the real
 * datastores on a fresh PostgreSQL database when the suite runs on it, else the in-memory stand-in.
 */
export async function suiteStore(dataDir: string): Promise<{ config: Record<string, unknown>; openDatastores: DatastoreOpener }> {
  const url = await testDatabaseOf(dataDir);
  if (url === undefined) return { config: {}, openDatastores: memoryDatastores };
  return { config: { database: { url } }, openDatastores };
}

/** A temporary folder holding links to the test models named (files of core/test/models). */
export function modelYangDir(files: readonly string[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-yang-'));
  for (const f of files) fs.symlinkSync(path.join(TEST_MODELS, f), path.join(dir, f));
  return dir;
}

export const JUKEBOX = 'example-jukebox@2015-04-04.yang';
export const INTERFACES = 'ietf-interfaces@2018-02-20.yang';
export const IANA_IF_TYPE = 'iana-if-type@2026-03-17.yang';

export interface TestService {
  readonly service: RunningService;
  readonly errors: string[];
  request(
    method: string,
    path: string,
    options?: { body?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; headers: Headers; text: string; json: any }>;
}

/** Starts a service with jukebox and ietf-interfaces; `raw` overrides configuration fields. */
export async function startTestService(
  raw: Record<string, unknown> = {},
  files: readonly string[] = [JUKEBOX, INTERFACES, IANA_IF_TYPE],
): Promise<TestService> {
  const yangDir = modelYangDir(files);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-data-'));
  const store = await suiteStore(dataDir);
  const config: ServiceConfig = resolveConfig({ port: 0, dataDir, yangDirs: [yangDir], ...store.config, ...raw }, os.tmpdir());
  const errors: string[] = [];
  const service = await startService({
    config,
    openDatastores: store.openDatastores,
    log: { info: () => undefined, error: (m) => errors.push(m) },
  });
  return {
    service,
    errors,
    async request(method, p, options = {}) {
      const headers: Record<string, string> = {
        ...(options.body !== undefined ? { 'content-type': 'application/yang-data+json' } : {}),
        ...options.headers,
      };
      const res = await fetch(service.url + p, { method, headers, ...(options.body !== undefined ? { body: options.body } : {}) });
      const text = await res.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, text, json };
    },
  };
}
