/**
 * The OpenAPI 3.0.3 document of the local datastore, generated from a compiled schema: the paths of
 * the implemented modules' top-level data nodes and RPCs (paths.ts), their node schemas as shared
 * components (components.ts, leaf-schema.ts) and the error envelope and query parameters every path
 * shares (shared.ts). Documents are cached per schema object as JSON text (a schema swap brings a new
 * object, so the next request regenerates); each schema keeps a few module selections and at most
 * 64 Mi characters of them, oldest first out, so that clients asking for ever new `?modules=` sets
 * cannot grow the cache without bound.
 */
import type { SchemaContext } from '../yang/schema';
import { Components } from './components';
import { PathWriter } from './paths';
import { ERROR, ERRORS_SCHEMA, errorResponse, JSON_TYPE, parameterComponents, XML_TYPE } from './shared';

/** The modules a document may be limited to: the implemented ones. */
export function documentedModules(schema: SchemaContext): string[] {
  return [...schema.modules.values()].filter((m) => m.implemented).map((m) => m.name);
}

/** The modules of `wanted` the schema does not implement (what `?modules=` may not name). */
export function unknownModules(schema: SchemaContext, wanted: readonly string[]): string[] {
  return wanted.filter((name) => schema.modules.get(name)?.implemented !== true);
}

/** How the service that serves a document is reached, beside the schema. */
export interface ServiceAccess {
  /** Whether requests need Basic credentials (the document then declares the scheme for every path). */
  readonly basicAuth?: boolean;
}

/** The scheme's name in the documents. */
const BASIC_SCHEME = 'basic';

/**
 * The document for `schema`, limited to the top-level nodes and RPCs of `modules` when given (names
 * the schema does not implement are left out: check them with `unknownModules` first).
 */
export function openApiDocument(schema: SchemaContext, modules?: readonly string[], access: ServiceAccess = {}): Record<string, unknown> {
  const only = modules === undefined ? undefined : new Set(modules);
  const components = new Components();
  const writer = new PathWriter(components);
  for (const node of schema.data) if (only === undefined || only.has(node.module.name)) writer.addData(node);
  for (const rpc of schema.rpcs) if (only === undefined || only.has(rpc.module.name)) writer.addRpc(rpc);
  const described = only === undefined ? documentedModules(schema) : [...only];
  return {
    openapi: '3.0.3',
    info: {
      title: 'Rosetta RESTCONF: local datastore',
      version: '1',
      description: `RESTCONF (RFC 8040) paths of the modules ${described.join(', ')}, bodies in RFC 7951 JSON (${JSON_TYPE}) or XML (${XML_TYPE}).`,
    },
    ...(access.basicAuth === true ? { security: [{ [BASIC_SCHEME]: [] }] } : {}),
    paths: writer.paths,
    components: {
      schemas: { [ERROR]: ERRORS_SCHEMA, ...components.schemas },
      parameters: { ...parameterComponents(), ...components.parameters },
      responses: { Error: errorResponse() },
      ...(access.basicAuth === true ? { securitySchemes: { [BASIC_SCHEME]: { type: 'http', scheme: 'basic' } } } : {}),
    },
  };
}

/** Module selections kept per schema, and the characters of text they may hold together. */
const SELECTIONS_KEPT = 8;
const CHARACTERS_KEPT = 64 * 1024 * 1024;
const cache = new WeakMap<SchemaContext, Map<string, string>>();

/** The document as JSON text, from the cache when this schema already answered this selection. */
export function openApiText(schema: SchemaContext, modules?: readonly string[], access: ServiceAccess = {}): string {
  const selection = modules === undefined ? '' : [...new Set(modules)].sort().join(',');
  const key = access.basicAuth === true ? `basic:${selection}` : selection;
  let texts = cache.get(schema);
  if (texts === undefined) cache.set(schema, (texts = new Map()));
  let text = texts.get(key);
  if (text === undefined) {
    text = JSON.stringify(openApiDocument(schema, modules, access));
    texts.set(key, text);
    // Oldest first out, the newest always kept: a whole big schema is about 24 MB of text.
    let size = 0;
    for (const t of texts.values()) size += t.length;
    for (const [oldest, t] of texts) {
      if (texts.size <= 1 || (texts.size <= SELECTIONS_KEPT && size <= CHARACTERS_KEPT)) break;
      texts.delete(oldest);
      size -= t.length;
    }
  }
  return text;
}
