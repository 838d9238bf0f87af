/**
 * One installed CLI device: the DeviceConnection the plugin hands the core. It owns the device's one
 * command stream: requests run one after another in arrival order (a FIFO, never interleaved); it logs in
 * at install (up to max-connection-attempts), reconnects with back-off after a drop (up to
 * max-reconnection-attempts, status `connecting` meanwhile, `unable-to-connect` when it gives up), tries
 * once more on demand when a request arrives while disconnected, and sends a keepalive when idle.
 * Reconnects are paced as the service paces every connect (docs/operations.md#reconnects): the first
 * attempt after a loss comes at a random moment within the first back-off, each wait is spread over its
 * upper half, each attempt takes one of the service's connect slots, and the idle time before a keepalive
 * is drawn anew each time, so sessions opened together do not keepalive together.
 * A device that answers but says it cannot serve (a command's output matched the serving units' unusable
 * patterns: FRR's vtysh without its daemons) is treated like a lost session: the request fails with 502,
 * the session is closed and reconnected with back-off, and the status says why meanwhile.
 * The password and secret live only in the settings it holds; nothing it prints or returns shows them.
 */
import { inspect } from 'node:util';
import { HostKeyTrust, jitter, type ConnectPacing, type DeviceConnection, type DeviceEvents, type PluginLogger } from '@rosetta/sdk';
import { CliConnectionError, CliDeviceUnusableError } from './errors';
import { CliSession } from './session';
import type { CliNodeSettings } from './settings';
import { CliShell } from './shell';

/** Marks connections made by this plugin across plugin versions (instanceof breaks across hot reloads). */
export const CLI_DEVICE = Symbol.for('rosetta.cli.device');

export type ConnectionStatus = 'connecting' | 'connected' | 'unable-to-connect';

/** Back-off between attempts: first wait, growth factor, ceiling. */
export interface Backoff {
  readonly initialMs: number;
  readonly factor: number;
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 250, factor: 2, maxMs: 30_000 };

/** Without the service (the plugin's own tests), attempts run at once. */
const UNPACED: ConnectPacing = { attempt: (open) => open() };

export class CliDevice implements DeviceConnection {
  readonly [CLI_DEVICE] = true;
  private session: CliSession | undefined;
  private connecting: Promise<CliSession> | undefined;
  private state: ConnectionStatus = 'connecting';
  private closing = false;
  private tail: Promise<unknown> = Promise.resolve();
  private queued = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private keepaliveTimer: NodeJS.Timeout | undefined;
  /** Why the last session ended or the last attempt failed, for the status message; cleared on connect. */
  private problem: string | undefined;
  /** The serving units' unusable patterns (every command's output is checked against them). */
  private unusablePatterns: readonly RegExp[];
  /** Sessions opened so far (1 after install; more after reconnects). */
  connects = 0;
  /** Keepalives sent so far. */
  keepalives = 0;
  /** The fingerprint of the SSH host key the device presented at the last login attempt. */
  hostKey: string | undefined;
  private readonly hostKeyTrust: HostKeyTrust;

  private constructor(
    readonly nodeId: string,
    private readonly settings: CliNodeSettings,
    private readonly log: PluginLogger,
    private readonly backoff: Backoff,
    unusablePatterns: readonly RegExp[],
    private readonly pacing: ConnectPacing,
    private readonly events: DeviceEvents | undefined,
  ) {
    this.unusablePatterns = unusablePatterns;
    this.hostKeyTrust = new HostKeyTrust(settings.hostKey, settings.hostKeyVerification);
  }

