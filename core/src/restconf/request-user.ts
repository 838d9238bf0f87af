/**
 * Who sent a request, when authentication is on: the authentication gate (service/authentication.ts)
 * records the user its verdict named, and what the request commits carries it (a data-change event's
 * `user`). Kept beside the request rather than in the handlers' arguments, since only a commit reads it.
 */
import type { IncomingMessage } from 'node:http';

const users = new WeakMap<IncomingMessage, string>();

/** Records the user the authentication gate let `req` in as. */
export function setRequestUser(req: IncomingMessage, user: string): void {
  users.set(req, user);
}

/** The authenticated user of `req`; undefined when authentication is off. */
export function requestUser(req: IncomingMessage): string | undefined {
  return users.get(req);
}
