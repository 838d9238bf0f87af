/**
 * One NETCONF session (RFC 6241 over RFC 6242): the `netconf` SSH subsystem (or plain TCP for
 * `tcp-only`), the hello exchange, framing chosen by the capabilities both sides advertise, message-id
 * correlation with any number of requests in flight, a per-request timeout that fails that request only,
 * a keepalive that notices a dead peer, notifications handed to a listener, and close-session on close.
 * A data reply goes to its reader as it arrives when the reader takes pieces (data-stream.ts).
 * Reconnecting is not this file's concern (see device.ts): a session that ends stays ended.
 *
 * Why this file is longer than 400 lines: framing, message-id correlation, per-request timeouts and the
 * keepalive all act on one session's socket and state; streamed replies (data-stream.ts) and reconnecting
 * (device.ts) are already apart.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { Client, type ClientChannel } from 'ssh2';
import {
  BASE_1_0,
  BASE_1_1,
  EMPTY_GET_CONFIG,
  FIRST_REPLY_NUDGE_MS,
  FrameReader,
  frameMessage,
  helloMessage,
  jitter,
  NETCONF_NS,
  NOTIFICATION_NS,
  parseHello,
  parseRpcErrors,
  child,
  HostKeyCheck,
  parseXml,
  standaloneText,
  type FramingMode,
  type RpcErrorInfo,
  type XmlElement,
} from '@rosetta/sdk';
import { NetconfRpcError, NetconfSessionError } from './errors';
import { IncomingMessage, type DataPieces, type DataRead } from './data-stream';
import { isRpcReply, loneDataText, loneOk, readEnvelope } from './reply';

export interface SessionOptions {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  /** Plain TCP instead of SSH (a device that speaks NETCONF straight on a socket). */
  readonly tcpOnly?: boolean;
  /** This login's SSH host key check (a pinned key, and the key the device presents); default: any key. */
  readonly hostKey?: HostKeyCheck;
  /** TCP + SSH + hello must complete within this (ms). */
  readonly connectTimeoutMs: number;
  /** Each request fails if no reply comes within this (ms). */
  readonly requestTimeoutMs: number;
  /** After about this long without traffic (ms, each session its own share of it) a keepalive RPC is sent; 0 disables. */
  readonly keepaliveMs: number;
  /** Called with each `<notification>` received. */
  readonly onNotification?: (notification: XmlElement, text: string) => void;
  /** Called once when the session ends, with the reason (undefined after close()). */
  readonly onClose?: (reason: NetconfSessionError | undefined) => void;
  /** Called with each request's operation body as it is sent (tracing what crosses the wire). */
  readonly onSend?: (body: string, messageId: string) => void;
}

/** A reply: its parsed root (`<rpc-reply>`) and the text it was parsed from (for subtree extraction). */
export interface RpcReply {
  readonly root: XmlElement;
  readonly text: string;
  /** Warnings (rpc-errors of severity warning) the device attached to a successful reply. */
  readonly warnings: readonly RpcErrorInfo[];
}

