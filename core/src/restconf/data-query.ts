/**
 * The bridge between the query module (query/: one parser and one data function per parameter) and
 * the data handlers: reads the request's query string once and hands the handlers typed options
 * (`DataQuery`). Parameter parsing and every transformation of read data belong to query/; this file
 * only composes them for the HTTP layer.
 */
import type { Request } from 'express';
import type { DataNode, DataRoot } from '../data/tree';
import type { SchemaNode } from '../yang/schema';
import type { RestconfContext } from './context';
import type { DataQuery } from './data-call';
import { badQuery, malformed } from './errors';
import { parseContent, selectContent, type ContentMode } from './query/content';
import { limitDepth, parseDepth, type Depth } from './query/depth';
import { parseFields, resolveFields, selectFields, type FieldItem } from './query/fields';
import { parseFlag } from './query/flag';
import { applyWithDefaults, parseWithDefaults, type WithDefaults } from './query/with-defaults';
import type { ParsedPath } from './uri';

/** The query string's parameters in order; a pair without name (`a=1&`) is ignored, a repeated one is 400. */
export function rawQueryOf(req: Request): Record<string, string> {
  const q = req.originalUrl.indexOf('?');
  const out: Record<string, string> = {};
  if (q < 0) return out;
  for (const pair of req.originalUrl.slice(q + 1).split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent((eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
      value = eq < 0 ? '' : decodeURIComponent(pair.slice(eq + 1).replace(/\+/g, ' '));
    } catch {
      throw malformed(`bad percent-encoding in query parameter '${pair.slice(0, 50)}'`);
    }
    if (name in out) throw badQuery(name, 'is given more than once');
    out[name] = value;
  }
  return out;
}

const WRITE_METHODS = new Set(['PUT', 'POST', 'PATCH', 'DELETE']);

/** Reads the query of a data request into the handlers' typed options. Throws 400 naming a bad parameter. */
export function dataQuery(req: Request, parsed: ParsedPath, ctx: RestconfContext): DataQuery {
  const raw = rawQueryOf(req);
  const read = req.method === 'GET' || req.method === 'HEAD';
  let content: ContentMode | undefined;
  let depth: Depth | undefined;
  let fields: FieldItem[] | undefined;
  let withDefaults: WithDefaults | undefined;
  let checkReferences = false;
  let applyTags = false;
  let hideAttributes = false;
  for (const [name, value] of Object.entries(raw)) {
    const onlyRead = () => { if (!read) throw badQuery(name, `is only allowed on GET, not ${req.method}`); };
    switch (name) {
      case 'content': onlyRead(); content = parseContent(value); break;
      case 'depth': onlyRead(); depth = parseDepth(value); break;
      case 'fields': onlyRead(); fields = parseFields(value); break;
      case 'with-defaults': onlyRead(); withDefaults = value === '' ? 'report-all' : parseWithDefaults(value); break;
      case 'hideAttributes': onlyRead(); hideAttributes = parseFlag(name, value); break;
      case 'checkForReferences':
        if (!WRITE_METHODS.has(req.method)) throw badQuery(name, `is only allowed on writes, not ${req.method}`);
        checkReferences = parseFlag(name, value);
        break;
      case 'apply-tags':
        if (req.method !== 'PATCH') throw badQuery(name, `is only allowed on PATCH, not ${req.method}`);
        applyTags = parseFlag(name, value);
        break;
      default:
        throw badQuery(name, 'unknown query parameter');
    }
  }
  const selection = fields === undefined ? undefined : resolveFields(fields, parsed.target, ctx.schema);
  const applyRead = (found: DataNode | DataRoot, _target: SchemaNode | undefined): DataNode | DataRoot | number | undefined => {
    let out: DataNode | DataRoot | undefined = found;
    const mode = content ?? ctx.options.defaultContent;
    out = selectContent(out, mode);
    if (out === undefined) return undefined;
    if (withDefaults !== undefined) {
      const include = mode === 'all' ? () => true : (s: SchemaNode) => (mode === 'config' ? s.config : !s.config);
      out = applyWithDefaults(out, withDefaults, ctx.schema, include);
    }
    if (selection !== undefined) out = selectFields(out, selection);
    if (depth !== undefined) out = limitDepth(out, depth);
    return out;
  };
  return { applyRead, content, insert: undefined, checkReferences, applyTags, hideAttributes, fetchCount: false };
}
