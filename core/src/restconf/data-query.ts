/**
 * The bridge between the query module (query/: `parseQuery`, `applyReadQuery`, one file per
 * parameter) and the data handlers: parses the request's query once and hands the handlers what they
 * act on (`DataQuery`). Parsing and every transformation of read data belong to query/.
 */
import type { IncomingMessage } from 'node:http';
import { topTable } from '../data/children';
import { mergeChildren } from '../data/edit';
import type { DataNode, DataRoot } from '../data/tree';
import type { InsertPosition } from '../data/list';
import type { SchemaNode } from '../yang/schema';
import { badQuery } from './errors';
import type { RestconfContext } from './context';
import type { DataQuery } from './data-call';
import { applyReadQuery, filterInDatabase, parseQuery, resolveInsert, showAtAbsentTarget, shownWindow } from './query';

/**
 * The query string of a request (without `?`), '' when there is none. Express keeps the URL as
 * received in `originalUrl` (it rewrites `url` under a mounted prefix); node's own request has `url`.
 */
export function queryText(req: IncomingMessage): string {
  const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '';
  const q = url.indexOf('?');
  return q < 0 ? '' : url.slice(q + 1);
}

/** The path of a request as received, without its query. */
export function requestPath(req: IncomingMessage): string {
  const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/** The parameters as received, for the read hooks' context (already checked by `parseQuery`). */
export function rawQueryOf(req: IncomingMessage): Record<string, string> {
  const text = queryText(req);
  const out: Record<string, string> = {};
  if (text === '') return out;
  for (const [name, value] of new URLSearchParams(text)) if (name !== '') out[name] = value;
  return out;
}

/** The options of a request without query parameters: none of the read transformations apply. */
const NO_OPTIONS = Object.freeze(parseQuery('', 'GET'));

/** Reads the query of a data request into the handlers' options. Throws 400 naming a bad parameter. */
export function dataQuery(req: IncomingMessage, ctx: RestconfContext): DataQuery {
  const text = queryText(req);
  const options = text === '' ? NO_OPTIONS : parseQuery(text, req.method ?? 'GET');
  const content = options.content ?? ctx.options.defaultContent;
  const request = options.insert;
  const readAbsent = options === NO_OPTIONS ? undefined : showAtAbsentTarget({ ...options, content }, ctx.schema);
  const insertInto =
    request === undefined
      ? () => undefined
      : (schema: SchemaNode): InsertPosition => {
          if (schema.kind !== 'list' && schema.kind !== 'leaf-list')
            throw badQuery('insert', `'${schema.name}' is a ${schema.kind}, not an ordered-by user list or leaf-list`);
          return resolveInsert(request, schema, ctx.schema, { keyDelimiter: ctx.options.keyDelimiter });
        };
  const window = shownWindow(options);
  return {
    content: options.content,
    ...(window !== undefined ? { window } : {}),
    insertInto,
    checkReferences: options.checkForReferences === true,
    applyTags: options.applyTags === true,
    // hideAttributes is applied by applyReadQuery; the encoder writes whatever attributes remain.
    hideAttributes: false,
    applyRead: async (found: DataNode | DataRoot, target: SchemaNode | undefined) => {
      const result = await applyReadQuery(
        found,
        target,
        { ...options, content },
        ctx.schema,
        filterRoot(ctx, options.jsonbFilter === undefined ? 'config' : content),
        // over a large list the Config datastore's database holds as rows, the filter runs there
        (list, filter) => filterInDatabase(ctx.datastores.config, list, filter),
      );
      return result.kind === 'count' ? result.count : result.data;
    },
    ...(readAbsent !== undefined ? { readAbsent } : {}),
  };
}

/**
 * The tree absolute jsonb-filter paths (`{$/module:top/...}`) read: the datastore(s) `content`
 * selects, merged for `all` (only when a filter is given: the merge costs the size of the top level).
 */
function filterRoot(ctx: RestconfContext, content: 'config' | 'nonconfig' | 'all'): DataRoot {
  const config = ctx.datastores.config.current();
  if (content === 'config') return config;
  const state = ctx.datastores.operational.current();
  if (content === 'nonconfig') return state;
  return { kind: 'root', children: mergeChildren(config.children, state.children, topTable(ctx.schema)) };
}