interface Pending {
  readonly operation: string;
  /** Asked by rpcData: answered with what this makes of the data, not a parsed reply. */
  readonly data: DataRead<unknown> | undefined;
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/** The `<data>` of a parsed reply as a standalone document, undefined when it is absent or empty. */
function dataText(text: string, root: XmlElement): string | undefined {
  const data = child(root, 'data');
  return data === undefined || data.children.length === 0 ? undefined : standaloneText(text, data);
}

/** Capabilities this client advertises. */
const CLIENT_CAPABILITIES = [BASE_1_0, BASE_1_1];

/** The first element name inside an rpc body, for error messages (`get-config`). */
function operationName(body: string): string {
  return /^\s*<([\w.:-]+)/.exec(body)?.[1] ?? 'rpc';
}

/**
 * One copy of each capability string across sessions. A hello's capabilities are slices of the hello's
 * whole text, so keeping them kept every device's hello (about 750 bytes) alive for the session's life,
 * and a fleet of one device model held thousands of copies of the same few strings. Bounded: past
 * CAPABILITY_POOL_LIMIT distinct ones the pool starts over (later copies are then merely not shared).
 */
const capabilityPool = new Map<string, string>();
const CAPABILITY_POOL_LIMIT = 10_000;

function sharedCapability(capability: string): string {
  let shared = capabilityPool.get(capability);
  if (shared === undefined) {
    if (capabilityPool.size >= CAPABILITY_POOL_LIMIT) capabilityPool.clear();
    // a string of its own, not a slice holding the hello's text
    shared = Buffer.from(capability, 'utf8').toString('utf8');
    capabilityPool.set(shared, shared);
  }
  return shared;
}

/**
 * The connection under a session. `end` closes it politely (SSH channel EOF and close, then the
 * connection); `drop` lets go of a connection the device already closed or broke, sending nothing:
 * when a whole fleet drops at once, thousands of farewell packets (each encrypted, padded with fresh
 * random bytes) onto dead sockets cost the service a second of event loop for nothing.
 */
type Transport = { stream: NodeJS.ReadWriteStream & { end(): void }; end(): void; drop(): void };

async function openTransport(options: SessionOptions): Promise<Transport> {
  const where = `${options.host}:${options.port}`;
  if (options.tcpOnly) {
    return new Promise((resolve, reject) => {
      const socket: Socket = tcpConnect({ host: options.host, port: options.port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new NetconfSessionError('connect', `TCP connect to ${where} timed out after ${options.connectTimeoutMs} ms`));
      }, options.connectTimeoutMs);
      socket.once('error', (e) => {
        clearTimeout(timer);
        reject(new NetconfSessionError('connect', `TCP connect to ${where} failed: ${e.message}`, e));
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve({ stream: socket, end: () => socket.destroy(), drop: () => socket.destroy() });
      });
    });
  }
  const hostKey = options.hostKey ?? new HostKeyCheck(undefined);
  return new Promise((resolve, reject) => {
    const client = new Client();
    let settled = false;
    const settle = (f: () => void) => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        f();
      }
    };
    const timer = setTimeout(
      () =>
        settle(() => {
          client.end();
          reject(new NetconfSessionError('connect', `SSH connect to ${where} timed out after ${options.connectTimeoutMs} ms`));
        }),
      options.connectTimeoutMs,
    );
    client.on('error', (e: Error & { level?: string }) =>
      settle(() => {
        const refusal = hostKey.refusal(where);
        if (refusal !== undefined) {
          reject(new NetconfSessionError('host-key', refusal, e));
          return;
        }
        const auth = e.level === 'client-authentication';
        reject(
          new NetconfSessionError(
            'connect',
            auth ? `SSH authentication to ${where} as ${options.username} failed` : `SSH connect to ${where} failed: ${e.message}`,
            e,
          ),
        );
      }),
    );
    client.once('ready', () => {
      client.subsys('netconf', (err, channel: ClientChannel) => {
        if (err) {
          settle(() => {
            client.end();
            reject(new NetconfSessionError('connect', `${where} refused the netconf subsystem: ${err.message}`, err));
          });
          return;
        }
        // a dropped connection may end the client without closing the channel first
        client.on('close', () => channel.emit('close'));
        settle(() =>
          resolve({
            stream: channel,
            end: () => {
              channel.end();
              client.end();
            },
            drop: () => client.destroy(),
          }),
        );
      });
    });
    client.connect({
      host: options.host,
      port: options.port,
      username: options.username,
      password: options.password,
      // the password first: ssh2 would start with method 'none', which devices refuse, costing every
      // login a round trip and two packets more; 'none' stays as the fallback it was
      authHandler: ['password', 'none'],
      readyTimeout: options.connectTimeoutMs,
      tryKeyboard: false,
      hostVerifier: hostKey.verify,
    });
    // Before the handshake, not after: key exchange and login are several small writes each way, and
    // with Nagle on, one of them waits for a delayed ACK (tens of ms per login; a fleet reconnecting
    // then takes seconds longer while the service sits idle)
    // requests after it are small, whole messages too: each goes at once rather than after the last ACK
    client.setNoDelay(true);
  });
}

