/**
 * The benchmarks' HTTP load generator: `wrk -t1 -c8 --latency` in its own process, so that what a row
 * measures is the server and not the client. The in-process client (http-client.ts) topped out at
 * 9,400-20,000 requests/s on this 2-core machine whatever answered, so the trivial server and the
 * service looked alike; wrk measured the same trivial server at 21,000-57,000 requests/s.
 * Requests are made by a Lua script written to a temporary file per run (wrk's `request` function):
 * the key of the entry steps by 7919 through the stored keys, so eight connections touch eight
 * different entries, and a PUT's body changes with every request, so every durable write is a change.
 * The trivial server is loaded with the same script shape (its path is ignored), so both sides of a
 * ratio pay the same client cost.
 * When wrk is not installed (Debian package `wrk`; .ci/run installs it), loadTool says why and the
 * loads are skipped: autocannon, the other out-of-process tool, is not a dependency of this repository.
 */
import { execFile, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface Load {
  /** 2xx answers per second. */
  readonly perSecond: number;
  readonly p99Ms: number;
  /** 2xx answers in all. */
  readonly answered: number;
  /** Non-2xx answers and socket errors (connect, read, write, timeout). */
  readonly errors: number;
}

/** What the load asks for, per request; `k` is the entry's number (0 to stored-1), `n` the request's. */
export type LoadRequest =
  | { readonly method: 'GET'; readonly pathPrefix: string; readonly stored: number }
  /** The same resource every time (a scrape of /metrics). */
  | { readonly method: 'GET'; readonly path: string }
  | {
      readonly method: 'PUT';
      readonly pathPrefix: string;
      readonly stored: number;
      /** The body as a Lua expression over k and n (strings concatenated with `..`). */
      readonly luaBody: string;
      readonly contentType: string;
    };

/** Null when wrk can run here, else the reason the loads are skipped (for the reader of the run). */
export function loadTool(): string | null {
  const probe = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  if (probe.error === undefined) return null;
  return `wrk is not installed (${(probe.error as NodeJS.ErrnoException).code ?? probe.error.message}; Debian package wrk, which .ci/run installs), and autocannon is not a dependency of this repository`;
}

function luaString(s: string): string {
  return JSON.stringify(s);
}

function script(r: LoadRequest): string {
  if ('path' in r) return [`request = function()`, `  return wrk.format("GET", ${luaString(r.path)})`, 'end', ''].join('\n');
  const common = ['local n = 0', 'request = function()', `  local k = (n * 7919) % ${r.stored}`, '  n = n + 1'];
  if (r.method === 'GET') return [...common, `  return wrk.format("GET", ${luaString(r.pathPrefix)} .. k)`, 'end', ''].join('\n');
  return [
    'wrk.method = "PUT"',
    `wrk.headers["Content-Type"] = ${luaString(r.contentType)}`,
    ...common,
    `  return wrk.format("PUT", ${luaString(r.pathPrefix)} .. k, nil, ${r.luaBody})`,
    'end',
    '',
  ].join('\n');
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Reads wrk's --latency report: 2xx answers per second, p99, errors. */
export function parseWrk(out: string): Load {
  const total = /(\d+) requests in ([\d.]+)(us|ms|s|m|h),/.exec(out);
  const p99 = /^\s*99(?:\.0+)?%\s+([\d.]+)(us|ms|s|m|h)\s*$/m.exec(out);
  if (total === null || p99 === null) throw new Error(`wrk printed no totals or no 99th percentile:\n${out}`);
  const requests = Number(total[1]);
  const seconds = (Number(total[2]) * UNIT_MS[total[3]!]!) / 1000;
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const sockets = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = sockets === null ? 0 : sockets.slice(1).reduce((a, b) => a + Number(b), 0);
  const answered = requests - non2xx;
  return {
    perSecond: answered / seconds,
    p99Ms: Number(p99[1]) * UNIT_MS[p99[2]!]!,
    answered,
    errors: non2xx + socketErrors,
  };
}

/** Runs `wrk -t1 -c<connections> -d<seconds>s --latency` against `base` (http://127.0.0.1:port). */
export async function wrkLoad(base: string, request: LoadRequest, seconds: number, connections = 8): Promise<Load> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-wrk-'));
  const file = path.join(dir, 'load.lua');
  fs.writeFileSync(file, script(request));
  try {
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        'wrk',
        ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', file, `${base}/`],
        { timeout: (seconds + 30) * 1000, maxBuffer: 1 << 20 },
        (error, stdout, stderr) => (error ? reject(new Error(`wrk failed: ${error.message}\n${stdout}${stderr}`)) : resolve(stdout)),
      );
    });
    const load = parseWrk(out);
    if (load.errors > 0)
      console.error(
        `bench: wrk ${request.method} ${base}${'path' in request ? request.path : `${request.pathPrefix}...`}: ${load.errors} errors\n${out}`,
      );
    return load;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