  /**
   * Logs in (up to max-connection-attempts, 0 meaning until it works; a refused login is not retried)
   * and resolves with the device. Rejects with CliConnectionError when the device cannot be reached.
   */
  static async install(
    nodeId: string,
    settings: CliNodeSettings,
    log: PluginLogger,
    backoff: Backoff = DEFAULT_BACKOFF,
    unusablePatterns: readonly RegExp[] = [],
    pacing: ConnectPacing = UNPACED,
    events?: DeviceEvents,
  ): Promise<CliDevice> {
    const device = new CliDevice(nodeId, settings, log, backoff, unusablePatterns, pacing, events);
    let wait = backoff.initialMs;
    for (let attempt = 1; ; attempt++) {
      try {
        await device.connectNow();
        log.info(`${nodeId}: ${device.message}`, { nodeId });
        return device;
      } catch (e) {
        const last = settings.maxConnectionAttempts !== 0 && attempt >= settings.maxConnectionAttempts;
        // a refused password or host key is not retried: another attempt gets the same answer
        if (last || (e instanceof CliConnectionError && (e.failure === 'authentication' || e.failure === 'host-key'))) {
          await device.close();
          throw e;
        }
        const next = jitter(wait);
        log.warn(`${nodeId}: connection attempt ${attempt} failed (${(e as Error).message}); next in ${next} ms`, { nodeId });
        await new Promise((r) => setTimeout(r, next));
        wait = Math.min(backoff.maxMs, Math.round(wait * backoff.factor));
      }
    }
  }

  /**
   * Runs `work` with the device's session once every request queued before it has finished. Connects
   * first when the session is down (one attempt); rejects with CliConnectionError when it cannot.
   */
  run<T>(work: (session: CliSession) => Promise<T>): Promise<T> {
    this.queued++;
    const job = this.tail.then(async () => {
      let session: CliSession | undefined;
      try {
        session = this.session?.isOpen ? this.session : await this.connectNow();
        return await work(session);
      } catch (e) {
        if (e instanceof CliDeviceUnusableError && session) this.unusable(session, e);
        throw e;
      } finally {
        this.queued--;
        this.armKeepalive();
      }
    });
    this.tail = job.catch(() => undefined);
    return job;
  }

  get message(): string {
    const s = this.settings;
    const type = s.deviceType ? `, device-type ${s.deviceType}${s.deviceVersion ? ` ${s.deviceVersion}` : ''}` : '';
    const where = `${s.username}@${s.host}:${s.port} over SSH${type}`;
    if (this.session?.isOpen) return `connected to ${where}, prompt ${JSON.stringify(this.session.basePrompt)}`;
    const why = this.problem !== undefined && !this.closing ? ` (${this.problem})` : '';
    return this.state === 'connecting' ? `connecting to ${where}${why}` : `unable to connect to ${where}${why}`;
  }

  /** The serving units' unusable patterns changed (the plugin passes the current ones with each request). */
  useUnusablePatterns(patterns: readonly RegExp[]): void {
    this.unusablePatterns = patterns;
  }

  status(): ConnectionStatus {
    return this.state;
  }

