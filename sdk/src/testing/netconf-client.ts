/**
 * A bare NETCONF client for tests and benchmarks: ssh2's `netconf` subsystem, the hello exchange, the
 * framing both sides agree on, and one request at a time. It is the independent observer a test checks a
 * device with (a session of its own, nothing shared with the code under test) and the floor a benchmark
 * compares against (no filters, no codec, no schema: bytes in, reply text out). Not for production use:
 * no keepalive, no reconnect, no notifications (they are collected as text in `notifications`).
 */
import { Client, type ClientChannel } from 'ssh2';
import { BASE_1_0, BASE_1_1, FrameReader, frameMessage, type FramingMode } from '../netconf/framing';
import { EMPTY_GET_CONFIG, FIRST_REPLY_NUDGE_MS, helloMessage, NETCONF_NS, NOTIFICATION_NS, parseHello } from '../netconf/messages';
import { parseXml } from '../netconf/xml';

/** Whether a message is a NETCONF notification (its root element, in the notification namespace). */
function isNotification(message: string): boolean {
  if (!message.includes(NOTIFICATION_NS)) return false;
  try {
    const root = parseXml(message);
    return root.name === 'notification' && root.ns === NOTIFICATION_NS;
  } catch {
    return false;
  }
}

export interface RawNetconfOptions {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  /** Connect + hello, and then each reply, must come within this (ms, default 10 000). */
  readonly timeoutMs?: number;
}

/** An open raw session. */
export interface RawNetconfSession {
  readonly capabilities: readonly string[];
  readonly sessionId: number | undefined;
  readonly framing: FramingMode;
  /** Notifications received so far, as the XML text sent. */
  readonly notifications: readonly string[];
  /** Sends `<rpc>` around `body` and resolves with the reply's text (rpc-errors included: check it yourself). */
  rpc(body: string): Promise<string>;
  /** Resolves once a notification whose text matches `pattern` has arrived (rejects after `ms`). */
  waitForNotification(pattern: RegExp, ms: number): Promise<string>;
  /** close-session, then the SSH connection. Never throws. */
  close(): Promise<void>;
}

/** Opens a raw NETCONF session over SSH; rejects with the reason (connect, auth, hello, timeout). */
export function openRawNetconf(options: RawNetconfOptions): Promise<RawNetconfSession> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const client = new Client();
    const timer = setTimeout(() => {
      client.end();
      reject(new Error(`no NETCONF hello from ${options.host}:${options.port} within ${timeoutMs} ms`));
    }, timeoutMs);
    client.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    client.once('ready', () =>
      client.subsys('netconf', (err, channel: ClientChannel) => {
        if (err) {
          clearTimeout(timer);
          client.end();
          reject(err);
          return;
        }
        const reader = new FrameReader();
        let framing: FramingMode = 'eom';
        let nextId = 1;
        const notifications: string[] = [];
        const waiting = new Map<string, { resolve: (t: string) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
        const watchers = new Set<{ pattern: RegExp; resolve: (t: string) => void }>();
        let session: RawNetconfSession | undefined;
        let heardSinceHello = false;
        let firstReplyWatch: NodeJS.Timeout | undefined;
        const failAll = (e: Error) => {
          for (const w of waiting.values()) {
            clearTimeout(w.timer);
            w.reject(e);
          }
          waiting.clear();
        };
        channel.on('close', () => {
          clearTimeout(firstReplyWatch);
          failAll(new Error('the NETCONF session closed'));
        });
        channel.on('data', (data: Buffer) => {
          try {
            reader.push(data, (message) => {
              if (session === undefined) {
                const hello = parseHello(message);
                const chunked = hello.capabilities.includes(BASE_1_1);
                if (chunked) {
                  reader.useChunked();
                  framing = 'chunked';
                }
                clearTimeout(timer);
                session = makeSession(hello.capabilities, hello.sessionId);
                resolve(session);
                return;
              }
              heardSinceHello = true;
              if (isNotification(message)) {
                notifications.push(message);
                for (const w of watchers)
                  if (w.pattern.test(message)) {
                    watchers.delete(w);
                    w.resolve(message);
                  }
                return;
              }
              const id = /message-id="([^"]*)"/.exec(message)?.[1];
              const w = id === undefined ? undefined : waiting.get(id);
              if (w !== undefined) {
                waiting.delete(id!);
                clearTimeout(w.timer);
                w.resolve(message);
              }
            });
          } catch (e) {
            failAll(e instanceof Error ? e : new Error(String(e)));
            channel.end();
          }
        });
        channel.write(frameMessage(helloMessage([BASE_1_0, BASE_1_1]), 'eom'));
        const makeSession = (capabilities: readonly string[], sessionId: number | undefined): RawNetconfSession => ({
          capabilities,
          sessionId,
          notifications,
          get framing() {
            return framing;
          },
          rpc(body: string) {
            const id = String(nextId++);
            return new Promise<string>((res, rej) => {
              const t = setTimeout(() => {
                waiting.delete(id);
                rej(new Error(`no reply to message-id ${id} within ${timeoutMs} ms`));
              }, timeoutMs);
              waiting.set(id, { resolve: res, reject: rej, timer: t });
              channel.write(frameMessage(`<rpc xmlns="${NETCONF_NS}" message-id="${id}">${body}</rpc>`, framing));
              firstReplyWatch ??= setTimeout(() => {
                if (!heardSinceHello) session!.rpc(EMPTY_GET_CONFIG).catch(() => undefined);
              }, FIRST_REPLY_NUDGE_MS).unref();
            });
          },
          waitForNotification(pattern: RegExp, ms: number) {
            const seen = notifications.find((n) => pattern.test(n));
            if (seen !== undefined) return Promise.resolve(seen);
            return new Promise<string>((res, rej) => {
              const w = {
                pattern,
                resolve: (t: string) => {
                  clearTimeout(t2);
                  res(t);
                },
              };
              const t2 = setTimeout(() => {
                watchers.delete(w);
                rej(new Error(`no notification matching ${pattern} within ${ms} ms`));
              }, ms);
              watchers.add(w);
            });
          },
          async close() {
            await Promise.race([this.rpc('<close-session/>').catch(() => undefined), new Promise((r) => setTimeout(r, 2000))]);
            channel.end();
            client.end();
          },
        });
      }),
    );
    client.connect({
      host: options.host,
      port: options.port,
      username: options.username,
      password: options.password,
      readyTimeout: timeoutMs,
      tryKeyboard: false,
    });
    client.setNoDelay(true); // no Nagle delay on the handshake's and each request's short writes
  });
}
