/**
 * The netconf southbound's errors, the SDK's one fault type, in two families: a device that answered
 * with `<rpc-error>`s (NetconfRpcError: one fault per rpc-error, carrying the device's tag, path and
 * message, whose status the core's catalogue gives by the first tag) and a session that could not do
 * its job (NetconfSessionError: unreachable, timed out, closed, malformed traffic: the SDK's named device
 * faults, 502 `southbound_no_connection` or 504).
 */
import { deviceTimedOut, deviceUnreachable, FaultError, type Fault, type RpcErrorInfo } from '@rosetta/sdk';

/** One rpc-error as a fault: the device's own error-type (`protocol`, `application`, ...) always set. */
export interface NetconfFault extends Fault {
  /** The device path, `/` when the device named none. */
  readonly path: string;
  readonly type: RpcErrorInfo['type'];
  readonly info?: Readonly<Record<string, string>>;
}

/** The device refused an operation: every `<rpc-error>` of severity error in the reply, in order. */
export class NetconfRpcError extends FaultError {
  declare readonly faults: readonly NetconfFault[];
  constructor(
    readonly operation: string,
    readonly errors: readonly RpcErrorInfo[],
  ) {
    super(
      errors.map((e) => ({
        tag: e.tag,
        path: e.path ?? '/',
        message: e.message ?? e.tag,
        type: e.type,
        ...(e.appTag ? { appTag: e.appTag } : {}),
        ...(e.info ? { info: e.info } : {}),
      })),
    );
    this.name = 'NetconfRpcError';
    this.message = `${operation} failed: ${errors.map((e) => `${e.tag}${e.path ? ` at ${e.path}` : ''}: ${e.message ?? '(no message)'}`).join('; ')}`;
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

/** The session could not carry the operation; the device's own answer is unknown. A timeout is 504, the rest 502. */
export class NetconfSessionError extends FaultError {
  constructor(
    readonly failure: SessionFailure,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(...(failure === 'timeout' ? deviceTimedOut(message) : deviceUnreachable(message)));
    this.name = 'NetconfSessionError';
  }
}