  /** Stops reconnecting and keepalives and closes the session. Never throws. */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.keepaliveTimer);
    this.state = 'unable-to-connect';
    const s = this.session;
    this.session = undefined;
    s?.close();
  }

  /** What a log line or a debugger shows of the device: never the password or the secret. */
  [inspect.custom](): string {
    return `CliDevice(${this.nodeId}: ${this.message})`;
  }

  toJSON(): Record<string, string> {
    return { nodeId: this.nodeId, status: this.state, message: this.message };
  }

  /** One login attempt, shared by everyone who needs a session at the same moment. */
  private connectNow(): Promise<CliSession> {
    if (this.closing) return Promise.reject(new CliConnectionError('closed', `device ${this.nodeId} is uninstalled`));
    this.connecting ??= this.openSession().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async openSession(): Promise<CliSession> {
    const s = this.settings;
    let session: CliSession | undefined;
    const hostKey = this.hostKeyTrust.login();
    const shell = await CliShell.open({
      host: s.host,
      port: s.port,
      username: s.username,
      password: s.password,
      connectTimeoutMs: s.connectionEstablishTimeout * 1000,
      hostKey,
      onLost: (reason) => {
        if (session) this.lost(session, reason);
      },
    }).finally(() => {
      if (hostKey.presented !== undefined) this.hostKey = hostKey.presented;
    });
    this.hostKeyTrust.loggedIn(hostKey);
    session = new CliSession(shell, {
      commandTimeoutMs: s.commandTimeout * 1000,
      secret: s.secret,
      deviceType: s.deviceType,
      unusablePatterns: () => this.unusablePatterns,
    });
    try {
      await session.prepare();
    } catch (e) {
      session.close();
      throw e;
    }
    if (this.closing) {
      session.close();
      throw new CliConnectionError('closed', `device ${this.nodeId} is uninstalled`);
    }
    clearTimeout(this.reconnectTimer);
    this.session = session;
    this.problem = undefined;
    this.setState('connected');
    this.connects++;
    this.armKeepalive();
    return session;
  }

  /**
   * The device said it cannot serve: what it prints is not its data. Drop the session (a new login finds
   * out whether the device is back) and reconnect as after a loss.
   */
  private unusable(session: CliSession, e: CliDeviceUnusableError): void {
    this.lost(session, `the device was not usable: ${e.deviceMessage}`);
    session.close();
  }

  /** The session ended without close(): reconnect in the background with back-off, paced (see the top of this file). */
  private lost(session: CliSession, reason: string): void {
    if (this.closing || session !== this.session) return;
    this.session = undefined;
    this.problem = reason;
    this.setState('connecting');
    clearTimeout(this.keepaliveTimer);
    this.log.warn(`${this.nodeId}: session lost (${reason}); reconnecting`, { nodeId: this.nodeId });
    let attempt = 0;
    let wait = this.backoff.initialMs;
    const retry = () => {
      if (this.closing || this.session?.isOpen) return;
      attempt++;
      this.pacing
        .attempt<unknown>(() => (this.closing || this.session?.isOpen ? Promise.resolve() : this.connectNow()))
        .then(
          () => {
            if (!this.closing) this.log.info(`${this.nodeId}: reconnected after ${attempt} attempt(s)`, { nodeId: this.nodeId });
          },
          (e: unknown) => {
            if (this.session?.isOpen || this.closing) return;
            this.problem = `reconnection attempt ${attempt} failed: ${(e as Error).message}`;
            const max = this.settings.maxReconnectionAttempts;
            if (max !== 0 && attempt >= max) {
              this.setState('unable-to-connect');
              this.log.error(`${this.nodeId}: giving up after ${attempt} reconnection attempt(s): ${(e as Error).message}`, {
                nodeId: this.nodeId,
              });
              return;
            }
            this.reconnectTimer = setTimeout(retry, jitter(wait));
            wait = Math.min(this.backoff.maxMs, Math.round(wait * this.backoff.factor));
          },
        );
    };
    this.reconnectTimer = setTimeout(retry, jitter(wait, 0));
  }

  /** Changes the status, telling the core when it is a change (with the problem, when not connected). */
  private setState(next: ConnectionStatus): void {
    if (next === this.state) return;
    this.state = next;
    if (!this.closing) this.events?.statusChanged(next === 'connected' ? undefined : this.problem);
  }

  /** (Re)starts the idle timer; when it fires with nothing queued, an empty command goes through the queue. */
  private armKeepalive(): void {
    clearTimeout(this.keepaliveTimer);
    const delay = jitter(this.settings.keepaliveDelay * 1000, 0.8);
    if (delay <= 0 || this.closing || !this.session?.isOpen) return;
    this.keepaliveTimer = setTimeout(() => {
      if (this.queued > 0 || !this.session?.isOpen) return;
      this.keepalives++;
      // a failure closes the shell, which starts the reconnect; nothing to report to anyone
      this.run((s) => s.keepalive()).catch(() => undefined);
    }, delay);
    this.keepaliveTimer.unref();
  }
}

/** Whether a connection the core hands back is one of this plugin's devices (any version). */
export function isCliDevice(connection: DeviceConnection): connection is CliDevice {
  return (connection as unknown as Record<symbol, unknown>)[CLI_DEVICE] === true;
}
