/**
 * OpenAPI documents generated from YANG: the local datastore's document (document.ts) and the
 * `/rests/openapi.json` resource that serves it (resource.ts). This folder sits above restconf/ (it
 * reads the service's query parameters, media types and error envelope there) and the dispatcher is
 * given the resource by the service, like the uniconfig layer's routes.
 */
export { openApiDocument, openApiText, documentedModules, unknownModules } from './document';
export { OPENAPI_PATH, serveOpenApi } from './resource';
