/**
 * The OpenAPI 3.0.3 document of the local datastore, generated from a compiled schema: the paths of
 * the implemented modules' top-level data nodes and RPCs (paths.ts), their node schemas as shared
 * components (components.ts, leaf-schema.ts) and the error envelope and query parameters every path
 * shares (shared.ts). Documents are cached per schema object and module selection as JSON text
 * (selection-cache.ts). A mounted node's document is made from the same parts (node-document.ts).
 */
import type { SchemaContext } from '../yang/schema';
import { Components } from './components';
import type { JsonSchema } from './leaf-schema';
import { LOCAL_ROOTS, PathWriter, type PathKind, type PathRoots } from './paths';
import { SelectionCache } from './selection-cache';
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
  const parts = documentParts(schema, modules, LOCAL_ROOTS, access);
  return {
    openapi: '3.0.3',
    info: documentInfo('Rosetta RESTCONF: local datastore', schema, modules),
    ...securityOf(access),
    paths: parts.paths,
    components: parts.components,
  };
}

/** A document's paths (with what each serves) and its components, paths starting at `roots`. */
export interface DocumentParts {
  readonly paths: Record<string, JsonSchema>;
  readonly kinds: ReadonlyMap<string, PathKind>;
  readonly components: Record<string, unknown>;
}

/** The paths and components of `schema`'s (selected) modules: the one generator of every document. */
export function documentParts(
  schema: SchemaContext,
  modules: readonly string[] | undefined,
  roots: PathRoots,
  access: ServiceAccess = {},
  refusedQuery: ReadonlySet<string> = new Set(),
): DocumentParts {
  const only = modules === undefined ? undefined : new Set(modules);
  const components = new Components();
  const writer = new PathWriter(components, roots, refusedQuery);
  for (const node of schema.data) if (only === undefined || only.has(node.module.name)) writer.addData(node);
  for (const rpc of schema.rpcs) if (only === undefined || only.has(rpc.module.name)) writer.addRpc(rpc);
  return {
    paths: writer.paths,
    kinds: writer.kinds,
    components: {
      schemas: { [ERROR]: ERRORS_SCHEMA, ...components.schemas },
      parameters: { ...parameterComponents(), ...components.parameters },
      responses: { Error: errorResponse() },
      ...(access.basicAuth === true ? { securitySchemes: { [BASIC_SCHEME]: { type: 'http', scheme: 'basic' } } } : {}),
    },
  };
}

/** The document's `security` member: Basic on every path when the service asks for credentials. */
export function securityOf(access: ServiceAccess): Record<string, unknown> {
  return access.basicAuth === true ? { security: [{ [BASIC_SCHEME]: [] }] } : {};
}

/** What a cached document or part depends on besides its schema and modules. */
export function accessKey(access: ServiceAccess): string {
  return access.basicAuth === true ? 'basic' : '';
}

/** The document's `info`: its title and the modules it describes. */
export function documentInfo(title: string, schema: SchemaContext, modules: readonly string[] | undefined): Record<string, string> {
  const described = modules === undefined ? documentedModules(schema) : [...new Set(modules)];
  return {
    title,
    version: '1',
    description: `RESTCONF (RFC 8040) paths of the modules ${described.join(', ')}, bodies in RFC 7951 JSON (${JSON_TYPE}) or XML (${XML_TYPE}).`,
  };
}

const cache = new SelectionCache<string>((text) => text.length);

/** The document as JSON text, from the cache when this schema already answered this selection. */
export function openApiText(schema: SchemaContext, modules?: readonly string[], access: ServiceAccess = {}): string {
  return cache.get(schema, modules, accessKey(access), () => JSON.stringify(openApiDocument(schema, modules, access)));
}
