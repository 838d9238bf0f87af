/**
 * The netconf southbound's errors, in two families the core maps differently: a device that answered
 * with `<rpc-error>`s (NetconfRpcError: RESTCONF errors carrying the device's tag, path and message) and
 * a session that could not do its job (NetconfSessionError: unreachable, timed out, closed, malformed
 * traffic: 502 `southbound_no_connection` or 504).
 */
import type { RpcErrorInfo } from '@rosetta/sdk';

/** Shape-compatible with the core's DataFault, so the RESTCONF layer can map these like data faults. */
export interface NetconfFault {
  readonly tag: string;
  readonly path: string;
  readonly message: string;
  readonly appTag?: string;
  /** RFC 8040 error-type: the device's own (`protocol`, `application`, ...). */
  readonly type: RpcErrorInfo['type'];
  readonly info?: Readonly<Record<string, string>>;
}

/** The device refused an operation: every `<rpc-error>` of severity error in the reply, in order. */
export class NetconfRpcError extends Error {
  /** The RESTCONF-ready faults: tag, device path (`/` when the device named none), message. */
  readonly faults: readonly NetconfFault[];
  constructor(
    readonly operation: string,
    readonly errors: readonly RpcErrorInfo[],
  ) {
    super(
      `${operation} failed: ${errors.map((e) => `${e.tag}${e.path ? ` at ${e.path}` : ''}: ${e.message ?? '(no message)'}`).join('; ')}`,
    );
    this.name = 'NetconfRpcError';
    this.faults = errors.map((e) => ({
      tag: e.tag,
      path: e.path ?? '/',
      message: e.message ?? e.tag,
      type: e.type,
      ...(e.appTag ? { appTag: e.appTag } : {}),
      ...(e.info ? { info: e.info } : {}),
    }));
  }
  /** The first error's tag (`data-missing`, `lock-denied`, ...). */
  get tag(): string {
    return this.errors[0]?.tag ?? 'operation-failed';
  }
}

/** Why a session failed. */
export type SessionFailure =
  | 'connect' // TCP/SSH could not be established (refused, DNS, SSH handshake, auth)
  | 'host-key' // the device presented another SSH host key than the pinned one
  | 'hello' // no or bad hello within the initial connection timeout
  | 'timeout' // a request got no reply within request-transaction-timeout
  | 'closed' // the session ended (peer closed, close() called, keepalive failed)
  | 'framing' // malformed RFC 6242 framing
  | 'malformed'; // a message that is not well-formed XML or not a NETCONF message

/** The session could not carry the operation; the device's own answer is unknown. */
export class NetconfSessionError extends Error {
  constructor(
    readonly failure: SessionFailure,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'NetconfSessionError';
  }
  /** RESTCONF mapping: no connection (502) or a timeout (504). */
  get status(): number {
    return this.failure === 'timeout' ? 504 : 502;
  }
  /** The RFC 8040 error-tag the core reports (docs/restconf-api.md#errors: `southbound_no_connection` for 502). */
  get tag(): string {
    return this.failure === 'timeout' ? 'operation-failed' : 'southbound_no_connection';
  }
}
