/**
 * OpenAPI documents generated from YANG: the local datastore's document (document.ts), the
 * `/rests/openapi.json` resource that serves it (resource.ts) and the browsable page over them,
 * `/rests/apidoc` (apidoc.ts). This folder sits above restconf/ (it
 * reads the service's query parameters, media types and error envelope there) and the dispatcher is
 * given the resource by the service, like the uniconfig layer's routes.
 */
export { openApiDocument, openApiText, documentedModules, unknownModules, type ServiceAccess } from './document';
export { OPENAPI_PATH, serveOpenApi } from './resource';
export { APIDOC_PATH, APIDOC_MODULES_PATH, serveApiDocModules, withApiDocPage } from './apidoc';
