/**
 * Request bodies: read with a size limit (413 `too-big` past it, checked on Content-Length before a
 * byte is read and again while reading), checked to be UTF-8, and decoded against the schema as JSON
 * or XML. Every fault is a RestconfError or a DataError with a path; nothing here throws anything else.
 */
import type { IncomingMessage } from 'node:http';
import { decodeJson, type DecodeOptions, type Decoded } from '../data/json-decode';
import { decodeXml } from '../data/xml-decode';
import type { SchemaContext } from '../yang/schema';
import { malformed, tooBig } from './errors';
import type { MediaType } from './media';
import { KEY_LIMIT } from './request-limits';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Reads the whole body of `req`, refusing more than `limit` bytes. On refusal the connection is
 * marked to close, so the rest of an oversized body is never read.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) {
      req.pause();
      reject(tooBig(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err: unknown, text?: string) => {
      if (done) return;
      done = true;
      req.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onAborted);
      if (err) reject(err);
      else resolve(text!);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        finish(tooBig(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      try {
        finish(undefined, utf8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
      } catch {
        finish(malformed('the request body is not valid UTF-8'));
      }
    };
    const onError = () => finish(malformed('the request body could not be read'));
    const onAborted = () => finish(malformed('the request was aborted before its body was complete'));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('aborted', onAborted);
  });
}

/**
 * Decodes a body in its media type against the schema (DataError on any fault, with its path). List keys
 * are held to KEY_LIMIT, so that whatever a body creates can be addressed.
 */
export function decodeBody(text: string, media: MediaType, ctx: SchemaContext, options: DecodeOptions): Decoded {
  if (text.trim() === '') throw malformed('the request needs a body');
  const limited: DecodeOptions = { ...options, keyLimit: KEY_LIMIT };
  return media.encoding === 'json' ? decodeJson(text, ctx, limited) : decodeXml(text, ctx, limited);
}
