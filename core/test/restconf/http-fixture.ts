/**
 * A real Rosetta service on 127.0.0.1 (port 0) for request-level tests: the service's own modules plus
 * the compact test models of example-jukebox and ietf-interfaces (linked from core/test/models into a
 * temporary folder, so each service loads only the models named), with an in-memory implementation of
 * the datastore contract (serialized, all-or-nothing, check before commit) standing in for the durable
 * store.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Datastore, Datastores } from '../../src/datastore/datastore';
import { applyEdits, type Edit } from '../../src/data/edit';
import { emptyRoot, type DataRoot } from '../../src/data/tree';
import type { SchemaContext } from '../../src/yang/schema';
import { resolveConfig, type ServiceConfig } from '../../src/service/config';
import { startService, type RunningService } from '../../src/service/service';
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
  const config: ServiceConfig = resolveConfig({ port: 0, dataDir, yangDirs: [yangDir], ...raw }, os.tmpdir());
  const errors: string[] = [];
  const service = await startService({
    config,
    openDatastores: memoryDatastores,
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
