/**
 * A real Rosetta service with plugins for mount-point tests (the core's test service): the repository's
 * plugin folders, the durable datastores in a temporary data folder (so a second service on the same
 * folder sees what the first installed), port 0.
 */
import * as path from 'node:path';
import { startTestService, type TestPlugin, type TestService } from '../../src/service/test-service';

/** The repository root, from core/dist/test/mount. */
export const REPO = path.resolve(__dirname, '../../../..');

export type MountService = TestService;

/** The plugins.json entries of `plugins` (folders relative to the repository root), enabled. */
export function pluginsFile(plugins: readonly string[]): TestPlugin[] {
  return plugins.map((p) => ({ path: path.join(REPO, p) }));
}

/** Starts a service with `plugins` on `dataDir` (a new folder when omitted). */
export function startMountService(plugins: readonly TestPlugin[], dataDir?: string): Promise<MountService> {
  return startTestService({ label: 'mount', plugins, ...(dataDir !== undefined ? { dataDir } : {}) });
}

/**
 * One node of an install-node (or install-multiple-nodes) input for a NETCONF device on this host
 * that takes admin/pw, as the SDK's simulators do; `extra` adds netconf-node-topology settings.
 */
export function netconfNodeInput(nodeId: string, port: number, extra: Record<string, unknown> = {}) {
  return {
    'node-id': nodeId,
    netconf: {
      'netconf-node-topology:host': '127.0.0.1',
      'netconf-node-topology:port': port,
      'netconf-node-topology:username': 'admin',
      'netconf-node-topology:password': 'pw',
      ...extra,
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