/** An open NETCONF session. Create with `NetconfSession.open`. */
export class NetconfSession {
  private readonly pending = new Map<string, Pending>();
  private nextId = 1;
  private framing: FramingMode = 'eom';
  private ended: NetconfSessionError | undefined | null = null; // null while open
  private keepaliveTimer: NodeJS.Timeout | undefined;
  /** Armed by the first request; see FIRST_REPLY_NUDGE_MS. */
  private firstReplyWatch: NodeJS.Timeout | 'done' | undefined;
  private heardSinceHello = false;
  /** The message arriving, while it is not complete (see data-stream.ts). */
  private incoming: IncomingMessage | undefined;
  /** Framed messages waiting for the end of this turn (see send). */
  private readonly outbox: string[] = [];
  private lastTraffic = Date.now();

  private constructor(
    private readonly options: SessionOptions,
    private readonly transport: Transport,
    /** The server's capabilities from its hello. */
    readonly capabilities: readonly string[],
    /** The server's session-id. */
    readonly sessionId: number | undefined,
  ) {}

  /**
   * Connects, exchanges hellos and resolves with the open session. Rejects with NetconfSessionError
   * (`connect` or `hello`) within `connectTimeoutMs`.
   */
  static async open(options: SessionOptions): Promise<NetconfSession> {
    const started = Date.now();
    const transport = await openTransport(options);
    const reader = new FrameReader();
    const remaining = Math.max(1, options.connectTimeoutMs - (Date.now() - started));
    const where = `${options.host}:${options.port}`;
    return new Promise<NetconfSession>((resolve, reject) => {
      let session: NetconfSession | undefined;
      const failHello = (error: NetconfSessionError) => {
        if (session) return;
        clearTimeout(timer);
        transport.stream.removeAllListeners('data');
        transport.end();
        reject(error);
      };
      const timer = setTimeout(
        () => failHello(new NetconfSessionError('hello', `no hello from ${where} within ${options.connectTimeoutMs} ms`)),
        remaining,
      );
      transport.stream.on('error', (e: Error) => {
        if (session) session.terminate(new NetconfSessionError('closed', `session to ${where} failed: ${e.message}`, e), 'gone');
        else failHello(new NetconfSessionError('hello', `session to ${where} failed before hello: ${e.message}`, e));
      });
      transport.stream.on('close', () => {
        if (session) session.terminate(new NetconfSessionError('closed', `session to ${where} closed by the device`), 'gone');
        else failHello(new NetconfSessionError('hello', `${where} closed the session before its hello`));
      });
      transport.stream.write(frameMessage(helloMessage(CLIENT_CAPABILITIES), 'eom'));
      transport.stream.on('data', (data: Buffer) => {
        try {
          reader.push(
            data,
            (message) => {
              if (session) {
                session.receive(message);
                return;
              }
              let hello: ReturnType<typeof parseHello>;
              try {
                hello = parseHello(message);
              } catch (e) {
                throw new NetconfSessionError('hello', `bad hello from ${where}: ${e instanceof Error ? e.message : String(e)}`, e);
              }
              clearTimeout(timer);
              session = new NetconfSession(options, transport, hello.capabilities.map(sharedCapability), hello.sessionId);
              if (hello.capabilities.includes(BASE_1_1)) {
                reader.useChunked();
                session.framing = 'chunked';
              } else if (!hello.capabilities.includes(BASE_1_0))
                throw new NetconfSessionError('hello', `${where} advertises neither base:1.0 nor base:1.1`);
              session.armKeepalive();
              resolve(session);
            },
            (bytes) => session?.part(bytes),
          );
        } catch (e) {
          const error =
            e instanceof NetconfSessionError
              ? e
              : new NetconfSessionError('framing', `${where}: ${e instanceof Error ? e.message : String(e)}`, e);
          if (session) session.terminate(error);
          else failHello(error);
        }
      });
    });
  }

  /** The framing in use after the hello exchange. */
  get framingMode(): FramingMode {
    return this.framing;
  }

  /** Whether the session is still usable. */
  get isOpen(): boolean {
    return this.ended === null;
  }

  /** Requests sent and not yet answered. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Whether the server advertised a capability (compared without its `?` parameters). */
  has(capability: string): boolean {
    return this.capabilities.some((c) => c === capability || c.split('?')[0] === capability);
  }

