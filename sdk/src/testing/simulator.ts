/**
 * The device simulator: an ssh2 server on loopback that plays a device definition as a live CLI device,
 * behaving by default like FRR's vtysh (banner, `host# ` prompts, echo, `\r\n` line ends, config modes,
 * `% Unknown command: ...`). Config commands edit a running configuration that `show running-config`
 * renders, so a write followed by a read reflects it. Interactive shells (with a PTY) and exec channels
 * both work. Many simulators can run in one process; they share one generated host key. A device's
 * behaviour (cliDevice) stands apart from its listener, so a fleet (fleet.ts) serves many from one SSH server.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Server, utils, type Connection, type ServerChannel } from 'ssh2';
import { hostKeyFingerprint } from '../ssh-host-key';
import {
  FRR_MODES,
  FRR_SINGLE_VALUE,
  addLine,
  parseConfig,
  removeLine,
  renderRunningConfig,
  type ConfigLine,
  type ModeRule,
} from './running-config';

/** What a command's output may depend on. */
export interface DeviceView {
  readonly hostname: string;
  /** The running config as `show running-config` prints it. */
  runningConfig(): string;
  /** Top-level configuration lines and blocks. */
  readonly config: readonly ConfigLine[];
}

export interface DeviceDefinition {
  readonly hostname: string;
  /** Printed at login (default FRR's). */
  readonly banner?: string;
  /** Credentials; absent means any username and password are accepted. */
  readonly username?: string;
  readonly password?: string;
  /** Exec-mode command -> output (a function computes it from the device's state). */
  readonly commands?: Readonly<Record<string, string | ((device: DeviceView) => string)>>;
  /** Running config lines printed after `Current configuration:` and before the body (FRR: version, hostname...). */
  readonly preamble?: readonly string[];
  /** The starting configuration body, indented as in a running config. */
  readonly config?: readonly string[];
  /** Config commands that open sub-modes (default FRR's). */
  readonly modes?: readonly ModeRule[];
  /** Settings that replace their previous value (default FRR's). */
  readonly singleValue?: readonly RegExp[];
  /** When given, config commands must match one of these; others get the unknown-command error. */
  readonly configCommands?: readonly RegExp[];
  /** The error text for an unknown command (default FRR's `% Unknown command: <cmd>`). */
  readonly unknownCommand?: (command: string) => string;
  /**
   * When given, interactive sessions start unprivileged (`host> `) and `enable` asks `Password: ` for this
   * secret (a wrong one prints `% Bad secret`), as a Cisco-like device does.
   */
  readonly enableSecret?: string;
  /**
   * A command matching this makes the device hang mid-output: it prints the first half of the command's
   * output, then never prints the prompt or answers again in that session (a stuck device, for timeouts).
   */
  readonly hangOn?: RegExp;
}

export interface SimulatedDevice {
  readonly host: string;
  readonly port: number;
  readonly view: DeviceView;
  /** Every command received, across sessions, in order. */
  readonly commandLog: readonly string[];
  /** Open SSH connections. */
  readonly connections: number;
  close(): Promise<void>;
}

export interface SimulatorOptions {
  readonly host?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** A PEM private key; default one RSA key generated per process. */
  readonly hostKey?: string;
}

let sharedHostKey: string | undefined;

/** The RSA host key all simulators of this process share (generated on first use). */
export function simulatorHostKey(): string {
  sharedHostKey ??= generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).privateKey;
  return sharedHostKey;
}

/** The SHA256 fingerprint of the simulators' shared host key, as a client pins it (install-node `host-key`). */
export function simulatorHostKeyFingerprint(): string {
  const key = utils.parseKey(simulatorHostKey());
  if (key instanceof Error) throw key;
  return hostKeyFingerprint(key.getPublicSSH());
}

const FRR_BANNER = (version: string) =>
  `\r\nHello, this is FRRouting (version ${version}).\r\nCopyright 1996-2005 Kunihiro Ishiguro, et al.\r\n\r\n`;

/**
 * One simulated CLI device's behaviour and state, apart from any listener: hand it each SSH connection that
 * reaches it. startSimulator gives it a server of its own; a fleet (fleet.ts) shares one SSH server among many.
 */
