/**
 * One installed NETCONF device: the DeviceConnection the plugin hands the core. It owns the current session
 * and replaces it when it ends: reconnect with back-off (between-attempts-timeout growing 1.5x, up to
 * max-reconnection-attempts), status `connecting` meanwhile and `unable-to-connect` when it gives up.
 * Reconnects are paced as the service paces every connect (docs/operations.md#reconnects): the first
 * attempt after a loss comes at a random moment within between-attempts-timeout, each wait is spread over
 * its upper half, and each attempt takes one of the service's connect slots. Schemas are discovered at
 * install, and listed again after a reconnect only when the new hello differs from the one they were listed
 * with, or does not name the modules (a hello naming each module, or yang-library's module-set-id or
 * content-id, changes when the module set does): a storm of devices coming back unchanged sends no
 * module-list request. Writes are serialized per device (one lock holder at a time). Notifications of the
 * subscribed stream (`notification-stream`; by default `NETCONF` when the device offers them with
 * :interleave, since the one session also serves requests) are logged and each handed to the core, whose
 * replay log keeps them; so is every change of the status.
 *
 * Why this file is longer than 400 lines: one device's session lifecycle (install, reconnect, the schema
 * re-check, notifications, serialized writes) shares one state; the parts with a seam (the session, schemas,
 * framing) are files of their own already.
 */
import { createHash } from 'node:crypto';
import {
  CAP_INTERLEAVE,
  CAP_NOTIFICATION,
  HostKeyTrust,
  jitter,
  MAX_XML_DEPTH,
  XmlToken,
  XmlTokenizer,
  type ConnectPacing,
  type DeviceConnection,
  type DeviceEvents,
  type JobStarter,
  type PluginLogger,
  type XmlElement,
} from '@rosetta/sdk';
import { NetconfSessionError } from './errors';
import { createSubscription } from './operations';
import { discoverSchemas, type DiscoveredSchemas, type SchemaSource } from './schemas';
import { NetconfSession } from './session';
import type { NetconfNodeSettings } from './settings';
import { namespaceOf, type Namespaces } from './xml-build';

/**
 * What identifies the module set in a hello, when it does: a hash of its sorted capabilities if they name
 * the modules (`?module=`) or carry yang-library's module-set-id or content-id; undefined otherwise (a device
 * that lists its modules only through a request).
 */
function moduleSetOfHello(capabilities: readonly string[]): string | undefined {
  if (!capabilities.some((c) => c.includes('?module=') || /[?&](module-set-id|content-id)=/.test(c))) return undefined;
  return createHash('sha256')
    .update([...capabilities].sort().join('\n'))
    .digest('base64');
}

/** Marks connections made by this plugin across plugin versions (instanceof breaks across hot reloads). */
export const NETCONF_DEVICE = Symbol.for('rosetta.netconf.device');

const MAX_BACKOFF_MS = 60_000;
/** The RFC 5277 stream subscribed to when `notification-stream` names none: the one every device has. */
const DEFAULT_NOTIFICATION_STREAM = 'NETCONF';

export type ConnectionStatus = 'connecting' | 'connected' | 'unable-to-connect';

/** How the plugin runs a device (its plugins.json settings). */
export interface DeviceOptions {
  /** Log every RPC sent (first 2000 characters). */
  readonly logRpcs?: boolean;
  /** The service's bound on connection attempts, taken by reconnects after a lost session. */
  readonly pacing?: ConnectPacing;
  /** Where status changes and notifications are pushed to the core (its event streams). */
  readonly events?: DeviceEvents;
  /** Where a schema download is reported as a job (the service's board, `PluginApi.jobs`). */
  readonly jobs?: JobStarter;
}

/** Without the service (the plugin's own tests), attempts run at once. */
const UNPACED: ConnectPacing = { attempt: (open) => open() };

const TRACED_CHARS = 2000;
/** Elements whose content the trace masks (any prefix, any case). */
const SECRET_ELEMENTS = new Set(['password', 'secret', 'key', 'passphrase', 'community']);

/** An RPC as the trace logs it: secrets in device data (`<password>`, `<key>`, ...) masked, then cut to size. */
export function traceText(body: string): string {
  const cut = body.length > TRACED_CHARS;
  const masked = maskSecrets(cut ? body.slice(0, TRACED_CHARS) : body, cut);
  return cut ? `${masked}...` : masked;
}

