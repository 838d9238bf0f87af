/**
 * The mount layer's errors: what installing, reaching or using a device can go wrong with, as a status
 * and RFC 8040 error entries (restconf/ renders them; mount knows nothing of HTTP beyond the number).
 *
 * Southbound plugins throw their own errors; {@link deviceFault} reads them by shape, never by class
 * (a core folder imports no plugin):
 * - `faults: [{tag, path, message, type?, appTag?, info?}]` (a NETCONF rpc-error): the device's own tags,
 *   paths and messages; the status follows the first tag (data-exists 409, data-missing 404, ...).
 * - `status` (number) and `tag` (string): the plugin's mapping (502 southbound_no_connection, 504, 400).
 * - `command` and `deviceMessage` (strings): a CLI command the device refused; the message names both;
 *   400 unless `status` says otherwise.
 * - anything else: 502 `southbound_no_connection`-style `operation-failed` naming the device and the message.
 */
import { DataError } from '../data/errors';

/** One RFC 8040 error entry (the same shape the RESTCONF catalogue renders). */
export interface MountErrorEntry {
  readonly type: 'transport' | 'rpc' | 'protocol' | 'application';
  readonly tag: string;
  readonly message: string;
  readonly path?: string;
  readonly appTag?: string;
  readonly info?: Readonly<Record<string, string | number | boolean>>;
}

/** Status of the RFC 8040 tags a device may answer with; a tag not listed answers 500. */
const STATUS_OF: Readonly<Record<string, number>> = {
  'in-use': 409,
  'invalid-value': 400,
  'too-big': 413,
  'missing-attribute': 400,
  'bad-attribute': 400,
  'unknown-attribute': 400,
  'missing-element': 400,
  'bad-element': 400,
  'unknown-element': 400,
  'unknown-namespace': 400,
  'access-denied': 403,
  'lock-denied': 409,
  'resource-denied': 409,
  'rollback-failed': 500,
  'data-exists': 409,
  'data-missing': 404,
  'operation-not-supported': 501,
  'operation-failed': 500,
  'partial-operation': 500,
  'malformed-message': 400,
  southbound_no_connection: 502,
};

/** An error of the mount layer: an HTTP-independent status and the error entries. */
export class MountError extends Error {
  constructor(
    readonly status: number,
    readonly entries: readonly MountErrorEntry[],
  ) {
    super(entries.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; '));
    this.name = 'MountError';
  }

  static of(status: number, tag: string, message: string, extra: Partial<MountErrorEntry> = {}): MountError {
    return new MountError(status, [{ type: 'application', tag, message, ...extra }]);
  }
}

/** 409 `data-exists`: install-node for a node that is installed (or being installed). */
export function nodeExists(nodeId: string, topology: string): MountError {
  return MountError.of(409, 'data-exists', `node '${nodeId}' is already installed (topology ${topology})`, { type: 'protocol' });
}

/** 404 `data-missing`: no such installed node. */
export function nodeMissing(nodeId: string, what = 'is not installed'): MountError {
  return MountError.of(404, 'data-missing', `node '${nodeId}' ${what}`);
}

/** 502 `southbound_no_connection`: the device cannot be reached. */
export function noConnection(nodeId: string, why: string): MountError {
  return MountError.of(502, 'southbound_no_connection', `device '${nodeId}' cannot be reached: ${why}`, { type: 'transport' });
}

/** 501: no southbound plugin serves the protocol or operation. */
export function notServed(what: string): MountError {
  return MountError.of(501, 'operation-not-supported', what);
}

/** 400 `invalid-value` for a bad install-node input member. */
export function badSetting(path: string, message: string): MountError {
  return MountError.of(400, 'invalid-value', message, { type: 'protocol', path });
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function messageOf(e: unknown): string {
  if (e instanceof Error) return e.message;
  return typeof e === 'string' ? e : 'unknown failure';
}

/**
 * What a southbound plugin threw while serving `nodeId`, as a MountError (see the top of this file).
 * MountErrors and DataErrors pass through unchanged.
 */
export function deviceFault(nodeId: string, e: unknown): MountError | DataError {
  if (e instanceof MountError || e instanceof DataError) return e;
  const shaped = (typeof e === 'object' && e !== null ? e : {}) as Record<string, unknown>;
  const faults = shaped.faults;
  if (Array.isArray(faults) && faults.length > 0) {
    const entries: MountErrorEntry[] = [];
    for (const f of faults.slice(0, 50)) {
      const r = (typeof f === 'object' && f !== null ? f : {}) as Record<string, unknown>;
      const type = r.type === 'transport' || r.type === 'rpc' || r.type === 'protocol' ? r.type : 'application';
      const info = typeof r.info === 'object' && r.info !== null ? scalars(r.info as Record<string, unknown>) : undefined;
      entries.push({
        type,
        tag: text(r.tag) ?? 'operation-failed',
        message: `device '${nodeId}': ${text(r.message) ?? text(r.tag) ?? 'refused'}`,
        ...(text(r.path) && r.path !== '/' ? { path: r.path as string } : {}),
        ...(text(r.appTag) ? { appTag: r.appTag as string } : {}),
        ...(info ? { info } : {}),
      });
    }
    return new MountError(typeof shaped.status === 'number' ? shaped.status : (STATUS_OF[entries[0]!.tag] ?? 500), entries);
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
    const t = tag ?? (status === 502 ? 'southbound_no_connection' : 'operation-failed');
    return new MountError(status ?? STATUS_OF[t] ?? 500, [
      { type: t === 'southbound_no_connection' ? 'transport' : 'application', tag: t, message: `device '${nodeId}': ${messageOf(e)}` },
    ]);
  }
  return MountError.of(502, 'southbound_no_connection', `device '${nodeId}': ${messageOf(e)}`, { type: 'transport' });
}

function scalars(o: Record<string, unknown>): Record<string, string | number | boolean> | undefined {
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(o)) if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  return Object.keys(out).length > 0 ? out : undefined;
}