export interface CliDeviceBehaviour {
  readonly view: DeviceView;
  /** Every command received, across sessions, in order. */
  readonly commandLog: readonly string[];
  /** Serves an accepted SSH connection: password authentication, then shells and exec channels. */
  accept(client: Connection): void;
}

/** A device's behaviour from its definition. */
export function cliDevice(def: DeviceDefinition): CliDeviceBehaviour {
  const modes = def.modes ?? FRR_MODES;
  const singleValue = def.singleValue ?? FRR_SINGLE_VALUE;
  const config = parseConfig(def.config ?? [], modes);
  const commandLog: string[] = [];
  const view: DeviceView = {
    hostname: def.hostname,
    config,
    runningConfig: () => renderRunningConfig(def.preamble ?? [], config),
  };
  const unknown = def.unknownCommand ?? ((cmd: string) => `% Unknown command: ${cmd}`);

  /** One CLI session's state: mode and the block stack it is editing. */
  const newSession = (interactive: boolean) => {
    let enabled = !(interactive && def.enableSecret !== undefined);
    let mode = 'exec';
    const stack: ConfigLine[] = [];
    const modeOf = () => (stack.length > 0 ? (stack[stack.length - 1]!.rule?.mode ?? 'config') : 'config');
    const prompt = () => `${def.hostname}${mode === 'exec' ? '' : `(${mode})`}${enabled ? '#' : '>'} `;

    const execCommand = (cmd: string): string | 'quit' => {
      if (cmd === 'exit' || cmd === 'quit' || cmd === 'logout') return 'quit';
      if (cmd === 'enable') {
        if (!enabled && def.enableSecret !== undefined) return 'password?';
        enabled = true;
        return '';
      }
      if (cmd === 'disable') {
        enabled = false;
        return '';
      }
      if (/^terminal length \d+$/.test(cmd)) return '';
      const table = def.commands?.[cmd];
      if (table !== undefined) return typeof table === 'function' ? table(view) : table;
      if (!enabled) return unknown(cmd);
      if (/^conf(igure)?( t(erminal)?)?$/.test(cmd)) {
        mode = 'config';
        return '';
      }
      if (cmd === 'show running-config' || cmd === 'show running-config ') return view.runningConfig();
      return unknown(cmd);
    };

    const configCommand = (cmd: string): string => {
      if (cmd === 'end') {
        stack.length = 0;
        mode = 'exec';
        return '';
      }
      // a block's own closer (`exit-vrf`, `exit-address-family`) leaves it as `exit` does
      if (cmd === 'exit' || (stack.length > 0 && cmd === stack[stack.length - 1]!.rule?.closer)) {
        if (stack.length > 0) stack.pop();
        else mode = 'exec';
        if (mode !== 'exec') mode = modeOf();
        return '';
      }
      if (cmd.startsWith('do ')) {
        const out = execCommand(cmd.slice(3));
        return out === 'quit' ? '' : out;
      }
      // a command opening a block is looked for in the current mode, then in the modes above (as vtysh does)
      for (let depth = stack.length; depth >= 0; depth--) {
        const here = depth > 0 ? (stack[depth - 1]!.rule?.mode ?? 'config') : 'config';
        const rule = modes.find((m) => (m.from ?? ['config']).includes(here) && m.enter.test(cmd));
        if (!rule) continue;
        stack.length = depth;
        const container = depth > 0 ? stack[depth - 1]!.children : config;
        stack.push(addLine(container, cmd, singleValue, rule));
        mode = rule.mode;
        return '';
      }
      if (def.configCommands && !def.configCommands.some((re) => re.test(cmd.replace(/^no /, '')))) return unknown(cmd);
      const container = stack.length > 0 ? stack[stack.length - 1]!.children : config;
      if (cmd.startsWith('no ')) removeLine(container, cmd.slice(3));
      else addLine(container, cmd, singleValue, undefined);
      return '';
    };

    return {
      prompt,
      /** Checks the secret typed after `enable` asked for it. */
      enable(secret: string): string {
        if (secret !== def.enableSecret) return '% Bad secret';
        enabled = true;
        return '';
      },
      run(line: string): string | 'quit' {
        const cmd = line.trim().replace(/\s+/g, ' ');
        if (cmd === '') return '';
        commandLog.push(cmd);
        return mode === 'exec' ? execCommand(cmd) : configCommand(cmd);
      },
    };
  };

  const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');

  const serveShell = (stream: ServerChannel): void => {
    const session = newSession(true);
    stream.write(def.banner ?? FRR_BANNER('8.4.4'));
    stream.write(session.prompt());
    let buffer = '';
    let lastWasCr = false;
    let askingSecret = false;
    let hung = false;
    stream.on('data', (data: Buffer) => {
      if (hung) return;
      for (const ch of data.toString('utf8')) {
        if (ch === '\n' && lastWasCr) {
          lastWasCr = false;
          continue;
        }
        lastWasCr = ch === '\r';
        if (ch === '\r' || ch === '\n') {
          stream.write('\r\n');
          if (askingSecret) {
            askingSecret = false;
            const answer = session.enable(buffer);
            buffer = '';
            if (answer !== '') stream.write(crlf(`${answer}\n`));
            stream.write(session.prompt());
            continue;
          }
          const line = buffer;
          const out = session.run(line);
          buffer = '';
          if (out === 'quit') {
            stream.exit(0);
            stream.end();
            return;
          }
          if (out === 'password?') {
            askingSecret = true;
            stream.write('Password: ');
            continue;
          }
          const text = out === '' ? '' : crlf(out.endsWith('\n') ? out : `${out}\n`);
          if (def.hangOn?.test(line.trim())) {
            // a stuck device: half the output, then silence for the rest of the session
            hung = true;
            stream.write(text.slice(0, Math.ceil(text.length / 2)));
            return;
          }
          if (text !== '') stream.write(text);
          stream.write(session.prompt());
        } else if (askingSecret) {
          if (buffer.length < 4096) buffer += ch; // secrets are not echoed
        } else if (ch === '\x7f' || ch === '\b') {
          if (buffer.length > 0) {
            buffer = buffer.slice(0, -1);
            stream.write('\b \b');
          }
        } else if (ch >= ' ' && buffer.length < 4096) {
          buffer += ch;
          stream.write(ch);
        }
      }
    });
  };

  const serveExec = (stream: ServerChannel, command: string): void => {
    const session = newSession(false);
    let failed = false;
    const outputs: string[] = [];
    for (const line of command.split(/\r?\n/)) {
      const out = session.run(line);
      if (out === 'quit') break;
      if (out.startsWith('% ')) failed = true;
      if (out !== '') outputs.push(out.endsWith('\n') ? out : `${out}\n`);
    }
    // the exit status after the output has gone out: a client may stop reading at `exit`
    const done = () => {
      stream.exit(failed ? 1 : 0);
      stream.end();
    };
    if (outputs.length === 0) done();
    else stream.write(outputs.join(''), done);
  };

  const accept = (client: Connection): void => {
    // a prompt is a few bytes after the output: without this, Nagle holds it for the client's delayed ACK
    // (ssh2's server connection has setNoDelay; its type declarations omit it)
    (client as unknown as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
    client.on('error', () => undefined); // a client that vanishes mid-handshake is its own business
    client.on('authentication', (ctx) => {
      const ok =
        ctx.method === 'password' &&
        (def.username === undefined || ctx.username === def.username) &&
        (def.password === undefined || ctx.password === def.password);
      if (ok) ctx.accept();
      else ctx.reject(['password']);
    });
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('pty', (accept) => accept?.());
        session.on('window-change', (accept) => accept?.());
        session.on('env', (accept) => accept?.());
        session.on('shell', (accept) => serveShell(accept()));
        session.on('exec', (accept, _reject, info) => serveExec(accept(), info.command));
      });
    });
  };
  return { view, commandLog, accept };
}

/** Starts a simulated device; resolves once it listens. */
export async function startSimulator(def: DeviceDefinition, options: SimulatorOptions = {}): Promise<SimulatedDevice> {
  const device = cliDevice(def);
  const clients = new Set<Connection>();
  const server = new Server({ hostKeys: [options.hostKey ?? simulatorHostKey()] }, (client) => {
    clients.add(client);
    client.on('close', () => clients.delete(client));
    client.on('error', () => clients.delete(client));
    device.accept(client);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    host: address.address,
    port: address.port,
    view: device.view,
    commandLog: device.commandLog,
    get connections() {
      return clients.size;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of clients) c.end();
        server.close(() => resolve());
      }),
  };
}
