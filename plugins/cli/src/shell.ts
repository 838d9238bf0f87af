/**
 * One interactive SSH shell (ssh2, with a PTY) to a CLI device: login, the prompt learned from what the
 * device prints after it, and `send`: one command in, the text between its echo and the next prompt out
 * (`sendAll`: several typed ahead in one write, for devices that take that). The shell knows nothing of
 * modes or errors (session.ts) or of reconnecting (device.ts); callers send one command, or one batch, at
 * a time. A command that gets no prompt within its timeout closes the shell, because what the
 * device does with the next bytes is then unknown.
 */
import { Client, type ClientChannel } from 'ssh2';
import { HostKeyCheck } from '@rosetta/sdk';
import { CliConnectionError, CliTimeoutError } from './errors';
import { lastLine, learnPrompt, stripEscapes, type LearnedPrompt, type PromptMatch } from './prompt';

export interface ShellOptions {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
  /** TCP + SSH + login + learning the prompt. */
  readonly connectTimeoutMs: number;
  /** This login's host key check (a pinned key, and the key the device presents); default: any key. */
  readonly hostKey?: HostKeyCheck;
  /** Called once when the shell ends for any reason other than close(). */
  readonly onLost?: (reason: string) => void;
}

/** What a command printed, and the prompt that ended it. */
export interface Reply {
  readonly output: string;
  /** The prompt after the output; undefined when `send` stopped at its `until` pattern instead. */
  readonly prompt: PromptMatch | undefined;
}

/** Largest output of one command kept; a device printing more is treated as broken. */
const MAX_OUTPUT = 64 * 1024 * 1024;
const CR = 13;
const LF = 10;
/** How many times login may see a different last line before giving up learning the prompt. */
const LEARN_ROUNDS = 6;

interface Waiter {
  /** Returns true when it is satisfied (and has settled its promise). */
  check(): boolean;
  fail(error: Error): void;
}

export class CliShell {
  private buffer = '';
  private waiter: Waiter | undefined;
  private open = true;
  private closedByUs = false;
  private learned: LearnedPrompt | undefined;
  private lastPrompt: PromptMatch | undefined;

  private constructor(
    private readonly client: Client,
    private readonly stream: ClientChannel,
    private readonly options: ShellOptions,
  ) {
    stream.on('data', (d: Buffer) => this.received(d.toString('utf8')));
    stream.stderr.on('data', (d: Buffer) => this.received(d.toString('utf8')));
    stream.on('close', () => this.ended('the device closed the session'));
    client.on('close', () => this.ended('the SSH connection closed'));
    client.on('error', (e: Error) => this.ended(`SSH error: ${e.message}`));
  }

