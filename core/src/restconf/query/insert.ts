/**
 * `insert=first|last|before|after` and `point` (RFC 8040 §4.8.5-6, docs/restconf-api.md#insert-and-point): where POST or PUT
 * puts a new entry of an `ordered-by user` list or leaf-list. `point` names the neighbour either as a
 * bare key value (comma-separated for composite keys; the value itself for a leaf-list) or as an RFC
 * 8040 path to the neighbour (`/example-jukebox:jukebox/playlist=Foo/song=5`); a value starting with
 * `/` is taken as a path.
 *
 * Parsing checks the pair (before/after without point: 400 `missing-attribute`; point without
 * before/after: 400 `invalid-value`); `resolveInsert` checks the list (not ordered-by user: 400
 * `invalid-value`) and types the point's key values into the InsertPosition edits take.
 */
import type { InsertPosition } from '../../data/list';
import type { LeafValue } from '../../data/tree';
import type { LeafListSchema, ListSchema, SchemaContext } from '../../yang/schema';
import { valueFromText } from '../../yang/types/values';
import { badQuery, RestconfError } from '../errors';
import { type ParsedPath, parseDataPath, type UriOptions } from '../uri';

export type InsertWhere = 'first' | 'last' | 'before' | 'after';

/** insert and point as given, checked as a pair. */
export interface InsertRequest {
  readonly where: InsertWhere;
  /** The point's text as given (decoded from the query once). */
  readonly point?: string;
}

/** Parses the value of `insert`. */
export function parseInsertWhere(value: string): InsertWhere {
  if (value === 'first' || value === 'last' || value === 'before' || value === 'after') return value;
  throw badQuery('insert', `'${value}' is not first, last, before or after`);
}

/** Checks insert and point together (either may be absent). */
export function checkInsertPair(where: InsertWhere | undefined, point: string | undefined): InsertRequest | undefined {
  if (where === undefined) {
    if (point !== undefined) throw badQuery('point', 'point is only allowed with insert=before or insert=after');
    return undefined;
  }
  if (where === 'before' || where === 'after') {
    if (point === undefined) {
      throw RestconfError.of('missing-attribute', `query parameter 'point': insert=${where} needs a point`, {
        info: { 'missing-attribute': 'point' },
      });
    }
    return { where, point };
  }
  if (point !== undefined) throw badQuery('point', `point is only allowed with insert=before or insert=after, not insert=${where}`);
  return { where };
}

/**
 * The position for an edit of `schema` (the list or leaf-list the new entry goes into). Throws 400
 * `invalid-value` when the list is not ordered-by user or the point does not fit it.
 */
export function resolveInsert(
  request: InsertRequest,
  schema: ListSchema | LeafListSchema,
  ctx: SchemaContext,
  uri: UriOptions,
): InsertPosition {
  if (schema.orderedBy !== 'user') {
    throw badQuery('insert', `'${schema.name}' is not an ordered-by user list or leaf-list`);
  }
  if (request.where === 'first' || request.where === 'last') return { where: request.where };
  const text = request.point!;
  const point = text.startsWith('/') ? pointFromPath(text, schema, ctx, uri) : pointFromValues(text, schema, ctx);
  return { where: request.where, point };
}

function pointFromPath(text: string, schema: ListSchema | LeafListSchema, ctx: SchemaContext, uri: UriOptions): LeafValue[] {
  let last: ParsedPath['steps'][number] | undefined;
  try {
    last = parseDataPath(text, ctx, uri).steps.at(-1);
  } catch (e) {
    throw badQuery('point', `'${text}' is not a path to an entry: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (last?.schema !== schema) throw badQuery('point', `'${text}' does not name an entry of '${schema.name}'`);
  if (last.keys !== undefined) return [...last.keys];
  if (last.value !== undefined) return [last.value];
  throw badQuery('point', `'${text}' names '${schema.name}' but not one of its entries`);
}

function pointFromValues(text: string, schema: ListSchema | LeafListSchema, ctx: SchemaContext): LeafValue[] {
  const leaves = schema.kind === 'list' ? schema.keys : [schema];
  const texts = schema.kind === 'list' ? text.split(',') : [text];
  if (texts.length !== leaves.length) {
    throw badQuery('point', `'${text}' gives ${texts.length} key value(s); '${schema.name}' has ${leaves.length}`);
  }
  return texts.map((t, i) => {
    const leaf = leaves[i]!;
    const r = valueFromText(leaf.type, t, ctx, (p) => (ctx.modules.has(p) ? p : undefined), leaf.module.name);
    if (!r.ok) throw badQuery('point', `'${t}' is not a value of '${leaf.name}': ${r.message}`);
    return r.value;
  });
}
