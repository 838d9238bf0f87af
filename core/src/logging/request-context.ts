/**
 * The request a piece of work is done for: its id, carried with AsyncLocalStorage from the moment the
 * request enters the service (restconf/operability.ts) through every await, timer and callback it
 * causes, so that the service's log sink (json-logger.ts) can stamp `reqId` on every line the request
 * causes (core, mount, plugins, device sessions acting for it) without any caller passing it along.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';

/** The header a client may name its request by, and the service answers the id in. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** What a client's id may be: a short token of safe characters (anything else would reach the log as given). */
const CLIENT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

const current = new AsyncLocalStorage<string>();

/** The client's id when it is a safe short token, else a new one (16 hex digits). */
export function requestIdFor(header: string | readonly string[] | undefined): string {
  if (typeof header === 'string' && CLIENT_ID.test(header)) return header;
  return randomBytes(8).toString('hex');
}

/** Runs `work` (and everything it causes) as part of request `id`. */
export function runInRequest<T>(id: string, work: () => T): T {
  return current.run(id, work);
}

/** The id of the request the caller works for, if any. */
export function currentRequestId(): string | undefined {
  return current.getStore();
}
