/**
 * The mount layer's faults: what installing, reaching or using a device can go wrong with, as the one
 * fault type (`fault/fault.ts`) whose status the one catalogue gives (restconf/ renders them; mount
 * knows nothing of HTTP beyond the number).
 *
 * Southbound plugins raise the fault type too (through `@rosetta/sdk`, mostly by the named device faults
 * of `fault/device.ts`); {@link deviceFault} is the one place their faults are taken in: it keeps their
 * tags, paths, statuses and error-info and names the device in each message (`device 'R1': ...`, or
 * `device 'R1' refused '<command>': <device message>` for a refused command). What a plugin throws
 * that is not a fault is a device that could not do its job: 502 `southbound_no_connection` naming the
 * device and the message. A plugin not built on the SDK may still throw the shapes the SDK's faults
 * replaced (`faults: [{tag, path, message, ...}]`; `status` and `tag`; `command` and `deviceMessage`);
 * those are read as before, so such a plugin keeps working unchanged.
 */
import { DataError } from '../data/errors';
import { Elsewhere, FaultError, NO_CONNECTION, refusedCommand, type ErrorType, type Fault, type FaultInfo } from '../fault';

/** One RFC 8040 error entry of a mount fault: a fault with its error-type. */
export interface MountErrorEntry extends Fault {
  readonly type: ErrorType;
}

/** A fault of the mount layer: the fault type, with the entries' error-types always set. */
export class MountError extends FaultError {
  declare readonly faults: readonly MountErrorEntry[];
  constructor(status: number | undefined, entries: readonly MountErrorEntry[]) {
    super(entries, status === undefined ? {} : { status });
    this.name = 'MountError';
  }

  /** The faults, by the name the mount layer's callers read them. */
  get entries(): readonly MountErrorEntry[] {
    return this.faults;
  }

  static of(status: number | undefined, tag: string, message: string, extra: Partial<MountErrorEntry> = {}): MountError {
    return new MountError(status, [{ type: 'application', tag, message, ...extra }]);
  }
}

/** 409 `data-exists`: install-node for a node that is installed (or being installed). */
export function nodeExists(nodeId: string, topology: string, where?: string): MountError {
  return MountError.of(
    undefined,
    'data-exists',
    `node '${nodeId}' is already installed (topology ${topology}${where ? `; ${where}` : ''})`,
    {
      type: 'protocol',
    },
  );
}

/**
 * The node is installed and another live instance owns it (several instances share the database):
 * `locate` names that instance's URL, and the request is forwarded there; 503 while no live instance
 * holds it (mid-hand-over).
 */
export function nodeElsewhere(nodeId: string, locate: () => Promise<string | undefined>): Elsewhere {
  return new Elsewhere(`node '${nodeId}'`, locate, () =>
    MountError.of(
      503,
      'resource-denied',
      `node '${nodeId}' is being handed to another instance (no live instance holds it now); try again`,
    ),
  );
}

/** 404 `data-missing`: no such installed node. */
export function nodeMissing(nodeId: string, what = 'is not installed'): MountError {
  return MountError.of(undefined, 'data-missing', `node '${nodeId}' ${what}`);
}

/** 502 `southbound_no_connection`: the device cannot be reached. */
export function noConnection(nodeId: string, why: string): MountError {
  return MountError.of(undefined, NO_CONNECTION, `device '${nodeId}' cannot be reached: ${why}`, { type: 'transport' });
}

/** 501 `operation-not-supported`: no southbound plugin serves the protocol or operation. */
export function notServed(what: string): MountError {
  return MountError.of(undefined, 'operation-not-supported', what);
}

/** 400 `invalid-value` for a bad install-node input member. */
export function badSetting(path: string, message: string): MountError {
  return MountError.of(undefined, 'invalid-value', message, { type: 'protocol', path });
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message;
  return typeof e === 'string' ? e : 'unknown failure';
}

/** At most this many of a device's faults are reported (a device may answer with thousands). */
const MAX_DEVICE_FAULTS = 50;

/**
 * What a southbound plugin threw while serving `nodeId`, as a fault of the mount layer (see the top of
 * this file). MountErrors and DataErrors pass through unchanged.
 */
export function deviceFault(nodeId: string, e: unknown): MountError | DataError {
  return described(nodeId, e, (reason) => `device '${nodeId}': ${reason}`);
}

