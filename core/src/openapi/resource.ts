/**
 * `GET /rests/openapi.json`: the OpenAPI document of the local datastore, for the schema in force
 * when the request came, `?modules=a,b` limiting it to those modules. A module the schema does not
 * implement is 400 in the RESTCONF error envelope, naming it; any other query parameter is 400 too.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RestconfContext } from '../restconf/context';
import { badQuery } from '../restconf/errors';
import { sendText } from '../restconf/respond';
import { openApiText, type ServiceAccess, unknownModules } from './document';

/** Where the document is served. */
export const OPENAPI_PATH = '/rests/openapi.json';

/**
 * Answers a GET or HEAD of the document (the dispatcher answers OPTIONS and refuses other methods);
 * `access` says whether the service asks for credentials, which the document then declares.
 */
export function serveOpenApi(ctx: RestconfContext, req: IncomingMessage, res: ServerResponse, access: ServiceAccess = {}): void {
  const modules = modulesAsked(new URL(req.url ?? '', 'http://local').searchParams);
  if (modules !== undefined) {
    const unknown = unknownModules(ctx.schema, modules);
    if (unknown.length > 0) throw badQuery('modules', `no implemented module is named ${unknown.join(', ')}`);
  }
  sendText(res, 200, 'application/json', openApiText(ctx.schema, modules, access), req.method === 'HEAD');
}

/** The `modules` parameter's names, or undefined without it. */
function modulesAsked(query: URLSearchParams): string[] | undefined {
  for (const name of query.keys()) if (name !== 'modules') throw badQuery(name, 'unknown query parameter');
  const values = query.getAll('modules');
  if (values.length === 0) return undefined;
  if (values.length > 1) throw badQuery('modules', 'given more than once');
  const names = values[0]!
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  if (names.length === 0) throw badQuery('modules', 'names no module');
  return names;
}
