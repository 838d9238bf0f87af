/**
 * RESTCONF query parameters composed (RFC 8040 §4.8, docs/restconf-api.md#query-parameters): `parseQuery` reads and checks
 * the query string of a request once, into typed `QueryOptions`; `applyReadQuery` applies the read
 * parameters to the data at a GET target in their one right order. Each parameter's own parsing and
 * data function lives in its own file here.
 *
 * Choices, written down:
 * - An unknown parameter, a repeated one, or one the method does not take is 400 naming it.
 * - Empty pairs (`?a=1&&b=2`, a query ending in `&`) are ignored, as most servers do.
 * - A parameter written without `=` has the empty value: valid for `with-defaults` (report-all),
 *   a bad value for every other parameter.
 * - Which methods take which parameters: RFC 8040's table for its own (content, depth, fields,
 *   with-defaults: GET/HEAD; insert, point: POST/PUT); the read extensions (jsonb-filter, sortby,
 *   offset, limit, fetch, hideEmptyDataNodes, hideAttributes) GET/HEAD; unhide on GET/HEAD and on the
 *   writes with a body (PUT, POST, PATCH: hidden definitions accepted in inputs); checkForReferences
 *   on writes (PUT, POST, PATCH, DELETE); apply-tags on PATCH. OPTIONS takes any known parameter.
 * - Read order: content, jsonb-filter, sortby, offset/limit, with-defaults, fields, depth,
 *   hideEmptyDataNodes, hideAttributes; then fetch=count counts the result. The filter and sort see
 *   the data as stored (defaults not added), as a jsonb store would.
 */
import type { PathStep } from '../../data/edit';
import type { DataNode, DataRoot, ListNode } from '../../data/tree';
import type { SchemaContext, SchemaNode } from '../../yang/schema';
import { badQuery } from '../errors';
import { parseContent, selectContent, type ContentMode } from './content';
import { limitDepth, parseDepth, type Depth } from './depth';
import { countTarget, parseFetch } from './fetch';
import { parseFields, resolveFields, selectFields, type FieldItem } from './fields';
import { parseFlag } from './flag';
import { hideAttributes } from './hide-attributes';
import { hideEmptyNodes } from './hide-empty';
import { checkInsertPair, parseInsertWhere, type InsertRequest } from './insert';
import { filterEntries, parseJsonbFilter, type JsonbFilter } from './jsonb-filter';
import { pageEntries, parseLimit, parseOffset, shownWindow } from './paging';
import { parseSortby, resolveKeys, sortEntries, type SortKey } from './sortby';
import type { ReadTarget } from './target';
import { parseUnhide, type Unhide } from './unhide';
import { applyWithDefaults, defaultsAt, parseWithDefaults, type WithDefaults } from './with-defaults';

export type { ContentMode } from './content';
export type { Depth } from './depth';
export type { FieldItem, FieldSelection } from './fields';
export type { InsertRequest, InsertWhere } from './insert';
export type { JsonbFilter, JsonbPredicate } from './jsonb-filter';
export type { EntryWindow } from './paging';
export type { SortKey } from './sortby';
export type { ReadTarget } from './target';
export type { Unhide, UnhideItem } from './unhide';
export type { WithDefaults } from './with-defaults';
export { resolveInsert } from './insert';
export { filterInDatabase } from './jsonb-filter-sql';
export { DEFAULT_ATTRIBUTE } from './with-defaults';
export {
  selectContent,
  limitDepth,
  resolveFields,
  selectFields,
  applyWithDefaults,
  filterEntries,
  sortEntries,
  pageEntries,
  shownWindow,
  countTarget,
  hideEmptyNodes,
  hideAttributes,
};

