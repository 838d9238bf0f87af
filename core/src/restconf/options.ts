/**
 * OPTIONS and the `Allow` sets: which methods each kind of RESTCONF resource takes, and the one
 * function that answers OPTIONS. Every OPTIONS the service answers (the API root, yang-library-version,
 * the operations listing and each operation, every data resource in every datastore view) is written
 * here, so what `Allow` says and what a 405 lists (errors.ts `methodNotAllowed`, given these sets)
 * cannot drift apart.
 */
import type { ServerResponse } from 'node:http';
import { DATA_TYPES, PATCH_TYPES } from './media';
import { sendText } from './respond';
import type { ParsedPath } from './uri';

/** Methods on each kind of resource (the `Allow` header). */
export const ALLOW = {
  config: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'POST', 'PATCH', 'DELETE'],
  state: ['GET', 'HEAD', 'OPTIONS'],
  operation: ['POST', 'OPTIONS'],
  readOnly: ['GET', 'HEAD', 'OPTIONS'],
} as const;

export type AllowSet = (typeof ALLOW)[keyof typeof ALLOW];

/** `Accept-Patch` on data resources (RFC 8072 §2.1). */
export const ACCEPT_PATCH = [...DATA_TYPES.filter((m) => m.type !== 'text/xml'), ...PATCH_TYPES].map((m) => m.type).join(', ');

/** The joined header values, built once. */
const ALLOW_TEXT = new Map<AllowSet, string>(Object.values(ALLOW).map((set) => [set, set.join(', ')]));

/**
 * The methods of a data resource: the operation methods on an action, read-only for operational data
 * (`config false`), every method otherwise. `configOnly`: the view holds configuration only (a uniconfig
 * node's configuration), so every node of it is answered as writable.
 */
export function dataAllow(parsed: ParsedPath, configOnly = false): AllowSet {
  if (configOnly) return ALLOW.config;
  return parsed.operation ? ALLOW.operation : parsed.target !== undefined && !parsed.target.config ? ALLOW.state : ALLOW.config;
}

/**
 * Answers OPTIONS: 200 with `Allow` (and `Accept-Patch` where every method is allowed), no body unless
 * `body` is given (the API root answers its WADL description).
 */
export function answerOptions(res: ServerResponse, allow: AllowSet, body?: { readonly type: string; readonly text: string }): void {
  res.setHeader('Allow', ALLOW_TEXT.get(allow)!);
  if (allow === ALLOW.config) res.setHeader('Accept-Patch', ACCEPT_PATCH);
  if (body !== undefined) {
    sendText(res, 200, body.type, body.text);
    return;
  }
  res.statusCode = 200;
  res.end();
}
