/**
 * Writing a RESTCONF answer with node's own `ServerResponse` API only, so that the same handler serves
 * a request whether it came through express or straight from the HTTP server (app.ts's direct data
 * path, which skips express: its per-request prototype swap and router cost more than the request).
 *
 * Headers are those express's `res.type(t).send(text)` wrote before (`<type>; charset=utf-8` and the
 * byte length), and the body is handed to `end` as a string, which node writes together with the
 * headers in one system call. A large answer is written in pieces as it is encoded instead (`sendPieces`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RestconfContext } from './context';
import { renderErrorsJson, renderErrorsXml, toRestconfError } from './errors';
import { withheldError } from './withheld-values';
import { errorResponseType } from './media';

/** Bodies up to this many characters go to `end` as strings (one write with the headers). */
const INLINE_TEXT_CHARS = 64 * 1024;

/** Content-Type values with the charset parameter, built once per media type. */
const withCharset = new Map<string, string>();

function contentType(type: string): string {
  let value = withCharset.get(type);
  if (value === undefined) {
    value = `${type}; charset=utf-8`;
    withCharset.set(type, value);
  }
  return value;
}

/**
 * Answers `status` with a text body of media type `type`. With `head`, only the headers are sent
 * (the Content-Length is still the body's, as RFC 9110 §9.3.2 asks of HEAD).
 */
export function sendText(res: ServerResponse, status: number, type: string, body: string, head = false): void {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType(type));
  if (body.length <= INLINE_TEXT_CHARS) {
    res.setHeader('Content-Length', Buffer.byteLength(body));
    if (head) res.end();
    else res.end(body);
    return;
  }
  // A large body is encoded once, here: handed over as a string, node would prepend the headers to it
  // (flattening a copy of the whole text) before encoding it again for the socket.
  const bytes = Buffer.from(body, 'utf8');
  res.setHeader('Content-Length', bytes.length);
  if (head) res.end();
  else res.end(bytes);
}

/** Characters of a body sent in pieces gathered before one write. */
const PIECES_WRITE_CHARS = 64 * 1024;

/**
 * Answers `status` with a body written as `pieces` yields it (chunked transfer coding, no
 * Content-Length): the text goes out each time enough of it is gathered, and between writes the event
 * loop is given back (or, when the client reads slower than the body is encoded, its backpressure waited
 * out), so that other requests are served while a large answer is encoded. A client that goes away
 * ends the encoding.
 */
export async function sendPieces(res: ServerResponse, status: number, type: string, pieces: Iterable<string>): Promise<void> {
  res.statusCode = status;
  res.setHeader('Content-Type', contentType(type));
  let pending: string[] = [];
  let size = 0;
  for (const piece of pieces) {
    pending.push(piece);
    size += piece.length;
    if (size < PIECES_WRITE_CHARS) continue;
    const flowing = res.write(pending.join(''));
    pending = [];
    size = 0;
    await (flowing ? new Promise((resolve) => setImmediate(resolve)) : drained(res));
    if (res.destroyed) return;
  }
  res.end(pending.join(''));
}

/** Resolves once `res` can take more (or is closed). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Answers `status` with no body (201/204 of writes, 200 of plain PATCH). */
export function sendEmpty(res: ServerResponse, status: number): void {
  res.statusCode = status;
  res.end();
}

/**
 * Answers whatever a handler threw as the RFC 8040 error envelope, in the type `Accept` asks for
 * (JSON when it asks for nothing we write). Faults that are not RESTCONF or data errors are logged
 * with the request line and answered 500 without detail. A body left unread (a refusal before the
 * body, 413) closes the connection rather than draining it. After the headers went out, only
 * closing the connection can tell the client something failed.
 */
export function sendError(ctx: RestconfContext, req: IncomingMessage, res: ServerResponse, err: unknown): void {
  const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '';
  // No secret goes back in an error message (withheld-values.ts).
  const error = withheldError(
    toRestconfError(err, (m) => ctx.log.error(`${req.method} ${url.slice(0, 300)}: ${m}`)),
    ctx.schema,
  );
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const media = errorResponseType(req.headers.accept);
  for (const [k, v] of Object.entries(error.headers)) res.setHeader(k, v);
  if (error.status === 413 || !req.complete) res.setHeader('Connection', 'close');
  const body =
    media.encoding === 'json' ? renderErrorsJson(error.errors) : renderErrorsXml(error.errors, (m) => ctx.schema.modules.get(m)?.namespace);
  sendText(res, error.status, media.type, body);
}