/** Every query parameter of a request, parsed and checked. Absent parameters are undefined. */
export interface QueryOptions {
  readonly content?: ContentMode;
  readonly depth?: Depth;
  readonly fields?: readonly FieldItem[];
  readonly withDefaults?: WithDefaults;
  readonly jsonbFilter?: JsonbFilter;
  readonly sortby?: readonly SortKey[];
  readonly offset?: number;
  readonly limit?: number;
  /** `fetch=count`. */
  readonly fetchCount?: boolean;
  readonly hideEmptyDataNodes?: boolean;
  readonly hideAttributes?: boolean;
  readonly unhide?: Unhide;
  readonly insert?: InsertRequest;
  readonly checkForReferences?: boolean;
  readonly applyTags?: boolean;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const READ = ['GET', 'HEAD'];
const WRITE = ['PUT', 'POST', 'PATCH', 'DELETE'];

/** Each parameter: the methods that take it and how its value goes into the options. */
const PARAMETERS: Readonly<Record<string, { methods: readonly string[]; set: (o: Mutable<QueryOptions>, v: string) => void }>> = {
  content: {
    methods: READ,
    set: (o, v) => {
      o.content = parseContent(v);
    },
  },
  depth: {
    methods: READ,
    set: (o, v) => {
      o.depth = parseDepth(v);
    },
  },
  fields: {
    methods: READ,
    set: (o, v) => {
      o.fields = parseFields(v);
    },
  },
  'with-defaults': {
    methods: READ,
    set: (o, v) => {
      o.withDefaults = parseWithDefaults(v);
    },
  },
  'jsonb-filter': {
    methods: READ,
    set: (o, v) => {
      o.jsonbFilter = parseJsonbFilter(v);
    },
  },
  sortby: {
    methods: READ,
    set: (o, v) => {
      o.sortby = parseSortby(v);
    },
  },
  offset: {
    methods: READ,
    set: (o, v) => {
      o.offset = parseOffset(v);
    },
  },
  limit: {
    methods: READ,
    set: (o, v) => {
      o.limit = parseLimit(v);
    },
  },
  fetch: {
    methods: READ,
    set: (o, v) => {
      o.fetchCount = parseFetch(v) === 'count';
    },
  },
  hideEmptyDataNodes: {
    methods: READ,
    set: (o, v) => {
      o.hideEmptyDataNodes = parseFlag('hideEmptyDataNodes', v);
    },
  },
  hideAttributes: {
    methods: READ,
    set: (o, v) => {
      o.hideAttributes = parseFlag('hideAttributes', v);
    },
  },
  unhide: {
    methods: [...READ, 'PUT', 'POST', 'PATCH'],
    set: (o, v) => {
      o.unhide = parseUnhide(v);
    },
  },
  insert: { methods: ['POST', 'PUT'], set: () => undefined }, // checked with point below
  point: { methods: ['POST', 'PUT'], set: () => undefined },
  checkForReferences: {
    methods: WRITE,
    set: (o, v) => {
      o.checkForReferences = parseFlag('checkForReferences', v);
    },
  },
  'apply-tags': {
    methods: ['PATCH'],
    set: (o, v) => {
      o.applyTags = parseFlag('apply-tags', v);
    },
  },
};

/** Each query parameter the service knows, with the methods that take it (what API descriptions list). */
export const QUERY_PARAMETER_METHODS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(PARAMETERS).map(([name, spec]) => [name, spec.methods]),
);

/** The name/value pairs of a raw query string, decoded (`+` is a space); bad encoding is 400. */
function pairsOf(query: string): Array<[string, string]> {
  const text = query.startsWith('?') ? query.slice(1) : query;
  const pairs: Array<[string, string]> = [];
  for (const part of text.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    let name: string;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
    } catch {
      throw badQuery(rawName, 'bad percent-encoding in the parameter name');
    }
    try {
      pairs.push([name, decodeURIComponent(rawValue.replace(/\+/g, ' '))]);
    } catch {
      throw badQuery(name, `bad percent-encoding in the value '${rawValue}'`);
    }
  }
  return pairs;
}

/**
 * Parses a request's query (a raw query string, with or without `?`, or URLSearchParams) for
 * `method`. Throws RestconfError 400 naming the parameter at fault (`missing-attribute` for
 * insert=before/after without point, `invalid-value` for everything else).
 */
export function parseQuery(query: string | URLSearchParams, method: string): QueryOptions {
  const pairs = typeof query === 'string' ? pairsOf(query) : [...query.entries()].filter(([n]) => n !== '');
  const m = method.toUpperCase();
  const options: Mutable<QueryOptions> = {};
  const seen = new Set<string>();
  let insert: string | undefined;
  let point: string | undefined;
  for (const [name, value] of pairs) {
    const spec = Object.hasOwn(PARAMETERS, name) ? PARAMETERS[name] : undefined;
    if (spec === undefined) throw badQuery(name, 'unknown query parameter');
    if (seen.has(name)) throw badQuery(name, 'given more than once');
    seen.add(name);
    if (m !== 'OPTIONS' && !spec.methods.includes(m)) throw badQuery(name, `not allowed with ${m} (only ${spec.methods.join(', ')})`);
    if (name === 'insert') insert = value;
    else if (name === 'point') point = value;
    else spec.set(options, value);
  }
  const request = checkInsertPair(insert === undefined ? undefined : parseInsertWhere(insert), point);
  if (request !== undefined) options.insert = request;
  return options;
}

/**
 * Checks that the read parameters fit the target's schema (undefined: the datastore root), before
 * any data is read: jsonb-filter, sortby, offset and limit need a whole list; fields needs a
 * container or list (or the root). Throws 400 naming the parameter.
 */
