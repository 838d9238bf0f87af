/**
 * RFC 6242 message framing, both directions: base:1.0 end-of-message (`]]>]]>`) and base:1.1 chunked
 * framing (`\n#<len>\n<bytes>...\n##\n`). The reader is a byte-level state machine fed whatever the
 * transport delivers, so a frame split across reads at any byte, several frames in one read, and a
 * UTF-8 character split between chunks all decode the same. Malformed framing is a FramingError (the
 * session must then be closed: RFC 6242 §4.2), never a hang; a size cap bounds memory.
 */

export type FramingMode = 'eom' | 'chunked';

/** The end-of-message marker of base:1.0 framing. */
export const EOM_MARKER = ']]>]]>';
const EOM = Buffer.from(EOM_MARKER);

/** Largest chunk size RFC 6242 allows. */
const MAX_CHUNK = 4294967295;

/** Largest message accepted by default (bytes): big configurations fit; a runaway peer does not. */
export const DEFAULT_MAX_MESSAGE = 256 * 1024 * 1024;

/** Malformed framing, with the byte offset in the stream where it was found. */
export class FramingError extends Error {
  constructor(
    readonly reason: string,
    readonly streamOffset: number,
  ) {
    super(`NETCONF framing error at byte ${streamOffset}: ${reason}`);
    this.name = 'FramingError';
  }
}

/** Frames one message for sending. */
export function frameMessage(message: string, mode: FramingMode): string {
  return mode === 'eom' ? `${message}${EOM_MARKER}` : `\n#${Buffer.byteLength(message)}\n${message}\n##\n`;
}

type ChunkState =
  | { kind: 'lf' } // expecting the \n that starts a chunk header or the end marker
  | { kind: 'hash' } // expecting #
  | { kind: 'size-first' } // first byte after #: a digit 1-9, or # for the end of chunks
  | { kind: 'size'; value: number; digits: number }
  | { kind: 'end-lf' } // after \n## expecting \n
  | { kind: 'data'; remaining: number };

/**
 * Reads framed messages from a byte stream. Starts in `eom` mode (hellos are always end-of-message
 * framed); the owner switches to `chunked` once both hellos advertise base:1.1, and bytes already read
 * past the hello are decoded in the new mode.
 */
export class FrameReader {
  private mode: FramingMode = 'eom';
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** EOM mode: bytes held back because they might start the marker. */
  private eomTail: Buffer = Buffer.alloc(0);
  private chunk: ChunkState = { kind: 'lf' };
  private offset = 0;
  private broken: FramingError | undefined;
  /** The current `push` call's `onPart`. */
  private onPart: ((bytes: Buffer) => void) | undefined;

  constructor(private readonly maxMessage = DEFAULT_MAX_MESSAGE) {}

  get framing(): FramingMode {
    return this.mode;
  }

  /** Switches framing for the bytes after the message being delivered (call from `onMessage`). */
  useChunked(): void {
    this.mode = 'chunked';
  }

  /**
   * Feeds bytes; calls `onMessage` for each complete message, in order, and `onPart` (if given) with
   * each run of a message's bytes as it arrives, before that message is complete (a reader may start
   * on a long message while the rest is on the wire). Throws FramingError (and keeps throwing it) once
   * the stream is malformed.
   */
  push(data: Buffer, onMessage: (message: string) => void, onPart?: (bytes: Buffer) => void): void {
    if (this.broken) throw this.broken;
    this.onPart = onPart;
    let buf = data;
    while (buf.length > 0) {
      const before = this.mode;
      const rest = before === 'eom' ? this.pushEom(buf, onMessage) : this.pushChunked(buf, onMessage);
      buf = rest;
      if (this.mode === before && rest.length > 0) throw new Error('framing reader made no progress'); // unreachable
    }
  }

  private fail(reason: string, at: number): never {
    this.broken = new FramingError(reason, at);
    this.pending = [];
    throw this.broken;
  }

