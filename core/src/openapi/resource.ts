/**
 * `GET /rests/openapi.json`: the OpenAPI document of the local datastore, for the schema in force
 * when the request came, `?modules=a,b` limiting it to those modules. `?node=<topology>/<node-id>`
 * answers that installed node's document instead (node-document.ts): its mount point's paths from its
 * device schema, and its uniconfig configuration's when it is installed in uniconfig; `?modules=`
 * limits it to modules of the device schema. A module the schema does not implement, a malformed node
 * or any other query parameter is 400 in the RESTCONF error envelope, a node not installed (in that
 * topology) 404, naming it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { nodeMissing, UNIFIED } from '../mount';
import type { PluginScope } from '../plugins/generation';
import type { RestconfContext } from '../restconf/context';
import { badQuery } from '../restconf/errors';
import { requestScope } from '../restconf/request-scope';
import { sendText } from '../restconf/respond';
import { REFUSED_UNDER_MOUNT } from '../restconf/mount-view';
import { MOUNT_SEGMENT } from '../restconf/uri';
import type { SchemaContext } from '../yang/schema';
import { openApiText, type ServiceAccess, unknownModules } from './document';
import { nodeOpenApiText, type NodePlace } from './node-document';

/** Where the document is served. */
export const OPENAPI_PATH = '/rests/openapi.json';

/** What the layers above restconf tell the resource about a node. */
export interface NodeSources {
  /**
   * The uniconfig copy of a node's configuration: its device schema and the path it is served at;
   * undefined when the node is not installed in uniconfig.
   */
  readonly configurationOf?: (scope: PluginScope, nodeId: string) => { readonly schema: SchemaContext; readonly data: string } | undefined;
}

/**
 * Answers a GET or HEAD of the document (the dispatcher answers OPTIONS and refuses other methods);
 * `access` says whether the service asks for credentials, which the document then declares.
 */
export function serveOpenApi(
  ctx: RestconfContext,
  req: IncomingMessage,
  res: ServerResponse,
  access: ServiceAccess = {},
  sources: NodeSources = {},
): void {
  const query = new URL(req.url ?? '', 'http://local').searchParams;
  for (const name of query.keys()) if (name !== 'modules' && name !== 'node') throw badQuery(name, 'unknown query parameter');
  const modules = modulesAsked(query);
  const node = nodeAsked(query);
  const text =
    node === undefined
      ? documentOf(ctx.schema, modules, (schema) => openApiText(schema, modules, access))
      : nodeDocument(ctx, requestScope(res), node, modules, access, sources);
  sendText(res, 200, 'application/json', text, req.method === 'HEAD');
}

/** The document of `schema` once `modules` are known to be in it. */
function documentOf(schema: SchemaContext, modules: readonly string[] | undefined, text: (schema: SchemaContext) => string): string {
  if (modules !== undefined) {
    const unknown = unknownModules(schema, modules);
    if (unknown.length > 0) throw badQuery('modules', `no implemented module is named ${unknown.join(', ')}`);
  }
  return text(schema);
}

/** The document of an installed node, at its mount point and its uniconfig configuration. */
function nodeDocument(
  ctx: RestconfContext,
  scope: PluginScope,
  { topology, nodeId }: { topology: string; nodeId: string },
  modules: readonly string[] | undefined,
  access: ServiceAccess,
  sources: NodeSources,
): string {
  const installed = ctx.mount?.installedNode(nodeId);
  if (installed === undefined) throw nodeMissing(nodeId);
  if (topology !== UNIFIED && topology !== installed.kind.topology) throw nodeMissing(nodeId, `is not installed in topology '${topology}'`);
  const configuration = sources.configurationOf?.(scope, nodeId);
  const schema = configuration?.schema ?? ctx.mount!.schemaOf(scope, nodeId);
  if (schema === undefined) throw nodeMissing(nodeId, 'has no device schema yet (it has not connected since the service started)');
  const node = `network-topology:network-topology/topology=${encodeURIComponent(topology)}/node=${encodeURIComponent(nodeId)}/${MOUNT_SEGMENT}`;
  const places: NodePlace[] = [
    { data: `/rests/data/${node}`, operations: `/rests/operations/${node}`, configOnly: false, refusedQuery: REFUSED_UNDER_MOUNT },
  ];
  if (configuration !== undefined) places.push({ data: configuration.data, configOnly: true });
  return documentOf(schema, modules, (s) => nodeOpenApiText(`Rosetta RESTCONF: node ${topology}/${nodeId}`, s, modules, places, access));
}

/** The `modules` parameter's names, or undefined without it. */
function modulesAsked(query: URLSearchParams): string[] | undefined {
  const value = once(query, 'modules');
  if (value === undefined) return undefined;
  const names = value
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  if (names.length === 0) throw badQuery('modules', 'names no module');
  return names;
}

/** The `node` parameter: `<topology>/<node-id>`, both non-empty (a node id may hold `/`). */
function nodeAsked(query: URLSearchParams): { topology: string; nodeId: string } | undefined {
  const value = once(query, 'node');
  if (value === undefined) return undefined;
  const slash = value.indexOf('/');
  if (slash <= 0 || slash === value.length - 1) throw badQuery('node', `'${value.slice(0, 200)}' is not <topology>/<node-id>`);
  return { topology: value.slice(0, slash), nodeId: value.slice(slash + 1) };
}

function once(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw badQuery(name, 'given more than once');
  return values[0];
}