/**
 * `text` with the content of every secret element replaced by `***`, read by the SDK's XML tokenizer
 * (`partial`: the text is the start of a longer one). Where the text stops reading as XML the trace
 * stops too: nothing after a fault is shown, since it cannot be told apart from a secret.
 */
function maskSecrets(text: string, partial: boolean): string {
  const tok = new XmlTokenizer(text, MAX_XML_DEPTH, partial);
  let out = '';
  let copied = 0;
  /** The level inside the secret element being masked, 0 outside one. */
  let secretLevel = 0;
  try {
    for (let token = tok.next(); token !== XmlToken.Eof && token !== XmlToken.More; token = tok.next()) {
      if (token === XmlToken.Start && secretLevel === 0 && tok.rawTag() !== undefined) {
        const local = tok.name.slice(tok.name.indexOf(':') + 1).toLowerCase();
        if (!SECRET_ELEMENTS.has(local)) continue;
        out += `${text.slice(copied, tok.offset)}***`;
        secretLevel = tok.level;
      } else if (token === XmlToken.End && secretLevel > 0 && tok.level < secretLevel) {
        copied = tok.tokenStart;
        secretLevel = 0;
      }
    }
  } catch {
    return secretLevel > 0 ? out : out + text.slice(copied, tok.tokenStart);
  }
  return secretLevel > 0 ? out : out + text.slice(copied);
}

/** The namespaces of a module set's modules, once per set (devices with one set share its sources, schemas.ts). */
const namespacesOf = new WeakMap<readonly SchemaSource[], Namespaces>();
const NO_NAMESPACES: Namespaces = new Map();

export class NetconfDevice implements DeviceConnection {
  readonly [NETCONF_DEVICE] = true;
  private session: NetconfSession | undefined;
  private state: ConnectionStatus = 'connecting';
  private closing = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private writeQueue: Promise<unknown> = Promise.resolve();
  private schemas: DiscoveredSchemas | undefined;
  /** The hello the schemas were listed after, when it identifies the module set (moduleSetOfHello). */
  private listedAfterHello: string | undefined;
  private ns: Namespaces = NO_NAMESPACES;
  /** Sessions opened so far (1 after install; more after reconnects). */
  connects = 0;
  /** The fingerprint of the SSH host key the device presented at the last login attempt (none over tcp-only). */
  hostKey: string | undefined;
  private readonly hostKeyTrust: HostKeyTrust;

  private constructor(
    readonly nodeId: string,
    private readonly settings: NetconfNodeSettings,
    private readonly cacheRoot: string | undefined,
    private readonly log: PluginLogger,
    private readonly options: DeviceOptions,
  ) {
    this.hostKeyTrust = new HostKeyTrust(settings.hostKey, settings.hostKeyVerification);
  }

  /**
   * Connects (up to max-connection-attempts, 0 meaning until it works), discovers the schemas and
   * resolves with the device. Rejects with NetconfSessionError when the device cannot be reached.
   */
  static async install(
    nodeId: string,
    settings: NetconfNodeSettings,
    cacheRoot: string | undefined,
    log: PluginLogger,
    options: DeviceOptions = {},
  ): Promise<NetconfDevice> {
    const device = new NetconfDevice(nodeId, settings, cacheRoot, log, options);
    const attempts = settings.maxConnectionAttempts;
    let wait = settings.betweenAttemptsTimeout;
    for (let attempt = 1; ; attempt++) {
      try {
        await device.openSession();
        break;
      } catch (e) {
        // a refused host key is not retried: another attempt meets the same key
        if ((attempts !== 0 && attempt >= attempts) || (e instanceof NetconfSessionError && e.failure === 'host-key')) throw e;
        const next = jitter(wait);
        log.warn(`${nodeId}: connection attempt ${attempt} failed (${e instanceof Error ? e.message : String(e)}); next in ${next} ms`, {
          nodeId,
        });
        await new Promise((r) => setTimeout(r, next));
        wait = Math.min(MAX_BACKOFF_MS, Math.round(wait * 1.5));
      }
    }
    try {
      device.adopt(await device.discover(device.session!));
    } catch (e) {
      await device.close();
      throw e;
    }
    const { sources, unavailable, cacheHit } = device.schemas!;
    log.info(
      `${nodeId}: connected, ${sources.length} modules (${cacheHit ? 'from the cache' : 'downloaded'})${unavailable.length ? `, ${unavailable.length} unavailable` : ''}`,
      { nodeId },
    );
    return device;
  }

