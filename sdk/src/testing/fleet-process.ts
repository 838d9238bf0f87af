/**
 * rosetta-sim: a fleet in processes of its own, driven over stdin and stdout. It spreads the devices over
 * worker processes (fleet-worker.ts), a share of at most `--per-process` devices each, because one process
 * may hold 20,000 file descriptors and every device needs a listener and a connection; prints one JSON
 * line `{"ready":true,"devices":[...]}` once every device listens; then answers each JSON command line
 * (`{"cmd":"drop"|"stall"|"resume"|"restart"|"running"|"stats","ids":[...]}`) with one JSON line, in
 * order, relaying it to the workers that play the devices named. Closing stdin (unless `--until-signal`),
 * SIGTERM or SIGINT stops the workers and exits 0.
 */
import { fork, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { cpuSeconds, fleetHostKey, fleetShared, fleetSpecs, hostKeyFingerprintOf, type FleetDevice, type FleetDeviceSpec } from './fleet';
import { FLEET_COMMANDS, type FleetAnswer, type FleetCommand, type FromWorker, type ToWorker } from './fleet-worker';

const DEFAULT_PER_PROCESS = 2500;

const USAGE = `Usage: rosetta-sim [--netconf N] [--cli M] [--base-port P] [options]

Plays N simulated NETCONF devices (ids nc-00001...) and M FRR-like CLI devices (cli-00001...) on
consecutive ports from P (0, the default, picks free ports; keep P + N + M below 32768, where the
ephemeral range starts). Prints {"ready":true,"devices":[{id,kind,host,port,username,password}...]}
when every device listens, then reads one JSON command per line on stdin and answers each with one
JSON line:
  {"cmd":"drop","ids":["nc-00001"]}   close sessions, refuse connections until resume or restart
  {"cmd":"stall"}                      keep connections, answer nothing (hung devices)
  {"cmd":"resume"}                     end a drop or a stall
  {"cmd":"restart"}                    close sessions and listeners, listen again (a reboot)
  {"cmd":"running","ids":["cli-00001"]} running configuration of each device
  {"cmd":"stats"}                      devices, sessions, dropped, stalled, rssBytes, cpuSeconds, processes
"ids" is optional (all devices); an "id" member is echoed in the answer. Close stdin (or send
SIGTERM) to stop.

Options:
  --netconf N         NETCONF devices (default 0)
  --cli M             CLI devices (default 0)
  --base-port P       first port (default 0: any free ports)
  --host H            address to listen on (default 127.0.0.1)
  --username U        every device's user (default admin)
  --password W        every device's password (default admin)
  --config-lines L    about L JSON lines of configuration per NETCONF device (default 200)
  --per-process K     at most K devices per worker process (default ${DEFAULT_PER_PROCESS})
  --until-signal      keep playing when stdin closes (run in the background: stop with SIGTERM)
  --help              this text
`;

interface Worker {
  readonly child: ChildProcess;
  readonly waiting: Map<number, (answer: FleetAnswer) => void>;
}

/** Runs rosetta-sim with these arguments (without node and script). */
export async function main(argv: readonly string[]): Promise<void> {
  let values: ReturnType<typeof parse>;
  try {
    values = parse(argv);
  } catch (e) {
    process.stderr.write(`rosetta-sim: ${e instanceof Error ? e.message : String(e)}\n\n${USAGE}`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const number = (name: keyof typeof values, fallback: number): number => {
    const text = values[name];
    if (typeof text !== 'string') return fallback;
    const n = Number(text);
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(n)) fail(`--${name} must be a whole number >= 0, not ${JSON.stringify(text)}`);
    return n;
  };
  const perProcess = number('per-process', DEFAULT_PER_PROCESS);
  if (perProcess < 1) fail('--per-process must be at least 1');
  const options = {
    netconf: number('netconf', 0),
    cli: number('cli', 0),
    basePort: number('base-port', 0),
    configLines: number('config-lines', 200),
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(values.username !== undefined ? { username: values.username } : {}),
    ...(values.password !== undefined ? { password: values.password } : {}),
  };
  let specs: FleetDeviceSpec[];
  try {
    specs = fleetSpecs(options);
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
  // one host key for the whole fleet, whichever worker plays a device
  const shared = { ...fleetShared(options), hostKey: fleetHostKey() };

  const workers: Worker[] = [];
  const owner = new Map<string, Worker>();
  let stopping = false;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    // a worker exits when its channel closes (fleet-worker.ts); waiting for the exits means no orphans
    const exits = workers.map(
      (w) => new Promise((resolve) => (w.child.exitCode !== null ? resolve(undefined) : w.child.once('exit', resolve))),
    );
    for (const w of workers) if (w.child.connected) w.child.disconnect();
    void Promise.all(exits).then(() => process.exit(code));
  };
  process.once('SIGTERM', () => stop(0));
  process.once('SIGINT', () => stop(0));

  let seq = 0;
  const ask = (worker: Worker, message: Omit<Extract<ToWorker, { type: 'command' }>, 'seq'>): Promise<FleetAnswer> =>
    new Promise((resolve) => {
      const at = ++seq;
      worker.waiting.set(at, resolve);
      worker.child.send({ ...message, seq: at } satisfies ToWorker);
    });

  const devices: FleetDevice[] = [];
  try {
    const shares: FleetDeviceSpec[][] = [];
    for (let at = 0; at < specs.length; at += perProcess) shares.push(specs.slice(at, at + perProcess));
    const started = await Promise.all(
      shares.map(async (share) => {
        const child = fork(path.join(__dirname, 'fleet-worker.js'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
        const worker: Worker = { child, waiting: new Map() };
        workers.push(worker);
        for (const spec of share) owner.set(spec.id, worker);
        child.on('exit', (code) => {
          for (const resolve of worker.waiting.values()) resolve({ ok: false, error: `a worker process exited (${code})` });
          worker.waiting.clear();
          if (!stopping) {
            process.stderr.write(`rosetta-sim: a worker process exited unexpectedly (${code})\n`);
            stop(1);
          }
        });
        return new Promise<readonly FleetDevice[]>((resolve, reject) => {
          child.on('message', (message: FromWorker) => {
            if (message.type === 'ready') resolve(message.devices);
            else if (message.type === 'failed') reject(new Error(message.error));
            else {
              worker.waiting.get(message.seq)?.(message.answer);
              worker.waiting.delete(message.seq);
            }
          });
          child.send({ type: 'start', specs: share, shared } satisfies ToWorker);
        });
      }),
    );
    for (const share of started) devices.push(...share);
  } catch (e) {
    process.stderr.write(`rosetta-sim: cannot start the fleet: ${e instanceof Error ? e.message : String(e)}\n`);
    stop(1);
    return;
  }
  process.stdout.write(`${JSON.stringify({ ready: true, hostKeyFingerprint: hostKeyFingerprintOf(shared.hostKey), devices })}\n`);

  /** One command line's answer: relayed to the workers owning the devices named, their answers merged. */
  const answer = async (line: string): Promise<Record<string, unknown>> => {
    let request: { cmd?: unknown; ids?: unknown; id?: unknown };
    try {
      request = JSON.parse(line) as typeof request;
      if (request === null || typeof request !== 'object' || Array.isArray(request)) throw new Error('a command is a JSON object');
    } catch (e) {
      return { ok: false, error: `not a JSON command: ${e instanceof Error ? e.message : String(e)}` };
    }
    const echo = request.id !== undefined ? { id: request.id } : {};
    const cmd = request.cmd;
    if (typeof cmd !== 'string' || !FLEET_COMMANDS.includes(cmd as FleetCommand))
      return { ...echo, ok: false, error: `unknown cmd ${JSON.stringify(cmd)}; one of ${FLEET_COMMANDS.join(', ')}` };
    const ids = request.ids;
    if (ids !== undefined && (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')))
      return { ...echo, ok: false, error: 'ids must be an array of device ids' };
    const byWorker = new Map<Worker, string[] | undefined>();
    if (ids === undefined) for (const w of workers) byWorker.set(w, undefined);
    else {
      const unknown = ids.filter((id) => !owner.has(id));
      if (unknown.length > 0) return { ...echo, ok: false, error: `no such device: ${unknown.slice(0, 10).join(', ')}` };
      for (const id of ids) {
        const w = owner.get(id)!;
        const list = byWorker.get(w) ?? [];
        list.push(id);
        byWorker.set(w, list);
      }
    }
    const answers = await Promise.all(
      [...byWorker].map(([w, share]) => ask(w, { type: 'command', cmd: cmd as FleetCommand, ...(share ? { ids: share } : {}) })),
    );
    const failed = answers.find((a) => !a.ok);
    if (failed) return { ...echo, ...failed };
    return { ...echo, ...merge(cmd as FleetCommand, answers, workers.length) };
  };

  // commands are answered one after another, in the order given
  let queue = Promise.resolve();
  const input = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  input.on('line', (line) => {
    if (line.trim() === '') return;
    queue = queue.then(async () => {
      const reply = await answer(line);
      process.stdout.write(`${JSON.stringify(reply)}\n`);
    });
  });
  if (!values['until-signal']) input.on('close', () => void queue.then(() => stop(0)));
}

/** Workers' answers to one command as one: counts and stats summed, running configurations joined. */
function merge(cmd: FleetCommand, answers: readonly FleetAnswer[], processes: number): Record<string, unknown> {
  if (cmd === 'running')
    return { ok: true, running: Object.assign({}, ...answers.map((a) => (a as unknown as { running: object }).running)) };
  const sum: Record<string, unknown> = { ok: true };
  for (const a of answers)
    for (const [field, value] of Object.entries(a))
      if (typeof value === 'number') sum[field] = ((sum[field] as number | undefined) ?? 0) + value;
  if (cmd === 'stats') {
    sum['processes'] = processes;
    sum['rssBytes'] = ((sum['rssBytes'] as number | undefined) ?? 0) + process.memoryUsage.rss();
    sum['cpuSeconds'] = ((sum['cpuSeconds'] as number | undefined) ?? 0) + cpuSeconds();
  }
  return sum;
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      netconf: { type: 'string' },
      cli: { type: 'string' },
      'base-port': { type: 'string' },
      host: { type: 'string' },
      username: { type: 'string' },
      password: { type: 'string' },
      'config-lines': { type: 'string' },
      'per-process': { type: 'string' },
      'until-signal': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  }).values;
}

function fail(message: string): never {
  process.stderr.write(`rosetta-sim: ${message}\n`);
  process.exit(2);
}
