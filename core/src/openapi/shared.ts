/**
 * The parts every path of an OpenAPI document shares: the RFC 8040 error envelope (a schema and the
 * `Error` response that carries it), the query parameters as reusable components, and the media types
 * of data bodies. Which method takes which query parameter is read from the service's own query
 * parser (restconf/query), so the document lists exactly what a request may carry; only each value's
 * shape is written here.
 */
import { DATA_TYPES } from '../restconf/media';
import { QUERY_PARAMETER_METHODS } from '../restconf/query';
import type { JsonSchema } from './leaf-schema';

/** The data media types a document names: the RFC 8040 ones (the service also reads their aliases). */
export const JSON_TYPE = DATA_TYPES.find((m) => m.type === 'application/yang-data+json')!.type;
export const XML_TYPE = DATA_TYPES.find((m) => m.type === 'application/yang-data+xml')!.type;

/** The value schema and description of each query parameter the service takes. */
const QUERY_VALUES: Readonly<Record<string, { schema: JsonSchema; description: string }>> = {
  content: { schema: { type: 'string', enum: ['config', 'nonconfig', 'all'] }, description: 'RFC 8040 §4.8.1: which data to return' },
  depth: {
    schema: { type: 'string', pattern: '^(unbounded|[1-9][0-9]{0,4})$' },
    description: 'RFC 8040 §4.8.2: levels of children to return, 1 to 65535, or unbounded',
  },
  fields: { schema: { type: 'string' }, description: 'RFC 8040 §4.8.3: the descendants to return, e.g. a/b;c(d)' },
  'with-defaults': {
    schema: { type: 'string', enum: ['report-all', 'trim', 'explicit', 'report-all-tagged'] },
    description: 'RFC 8040 §4.8.9: how default values are reported',
  },
  'jsonb-filter': { schema: { type: 'string' }, description: 'list entries whose members match a JSONPath-like predicate' },
  sortby: { schema: { type: 'string' }, description: 'list entries sorted by members, e.g. name(desc)' },
  offset: { schema: { type: 'integer', minimum: 0 }, description: 'list entries skipped before the first returned' },
  limit: { schema: { type: 'integer', minimum: 0 }, description: 'at most this many list entries' },
  fetch: { schema: { type: 'string', enum: ['count'] }, description: 'count=the number of nodes instead of the data' },
  hideEmptyDataNodes: { schema: { type: 'boolean' }, description: 'leave out containers and lists left empty' },
  hideAttributes: { schema: { type: 'boolean' }, description: 'leave out RFC 7952 metadata' },
  unhide: { schema: { type: 'string' }, description: 'show (and accept) nodes hidden by the service' },
  insert: {
    schema: { type: 'string', enum: ['first', 'last', 'before', 'after'] },
    description: 'RFC 8040 §4.8.5: where a user-ordered entry goes',
  },
  point: { schema: { type: 'string' }, description: 'RFC 8040 §4.8.6: the entry insert=before|after is relative to' },
  checkForReferences: { schema: { type: 'boolean' }, description: 'refuse a write that leaves a leafref dangling' },
  'apply-tags': { schema: { type: 'boolean' }, description: 'apply the tags of a tagged PATCH body' },
};

const NONE: ReadonlySet<string> = new Set();

/** Parameters that matter only on user-ordered lists. */
const ORDERING = new Set(['insert', 'point']);

/**
 * `$ref`s of the query parameters `method` takes (`ordered`: the target is a user-ordered entry), but
 * those the place refuses (`refused`: a mount point's).
 */
export function queryParameters(method: string, ordered = false, refused: ReadonlySet<string> = NONE): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [name, methods] of QUERY_PARAMETER_METHODS) {
    if (!methods.includes(method) || (ORDERING.has(name) && !ordered) || refused.has(name)) continue;
    out.push({ $ref: `#/components/parameters/${parameterName(name)}` });
  }
  return out;
}

function parameterName(name: string): string {
  return `query.${name}`;
}

/** The parameter components: every query parameter the service knows that has a value shape here. */
export function parameterComponents(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const name of QUERY_PARAMETER_METHODS.keys()) {
    const value = QUERY_VALUES[name] ?? { schema: { type: 'string' }, description: name };
    out[parameterName(name)] = { name, in: 'query', required: false, schema: value.schema, description: value.description };
  }
  return out;
}

/**
 * The RFC 8040 §7.1 error envelope as the service writes it (restconf/errors.ts): its top member is
 * `errors`, unqualified, as OpenDaylight writes it and the service's clients read it.
 */
export const ERRORS_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['errors'],
  properties: {
    errors: {
      type: 'object',
      properties: {
        error: {
          type: 'array',
          items: {
            type: 'object',
            required: ['error-type', 'error-tag'],
            properties: {
              'error-type': { type: 'string', enum: ['transport', 'rpc', 'protocol', 'application'] },
              'error-tag': { type: 'string' },
              'error-app-tag': { type: 'string' },
              'error-path': { type: 'string' },
              'error-message': { type: 'string' },
              'error-info': { type: 'object' },
            },
          },
        },
      },
    },
  },
};

/** The name of the shared error response and schema. */
export const ERROR = 'ietf-restconf.errors';

/** The shared error response: the envelope in JSON or XML. */
export function errorResponse(): JsonSchema {
  const schema = { $ref: `#/components/schemas/${ERROR}` };
  return { description: 'RFC 8040 error envelope', content: { [JSON_TYPE]: { schema }, [XML_TYPE]: { schema } } };
}

/** A body of `schema` in both data media types. */
export function dataContent(schema: JsonSchema): JsonSchema {
  return { [JSON_TYPE]: { schema }, [XML_TYPE]: { schema } };
}