  /** Lists the device's modules and gets their texts (schemas.ts), noting the hello they were listed after. */
  private async discover(session: NetconfSession): Promise<DiscoveredSchemas> {
    const { jobs } = this.options;
    const found = await discoverSchemas(session, session.capabilities, this.cacheRoot, jobs && { jobs, nodeId: this.nodeId });
    this.listedAfterHello = moduleSetOfHello(session.capabilities);
    return found;
  }

  /** Takes a discovered module set as the device's: its sources and the namespaces of its modules. */
  private adopt(found: DiscoveredSchemas): void {
    let ns = namespacesOf.get(found.sources);
    if (ns === undefined) {
      const built = new Map<string, string>();
      for (const s of found.sources) {
        const uri = s.namespace ?? namespaceOf(s.text);
        if (uri) built.set(s.name, uri);
      }
      namespacesOf.set(found.sources, (ns = built));
    }
    this.schemas = found;
    this.ns = ns;
  }

  /**
   * After a reconnect: the device may have been upgraded while away. Lists its modules again (from the
   * disk cache when the set is known); a different set replaces the schemas (the core compiles the new set
   * when it sees `moduleSetId` change). A failure keeps the old set, with a warning.
   */
  private async recheckModules(session: NetconfSession): Promise<void> {
    const hello = moduleSetOfHello(session.capabilities);
    if (hello !== undefined && hello === this.listedAfterHello && this.schemas !== undefined) return;
    try {
      const found = await this.discover(session);
      const before = this.schemas?.moduleSetId;
      if (found.moduleSetId === before) return;
      this.adopt(found);
      this.log.warn(
        `${this.nodeId}: the module set changed while reconnecting (${before ?? 'none'} -> ${found.moduleSetId}, ${found.sources.length} modules${found.unavailable.length ? `, ${found.unavailable.length} unavailable` : ''}); the schema follows the device`,
        { nodeId: this.nodeId },
      );
    } catch (e) {
      this.log.warn(
        `${this.nodeId}: could not re-check the module set after reconnecting (${e instanceof Error ? e.message : String(e)}); keeping the one from install`,
        { nodeId: this.nodeId },
      );
    }
  }

  private async openSession(): Promise<void> {
    const s = this.settings;
    const hostKey = this.hostKeyTrust.login();
    const session = await NetconfSession.open({
      host: s.host,
      port: s.port,
      username: s.username,
      password: s.password,
      tcpOnly: s.tcpOnly,
      hostKey,
      connectTimeoutMs: s.initialConnectionTimeout,
      requestTimeoutMs: s.requestTransactionTimeout,
      keepaliveMs: s.keepaliveDelay * 1000,
      onNotification: (n, text) => this.received(n, text),
      onClose: (reason) => this.lost(session, reason),
      ...(this.options.logRpcs
        ? { onSend: (body: string, id: string) => this.log.info(`${this.nodeId}: rpc ${id} ${traceText(body)}`, { nodeId: this.nodeId }) }
        : {}),
    }).finally(() => {
      if (hostKey.presented !== undefined) this.hostKey = hostKey.presented;
    });
    this.hostKeyTrust.loggedIn(hostKey);
    if (this.closing) {
      // uninstalled while this attempt was logging in: the session has no one to serve
      await session.close();
      return;
    }
    this.session = session;
    this.setState('connected');
    this.connects++;
    // by default only where the session keeps serving requests while subscribed (RFC 5277 :interleave)
    const stream = s.notificationStream ?? (session.has(CAP_INTERLEAVE) ? DEFAULT_NOTIFICATION_STREAM : undefined);
    if (stream !== undefined && session.has(CAP_NOTIFICATION)) {
      // not awaited: a connect slot is for the login and hello; notifications come once the device has answered
      void createSubscription(session, stream).catch((e: unknown) =>
        this.log.warn(`${this.nodeId}: create-subscription ${stream} failed: ${e instanceof Error ? e.message : String(e)}`, {
          nodeId: this.nodeId,
        }),
      );
    }
  }

  private received(n: XmlElement, text: string): void {
    const eventTime = n.children.find((c) => c.name === 'eventTime')?.text.trim() ?? '';
    const event = n.children.find((c) => c.name !== 'eventTime')?.name ?? '';
    this.log.info(`${this.nodeId}: notification ${event} at ${eventTime}`, { nodeId: this.nodeId });
    this.options.events?.notification(text);
  }