  /**
   * Sends `<rpc>` with the given body (the operation element, e.g. `<get-config>...</get-config>`) and
   * resolves with the reply. Rejects with NetconfRpcError when the reply has an `rpc-error` of severity
   * error, with NetconfSessionError on timeout or when the session ends first.
   */
  rpc(body: string, timeoutMs = this.options.requestTimeoutMs): Promise<RpcReply> {
    return this.request(body, timeoutMs, undefined) as Promise<RpcReply>;
  }

  /**
   * Sends a get or get-config and resolves with what `read` makes of its `<data>`: given as a standalone
   * document (prefix declarations in scope kept), undefined when the data is empty, or in pieces as the
   * reply arrives (see data-stream.ts); rejects as `rpc` does, or with what `read` throws. A reply holding
   * only data is not parsed here (see reply.ts): the caller's decoder parses it once, strictly.
   */
  rpcData<T>(body: string, read: DataRead<T>, timeoutMs = this.options.requestTimeoutMs): Promise<T> {
    return this.request(body, timeoutMs, read) as Promise<T>;
  }

  /** `traced: false` for the session's own requests (the first-reply nudge), which no caller asked for. */
  private request(body: string, timeoutMs: number, data: DataRead<unknown> | undefined, traced = true): Promise<unknown> {
    const operation = operationName(body);
    if (this.ended !== null) return Promise.reject(this.ended ?? new NetconfSessionError('closed', 'the session is closed'));
    const id = String(this.nextId++);
    return new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new NetconfSessionError('timeout', `${operation} (message-id ${id}) got no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { operation, data, resolve, reject, timer });
      if (traced) this.options.onSend?.(body, id);
      this.send(`<rpc xmlns="${NETCONF_NS}" message-id="${id}">${body}</rpc>`);
      if (this.firstReplyWatch === undefined) this.watchFirstReply();
    });
  }

  /** A device that has not said a word by FIRST_REPLY_NUDGE_MS after the first request gets one more. */
  private watchFirstReply(): void {
    this.firstReplyWatch = setTimeout(() => {
      this.firstReplyWatch = 'done'; // not the spent timer: a fleet's sessions would each keep one
      if (this.ended !== null || this.heardSinceHello) return;
      this.request(EMPTY_GET_CONFIG, this.options.requestTimeoutMs, { whole: () => undefined }, false).catch(() => undefined);
    }, FIRST_REPLY_NUDGE_MS).unref();
  }

  /**
   * Queues a message; the messages of one turn of the event loop go out in one write (one SSH packet,
   * one read for the device) instead of one each: a PUT's lock, probe and edit-config, its commit and
   * unlock, or a content=all read's get-config and get.
   */
  private send(message: string): void {
    this.lastTraffic = Date.now();
    if (this.outbox.push(frameMessage(message, this.framing)) === 1) queueMicrotask(this.flush);
  }

  private readonly flush = (): void => {
    const text = this.outbox.length === 1 ? this.outbox[0]! : this.outbox.join('');
    this.outbox.length = 0;
    if (this.ended === null) this.transport.stream.write(text);
  };

  /** The next bytes of a message not yet complete (see data-stream.ts). */
  private readonly part = (bytes: Buffer): void => {
    (this.incoming ??= new IncomingMessage(this.piecesOf)).part(bytes);
  };

  private readonly piecesOf = (messageId: string): (() => DataPieces<unknown>) | undefined => {
    const read = this.pending.get(messageId)?.data;
    return read?.pieces === undefined ? undefined : () => read.pieces!();
  };

  /** Handles one framed message after the hello. */
  private receive(text: string): void {
    this.lastTraffic = Date.now();
    this.heardSinceHello = true;
    const incoming = this.incoming;
    this.incoming = undefined;
    const envelope = readEnvelope(text);
    if (envelope !== undefined && isRpcReply(envelope)) {
      const id = envelope.attrs.get('message-id');
      const entry = id === undefined ? undefined : this.pending.get(id);
      const read = entry?.data;
      const streamed = read === undefined ? undefined : incoming?.finish(text, envelope);
      const data = read === undefined || streamed !== undefined ? undefined : loneDataText(text, envelope);
      if (streamed !== undefined || data !== undefined) {
        this.pending.delete(id!);
        clearTimeout(entry!.timer);
        if (streamed !== undefined) entry!.resolve(streamed.value);
        else this.answerData(entry!, data === '' ? undefined : data);
        return;
      }
      const ok = entry !== undefined && read === undefined ? loneOk(text, envelope) : undefined;
      if (ok !== undefined) {
        this.pending.delete(id!);
        clearTimeout(entry!.timer);
        entry!.resolve({ root: ok, text, warnings: [] });
        return;
      }
    }
    let root: XmlElement;
    try {
      root = parseXml(text);
    } catch (e) {
      this.terminate(
        new NetconfSessionError('malformed', `malformed message from ${this.where}: ${e instanceof Error ? e.message : String(e)}`, e),
      );
      return;
    }
    if (root.name === 'notification' && root.ns === NOTIFICATION_NS) {
      this.options.onNotification?.(root, text);
      return;
    }
    if (root.name !== 'rpc-reply' || root.ns !== NETCONF_NS) {
      this.terminate(new NetconfSessionError('malformed', `unexpected <${root.name}> from ${this.where}`));
      return;
    }
    const id = root.attrs['message-id'];
    const entry = id === undefined ? undefined : this.pending.get(id);
    if (!entry || id === undefined) return; // a late reply to a request that timed out
    this.pending.delete(id);
    clearTimeout(entry.timer);
    const errors = parseRpcErrors(root);
    const failures = errors.filter((e) => e.severity === 'error');
    if (failures.length > 0) entry.reject(new NetconfRpcError(entry.operation, failures));
    else if (entry.data !== undefined) this.answerData(entry, dataText(text, root));
    else entry.resolve({ root, text, warnings: errors });
  }

  private answerData(entry: Pending, data: string | undefined): void {
    let value: unknown;
    try {
      value = entry.data!.whole(data);
    } catch (e) {
      entry.reject(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    entry.resolve(value);
  }

  private get where(): string {
    return `${this.options.host}:${this.options.port}`;
  }

  /**
   * Each session takes its own idle period, drawn from the top fifth of `keepaliveMs`: sessions opened
   * together (a bulk install, a reconnect storm) then drift apart instead of sending thousands of
   * keepalives in the same tick, every period.
   */
  private armKeepalive(): void {
    const every = jitter(this.options.keepaliveMs, 0.8);
    if (every <= 0) return;
    const tick = () => {
      if (this.ended !== null) return;
      const idle = Date.now() - this.lastTraffic;
      if (idle < every || this.pending.size > 0) {
        this.keepaliveTimer = setTimeout(tick, Math.max(10, every - idle)).unref();
        return;
      }
      this.rpc(EMPTY_GET_CONFIG).then(
        () => {
          this.keepaliveTimer = setTimeout(tick, every).unref();
        },
        (e: unknown) => {
          if (e instanceof NetconfSessionError)
            this.terminate(new NetconfSessionError('closed', `keepalive to ${this.where} failed: ${e.message}`, e));
          else this.keepaliveTimer = setTimeout(tick, every).unref(); // the device answered, even if with an error
        },
      );
    };
    this.keepaliveTimer = setTimeout(tick, every).unref();
  }

  /**
   * Ends the session for a reason: every request in flight fails with it; onClose runs once. The
   * transport is ended politely unless the device is `gone` (its connection closed or broke).
   */
  private terminate(reason: NetconfSessionError | undefined, connection: 'open' | 'gone' = 'open'): void {
    if (this.ended !== null) return;
    this.ended = reason;
    clearTimeout(this.keepaliveTimer);
    if (this.firstReplyWatch !== 'done') clearTimeout(this.firstReplyWatch);
    const error = reason ?? new NetconfSessionError('closed', `session to ${this.where} closed`);
    for (const [, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(error);
    }
    this.pending.clear();
    if (connection === 'gone') this.transport.drop();
    else this.transport.end();
    this.options.onClose?.(reason);
  }

  /** Sends close-session (waiting briefly for its reply), then ends the transport. Never throws. */
  async close(): Promise<void> {
    if (this.ended !== null) return;
    try {
      await this.rpc('<close-session/>', Math.min(2000, this.options.requestTimeoutMs));
    } catch {
      // the transport is ended below either way
    }
    this.terminate(undefined);
  }
}
