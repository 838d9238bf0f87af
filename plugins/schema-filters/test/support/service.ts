/**
 * A real Rosetta service for the schema-filters tests (the core's test service): the plugin's
 * extension module and the test module loaded from YANG folders, the plugin switched on or off.
 */
import * as path from 'node:path';
import { startTestService, type TestService } from '@rosetta/core/dist/src/service/test-service';

/** The plugin's folder (from dist/test/support). */
export const PLUGIN_DIR = path.resolve(__dirname, '../../..');
export const TEST_YANG = path.join(PLUGIN_DIR, 'test', 'yang');
export const PLUGIN_YANG = path.join(PLUGIN_DIR, 'yang');

export type FilterService = TestService;

/** The repository's plugin folders beside this one (`plugins/<name>`). */
export function siblingPlugin(name: string): string {
  return path.resolve(PLUGIN_DIR, '..', name);
}

/**
 * Starts a service with `schemaFilters` (undefined: none) and the plugin `enabled` or not; `others` are
 * further plugin folders enabled beside it (a southbound, for mount points).
 */
export function startFilterService(
  schemaFilters: Record<string, unknown> | undefined,
  enabled = true,
  others: readonly string[] = [],
): Promise<FilterService> {
  return startTestService({
    label: 'filters',
    plugins: [...others.map((p) => ({ path: p })), { path: PLUGIN_DIR, enabled }],
    yangDirs: [PLUGIN_YANG, TEST_YANG],
    ...(schemaFilters !== undefined ? { config: { schemaFilters } } : {}),
  });
}