  /** Connects, logs in, learns the prompt. Rejects with CliConnectionError (never naming the password). */
  static async open(options: ShellOptions): Promise<CliShell> {
    const where = `${options.username}@${options.host}:${options.port}`;
    const hostKey = options.hostKey ?? new HostKeyCheck(undefined);
    const client = new Client();
    // ssh2 may emit a second error while tearing down a failed connection; never let it go unhandled
    client.on('error', () => undefined);
    const deadline = Date.now() + options.connectTimeoutMs;
    let shell: CliShell | undefined;
    const timer = setTimeout(() => client.end(), options.connectTimeoutMs);
    try {
      const stream = await new Promise<ClientChannel>((resolve, reject) => {
        client.once('error', (e: Error & { level?: string; code?: string }) => {
          const refusal = hostKey.refusal(where);
          reject(refusal !== undefined ? new CliConnectionError('host-key', refusal) : connectError(e, where));
        });
        client.once('close', () =>
          reject(new CliConnectionError('unreachable', `${where}: no SSH session within ${options.connectTimeoutMs} ms`)),
        );
        client.on('keyboard-interactive', (_name, _instructions, _lang, prompts, finish) => finish(prompts.map(() => options.password)));
        client.once('ready', () => {
          // one short command line per round trip: Nagle would hold it for the previous segment's ACK,
          // which the device delays (40 ms per command on Linux loopback)
          client.shell({ term: 'vt100', rows: 0, cols: 511 }, (err, channel) => {
            if (err) reject(new CliConnectionError('login', `${where}: the device refused a shell: ${err.message}`));
            else resolve(channel);
          });
        });
        client.connect({
          host: options.host,
          port: options.port,
          username: options.username,
          password: options.password,
          tryKeyboard: true,
          readyTimeout: options.connectTimeoutMs,
          keepaliveInterval: 0,
          hostVerifier: hostKey.verify,
        });
        // no Nagle from the first byte: the handshake's and every command's small writes go at once
        // (after the handshake only, a login waited tens of ms for a delayed ACK)
        client.setNoDelay(true);
      });
      shell = new CliShell(client, stream, options);
      await shell.learnPrompt(deadline, where);
      return shell;
    } catch (e) {
      if (shell) shell.close();
      else client.end();
      if (e instanceof CliConnectionError) throw e;
      throw new CliConnectionError('login', `${where}: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The prompt learned at login. */
  get prompt(): LearnedPrompt {
    return this.learned!;
  }

  /** The last prompt seen: tells the mode the device is in. */
  get current(): PromptMatch | undefined {
    return this.lastPrompt;
  }

  get isOpen(): boolean {
    return this.open;
  }

  /**
   * Sends one line and resolves with the output up to the next prompt (echo removed, `\n` line ends), or
   * up to a last line matching `until` (an enable `Password:` question). Rejects with CliTimeoutError
   * (and closes the shell) when neither comes within `timeoutMs`.
   */
  send(line: string, timeoutMs: number, until?: RegExp, echo = true): Promise<Reply> {
    if (!this.open)
      return Promise.reject(new CliConnectionError('closed', `session to ${this.options.host}:${this.options.port} is closed`));
    if (this.waiter) return Promise.reject(new Error('a command is already running on this shell'));
    this.buffer = '';
    const reply = this.wait(timeoutMs, line, until).then((r) => ({ ...r, output: echo ? dropEcho(r.output, line) : r.output }));
    this.stream.write(`${line}\n`);
    return reply;
  }

  /**
   * Types several lines ahead in one write, for a device that reads typed-ahead input in order (vtysh
   * does: each line is echoed after the previous line's prompt). A line's reply ends where the prompt is
   * followed by the next line's echo, the last one at the final prompt. Each promise settles as soon as
   * its reply is complete, so a caller can work on the first output while the device answers the rest.
   * The timeout counts from the previous reply; on a timeout every pending reply fails and the shell
   * closes, as with `send`.
   */
  sendAll(lines: readonly string[], timeoutMs: number): Promise<Reply>[] {
    if (lines.length === 1) return [this.send(lines[0]!, timeoutMs)];
    if (!this.open)
      return lines.map(() =>
        Promise.reject(new CliConnectionError('closed', `session to ${this.options.host}:${this.options.port} is closed`)),
      );
    if (this.waiter) return lines.map(() => Promise.reject(new Error('a command is already running on this shell')));
    this.buffer = '';
    const replies = this.waitAll(lines, timeoutMs);
    this.stream.write(lines.map((l) => `${l}\n`).join(''));
    return replies;
  }

  /** Ends the session; pending commands fail. Never throws. */
  close(): void {
    this.closedByUs = true;
    this.ended('closed');
    try {
      this.client.end();
    } catch {
      /* already gone */
    }
  }

  private wait(timeoutMs: number, command: string, until?: RegExp): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        const partial = normalise(this.buffer);
        reject(new CliTimeoutError(command, timeoutMs, partial.slice(0, 2000)));
        // the device is stuck or slow: its next bytes would be read as the next command's answer
        this.close();
        this.closedByUs = false;
        this.options.onLost?.(`no prompt after ${JSON.stringify(command)} within ${timeoutMs} ms`);
      }, timeoutMs);
      this.waiter = {
        check: () => {
          const found = this.learned?.find(this.buffer);
          const stop = !found && until && until.test(lastLine(this.buffer).line) ? lastLine(this.buffer).index : undefined;
          if (!found && stop === undefined) return false;
          clearTimeout(timer);
          this.waiter = undefined;
          if (found) this.lastPrompt = found;
          resolve({ output: normalise(this.buffer.slice(0, found ? found.index : stop)), prompt: found });
          return true;
        },
        fail: (e) => {
          clearTimeout(timer);
          this.waiter = undefined;
          reject(e);
        },
      };
      this.waiter.check();
    });
  }

  private waitAll(lines: readonly string[], timeoutMs: number): Promise<Reply>[] {
    const settlers: Array<{ resolve: (r: Reply) => void; reject: (e: Error) => void }> = [];
    const replies = lines.map(
      () =>
        new Promise<Reply>((resolve, reject) => {
          settlers.push({ resolve, reject });
        }),
    );
    let done = 0; // replies settled
    let from = 0; // where reply `done` starts in the buffer (at its echo)
    let scanFrom = 0; // text before this holds no boundary not yet found
    let timer: NodeJS.Timeout;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        this.waiter = undefined;
        const command = lines[done]!;
        settlers[done]!.reject(new CliTimeoutError(command, timeoutMs, normalise(this.buffer.slice(from)).slice(0, 2000)));
        for (const s of settlers.slice(done + 1)) s.reject(new CliTimeoutError(command, timeoutMs, ''));
        this.close();
        this.closedByUs = false;
        this.options.onLost?.(`no prompt after ${JSON.stringify(command)} within ${timeoutMs} ms`);
      }, timeoutMs);
    };
    const settle = (end: number, prompt: PromptMatch | undefined) => {
      settlers[done]!.resolve({ output: dropEcho(normalise(this.buffer.slice(from, end)), lines[done]!), prompt });
      done++;
    };
    this.waiter = {
      check: () => {
        while (done < lines.length - 1) {
          const next = this.echoAfterPrompt(lines[done + 1]!, Math.max(from, scanFrom));
          if (next === undefined) {
            scanFrom = this.buffer.lastIndexOf('\n') + 1;
            return false;
          }
          settle(next.promptAt, next.prompt);
          from = next.echoAt;
          arm();
        }
        const found = this.learned?.find(this.buffer);
        if (!found || found.index < from) return false;
        clearTimeout(timer);
        this.waiter = undefined;
        this.lastPrompt = found;
        settle(found.index, found);
        return true;
      },
      fail: (e) => {
        clearTimeout(timer);
        this.waiter = undefined;
        for (const s of settlers.slice(done)) s.reject(e);
      },
    };
    arm();
    this.waiter.check();
    return replies;
  }

  /**
   * The first line at or after `from` that is a prompt followed by the echo of `line` and a line end (the
   * device has started on a typed-ahead line): where the prompt and the echo begin.
   */
  private echoAfterPrompt(line: string, from: number): { promptAt: number; echoAt: number; prompt: PromptMatch } | undefined {
    const echo = line.trim();
    for (let at = this.buffer.indexOf(echo, from); at >= 0; at = this.buffer.indexOf(echo, at + 1)) {
      const end = at + echo.length;
      const lineStart = this.buffer.lastIndexOf('\n', at - 1) + 1;
      if (lineStart < from) continue;
      const after = this.buffer.charCodeAt(end);
      // the echo's line end has not (fully) arrived yet: this may still be the boundary
      if (Number.isNaN(after) || (after === CR && end + 1 === this.buffer.length)) return undefined;
      if (after !== LF && !(after === CR && this.buffer.charCodeAt(end + 1) === LF)) continue;
      const prompt = this.learned?.find(this.buffer.slice(lineStart, at));
      if (prompt) return { promptAt: lineStart, echoAt: at, prompt: { ...prompt, index: lineStart } };
    }
    return undefined;
  }

  /**
   * Login: wait for a last line that looks like a prompt, then send an empty line and expect the same
   * prompt again; a banner still being printed shows up as a different last line, and we try again.
   */
  private async learnPrompt(deadline: number, where: string): Promise<void> {
    let candidate: LearnedPrompt | undefined;
    for (let round = 0; round < LEARN_ROUNDS; round++) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      const seen = await new Promise<LearnedPrompt | undefined>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.waiter = undefined;
          resolve(undefined);
        }, remaining);
        this.waiter = {
          check: () => {
            const p = learnPrompt(this.buffer);
            if (!p) return false;
            clearTimeout(timer);
            this.waiter = undefined;
            resolve(p);
            return true;
          },
          fail: (e) => {
            clearTimeout(timer);
            this.waiter = undefined;
            reject(e);
          },
        };
        this.waiter.check();
      });
      if (!seen) break;
      if (candidate && candidate.base.trimEnd() === seen.base.trimEnd()) {
        this.learned = candidate;
        this.lastPrompt = candidate.find(this.buffer);
        return;
      }
      candidate = seen;
      this.buffer = '';
      this.stream.write('\n');
    }
    const tail = normalise(this.buffer).slice(-200);
    throw new CliConnectionError(
      'login',
      `${where}: no stable prompt after login within the connection-establish-timeout (last output: ${JSON.stringify(tail)})`,
    );
  }

  private received(text: string): void {
    this.buffer += text;
    if (this.buffer.length > MAX_OUTPUT) {
      this.buffer = '';
      this.waiter?.fail(new CliConnectionError('closed', `more than ${MAX_OUTPUT} bytes of output for one command`));
      this.close();
      return;
    }
    this.waiter?.check();
  }

  private ended(reason: string): void {
    if (!this.open) return;
    this.open = false;
    // what the device printed last says why it went (vtysh: `Exiting: failed to connect to any daemons.`)
    const last = this.closedByUs ? '' : normalise(this.buffer).trim().slice(-300);
    const said = last !== '' ? ` (it printed ${JSON.stringify(last)})` : '';
    this.waiter?.fail(new CliConnectionError('closed', `session to ${this.options.host}:${this.options.port} ended: ${reason}${said}`));
    if (!this.closedByUs) this.options.onLost?.(reason);
  }
}

function connectError(e: Error & { level?: string; code?: string }, where: string): CliConnectionError {
  if (e.level === 'client-authentication')
    return new CliConnectionError('authentication', `${where}: authentication failed (wrong username or password)`);
  const code = e.code ? ` (${e.code})` : '';
  return new CliConnectionError('unreachable', `${where}: cannot connect: ${e.message}${code}`);
}

/** `\r\n` to `\n`, lone `\r` dropped, escape sequences removed. */
function normalise(text: string): string {
  return stripEscapes(text).replace(/\r+\n/g, '\n').replace(/\r/g, '');
}

/** Removes the device's echo of the command line (the first line, when it shows the command). */
function dropEcho(output: string, line: string): string {
  const brk = output.indexOf('\n');
  const first = brk < 0 ? output : output.slice(0, brk);
  const sent = line.trim();
  if (first.trim() === '' || first.trimEnd().endsWith(sent) || sent.startsWith(first.trim())) return brk < 0 ? '' : output.slice(brk + 1);
  return output;
}
