/**
 * `rosetta start` as a child process, for the tests of several instances on one database: its URL once
 * it listens, its output, a clean stop and a kill -9.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';

const BIN = path.resolve(__dirname, '../../../bin/rosetta.js');

export interface RosettaProcess {
  /** Where it listens (absent when it exited instead). */
  readonly url?: string;
  /** Its process id. */
  readonly pid: number;
  /** How it ended, once it has (undefined while it runs). */
  exited(): number | string | undefined;
  /** Its exit code, when it exited before listening. */
  readonly code?: number | null;
  /** Everything it wrote so far, stdout and stderr. */
  output(): string;
  /** SIGTERM, then its end. */
  stop(): Promise<void>;
  /** SIGKILL, then its end: a crash, nothing flushed or handed over. */
  kill(): Promise<void>;
}

/** `rosetta start --port 0` with `args`; resolves once it listens with its modules loaded, or exits. */
export function startRosetta(args: readonly string[]): Promise<RosettaProcess> {
  const proc = spawn(process.execPath, [BIN, 'start', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  // 'close', not 'exit': the process may exit before its last output has been read from the pipes
  const exited = new Promise<number | null>((resolve) => proc.once('close', (code) => resolve(code)));
  const ending = (signal: NodeJS.Signals) => async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    await exited;
  };
  const controls = {
    pid: proc.pid!,
    exited: () => proc.exitCode ?? proc.signalCode ?? undefined,
    output: () => out,
    stop: ending('SIGTERM'),
    kill: ending('SIGKILL'),
  };
  return new Promise((resolve) => {
    const seen = (d: Buffer) => {
      out += d;
      const where = /listening on (\S+)\/rests/.exec(out);
      if (where && /modules loaded/.test(out)) resolve({ url: where[1]!, ...controls });
    };
    proc.stdout!.on('data', seen);
    proc.stderr!.on('data', seen);
    void exited.then((code) => resolve({ code, ...controls }));
  });
}
