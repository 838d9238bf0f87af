/**
 * What routes added by plugins (`server.routes`) may know of the local data: a RESTCONF data path
 * resolved against the local schema (the node it names, its extension instances, whether stored
 * configuration holds it) and the Config datastore's content at a path as RFC 7951 JSON. Plugins
 * import the SDK only, so this read-only facade is all they see of the core's URI parser and datastore.
 */
import { toJsonValue } from '../data/json-encode';
import { isSensitive } from '../datastore/sensitive';
import type { JsonObject, LocalDataAccess, ResolvedDataPath } from '../hooks';
import type { RestconfContext } from './context';
import { unknownResource } from './errors';
import { findTarget } from './target';
import { parseDataPath } from './uri';

/** The facade over `ctx` (the local schema and the Config datastore as they are at each call). */
export function localDataAccess(ctx: RestconfContext): LocalDataAccess {
  const parse = (path: string) => {
    const parsed = parseDataPath(path, ctx.schema, { keyDelimiter: ctx.options.keyDelimiter });
    if (parsed.mount !== undefined)
      throw unknownResource(`${parsed.mount.outerPath}/yang-ext:mount: mounted devices are not served here`, 'yang-ext:mount');
    return parsed;
  };
  return {
    resolve(path: string): ResolvedDataPath {
      const parsed = parse(path);
      const node = parsed.operation ?? parsed.target;
      // An action's own step holds no data: whether it is stored is whether the node it belongs to is.
      const dataSteps =
        parsed.operation !== undefined && parsed.steps.at(-1)?.schema === parsed.operation ? parsed.steps.slice(0, -1) : parsed.steps;
      const stored = findTarget(ctx.datastores.config.current(), dataSteps) !== undefined;
      if (node === undefined) return { path: parsed.pathValue, kind: 'root', module: undefined, name: undefined, extensions: [], stored };
      return { path: parsed.pathValue, kind: node.kind, module: node.module.name, name: node.name, extensions: node.extensions, stored };
    },
    readConfig(path: string): JsonObject | undefined {
      const parsed = parse(path);
      if (parsed.operation !== undefined) return undefined;
      const found = findTarget(ctx.datastores.config.current(), parsed.steps);
      return found === undefined ? undefined : (toJsonValue(found, { attributes: false }) as JsonObject);
    },
    readSecret(path: string): string | undefined {
      const parsed = parse(path);
      if (parsed.operation !== undefined || parsed.target === undefined || !isSensitive(parsed.target)) return undefined;
      return ctx.datastores.config.revealSecret?.(parsed.steps);
    },
  };
}
