/**
 * Limits on the request itself, checked before anything else reads it (authentication included), and
 * the list key limit they imply (docs/restconf-api.md#request-limits).
 *
 * Node's HTTP parser refuses a request line plus headers over 16 KiB (431). A URI is refused well
 * within that, at 8 KiB, with 414 in the RESTCONF envelope; a list key is refused past 512 bytes of
 * UTF-8, which percent-encode to at most 1,536 characters, so the URI of an entry with four keys at the
 * limit under a path of 2 KiB of names still fits: whatever a client can create, it can address (the
 * `Location` of a POST included).
 *
 * Headers a request may carry once only: two `Authorization` headers (Node keeps the first) or two
 * `Content-Type` headers (Node keeps the first) leave it unclear what the client meant, and a proxy may
 * have read the other one, so both are 400 before the request goes further.
 */
import type { IncomingMessage, RequestListener } from 'node:http';
import type { RestconfContext } from './context';
import { malformed, RestconfError } from './errors';
import { sendError } from './respond';

/** Longest request-target (path and query, as sent) accepted, in characters. */
export const URI_LIMIT = 8192;

/** Longest string list key accepted, in UTF-8 bytes (see the top of this file). */
export const KEY_LIMIT = 512;

/** Headers that must not be repeated, lower-case. */
const SINGLE_HEADERS: ReadonlySet<string> = new Set(['authorization', 'content-type']);

/** 414: the request-target is longer than URI_LIMIT. */
export function uriTooLong(length: number): RestconfError {
  return new RestconfError(414, {
    type: 'transport',
    tag: 'too-big',
    message: `the request URI is ${length} characters long; the limit is ${URI_LIMIT}`,
  });
}

/** What is wrong with the request line and headers, or undefined. */
export function requestHeadFault(req: IncomingMessage): RestconfError | undefined {
  const url = req.url ?? '';
  if (url.length > URI_LIMIT) return uriTooLong(url.length);
  const raw = req.rawHeaders;
  let seen: string[] | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!SINGLE_HEADERS.has(name)) continue;
    if (seen?.includes(name)) return malformed(`the request carries the ${raw[i]} header more than once`);
    (seen ??= []).push(name);
  }
  return undefined;
}

/** Wraps `handler` (the authentication gate and everything behind it) with the checks above. */
export function withRequestLimits(ctx: RestconfContext, handler: RequestListener): RequestListener {
  return (req, res) => {
    const fault = requestHeadFault(req);
    if (fault === undefined) handler(req, res);
    else sendError(ctx, req, res, fault);
  };
}