/**
 * A failed connect: a refusal of the settings themselves (a status below 500) is the plugin's fault as
 * it said it; anything else means the device could not be reached, said in the plugin's own words.
 */
export function connectFailure(nodeId: string, e: unknown): MountError | DataError {
  const fault = deviceFault(nodeId, e);
  if (!(fault instanceof MountError) || fault.status < 500) return fault;
  const plain = described(nodeId, e, (reason) => reason);
  return noConnection(nodeId, plain instanceof MountError ? (plain.entries[0]?.message ?? 'unknown failure') : plain.message);
}

/** How a message names the device: `device 'R1': <reason>` for a client, the bare reason inside another message. */
type Naming = (reason: string) => string;

function described(nodeId: string, e: unknown, naming: Naming): MountError | DataError {
  if (e instanceof MountError || e instanceof DataError) return e;
  if (e instanceof FaultError && e.faults.length > 0) return onDevice(nodeId, e.faults, e.status, naming);
  return fromShape(nodeId, e, naming);
}

/** A plugin's faults with the device named in each message. */
function onDevice(nodeId: string, faults: readonly Fault[], status: number | undefined, naming: Naming): MountError {
  const entries: MountErrorEntry[] = [];
  for (const f of faults.slice(0, MAX_DEVICE_FAULTS)) {
    const refused = refusedCommand(f);
    const info = f.info === undefined ? undefined : scalars(f.info);
    entries.push({
      type: f.type === 'transport' || f.type === 'rpc' || f.type === 'protocol' ? f.type : 'application',
      tag: text(f.tag) ?? 'operation-failed',
      message:
        refused !== undefined
          ? `device '${nodeId}' refused '${refused.command}': ${refused.deviceMessage}`
          : naming(text(f.message) ?? text(f.tag) ?? 'refused'),
      ...(text(f.path) && f.path !== '/' ? { path: f.path as string } : {}),
      ...(text(f.appTag) ? { appTag: f.appTag as string } : {}),
      ...(info ? { info } : {}),
    });
  }
  return new MountError(status, entries);
}

/** What a plugin not built on the SDK's faults threw, read by its shape (see the top of this file). */
function fromShape(nodeId: string, e: unknown, naming: Naming): MountError {
  const shaped = (typeof e === 'object' && e !== null ? e : {}) as Record<string, unknown>;
  const faults = shaped.faults;
  if (Array.isArray(faults) && faults.length > 0) {
    const read = faults.slice(0, MAX_DEVICE_FAULTS).map((f): Fault => {
      const r = (typeof f === 'object' && f !== null ? f : {}) as Record<string, unknown>;
      const info = typeof r.info === 'object' && r.info !== null ? scalars(r.info as Record<string, unknown>) : undefined;
      return {
        type: r.type as ErrorType,
        tag: text(r.tag) ?? 'operation-failed',
        message: text(r.message) ?? text(r.tag) ?? 'refused',
        ...(text(r.path) ? { path: r.path as string } : {}),
        ...(text(r.appTag) ? { appTag: r.appTag as string } : {}),
        ...(info ? { info } : {}),
      };
    });
    return onDevice(nodeId, read, typeof shaped.status === 'number' ? shaped.status : undefined, naming);
  }
  const command = text(shaped.command);
  const deviceMessage = text(shaped.deviceMessage);
  if (command !== undefined && deviceMessage !== undefined) {
    const status = typeof shaped.status === 'number' ? shaped.status : 400;
    return new MountError(status, [
      {
        type: 'application',
        tag: text(shaped.tag) ?? 'invalid-value',
        message: `device '${nodeId}' refused '${command.trim()}': ${deviceMessage}`,
        info: { command: command.trim(), 'device-message': deviceMessage },
      },
    ]);
  }
  const tag = text(shaped.tag);
  const status = typeof shaped.status === 'number' && shaped.status >= 400 && shaped.status < 600 ? shaped.status : undefined;
  if (status !== undefined || tag !== undefined) {
    const t = tag ?? (status === 502 ? NO_CONNECTION : 'operation-failed');
    return new MountError(status, [{ type: t === NO_CONNECTION ? 'transport' : 'application', tag: t, message: naming(messageOf(e)) }]);
  }
  return MountError.of(undefined, NO_CONNECTION, naming(messageOf(e)), { type: 'transport' });
}

function scalars(o: Readonly<Record<string, unknown>>): FaultInfo | undefined {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(o)) if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  return Object.keys(out).length > 0 ? out : undefined;
}
