/**
 * An interactive SSH CLI session (ssh2 shell with a PTY): waits for the prompt, sends one command at a
 * time, and returns the output between the echoed command and the next prompt, with `\n` line ends.
 * Works against FRR's vtysh and the simulator; tests and benchmarks use it, and a CLI southbound can.
 */
import { Client } from 'ssh2';
import type { CliSession } from './session';

export interface SshCliOptions {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  /** Matches the prompt at the end of the output (default FRR-style `name# `, `name(config-if)# `, `name> `). */
  readonly prompt?: RegExp;
  /** Connect and per-command timeout (default 10 s). */
  readonly timeoutMs?: number;
}

export interface SshCliSession extends CliSession {
  /** The last prompt seen (`frr-peer(config)# `). */
  readonly prompt: string;
  close(): void;
}

const DEFAULT_PROMPT = /(?:^|\r?\n)([\w.-]+(?:\([\w-]+\))?[#>] ?)$/;
const MAX_OUTPUT = 64 * 1024 * 1024;

/** Opens the session and resolves once the first prompt has been read. */
export function connectSshCli(options: SshCliOptions): Promise<SshCliSession> {
  const prompt = options.prompt ?? DEFAULT_PROMPT;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const client = new Client();
  return new Promise<SshCliSession>((resolve, reject) => {
    const timer = setTimeout(() => {
      client.end();
      reject(new Error(`no prompt from ${options.host}:${options.port} within ${timeoutMs} ms`));
    }, timeoutMs);
    client.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    client.once('ready', () => {
      client.shell({ term: 'vt100', rows: 0, cols: 512 }, (err, stream) => {
        if (err) {
          clearTimeout(timer);
          client.end();
          reject(err);
          return;
        }
        let buffer = '';
        let waiter: { resolve: (text: string) => void; reject: (e: Error) => void } | undefined;
        let lastPrompt = '';
        let closed = false;
        const check = () => {
          const m = prompt.exec(buffer);
          if (!m || !waiter) return;
          lastPrompt = m[1] ?? m[0];
          const text = buffer.slice(0, m.index);
          buffer = '';
          const w = waiter;
          waiter = undefined;
          w.resolve(text);
        };
        stream.on('data', (d: Buffer) => {
          buffer += d.toString('utf8');
          if (buffer.length > MAX_OUTPUT) {
            waiter?.reject(new Error('output larger than 64 MiB'));
            waiter = undefined;
            buffer = '';
          }
          check();
        });
        stream.on('close', () => {
          closed = true;
          waiter?.reject(new Error(`session to ${options.host}:${options.port} closed`));
          waiter = undefined;
          client.end();
        });
        const next = () =>
          new Promise<string>((res, rej) => {
            waiter = { resolve: res, reject: rej };
            check();
          });
        let queue: Promise<unknown> = Promise.resolve();
        next().then(
          () => {
            clearTimeout(timer);
            resolve({
              get prompt() {
                return lastPrompt;
              },
              exec(command: string): Promise<string> {
                const run = queue.then(async () => {
                  if (closed) throw new Error(`session to ${options.host}:${options.port} is closed`);
                  const answer = next();
                  stream.write(`${command}\n`);
                  let t: NodeJS.Timeout | undefined;
                  const raw = await Promise.race([
                    answer,
                    new Promise<never>((_, rej) => {
                      t = setTimeout(() => rej(new Error(`no prompt after ${JSON.stringify(command)} within ${timeoutMs} ms`)), timeoutMs);
                    }),
                  ]).finally(() => clearTimeout(t));
                  // drop the echoed command line; normalise line ends
                  const text = raw.replace(/\r\n/g, '\n');
                  const firstBreak = text.indexOf('\n');
                  return firstBreak < 0 ? '' : text.slice(firstBreak + 1);
                });
                queue = run.catch(() => undefined);
                return run;
              },
              close() {
                client.end();
              },
            });
          },
          (e: Error) => {
            clearTimeout(timer);
            reject(e);
          },
        );
      });
    });
    client.connect({
      host: options.host,
      port: options.port,
      username: options.username,
      password: options.password,
      readyTimeout: timeoutMs,
    });
    client.setNoDelay(true); // no Nagle delay on the handshake's and each command's short writes
  });
}