  private collect(part: Buffer, at: number): void {
    if (part.length === 0) return;
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxMessage) this.fail(`message larger than ${this.maxMessage} bytes`, at);
    this.pending.push(part);
    this.onPart?.(part);
  }

  private takeMessage(): string {
    const text = Buffer.concat(this.pending, this.pendingBytes).toString('utf8');
    this.pending = [];
    this.pendingBytes = 0;
    return text;
  }

  /** Returns the bytes left unread when the mode changed during a message callback, else empty. */
  private pushEom(input: Buffer, onMessage: (message: string) => void): Buffer {
    let buf = this.eomTail.length > 0 ? Buffer.concat([this.eomTail, input]) : input;
    const base = this.offset - this.eomTail.length;
    this.eomTail = Buffer.alloc(0);
    let from = 0;
    for (;;) {
      const at = buf.indexOf(EOM, from);
      if (at < 0) break;
      this.collect(buf.subarray(from, at), base + at);
      from = at + EOM.length;
      onMessage(this.takeMessage());
      if (this.mode !== 'eom') {
        const rest = buf.subarray(from);
        this.offset = base + from;
        return rest;
      }
    }
    // keep up to marker-length-1 bytes that may begin a split marker
    const keep = Math.min(EOM.length - 1, buf.length - from);
    this.collect(buf.subarray(from, buf.length - keep), base + from);
    this.eomTail = Buffer.from(buf.subarray(buf.length - keep));
    this.offset = base + buf.length;
    buf = Buffer.alloc(0);
    return buf;
  }

  private pushChunked(buf: Buffer, onMessage: (message: string) => void): Buffer {
    let i = 0;
    while (i < buf.length) {
      const at = this.offset + i;
      const s = this.chunk;
      if (s.kind === 'data') {
        const take = Math.min(s.remaining, buf.length - i);
        this.collect(buf.subarray(i, i + take), at);
        i += take;
        this.chunk = take === s.remaining ? { kind: 'lf' } : { kind: 'data', remaining: s.remaining - take };
        continue;
      }
      const b = buf[i]!;
      i++;
      switch (s.kind) {
        case 'lf':
          if (b !== 0x0a) this.fail(`expected \\n before a chunk header, got ${JSON.stringify(String.fromCharCode(b))}`, at);
          this.chunk = { kind: 'hash' };
          break;
        case 'hash':
          if (b !== 0x23) this.fail(`expected # in a chunk header, got ${JSON.stringify(String.fromCharCode(b))}`, at);
          this.chunk = { kind: 'size-first' };
          break;
        case 'size-first':
          if (b === 0x23) this.chunk = { kind: 'end-lf' };
          else if (b >= 0x31 && b <= 0x39) this.chunk = { kind: 'size', value: b - 0x30, digits: 1 };
          else this.fail(`chunk size must start with a digit 1-9, got ${JSON.stringify(String.fromCharCode(b))}`, at);
          break;
        case 'size':
          if (b >= 0x30 && b <= 0x39) {
            const value = s.value * 10 + (b - 0x30);
            if (s.digits >= 10 || value > MAX_CHUNK) this.fail(`chunk size exceeds ${MAX_CHUNK}`, at);
            this.chunk = { kind: 'size', value, digits: s.digits + 1 };
          } else if (b === 0x0a) {
            if (this.pendingBytes + s.value > this.maxMessage) this.fail(`message larger than ${this.maxMessage} bytes`, at);
            this.chunk = { kind: 'data', remaining: s.value };
          } else this.fail(`bad character ${JSON.stringify(String.fromCharCode(b))} in a chunk size`, at);
          break;
        case 'end-lf':
          if (b !== 0x0a) this.fail(`expected \\n after ##, got ${JSON.stringify(String.fromCharCode(b))}`, at);
          this.chunk = { kind: 'lf' };
          if (this.pending.length === 0) this.fail('end of chunks with no chunk before it', at);
          this.offset += i;
          onMessage(this.takeMessage());
          buf = buf.subarray(i);
          i = 0;
          break;
      }
    }
    this.offset += i;
    return Buffer.alloc(0);
  }
}

/** The base capabilities: 1.0 frames with end-of-message, 1.1 with chunks. */
export const BASE_1_0 = 'urn:ietf:params:netconf:base:1.0';
export const BASE_1_1 = 'urn:ietf:params:netconf:base:1.1';
