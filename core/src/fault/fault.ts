/**
 * The one fault type: what every error a client sees is made of, from a data validation to a device
 * refusing a command. A `Fault` is one RFC 8040 `error` entry (tag, path, message, app-tag, info,
 * error-type); a `FaultError` is what code throws: one or more faults and the HTTP status they answer
 * with. It lives below every other core folder (it imports nothing), so the data layer, the datastores,
 * mount, uniconfig, RESTCONF and, through `@rosetta/sdk`, the plugins all raise the same value, and
 * `restconf/errors.ts` renders it without converting shapes.
 *
 * The status follows the first fault's tag through the one catalogue (`status.ts`); a fault whose HTTP
 * answer is not its tag's (a device that timed out is 504 `operation-failed`) says so with `status`,
 * and only the named constructors of the catalogue do that.
 */
import { statusOfTag, type ErrorTag } from './status';

/** RFC 8040 `error-type`: the layer at which the error happened. */
export type ErrorType = 'transport' | 'rpc' | 'protocol' | 'application';

/** `error-info`: free members (JSON) / child elements (XML), scalar values only. */
export type FaultInfo = Readonly<Record<string, string | number | boolean>>;

/** One RFC 8040 `error` entry. */
export interface Fault {
  /** RFC 8040 error-tag, or the service's own (`southbound_no_connection`) or a device's. */
  readonly tag: ErrorTag | string;
  readonly message: string;
  /**
   * RFC 7951 instance-identifier of the node at fault. The data layer always names one (`/` for the
   * document as a whole, which the envelope leaves out); elsewhere it is absent when no node is at fault.
   */
  readonly path?: string;
  /** error-app-tag: from the model (must/range/length/pattern error-app-tag) or a standard one. */
  readonly appTag?: string;
  readonly info?: FaultInfo;
  /**
   * error-type. Absent on the data layer's faults, which are `application` faults of the data (`rpc`
   * for a body that cannot be read, tag `malformed-message`); see `typeOfFault`.
   */
  readonly type?: ErrorType;
}

export interface FaultOptions {
  /** The HTTP status when it is not the first fault's tag's (see the top of this file). */
  readonly status?: number;
  /** Extra response headers (`Allow` on a 405). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** The error-type a fault is rendered with. */
export function typeOfFault(f: Fault): ErrorType {
  return f.type ?? (f.tag === 'malformed-message' ? 'rpc' : 'application');
}

/** One or more faults, thrown; the status is the first fault's tag's unless the options say otherwise. */
export class FaultError extends Error {
  readonly status: number;
  readonly faults: readonly Fault[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(faults: Fault | readonly Fault[], options: FaultOptions = {}) {
    const list: readonly Fault[] = Array.isArray(faults) ? faults : [faults as Fault];
    super(list.map((f) => (f.path ? `${f.path}: ${f.message}` : f.message)).join('; '));
    this.name = 'FaultError';
    this.faults = list;
    this.status = options.status ?? (list[0] === undefined ? 500 : statusOfTag(list[0].tag));
    this.headers = options.headers ?? {};
  }

  get first(): Fault {
    return this.faults[0]!;
  }

  /** The first fault's tag (`data-missing`, `southbound_no_connection`, ...). */
  get tag(): string {
    return this.faults[0]?.tag ?? 'operation-failed';
  }
}
