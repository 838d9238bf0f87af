/**
 * The named faults of a southbound plugin: how a device that cannot be reached, timed out, refused a
 * command or was asked for something unusable answers a client. Plugins raise these (through
 * `@rosetta/sdk`) instead of carrying their own statuses and tags; the mount layer names the device in
 * their messages (`mount/errors.ts`) and passes them on. Each returns a FaultError's constructor
 * arguments, so a plugin error whose class identity matters (a session reset on a timeout) can extend
 * FaultError with them: `super(...deviceTimedOut(message))`; others throw `new FaultError(...)`.
 */
import type { Fault, FaultOptions } from './fault';
import { NO_CONNECTION } from './status';

/** The arguments of `new FaultError(...)`. */
export type FaultArgs = [fault: Fault, options?: FaultOptions];

/** 502 `southbound_no_connection`: the device cannot be reached, refused the login, or the session broke. */
export function deviceUnreachable(message: string): FaultArgs {
  return [{ type: 'transport', tag: NO_CONNECTION, message }];
}

/** 504 `operation-failed`: the device did not answer in time. */
export function deviceTimedOut(message: string): FaultArgs {
  return [{ type: 'application', tag: 'operation-failed', message }, { status: 504 }];
}

/**
 * 502: the device printed an error for `command`. `error-info` carries the command and the device's
 * message, and the envelope says the device refused it; `tag` is `operation-failed` for a command the
 * device would not take, `southbound_no_connection` for a device that cannot serve commands at all.
 */
export function commandRefused(command: string, deviceMessage: string, tag = 'operation-failed'): FaultArgs {
  const sent = command.trim();
  return [
    {
      type: 'application',
      tag,
      message: `refused '${sent}': ${deviceMessage}`,
      info: { command: sent, 'device-message': deviceMessage },
    },
    { status: 502 },
  ];
}

/** Whether a fault is a device's refusal of a command ({@link commandRefused}): its error-info names both. */
export function refusedCommand(f: Fault): { command: string; deviceMessage: string } | undefined {
  const command = f.info?.command;
  const deviceMessage = f.info?.['device-message'];
  return typeof command === 'string' && typeof deviceMessage === 'string' ? { command, deviceMessage } : undefined;
}

/** 400 `invalid-value`: the request asks the device for something it cannot take; `path` names the node. */
export function unusableRequest(message: string, path?: string): FaultArgs {
  return [{ type: 'application', tag: 'invalid-value', message, ...(path !== undefined ? { path } : {}) }];
}

/** 404 `data-missing`: the device has no models (translation units) for what was asked. */
export function noDeviceModels(message: string): FaultArgs {
  return [{ type: 'application', tag: 'data-missing', message }];
}
