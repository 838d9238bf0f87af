/**
 * A real Rosetta service for the callbacks tests (the core's test service): the plugin's extension
 * module and the test module loaded from YANG folders, the plugin switched on or off.
 */
import * as path from 'node:path';
import { startTestService, type TestService } from '@rosetta/core/dist/src/service/test-service';

/** The plugin's folder (from dist/test/support). */
export const PLUGIN_DIR = path.resolve(__dirname, '../../..');
export const TEST_YANG = path.join(PLUGIN_DIR, 'test', 'yang');
export const PLUGIN_YANG = path.join(PLUGIN_DIR, 'yang');

export type CallbackService = TestService;

/** Starts a service with `callbacks` (undefined: none) and the plugin `enabled` or not. */
export function startCallbackService(callbacks: Record<string, unknown> | undefined, enabled = true): Promise<CallbackService> {
  return startTestService({
    label: 'callbacks',
    plugins: [{ path: PLUGIN_DIR, enabled }],
    yangDirs: [PLUGIN_YANG, TEST_YANG],
    ...(callbacks !== undefined ? { config: { callbacks } } : {}),
  });
}
