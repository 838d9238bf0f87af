/**
 * OpenAPI documents generated from YANG: the local datastore's document (document.ts), an installed
 * node's (node-document.ts), the `/rests/openapi.json` resource that serves them (resource.ts) and the
 * browsable page over them, `/rests/apidoc` (apidoc.ts). This folder sits above restconf/ (it
 * reads the service's query parameters, media types and error envelope there) and the dispatcher is
 * given the resource by the service, like the uniconfig layer's routes.
 */
export { openApiDocument, openApiText, documentedModules, unknownModules, type ServiceAccess } from './document';
export { nodeOpenApiText, type NodePlace } from './node-document';
export { OPENAPI_PATH, serveOpenApi, type NodeSources } from './resource';
export { APIDOC_PATH, APIDOC_MODULES_PATH, serveApiDocModules, withApiDocPage } from './apidoc';
