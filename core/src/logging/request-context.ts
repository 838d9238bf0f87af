/**
 * The request a piece of work is done for: its id, carried with AsyncLocalStorage from the moment the
 * request enters the service (restconf/operability.ts) through every await, timer and callback it
 * causes, so that the service's log sink (json-logger.ts) can stamp `reqId` on every line the request
 * causes (core, mount, plugins, device sessions acting for it) without any caller passing it along.
 *
 * The context outlives the request: a socket, timer or retry loop a request starts (a device session
 * opened by install-node, its reconnects hours later) inherits it. So a request's id is answered only
 * until the request ends; after that its leftovers log as the background work they are.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';

/** The header a client may name its request by, and the service answers the id in. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** What a client's id may be: a short token of safe characters (anything else would reach the log as given). */
const CLIENT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** One request: its id, and whether it is still running. */
interface RequestState {
  readonly id: string;
  running: boolean;
}

const current = new AsyncLocalStorage<RequestState>();

/** This process's half of the ids it makes: random, so two instances or restarts do not repeat ids. */
const PROCESS_PART = randomBytes(4).toString('hex');
let issued = 0;

/**
 * The client's id when it is a safe short token, else a new one: 16 hex digits, this process's random
 * half and a count (ids name requests, they guard nothing, and a count costs nothing per request).
 */
export function requestIdFor(header: string | readonly string[] | undefined): string {
  if (typeof header === 'string' && CLIENT_ID.test(header)) return header;
  issued = (issued + 1) % 0x100000000;
  return PROCESS_PART + issued.toString(16).padStart(8, '0');
}

/**
 * Runs `work` (and everything it causes) as part of request `id`; call the returned `end` when the
 * request is over (its response closed).
 */
export function runInRequest<T>(id: string, work: () => T): { readonly result: T; end(): void } {
  const state: RequestState = { id, running: true };
  return {
    result: current.run(state, work),
    end: () => {
      state.running = false;
    },
  };
}

/** The id of the running request the caller works for, if any. */
export function currentRequestId(): string | undefined {
  const state = current.getStore();
  return state?.running === true ? state.id : undefined;
}
