/**
 * The benchmarks' one HTTP client: node's `http` over keep-alive sockets. Not `fetch`: Node 20's fetch
 * (undici) spends ~0.3–0.5 ms of this process's CPU per request, which on a 2-core machine would be
 * counted as the service's latency (a mount GET measured 1.68 ms with fetch, 1.17 ms with this client).
 * Real clients (curl, Postman, Python) run in their own process.
 */
import * as http from 'node:http';

export interface Reply {
  readonly status: number;
  readonly text: string;
  readonly headers: http.IncomingHttpHeaders;
}

export interface BenchClient {
  /** Sends one request; a non-string body is sent as JSON (application/yang-data+json). */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** Like request, but fails unless the status is one of `ok` (default: any 2xx). */
  must(method: string, path: string, body?: unknown, ok?: readonly number[]): Promise<Reply>;
  close(): void;
}

/** A client of the service at `baseUrl` with up to `sockets` keep-alive connections. */
export function benchClient(baseUrl: string, sockets = 1): BenchClient {
  const { hostname, port } = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });
  const request = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const req = http.request(
        {
          host: hostname,
          port,
          path,
          method,
          agent,
          headers: {
            ...(text !== undefined ? { 'content-type': 'application/yang-data+json', 'content-length': Buffer.byteLength(text) } : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), headers: res.headers }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  const must = async (method: string, path: string, body?: unknown, ok?: readonly number[]): Promise<Reply> => {
    const reply = await request(method, path, body);
    const good = ok ? ok.includes(reply.status) : reply.status >= 200 && reply.status < 300;
    if (!good) throw new Error(`${method} ${path}: ${reply.status} ${reply.text.slice(0, 300)}`);
    return reply;
  };
  return { request, must, close: () => agent.destroy() };
}
