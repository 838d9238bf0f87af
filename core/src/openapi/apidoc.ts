/**
 * `/rests/apidoc`: the browsable API page, Swagger UI served from the swagger-ui-dist package's own
 * folder (nothing fetched from the internet), with one entry per implemented module in its top-bar
 * selector, each pointing at `/rests/openapi.json?modules=<module>` (one module's document stays small
 * enough for a browser, where the whole OpenConfig set is 24 MB), and "try it out" on.
 *
 * Two halves, on either side of authentication:
 * - the page and the package's assets (`withApiDocPage`) are served ahead of it, like the probes: they
 *   are the package's files plus a fixed page and start script, holding nothing of the schema or data;
 * - the module list (`serveApiDocModules`, `/rests/apidoc/modules.json`) is a dispatcher resource
 *   behind it, like the documents it points to, so that an unauthenticated client learns no module.
 *   A browser meeting the 401's Basic challenge asks its user and then sends the credentials with the
 *   page's later requests; the documents also declare the Basic scheme, so Swagger UI's "Authorize" works.
 * Only the files named below are served, looked up by exact name: no path from the request ever reaches
 * the file system, so `..` or an encoded slash cannot leave the package's folder.
 */
import * as fs from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import * as path from 'node:path';
import type { RestconfContext } from '../restconf/context';
import { methodNotAllowed, unknownResource } from '../restconf/errors';
import { ALLOW } from '../restconf/options';
import { sendError, sendText } from '../restconf/respond';
import { documentedModules } from './document';
import { OPENAPI_PATH } from './resource';

/** Where the page is served. */
export const APIDOC_PATH = '/rests/apidoc';
/** The module list the page's start script reads (behind authentication). */
export const APIDOC_MODULES_PATH = `${APIDOC_PATH}/modules.json`;

/** The package's files the page uses, by name, with their content types. */
const PACKAGE_FILES: ReadonlyMap<string, string> = new Map([
  ['swagger-ui.css', 'text/css'],
  ['index.css', 'text/css'],
  ['swagger-ui-bundle.js', 'text/javascript'],
  ['swagger-ui-standalone-preset.js', 'text/javascript'],
  ['favicon-32x32.png', 'image/png'],
  ['favicon-16x16.png', 'image/png'],
  ['oauth2-redirect.html', 'text/html'],
  ['oauth2-redirect.js', 'text/javascript'],
]);

/** The page: the package's index.html with asset paths that hold whether or not the URL ends in `/`. */
const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Rosetta RESTCONF API</title>
    <link rel="stylesheet" type="text/css" href="${APIDOC_PATH}/swagger-ui.css" />
    <link rel="stylesheet" type="text/css" href="${APIDOC_PATH}/index.css" />
    <link rel="icon" type="image/png" href="${APIDOC_PATH}/favicon-32x32.png" sizes="32x32" />
    <link rel="icon" type="image/png" href="${APIDOC_PATH}/favicon-16x16.png" sizes="16x16" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${APIDOC_PATH}/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="${APIDOC_PATH}/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="${APIDOC_PATH}/swagger-initializer.js" charset="UTF-8"></script>
  </body>
</html>
`;

/**
 * The start script, in place of the package's (which points at the petstore on the internet): it reads
 * the module list, then starts Swagger UI with one selector entry per module.
 */
const INITIALIZER = `window.onload = function () {
  fetch(${JSON.stringify(APIDOC_MODULES_PATH)}, { credentials: 'same-origin', headers: { Accept: 'application/json' } })
    .then(function (res) {
      if (!res.ok) throw new Error('the module list answered ' + res.status);
      return res.json();
    })
    .then(function (urls) {
      window.ui = SwaggerUIBundle({
        urls: urls,
        dom_id: '#swagger-ui',
        deepLinking: true,
        tryItOutEnabled: true,
        presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
        plugins: [SwaggerUIBundle.plugins.DownloadUrl],
        layout: 'StandaloneLayout',
      });
    })
    .catch(function (err) {
      document.getElementById('swagger-ui').textContent = 'Cannot list the modules: ' + err.message;
    });
};
`;

/** Where swagger-ui-dist is installed (its package.json names the folder; its main module does not). */
function packageFolder(): string {
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

/** The package's files, read once on first use (about 1.5 MB, most of it swagger-ui-bundle.js). */
let packageFiles: Map<string, Buffer> | undefined;
function packageFile(name: string): Buffer {
  packageFiles ??= new Map();
  let bytes = packageFiles.get(name);
  if (bytes === undefined) {
    bytes = fs.readFileSync(path.join(packageFolder(), name));
    packageFiles.set(name, bytes);
  }
  return bytes;
}

/** The part of a request path under the page (`''` for the page itself), or undefined when not under it. */
function pageFile(url: string): string | undefined {
  const q = url.indexOf('?');
  const p = q < 0 ? url : url.slice(0, q);
  if (p === APIDOC_PATH || p === `${APIDOC_PATH}/`) return '';
  return p.startsWith(`${APIDOC_PATH}/`) ? p.slice(APIDOC_PATH.length + 1) : undefined;
}

/** Answers one GET or HEAD of the page or one of its files; anything else under the page is 404. */
function servePageFile(res: ServerResponse, file: string, head: boolean): void {
  if (file === '' || file === 'index.html') {
    sendText(res, 200, 'text/html', PAGE, head);
    return;
  }
  if (file === 'swagger-initializer.js') {
    sendText(res, 200, 'text/javascript', INITIALIZER, head);
    return;
  }
  const type = PACKAGE_FILES.get(file);
  if (type === undefined) throw unknownResource(`${APIDOC_PATH}/${file.slice(0, 200)} is not a file of the API page`);
  const bytes = packageFile(file);
  res.statusCode = 200;
  res.setHeader('Content-Type', type.startsWith('text/') ? `${type}; charset=utf-8` : type);
  res.setHeader('Content-Length', bytes.length);
  // The package's files change only with the installed package: let the browser keep them a while.
  res.setHeader('Cache-Control', 'public, max-age=3600');
  res.end(head ? undefined : bytes);
}

/**
 * Wraps `inner` (the authentication gate and everything behind it) so that the page and its files are
 * answered ahead of it; the module list and every other path go on to `inner`.
 */
export function withApiDocPage(ctx: RestconfContext, inner: RequestListener): RequestListener {
  return (req, res) => {
    const url = req.url ?? '';
    const file = pageFile(url);
    // OPTIONS goes on too: answering it is restconf's options.ts's alone, and a browser never sends it here.
    if (file === undefined || file === 'modules.json' || req.method === 'OPTIONS') return inner(req, res);
    try {
      const method = req.method ?? '';
      if (method !== 'GET' && method !== 'HEAD') throw methodNotAllowed(method, ALLOW.readOnly, 'the API page is read-only');
      servePageFile(res, file, method === 'HEAD');
    } catch (err) {
      try {
        sendError(ctx, req, res, err);
      } catch {
        res.destroy();
      }
    }
  };
}

/** `GET /rests/apidoc/modules.json`: the selector's entries, one per implemented module, by name. */
export function serveApiDocModules(ctx: RestconfContext, req: IncomingMessage, res: ServerResponse): void {
  const entries = documentedModules(ctx.schema)
    .sort()
    .map((name) => ({ name, url: `${OPENAPI_PATH}?modules=${encodeURIComponent(name)}` }));
  sendText(res, 200, 'application/json', JSON.stringify(entries), req.method === 'HEAD');
}
