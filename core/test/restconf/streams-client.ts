/**
 * A Server-Sent Events client for the stream tests, on node:http (a real HTTP client, as a subscriber's
 * would be): it reads the response as it comes, splits it into messages (`id:`, `event:`, `data:` lines)
 * and comments, and lets a test wait, bounded, for a number of messages or for the end. Always `close()`.
 */
import * as http from 'node:http';

export interface SseMessage {
  readonly id?: string;
  readonly event?: string;
  /** The data lines joined with line feeds. */
  readonly data: string;
}

export interface SseClient {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** The body as received, for answers that are not a stream (errors). */
  readonly text: () => string;
  readonly messages: SseMessage[];
  readonly comments: string[];
  /** Resolves once `count` messages have arrived; rejects after `timeoutMs` saying what did. */
  waitFor(count: number, timeoutMs?: number): Promise<SseMessage[]>;
  /** Resolves once a comment has arrived. */
  waitForComment(timeoutMs?: number): Promise<string>;
  /** Resolves when the server ends the response. */
  waitForEnd(timeoutMs?: number): Promise<void>;
  /** Stops reading (a slow consumer: the server's writes back up), and reads again. */
  pause(): void;
  resume(): void;
  close(): void;
}

/** Opens `url` with `Accept: text/event-stream` (or `headers`) and resolves once the response headers are in. */
export function openStream(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { accept: 'text/event-stream', ...headers } });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('no answer in 30 s')));
    req.on('response', (res) => {
      req.setTimeout(0);
      let raw = '';
      let pending = '';
      let ended = false;
      const messages: SseMessage[] = [];
      const comments: string[] = [];
      const waiters = new Set<() => void>();
      const wake = () => {
        for (const w of [...waiters]) w();
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        raw += chunk;
        pending += chunk;
        let cut = pending.indexOf('\n\n');
        while (cut >= 0) {
          const block = pending.slice(0, cut);
          pending = pending.slice(cut + 2);
          const fields: { id?: string; event?: string } = {};
          const data: string[] = [];
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) fields.id = line.slice(4);
            else if (line.startsWith('event: ')) fields.event = line.slice(7);
            else if (line.startsWith('data: ')) data.push(line.slice(6));
          }
          if (data.length > 0) messages.push({ ...fields, data: data.join('\n') });
          cut = pending.indexOf('\n\n');
        }
        wake();
      });
      res.on('end', () => {
        ended = true;
        wake();
      });
      res.on('error', () => undefined);
      const until = (done: () => boolean, timeoutMs: number, what: () => string): Promise<void> =>
        new Promise((ok, fail) => {
          if (done()) return ok();
          const timer = setTimeout(() => {
            waiters.delete(check);
            fail(new Error(`${what()} not within ${timeoutMs} ms; received: ${raw.slice(0, 2000)}`));
          }, timeoutMs);
          const check = () => {
            if (!done()) return;
            clearTimeout(timer);
            waiters.delete(check);
            ok();
          };
          waiters.add(check);
        });
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        text: () => raw,
        messages,
        comments,
        async waitFor(count, timeoutMs = 10_000) {
          await until(
            () => messages.length >= count,
            timeoutMs,
            () => `${count} messages`,
          );
          return messages.slice(0, count);
        },
        async waitForComment(timeoutMs = 10_000) {
          await until(
            () => comments.length > 0,
            timeoutMs,
            () => 'a comment',
          );
          return comments[0]!;
        },
        waitForEnd: (timeoutMs = 10_000) =>
          until(
            () => ended,
            timeoutMs,
            () => 'the end of the response',
          ),
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => {
          req.destroy();
          res.destroy();
        },
      });
    });
    req.end();
  });
}
