/**
 * The `ietf-yang-library` data (RFC 8525) describing the local schema: one module set (implemented
 * modules with their features and deviations, import-only modules), one schema, and the two
 * datastores that use it. Written into the Operational datastore at start-up. A module only
 * imported is listed once per revision loaded (several importers may ask for different ones).
 *
 * Also the deprecated `modules-state` (RFC 7895's form, kept in RFC 8525's module): the module holds it
 * with mandatory leaves, so a datastore without it is not valid, and clients written for RFC 7895 read it.
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '../hooks';
import type { CompiledModule, SchemaContext } from '../yang/schema';

/** The RFC 7951 JSON of `ietf-yang-library:yang-library` and `ietf-yang-library:modules-state` for `schema`. */
export function yangLibraryJson(schema: SchemaContext): JsonObject {
  const modules: JsonObject[] = [];
  const importOnly: JsonObject[] = [];
  const legacy: JsonObject[] = [];
  const deviatedBy = new Map<string, Set<string>>();
  for (const m of schema.modules.values()) {
    for (const d of m.deviations) {
      const target = /^\/([^:/]+):/.exec(d.target)?.[1];
      const module = target === undefined ? undefined : m.prefixes.get(target);
      if (module !== undefined && module !== m.name) (deviatedBy.get(module) ?? deviatedBy.set(module, new Set()).get(module)!).add(m.name);
    }
  }
  const revisions = schema.moduleRevisions ?? [...schema.modules.values()];
  const byName = (a: CompiledModule, b: CompiledModule): number =>
    a.name.localeCompare(b.name) || (a.revision ?? '').localeCompare(b.revision ?? '');
  for (const m of [...revisions].sort(byName)) {
    const entry: JsonObject = { name: m.name };
    if (m.revision !== undefined) entry['revision'] = m.revision;
    entry['namespace'] = m.namespace;
    if (m.submodules.length > 0) {
      entry['submodule'] = m.submodules.map(
        (s): JsonObject => (s.revision !== undefined ? { name: s.name, revision: s.revision } : { name: s.name }),
      );
    }
    const old: JsonObject = { name: m.name, revision: m.revision ?? '', namespace: m.namespace };
    if (m.implemented) {
      const features = [...m.features.values()].filter((f) => f.enabled).map((f) => f.name);
      if (features.length > 0) entry['feature'] = old['feature'] = features;
      const deviations = [...(deviatedBy.get(m.name) ?? [])].filter((d) => schema.modules.get(d)?.implemented);
      if (deviations.length > 0) {
        entry['deviation'] = deviations;
        old['deviation'] = deviations.map((d): JsonObject => ({ name: d, revision: schema.modules.get(d)!.revision ?? '' }));
      }
      modules.push(entry);
    } else {
      importOnly.push({ ...entry, revision: m.revision ?? '' });
    }
    old['conformance-type'] = m.implemented ? 'implement' : 'import';
    if (m.submodules.length > 0) old['submodule'] = m.submodules.map((s): JsonObject => ({ name: s.name, revision: s.revision ?? '' }));
    legacy.push(old);
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
    'ietf-yang-library:modules-state': { 'module-set-id': contentId, module: legacy },
  };
}
