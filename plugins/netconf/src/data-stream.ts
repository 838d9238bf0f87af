/**
 * A get/get-config reply's data handed to its reader while the reply is still arriving: a long reply
 * comes in many SSH packets over milliseconds, and decoding what came in during each turn of the event
 * loop overlaps the decode with the wait instead of adding it after (500 interfaces: ~1.8 ms of
 * decoding, of which ~1.1 ms no longer adds to the read).
 *
 * The reader is given the data as a standalone `<data xmlns:p="...">` document in pieces, each cut just
 * after an end tag (a whole token) and never at or past a `</data` (which may be the reply's own, whose
 * place is known only at the end). At the end of the message the rest up to the data's end tag is
 * handed over, once the reply is known to hold nothing but data (reply.ts). Whatever does not fit (not a
 * data reply of a request that reads pieces, a comment or CDATA, a reader that throws, text that does
 * not add up) drops the pieces: the session then reads the whole reply as before, and that read says
 * what is wrong. So the pieces can change when a reply is decoded, never what it decodes to.
 */
import { StringDecoder } from 'node:string_decoder';
import { dataStart, loneData, readEnvelope, isRpcReply, type Envelope } from './reply';

/** What reads a data reply: whole, and (optionally) in pieces as it arrives. */
export interface DataRead<T> {
  /** The reply's `<data>` as a standalone document, undefined when it is empty. May throw. */
  whole(data: string | undefined): T;
  /** A reader the data is pushed into as it arrives; when anything goes wrong, `whole` is used instead. */
  pieces?(): DataPieces<T>;
}

export interface DataPieces<T> {
  push(piece: string): void;
  end(rest: string): T;
}

/** A start tag longer than this without being whole is not worth waiting for: the reply is read whole. */
const MAX_HEAD = 16 * 1024;

/** Characters held without a place to cut after which the pieces stop (see `handOver`). */
export const MAX_HELD = 1024 * 1024;

/** One message as it arrives, for the reader of the request it answers (if it turns out to be one). */
export class IncomingMessage {
  private readonly decoder = new StringDecoder('utf8');
  /** Characters received so far. */
  private received = 0;
  /** Text not handed to the reader yet (before the reader exists: the message's start). */
  private held = '';
  /** Where `held` starts in the message. */
  private heldAt = 0;
  private reader: DataPieces<unknown> | undefined;
  private endTag = '';
  private contentStart = 0;
  private off = false;
  /** The turn in which the reader gets what came in (see `part`). */
  private pending: NodeJS.Immediate | undefined;

  /** `readerOf`: the piece reader of the request a message-id names, if it wants one. */
  constructor(private readonly readerOf: (messageId: string) => (() => DataPieces<unknown>) | undefined) {}

  /**
   * Takes the next bytes of the message. Never throws: a problem turns the pieces off. The reader gets
   * them once the bytes that came in together are all in (SSH hands over a burst of packets in one turn
   * of the event loop): fewer, longer pieces, for the same overlap with the wait.
   */
  part(bytes: Buffer): void {
    if (this.off) return;
    const text = this.decoder.write(bytes);
    this.received += text.length;
    this.held += text;
    this.pending ??= setImmediate(this.takeTurn);
  }

  private readonly takeTurn = (): void => {
    this.pending = undefined;
    if (this.off) return;
    try {
      if (this.reader === undefined) this.begin();
      if (this.reader !== undefined) this.handOver();
    } catch {
      this.drop();
    }
  };

  /**
   * At the end of the message (its whole text, and the envelope read from it): the reader's answer if
   * the data went to it, undefined when the reply is to be read whole. What came in since the last turn
   * goes to the reader with the rest; a reply that came in all within one turn (any short one) never
   * had a reader, and is read whole: there was no wait to overlap, and a whole decode costs less.
   */
  finish(text: string, envelope: Envelope): { readonly value: unknown } | undefined {
    clearImmediate(this.pending);
    this.pending = undefined;
    const reader = this.reader;
    if (this.off || reader === undefined) return undefined;
    this.received += this.decoder.end().length;
    const data = loneData(text, envelope);
    if (
      data === undefined ||
      data === '' ||
      this.received !== text.length ||
      data.contentStart !== this.contentStart ||
      this.heldAt > data.contentEnd
    )
      return undefined;
    try {
      return { value: reader.end(`${text.slice(this.heldAt, data.contentEnd)}</data>`) };
    } catch {
      return undefined;
    }
  }

  private begin(): void {
    const head = this.held;
    const envelope = readEnvelope(head);
    const start = envelope !== undefined && isRpcReply(envelope) ? dataStart(head, envelope) : undefined;
    if (start === undefined) {
      if (head.length > MAX_HEAD || (envelope !== undefined && !isRpcReply(envelope))) this.drop();
      return; // the start tags are not in yet
    }
    const id = envelope!.attrs.get('message-id');
    const pieces = id === undefined ? undefined : this.readerOf(id);
    if (pieces === undefined || start.selfClosing) {
      this.drop();
      return;
    }
    this.reader = pieces();
    this.reader.push(start.start);
    this.endTag = start.endTag;
    this.contentStart = start.contentStart;
    this.held = head.slice(start.contentStart);
    this.heldAt = start.contentStart;
  }

  private handOver(): void {
    const cut = cutPoint(this.held, this.endTag);
    if (cut === 0) {
      // a value longer than this without an end tag (or a `</data` holding the cut back): every turn
      // would scan it all again; the reply is read whole instead
      if (this.held.length > MAX_HELD) this.drop();
      return;
    }
    const piece = this.held.slice(0, cut);
    // comments, CDATA and processing instructions may hold `</` that is not an end tag
    if (piece.includes('<!') || piece.includes('<?')) {
      this.drop();
      return;
    }
    this.reader!.push(piece);
    this.held = this.held.slice(cut);
    this.heldAt += cut;
  }

  private drop(): void {
    this.off = true;
    this.reader = undefined;
    this.held = '';
  }
}

/**
 * Where `text` may be cut for the reader: just after the last end tag that comes before every `</data`
 * in it (`dataEnd`, which may close the data); 0 when there is none.
 */
export function cutPoint(text: string, dataEnd: string): number {
  let limit = text.length;
  // the first that may close the data (the last would do, but V8's forward search is the fast one)
  for (let at = text.indexOf(dataEnd); at >= 0; at = text.indexOf(dataEnd, at + 1)) {
    const next = text.charCodeAt(at + dataEnd.length);
    // `</data>` or `</data ` (or the text ends there) may close the data; `</database>` does not
    if (Number.isNaN(next) || next === 0x3e || next === 0x20 || next === 0x0a || next === 0x0d || next === 0x09) {
      limit = at;
      break;
    }
  }
  for (let lt = text.lastIndexOf('</', limit - 1); lt >= 0; lt = lt > 0 ? text.lastIndexOf('</', lt - 1) : -1) {
    const gt = text.indexOf('>', lt);
    if (gt >= 0 && gt < limit) return gt + 1;
  }
  return 0;
}