  /** Changes the status, telling the core when it is a change (`problem`: why it is not connected). */
  private setState(next: ConnectionStatus, problem?: string): void {
    if (next === this.state) return;
    this.state = next;
    if (!this.closing) this.options.events?.statusChanged(problem);
  }

  /** The session ended without close(): reconnect with back-off, paced (see the top of this file). */
  private lost(session: NetconfSession, reason: NetconfSessionError | undefined): void {
    if (this.closing || session !== this.session) return;
    this.session = undefined;
    this.setState('connecting', `session lost: ${reason?.message ?? 'closed'}`);
    this.log.warn(`${this.nodeId}: session lost (${reason?.message ?? 'closed'}); reconnecting`, { nodeId: this.nodeId });
    let attempt = 0;
    let wait = this.settings.betweenAttemptsTimeout;
    const retry = () => {
      if (this.closing) return;
      attempt++;
      (this.options.pacing ?? UNPACED)
        .attempt(() => (this.closing ? Promise.resolve() : this.openSession()))
        .then(
          async () => {
            if (this.closing) return;
            this.log.info(`${this.nodeId}: reconnected after ${attempt} attempt(s)`, { nodeId: this.nodeId });
            if (this.session) await this.recheckModules(this.session);
          },
          (e: unknown) => {
            const max = this.settings.maxReconnectionAttempts;
            if (max !== 0 && attempt >= max) {
              this.setState(
                'unable-to-connect',
                `gave up after ${attempt} reconnection attempts: ${e instanceof Error ? e.message : String(e)}`,
              );
              this.log.error(
                `${this.nodeId}: giving up after ${attempt} reconnection attempts: ${e instanceof Error ? e.message : String(e)}`,
                { nodeId: this.nodeId },
              );
              return;
            }
            this.reconnectTimer = setTimeout(retry, jitter(wait));
            wait = Math.min(MAX_BACKOFF_MS, Math.round(wait * 1.5));
          },
        );
    };
    this.reconnectTimer = setTimeout(retry, jitter(wait, 0));
  }

  /** The open session, or a NetconfSessionError saying why there is none. */
  current(): NetconfSession {
    if (this.session?.isOpen) return this.session;
    throw new NetconfSessionError(
      'closed',
      `device ${this.nodeId} is ${this.closing ? 'uninstalled' : this.state === 'connecting' ? 'reconnecting' : 'unreachable'}`,
    );
  }

  /** Runs writes one after another: NETCONF locks are per session, so concurrent edits must not interleave. */
  serializeWrite<T>(work: () => Promise<T>): Promise<T> {
    const run = this.writeQueue.then(work, work);
    this.writeQueue = run.catch(() => undefined);
    return run;
  }

  /** Module name -> namespace of the device's modules. */
  get namespaces(): Namespaces {
    return this.ns;
  }

  get message(): string {
    const s = this.session;
    return s
      ? `NETCONF session ${s.sessionId ?? '?'} to ${this.settings.host}:${this.settings.port}, ${s.framingMode === 'chunked' ? 'base:1.1' : 'base:1.0'}`
      : `NETCONF ${this.state}`;
  }

  get capabilities(): readonly string[] {
    return this.session?.capabilities ?? [];
  }

  get schemaSources(): DeviceConnection['schemaSources'] {
    return this.schemas?.sources.map((s) => ({ name: s.name, ...(s.revision ? { revision: s.revision } : {}), text: s.text })) ?? [];
  }

  get moduleSetId(): string | undefined {
    return this.schemas?.moduleSetId;
  }

  get unavailableSchemas(): DeviceConnection['unavailableSchemas'] {
    return (
      this.schemas?.unavailable.map((u) => ({ name: u.name, ...(u.revision ? { revision: u.revision } : {}), reason: u.reason })) ?? []
    );
  }

  /** Whether the schemas came from the disk cache. */
  get schemaCacheHit(): boolean {
    return this.schemas?.cacheHit ?? false;
  }

  status(): ConnectionStatus {
    return this.state;
  }

  /** Stops reconnecting and closes the session (close-session first). Never throws. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.reconnectTimer);
    const s = this.session;
    this.session = undefined;
    this.state = 'unable-to-connect';
    await s?.close();
  }
}

/** Whether a connection the core hands back is one of this plugin's devices (any version). */
export function isNetconfDevice(connection: DeviceConnection): connection is NetconfDevice {
  return (connection as unknown as Record<symbol, unknown>)[NETCONF_DEVICE] === true;
}
