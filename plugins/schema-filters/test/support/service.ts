/**
 * A real Rosetta service for the schema-filters tests: the core's durable datastores in a temporary
 * folder, the plugin's extension module and the test module loaded from YANG folders, and a
 * plugins.json written by the test with the plugin switched on or off.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openDatastores } from '@rosetta/core/dist/src/datastore';
import { resolveConfig } from '@rosetta/core/dist/src/service/config';
import { startService, type RunningService } from '@rosetta/core/dist/src/service/service';

/** The plugin's folder (from dist/test/support). */
export const PLUGIN_DIR = path.resolve(__dirname, '../../..');
export const TEST_YANG = path.join(PLUGIN_DIR, 'test', 'yang');
export const PLUGIN_YANG = path.join(PLUGIN_DIR, 'yang');

export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: any;
}

export interface FilterService {
  readonly service: RunningService;
  readonly log: string[];
  request(method: string, p: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  stop(): Promise<void>;
}

/** The repository's plugin folders beside this one (`plugins/<name>`). */
export function siblingPlugin(name: string): string {
  return path.resolve(PLUGIN_DIR, '..', name);
}

/**
 * Starts a service with `schemaFilters` (undefined: none) and the plugin `enabled` or not; `others` are
 * further plugin folders enabled beside it (a southbound, for mount points).
 */
export async function startFilterService(schemaFilters: Record<string, unknown> | undefined, enabled = true, others: readonly string[] = []): Promise<FilterService> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-filters-'));
  const pluginsFile = path.join(dir, 'plugins.json');
  const plugins = [...others.map((p) => ({ path: p, enabled: true })), { path: PLUGIN_DIR, enabled }];
  fs.writeFileSync(pluginsFile, JSON.stringify({ watch: false, plugins }));
  const raw = {
    port: 0, dataDir: path.join(dir, 'data'), yangDirs: [PLUGIN_YANG, TEST_YANG], plugins: pluginsFile,
    ...(schemaFilters !== undefined ? { schemaFilters } : {}),
  };
  const config = resolveConfig(raw, dir);
  const log: string[] = [];
  const service = await startService({ config, openDatastores, log: { info: (m) => log.push(m), error: (m) => log.push(m) } });
  return {
    service,
    log,
    async request(method, p, body, headers = {}) {
      const isText = typeof body === 'string';
      const res = await fetch(service.url + p, {
        method,
        headers: { ...(body !== undefined ? { 'content-type': isText ? 'application/yang-data+xml' : 'application/yang-data+json' } : {}), ...headers },
        ...(body !== undefined ? { body: isText ? body : JSON.stringify(body) } : {}),
      });
      const text = await res.text();
      let json: unknown;
      try { json = JSON.parse(text); } catch { json = undefined; }
      return { status: res.status, headers: res.headers, text, json };
    },
    async stop() {
      await service.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
