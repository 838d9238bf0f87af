/**
 * The `ietf-yang-library` data (RFC 8525) describing the local schema: one module set (implemented
 * modules with their features and deviations, import-only modules), one schema, and the two
 * datastores that use it. Written into the Operational datastore at start-up.
 */
import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '../hooks';
import type { SchemaContext } from '../yang/schema';

/** The RFC 7951 JSON of `ietf-yang-library:yang-library` for `schema`. */
export function yangLibraryJson(schema: SchemaContext): JsonObject {
  const modules: JsonObject[] = [];
  const importOnly: JsonObject[] = [];
  const deviatedBy = new Map<string, Set<string>>();
  for (const m of schema.modules.values()) {
    for (const d of m.deviations) {
      const target = /^\/([^:/]+):/.exec(d.target)?.[1];
      const module = target === undefined ? undefined : m.prefixes.get(target);
      if (module !== undefined && module !== m.name) (deviatedBy.get(module) ?? deviatedBy.set(module, new Set()).get(module)!).add(m.name);
    }
  }
  for (const m of [...schema.modules.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    const entry: JsonObject = { name: m.name };
    if (m.revision !== undefined) entry['revision'] = m.revision;
    entry['namespace'] = m.namespace;
    if (m.submodules.length > 0) {
      entry['submodule'] = m.submodules.map((s): JsonObject => (s.revision !== undefined ? { name: s.name, revision: s.revision } : { name: s.name }));
    }
    if (m.implemented) {
      const features = [...m.features.values()].filter((f) => f.enabled).map((f) => f.name);
      if (features.length > 0) entry['feature'] = features;
      const deviations = deviatedBy.get(m.name);
      if (deviations && deviations.size > 0) entry['deviation'] = [...deviations].filter((d) => schema.modules.get(d)?.implemented);
      if ((entry['deviation'] as JsonValue[] | undefined)?.length === 0) delete entry['deviation'];
      modules.push(entry);
    } else {
      importOnly.push({ ...entry, revision: m.revision ?? '' });
    }
  }
  const moduleSet: JsonObject = { name: 'complete', module: modules };
  if (importOnly.length > 0) moduleSet['import-only-module'] = importOnly;
  const contentId = createHash('sha256').update(JSON.stringify(moduleSet)).digest('hex').slice(0, 16);
  return {
    'ietf-yang-library:yang-library': {
      'module-set': [moduleSet],
      schema: [{ name: 'complete', 'module-set': ['complete'] }],
      datastore: [
        { name: 'ietf-datastores:running', schema: 'complete' },
        { name: 'ietf-datastores:operational', schema: 'complete' },
      ],
      'content-id': contentId,
    },
  };
}
