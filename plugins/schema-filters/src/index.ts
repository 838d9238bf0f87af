/**
 * The schema-filters plugin (docs/configuration.md#schemafilters): by default input
 * and output match the YANG models exactly; the `schemaFilters` object of the service configuration
 * relaxes that, on local data and under mount points alike.
 *
 * - `data.afterRead`: definitions carrying an extension of `hiddenDataOnReadByExtensions`, and with
 *   `hideDeprecatedDefinitionsOnRead` those of `status deprecated`, are removed from what a GET read,
 *   before the query parameters apply (so `fields`, `depth`, paging and `fetch=count` see the
 *   filtered tree). A GET whose target is itself hidden answers 404 data-missing.
 * - `data.decodeBody`: body members of definitions carrying an extension of
 *   `ignoredDataOnWriteByExtensions` are dropped while decoding (never stored); with
 *   `ignoreUnsupportedDefinitionsOnWrite`, members naming no schema node are dropped instead of 400.
 * - `unhide` (GET, PUT, POST, PATCH): the listed extensions, or `all`, no longer hide or ignore.
 * - `schema.loaded` (the local schema, and each mounted device's): says how many definitions the
 *   settings hide and ignore there, so an operator sees that an extension they listed matches
 *   something (a misspelt one matches nothing, which is logged loudly for the local schema).
 *
 * The settings come from `api.serviceConfig.schemaFilters` (checked by the core at start-up, and again
 * here); without that object the plugin filters nothing.
 */
import { definePlugin } from '@rosetta/sdk';
import { countFiltered, NodeFilter, parseFilterSettings, parseUnhide, type ExtensionMatch, type FilterSettings } from './filters';
import { pruneRoot } from './prune';

export { countFiltered, NodeFilter, parseFilterSettings, parseUnhide, parseExtension, FilterSettingsError } from './filters';
export type { ExtensionMatch, FilterSettings, Unhide } from './filters';
export { pruneRoot } from './prune';

export default definePlugin({
  setup(api) {
    const settings: FilterSettings = parseFilterSettings(api.serviceConfig?.['schemaFilters']);
    const readFilters = settings.hiddenOnRead.length > 0 || settings.hideDeprecatedOnRead;
    const writeFilters = settings.ignoredOnWrite.length > 0 || settings.ignoreUnsupportedOnWrite;
    if (!readFilters && !writeFilters) {
      api.log.info('no schemaFilters in the service configuration: nothing is filtered');
      return;
    }
    api.hooks.schema.loaded.tap('schema-filters', ({ schema, scope }) => {
      const where = scope.kind === 'local' ? 'local schema' : `device ${scope.nodeId}`;
      const hidden = countFiltered(schema, new NodeFilter(settings.hiddenOnRead, settings.hideDeprecatedOnRead, [], schema));
      const ignored = countFiltered(schema, new NodeFilter(settings.ignoredOnWrite, false, [], schema));
      api.log.info(`${where}: ${hidden} definition(s) hidden on read, ${ignored} ignored on write`);
      if (scope.kind !== 'local') return;
      // A listed extension no local definition carries is most likely misspelt (device schemas may still carry it).
      for (const [field, list] of [
        ['hiddenDataOnReadByExtensions', settings.hiddenOnRead],
        ['ignoredDataOnWriteByExtensions', settings.ignoredOnWrite],
      ] as const) {
        for (const match of list) {
          if (countFiltered(schema, new NodeFilter([match], false, [], schema)) === 0) {
            api.log.warn(
              `schemaFilters.${field}: '${describe(match)}' matches no definition of the local schema (mounted devices' schemas may still carry it)`,
            );
          }
        }
      }
    });
    if (readFilters) {
      api.hooks.data.afterRead.tapPromise('schema-filters', async (data, read) => {
        const filter = new NodeFilter(settings.hiddenOnRead, settings.hideDeprecatedOnRead, parseUnhide(read.query['unhide']), read.schema);
        return pruneRoot(data, filter);
      });
    }
    if (writeFilters) {
      api.hooks.data.decodeBody.tap('schema-filters', (policy, body) => {
        const filter = new NodeFilter(settings.ignoredOnWrite, false, parseUnhide(body.query['unhide']), body.schema);
        return {
          skipUnknown: policy.skipUnknown || settings.ignoreUnsupportedOnWrite,
          skip: filter.active ? combine(policy.skip, (schema) => filter.filtered(schema)) : policy.skip,
        };
      });
    }
  },
});

/** Both skip predicates (a tap before this one may have set its own). */
function combine<T>(first: ((s: T) => boolean) | undefined, second: (s: T) => boolean): (s: T) => boolean {
  return first === undefined ? second : (s) => first(s) || second(s);
}

function describe(match: ExtensionMatch): string {
  return `${match.prefix}:${match.name}${match.argument !== undefined ? ` ${match.argument}` : ''}`;
}
