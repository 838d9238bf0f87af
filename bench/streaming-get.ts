/**
 * A GET read straight off its socket, for a client that holds a thousand event streams in one thread:
 * Node's HTTP client costs a parser callback, a readable stream push and an event per chunk on every
 * stream, which at hundreds of thousands of deliveries a second made the benchmark's client the thing
 * it measured. Here each socket read is cut into the body bytes it carries (HTTP/1.1 chunked framing
 * removed, or the bytes as they are for a body that runs to the close) and handed over with no copy.
 * It reads one response and needs nothing more of HTTP: no redirects, no trailers, no keep-alive.
 */
import * as net from 'node:net';

export interface StreamingGetHandlers {
  /** The response's status line and headers have arrived. */
  readonly onHead: (status: number) => void;
  /** Body bytes as they arrive, in order; `at` is when their socket read came. */
  readonly onBody: (bytes: Buffer, at: number) => void;
  /** The response ended, or the connection failed (`error` says why). Called once. */
  readonly onEnd: (error?: string) => void;
}

const CRLF_CRLF = Buffer.from('\r\n\r\n');
const NEWLINE = 0x0a;

export class StreamingGet {
  private readonly socket: net.Socket;
  private head: Buffer | undefined = Buffer.alloc(0);
  private chunked = false;
  /** Chunked framing: what is being read, the data bytes left of the chunk, the size line so far. */
  private state: 'size' | 'data' | 'crlf' = 'size';
  private left = 0;
  private sizeLine = '';
  private ended = false;

  constructor(
    url: URL,
    headers: Record<string, string>,
    private readonly handlers: StreamingGetHandlers,
    private readonly clock: () => number,
  ) {
    const port = Number(url.port || 80);
    this.socket = net.connect({ host: url.hostname, port });
    this.socket.setNoDelay(true);
    let request = `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n`;
    for (const [name, value] of Object.entries(headers)) request += `${name}: ${value}\r\n`;
    this.socket.write(`${request}\r\n`);
    this.socket.on('data', (bytes: Buffer) => this.read(bytes, this.clock()));
    this.socket.on('error', (e) => this.end(e.message));
    this.socket.on('close', () => this.end(this.head !== undefined ? 'the connection closed before a response' : undefined));
  }

  close(): void {
    this.socket.destroy();
  }

  private end(error?: string): void {
    if (this.ended) return;
    this.ended = true;
    this.socket.destroy();
    this.handlers.onEnd(error);
  }

  private read(bytes: Buffer, at: number): void {
    let from = 0;
    if (this.head !== undefined) {
      const head = this.head.length === 0 ? bytes : Buffer.concat([this.head, bytes]);
      const headEnd = head.indexOf(CRLF_CRLF);
      if (headEnd < 0) {
        this.head = Buffer.from(head);
        return;
      }
      const text = head.toString('latin1', 0, headEnd);
      this.head = undefined;
      this.chunked = /\r\ntransfer-encoding:[^\r]*chunked/i.test(text);
      this.handlers.onHead(Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0));
      bytes = head;
      from = headEnd + CRLF_CRLF.length;
    }
    if (!this.chunked) {
      if (from < bytes.length) this.handlers.onBody(bytes.subarray(from), at);
      return;
    }
    this.unframe(bytes, from, at);
  }

  /** Hands over the data of the chunks in `bytes` from `from`; a frame cut by the read continues in the next. */
  private unframe(bytes: Buffer, from: number, at: number): void {
    let pos = from;
    while (pos < bytes.length && !this.ended) {
      if (this.state === 'size') {
        const eol = bytes.indexOf(NEWLINE, pos);
        if (eol < 0) {
          this.sizeLine += bytes.toString('latin1', pos);
          return;
        }
        const line = this.sizeLine + bytes.toString('latin1', pos, eol);
        this.sizeLine = '';
        pos = eol + 1;
        const size = Number.parseInt(line, 16); // stops at a chunk extension or the CR
        if (!Number.isFinite(size) || size === 0) {
          this.end(size === 0 ? undefined : `bad chunk size line: ${JSON.stringify(line)}`);
          return;
        }
        this.left = size;
        this.state = 'data';
      } else if (this.state === 'data') {
        const take = Math.min(this.left, bytes.length - pos);
        this.handlers.onBody(bytes.subarray(pos, pos + take), at);
        this.left -= take;
        pos += take;
        if (this.left === 0) {
          this.state = 'crlf';
          this.left = 2;
        }
      } else {
        const skip = Math.min(this.left, bytes.length - pos);
        this.left -= skip;
        pos += skip;
        if (this.left === 0) this.state = 'size';
      }
    }
  }
}
