/**
 * The CLI conversation on top of one shell: privileged mode (`enable` and the secret when the device
 * lands at `>`), paging off, exec mode versus configuration mode (read from the prompt, never assumed),
 * and recognising a device's error message by the serving units' error patterns.
 */
import { CliConnectionError, CliDeviceUnusableError } from './errors';
import type { CliShell, Reply } from './shell';

/** The patterns used when the serving units declare none: Cisco-like `% ...` lines. */
export const DEFAULT_ERROR_PATTERNS: readonly RegExp[] = [/^% /m];

/**
 * Commands that turn paging off, by device type (the `device-type` of install-node). FRR never pages
 * (REPORT.md), so it needs nothing; Cisco-like devices take `terminal length 0`. An error answer to a
 * paging command is ignored: the device may simply not page.
 */
const PAGING_OFF: Readonly<Record<string, readonly string[]>> = { frr: [] };
const DEFAULT_PAGING_OFF: readonly string[] = ['terminal length 0'];

export function pagingCommands(deviceType: string | undefined): readonly string[] {
  return (deviceType !== undefined ? PAGING_OFF[deviceType.toLowerCase()] : undefined) ?? DEFAULT_PAGING_OFF;
}

/** The line of `output` on which the first pattern matches (the device's error message), if any. */
export function findDeviceError(output: string, patterns: readonly RegExp[]): string | undefined {
  for (const p of patterns.length > 0 ? patterns : DEFAULT_ERROR_PATTERNS) {
    const re = p.global || p.sticky ? new RegExp(p.source, p.flags.replace(/[gy]/g, '')) : p;
    const m = re.exec(output);
    if (!m) continue;
    const start = output.lastIndexOf('\n', m.index) + 1;
    const end = output.indexOf('\n', m.index + m[0].length);
    return output.slice(start, end < 0 ? undefined : end).trim() || m[0].trim();
  }
  return undefined;
}

export interface CliSessionOptions {
  readonly commandTimeoutMs: number;
  readonly secret: string | undefined;
  readonly deviceType: string | undefined;
  /**
   * The serving units' unusable patterns, asked for at each command (units can change while the session
   * lives). Output matching one fails the command with CliDeviceUnusableError.
   */
  readonly unusablePatterns?: () => readonly RegExp[];
}

const PASSWORD_QUESTION = /[Pp]ass(?:word|code)?:\s*$/;

/** A logged-in device session that knows its mode. Callers serialise (device.ts queues requests). */
export class CliSession {
  /** Commands sent on this session, for tests and logs (never the secret). */
  readonly sent: string[] = [];

  constructor(
    private readonly shell: CliShell,
    private readonly options: CliSessionOptions,
  ) {}

  /** Privileged mode and paging off, right after login. */
  async prepare(): Promise<void> {
    if (this.shell.current && !this.shell.current.privileged) await this.enable();
    for (const command of pagingCommands(this.options.deviceType)) await this.send(command);
  }

  get isOpen(): boolean {
    return this.shell.isOpen;
  }

  /** The base prompt learned at login (`frr-peer#`). */
  get basePrompt(): string {
    return this.shell.prompt.base.trim();
  }

  /** Whether the device's last prompt shows a configuration mode (`host(config...)#`). */
  get inConfigMode(): boolean {
    return this.shell.current?.mode !== undefined;
  }

  /** One command in exec mode (leaving configuration mode first): its output. */
  async exec(command: string): Promise<string> {
    if (this.inConfigMode) await this.send('end');
    return (await this.send(command)).output;
  }

  /**
   * One command in exec mode, its output as printed, not checked against the unusable patterns (for
   * execute-and-read, whose caller wants to see what the device says, whatever it is).
   */
  async execRaw(command: string): Promise<string> {
    if (this.inConfigMode) await this.send('end');
    return (await this.send(command, false)).output;
  }

  /**
   * Exec-mode commands typed ahead in one write, for a device that reads typed-ahead input in order (the
   * serving units say so): each output checked as `exec` checks it, each promise settling as soon as the
   * device has answered that command. Out of configuration mode first, which the device must finish before
   * it takes the commands.
   */
  execAll(commands: readonly string[]): Promise<string>[] {
    if (commands.length === 0) return [];
    const ready = this.inConfigMode ? this.send('end') : undefined;
    if (ready) {
      // the prompt after `end` must come first; then the same, from exec mode
      const typed = ready.then(() => this.execAll(commands));
      return commands.map((_, i) => typed.then((outputs) => outputs[i]!));
    }
    this.sent.push(...commands);
    return this.shell
      .sendAll(commands, this.options.commandTimeoutMs)
      .map((reply, i) => reply.then((r) => this.checked(commands[i]!, r).output));
  }

  /** Enters configuration mode (`configure terminal`) unless the device is in it already. */
  async enterConfig(): Promise<void> {
    if (this.inConfigMode) return;
    const reply = await this.send('configure terminal');
    if (!this.inConfigMode) {
      throw new CliConnectionError(
        'login',
        `the device did not enter configuration mode: ${reply.output.trim() || `prompt ${reply.prompt?.text ?? '?'}`}`,
      );
    }
  }

  /** One command in configuration mode: its output (the caller checks it for errors). */
  async configure(command: string): Promise<string> {
    await this.enterConfig();
    return (await this.send(command)).output;
  }

  /** Back to exec mode from any configuration mode. */
  async leaveConfig(): Promise<void> {
    if (this.inConfigMode) await this.send('end');
  }

  /** A harmless empty command: proves the session alive and keeps idle timers on the way from closing it. */
  async keepalive(): Promise<void> {
    await this.shell.send('', this.options.commandTimeoutMs);
  }

  close(): void {
    this.shell.close();
  }

  private async send(command: string, checked = true): Promise<Reply> {
    this.sent.push(command);
    const reply = await this.shell.send(command, this.options.commandTimeoutMs);
    return checked ? this.checked(command, reply) : reply;
  }

  /** The reply, unless its output says the device cannot serve (CliDeviceUnusableError). */
  private checked(command: string, reply: Reply): Reply {
    const patterns = this.options.unusablePatterns?.();
    if (patterns !== undefined && patterns.length > 0 && reply.output !== '') {
      const line = findDeviceError(reply.output, patterns);
      if (line !== undefined) throw new CliDeviceUnusableError(command, line);
    }
    return reply;
  }

  private async enable(): Promise<void> {
    this.sent.push('enable');
    const asked = await this.shell.send('enable', this.options.commandTimeoutMs, PASSWORD_QUESTION);
    if (!asked.prompt) {
      if (this.options.secret === undefined)
        throw new CliConnectionError('login', 'the device asks for an enable secret: set cli-topology:secret');
      const answer = await this.shell.send(this.options.secret, this.options.commandTimeoutMs, PASSWORD_QUESTION, false);
      if (!answer.prompt) throw new CliConnectionError('login', 'the device refused the enable secret (it asks again)');
    }
    if (!this.shell.current?.privileged) throw new CliConnectionError('login', 'the device refused the enable secret (still in user mode)');
  }
}
