/**
 * A real Rosetta service with plugins for mount-point tests: plugins.json in a temporary folder naming
 * the repository's plugin folders (absolute paths), the durable datastores in a temporary data folder
 * (so a second service on the same folder sees what the first installed), port 0.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openDatastores } from '../../src/datastore';
import { resolveConfig } from '../../src/service/config';
import { startService, type RunningService } from '../../src/service/service';

/** The repository root, from core/dist/test/mount. */
export const REPO = path.resolve(__dirname, '../../../..');

export interface MountService {
  readonly service: RunningService;
  readonly dataDir: string;
  readonly logs: string[];
  request(method: string, p: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Headers; text: string; json: any }>;
}

/** Writes a plugins.json naming `plugins` (folders relative to the repository root). */
export function pluginsFile(plugins: readonly string[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-plugins-'));
  const file = path.join(dir, 'plugins.json');
  fs.writeFileSync(file, JSON.stringify({ watch: false, plugins: plugins.map((p) => ({ path: path.join(REPO, p), enabled: true })) }));
  return file;
}

/** Starts a service with the plugins of `plugins.json` on `dataDir` (a new folder when omitted). */
export async function startMountService(plugins: string, dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-mount-'))): Promise<MountService> {
  const config = resolveConfig({ port: 0, dataDir, plugins }, os.tmpdir());
  const logs: string[] = [];
  const log = { info: (m: string) => logs.push(m), error: (m: string) => logs.push(`ERROR ${m}`) };
  const service = await startService({ config, openDatastores: (d, s) => openDatastores(d, s), log });
  return {
    service, dataDir, logs,
    async request(method, p, body, headers = {}) {
      const init: RequestInit = { method, headers: { ...(body !== undefined ? { 'content-type': 'application/yang-data+json' } : {}), ...headers } };
      if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
      const res = await fetch(service.url + p, init);
      const text = await res.text();
      let json: unknown;
      try { json = JSON.parse(text); } catch { json = undefined; }
      return { status: res.status, headers: res.headers, text, json };
    },
  };
}

/** Polls `check` until it holds (or `ms` pass); resolves with whether it held. */
export async function eventually(check: () => Promise<boolean>, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
