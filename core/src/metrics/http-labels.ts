/**
 * The label values of an HTTP request in the metrics: its method from a fixed set and its route
 * template from the few resources the dispatcher knows, never the raw path (which holds node ids and
 * list keys: every distinct value would be one more time series kept forever).
 */

const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE', 'OPTIONS']);

/** The method, or `other` for any method outside RESTCONF's. */
export function methodLabel(method: string | undefined): string {
  return method !== undefined && METHODS.has(method) ? method : 'other';
}

/** The route templates a request is counted under. */
export const ROUTES = [
  '/rests/data',
  '/rests/data/mount',
  '/rests/operations',
  '/rests/streams',
  '/rests/health',
  '/rests/ready',
  '/metrics',
  'uniconfig',
  'other',
] as const;
export type RouteLabel = (typeof ROUTES)[number];

/** Modules whose operations the uniconfig layer serves (uniconfig/routes.ts). */
const UNICONFIG_OPERATIONS = ['uniconfig-manager:', 'dryrun-manager:', 'snapshot-manager:'];

/** Whether `path` is `prefix` or goes on below it. */
function under(path: string, prefix: string): boolean {
  return (
    path.startsWith(prefix) &&
    (path.length === prefix.length || path.charCodeAt(prefix.length) === 0x2f || path.charCodeAt(prefix.length) === 0x3f)
  );
}

/** The route template of a request URL (path and query as sent). */
export function routeLabel(url: string): RouteLabel {
  if (under(url, '/rests/data')) {
    if (url.includes('topology=uniconfig')) return 'uniconfig';
    return url.includes('yang-ext:mount') ? '/rests/data/mount' : '/rests/data';
  }
  if (under(url, '/rests/operations')) {
    const rest = url.slice('/rests/operations/'.length);
    return UNICONFIG_OPERATIONS.some((m) => rest.startsWith(m)) ? 'uniconfig' : '/rests/operations';
  }
  if (under(url, '/rests/streams')) return '/rests/streams';
  if (under(url, '/rests/health')) return '/rests/health';
  if (under(url, '/rests/ready')) return '/rests/ready';
  if (under(url, '/metrics')) return '/metrics';
  return 'other';
}
