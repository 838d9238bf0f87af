/**
 * `rosetta hash-password`: reads a password (the first line of standard input) and prints the scrypt hash
 * to put in the configuration's `auth.users[].passwordHash`. The password is never taken as an argument,
 * so it stays out of shell history and process listings:
 *
 * ```sh
 * printf '%s\n' "$PASSWORD" | npx rosetta hash-password
 * ```
 * At a terminal it asks twice, without echoing. Format: `scrypt$N$r$p$salt$key`, salt (16 random bytes)
 * and key (32 bytes) in base64; the default cost
 * (N=16384, r=8, p=1: about 16 MB and tens of milliseconds per check) is what the authentication plugin
 * expects to verify once per client and then cache.
 */
import { randomBytes, scrypt } from 'node:crypto';
import * as readline from 'node:readline';
import { parseArgs } from 'node:util';
import { MAX_SCRYPT_MEMORY, scryptHashProblem } from '../service/auth-config';

const HELP = `usage: printf '%s\\n' "$PASSWORD" | rosetta hash-password [--cost N]

Prints the scrypt hash of the password on the first line of standard input, for auth.users[].passwordHash.
  --cost N     scrypt N, a power of two from 1024 (default 16384)
  -h, --help   show this help`;

/** scrypt parameters of a new hash. */
export interface HashOptions {
  readonly cost?: number;
  readonly blockSize?: number;
  readonly parallelization?: number;
}

/** Hashes `password` into the `scrypt$N$r$p$salt$key` form the configuration stores. */
export function hashPassword(password: string, options: HashOptions = {}): Promise<string> {
  const N = options.cost ?? 16384;
  const r = options.blockSize ?? 8;
  const p = options.parallelization ?? 1;
  const salt = randomBytes(16);
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, 32, { N, r, p, maxmem: MAX_SCRYPT_MEMORY + 1024 * 1024 }, (err, key) => {
      if (err) reject(err);
      else resolve(`scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`);
    });
  });
}

function firstLine(input: NodeJS.ReadableStream): Promise<string | undefined> {
  return new Promise((resolve) => {
    const rl = readline.createInterface({ input, terminal: false });
    let line: string | undefined;
    rl.once('line', (l) => {
      line = l;
      rl.close();
    });
    rl.once('close', () => resolve(line));
  });
}

/** Reads one line from a terminal without echoing it; undefined on Ctrl-C or Ctrl-D with nothing typed. */
function secretFromTerminal(input: NodeJS.ReadStream, prompt: string): Promise<string | undefined> {
  process.stderr.write(prompt);
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  let typed = '';
  return new Promise((resolve) => {
    const finish = (value: string | undefined): void => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      resolve(value);
    };
    const onData = (chunk: string): void => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') {
          finish(typed);
          return;
        }
        if (ch === '\u0003' || (ch === '\u0004' && typed === '')) {
          finish(undefined);
          return;
        }
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else if (ch >= ' ') typed += ch;
      }
    };
    input.on('data', onData);
  });
}

/** Runs `rosetta hash-password`; resolves to the exit code. */
export async function hashPasswordCommand(argv: readonly string[], input: NodeJS.ReadableStream = process.stdin): Promise<number> {
  let values: { cost?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { cost: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (e) {
    console.error(`rosetta hash-password: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const cost = values.cost === undefined ? 16384 : Number(values.cost);
  const costProblem = /^\d{1,8}$/.test(values.cost ?? '16384')
    ? scryptHashProblem(`scrypt$${cost}$8$1$AAAAAAAAAAA=$AAAAAAAAAAAAAAAAAAAAAA==`)
    : 'not a number';
  if (costProblem) {
    console.error(`rosetta hash-password: --cost: ${costProblem}`);
    return 2;
  }
  const terminal = (input as NodeJS.ReadStream).isTTY === true && typeof (input as NodeJS.ReadStream).setRawMode === 'function';
  let password: string | undefined;
  if (terminal) {
    password = await secretFromTerminal(input as NodeJS.ReadStream, 'password: ');
    if (password !== undefined && password !== '' && (await secretFromTerminal(input as NodeJS.ReadStream, 'again: ')) !== password) {
      console.error('rosetta hash-password: the two passwords differ');
      return 2;
    }
  } else {
    password = await firstLine(input);
  }
  if (password === undefined || password === '') {
    console.error('rosetta hash-password: no password on standard input');
    return 2;
  }
  console.log(await hashPassword(password, { cost }));
  return 0;
}