export function checkReadTarget(options: QueryOptions, target: SchemaNode | undefined, ctx: SchemaContext, targetIsEntry = false): void {
  const isList = target?.kind === 'list' && !targetIsEntry;
  for (const [name, given] of [
    ['jsonb-filter', options.jsonbFilter],
    ['sortby', options.sortby],
    ['offset', options.offset],
    ['limit', options.limit],
  ] as const) {
    if (given !== undefined && !isList) {
      throw badQuery(
        name,
        `applies to a list, and the target is ${target === undefined ? 'the datastore root' : `${targetIsEntry ? 'an entry of ' : 'the '}${target.kind} '${target.name}'`}`,
      );
    }
  }
  if (options.fields !== undefined) resolveFields(options.fields, target, ctx);
  if (options.sortby !== undefined && target?.kind === 'list') resolveKeys(options.sortby, target);
}

/** Which schema nodes `content` reads (undefined: all of them). */
function contentIncludes(content: ContentMode): ((s: SchemaNode) => boolean) | undefined {
  return content === 'config' ? (s: SchemaNode) => s.config : content === 'nonconfig' ? (s: SchemaNode) => !s.config : undefined;
}

/** What {@link showAtAbsentTarget} gives: the data shown at a target below `holder`, or undefined. */
export type AbsentTargetReader = (
  holder: ReadTarget,
  holderSchema: SchemaNode | undefined,
  below: readonly PathStep[],
) => DataNode | undefined;

/**
 * What the read parameters show at a GET target that holds no data: with `with-defaults=report-all`
 * (or report-all-tagged), the default there (query/with-defaults.ts `defaultsAt`), found below
 * `holder`, the deepest node on the target's path that holds data, down the steps `below`; the other
 * read parameters are then applied to it by {@link applyReadQuery}. Undefined when the parameters can
 * show nothing at such a target (no with-defaults, explicit, trim), so a plain 404 costs no more.
 */
export function showAtAbsentTarget(options: QueryOptions, ctx: SchemaContext): AbsentTargetReader | undefined {
  const mode = options.withDefaults;
  if (mode !== 'report-all' && mode !== 'report-all-tagged') return undefined;
  const include = contentIncludes(options.content ?? 'all');
  return (holder, holderSchema, below) => defaultsAt(holder, holderSchema, below, mode, ctx, include);
}

/** What a GET answers: the selected data (undefined when nothing is left), or the fetch=count number. */
export type ReadResult =
  | { readonly kind: 'data'; readonly data: ReadTarget | undefined }
  | { readonly kind: 'count'; readonly count: number };

/**
 * Applies the read parameters of `options` to the data at a GET target, in order (see the top of
 * this file). `target` is the data at the target (a whole list for a list target, one entry for an
 * entry target); `targetSchema` its schema node (undefined for the datastore root); `root` the
 * datastore root that absolute jsonb-filter paths read (the target's own tree when omitted and the
 * target is the root); `inDatabase`, when given, is asked first to filter a list in the database
 * (jsonb-filter-sql.ts), and the list is filtered here when it answers undefined. Never changes its input. Throws 400 naming a parameter that does not fit, or
 * a jsonb-filter that needs more work than a request may spend. Asynchronous because a long
 * jsonb-filter gives the event loop back while it runs (query/jsonb-filter.ts).
 */
export async function applyReadQuery(
  target: ReadTarget,
  targetSchema: SchemaNode | undefined,
  options: QueryOptions,
  ctx: SchemaContext,
  root?: DataRoot,
  inDatabase?: (list: ListNode, filter: JsonbFilter) => Promise<ListNode | undefined>,
): Promise<ReadResult> {
  checkReadTarget(options, targetSchema, ctx, target.kind === 'entry');
  const content = options.content ?? 'all';
  let data: ReadTarget | undefined = selectContent(target, content);
  if (data?.kind === 'list') {
    if (options.jsonbFilter !== undefined)
      data =
        (await inDatabase?.(data, options.jsonbFilter)) ??
        (await filterEntries(data, options.jsonbFilter, root ?? (target.kind === 'root' ? target : undefined)));
    if (options.sortby !== undefined) data = sortEntries(data, options.sortby);
    if (options.offset !== undefined || options.limit !== undefined) data = pageEntries(data, options.offset, options.limit);
  }
  if (data !== undefined && options.withDefaults !== undefined)
    data = applyWithDefaults(data, options.withDefaults, ctx, contentIncludes(content));
  if (data !== undefined && options.fields !== undefined) data = selectFields(data, resolveFields(options.fields, targetSchema, ctx));
  if (data !== undefined && options.depth !== undefined) data = limitDepth(data, options.depth);
  if (data !== undefined && options.hideEmptyDataNodes === true) data = hideEmptyNodes(data);
  if (data !== undefined && options.hideAttributes === true) data = hideAttributes(data);
  if (options.fetchCount === true) return { kind: 'count', count: countTarget(data) };
  return { kind: 'data', data };
}
