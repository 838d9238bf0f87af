/**
 * The lexical layer of RESTCONF URIs (RFC 8040 §3.5.3, docs/restconf-api.md#instance-identifiers): splits the text after
 * `/rests/data` or `/rests/operations` into segments `[module:]name[=k1,k2,...]`, percent-decodes
 * names and key values, honours the key delimiter, and stops at a `yang-ext:mount` segment, keeping
 * the rest of the text raw for the device's schema. Knows nothing of schemas (see uri.ts).
 *
 * Choices, written down:
 * - `%2F` anywhere in the path is refused (400): an encoded slash is how path-confusion attacks
 *   start, and a key holding `/` is written with the key delimiter instead.
 * - A key wrapped in the delimiter (`%22ge-0/0/1%22`) is read up to the closing delimiter that is
 *   followed by `,`, `/` or the end, so `/`, `,` and `=` inside it are part of the key. Percent
 *   escapes inside it are still decoded (a client must encode a space or `%` somehow); with the
 *   delimiter disabled (`null`) `%22` is an ordinary escaped `"`.
 * - One trailing `/` is ignored (`.../interfaces/`); any other empty segment is 400.
 *
 * Every scan moves forward only, so the work is linear in the length of the text.
 */
import { RestconfError } from './errors';

/** One segment of a RESTCONF path, decoded. */
export interface UriSegment {
  /** Module name when the segment is `module:name`. */
  readonly module: string | undefined;
  readonly name: string;
  /** Decoded key values (list entry) or the one value (leaf-list entry); undefined without `=`. */
  readonly keys: readonly string[] | undefined;
  /** The segment as written (still encoded), for messages. */
  readonly raw: string;
}

/** The segments of a path, and the raw text after a `yang-ext:mount` segment when there is one. */
export interface LexedPath {
  readonly segments: readonly UriSegment[];
  /** Set when a `yang-ext:mount` segment ended the path: the text after it, without a leading `/`. */
  readonly mountRest: string | undefined;
}

/** The segment that hands the rest of a path to a mounted device. */
export const MOUNT_SEGMENT = 'yang-ext:mount';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** 400 `invalid-value` for a malformed URI. */
export function badUri(message: string): RestconfError {
  return RestconfError.of('invalid-value', message, { type: 'protocol' });
}

/** Percent-decodes `text` (UTF-8); malformed escapes are 400 naming the segment. */
function decode(text: string, segment: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    throw badUri(`bad percent-encoding in path segment '${segment}'`);
  }
}

/** Splits one api-identifier into module and name, checking both are YANG identifiers. */
function identifier(text: string, segment: string): { module: string | undefined; name: string } {
  const colon = text.indexOf(':');
  const module = colon >= 0 ? text.slice(0, colon) : undefined;
  const name = colon >= 0 ? text.slice(colon + 1) : text;
  if (name === '' && module === undefined) throw badUri(`empty path segment in '${segment}'`);
  if (!IDENTIFIER.test(name) || (module !== undefined && !IDENTIFIER.test(module))) {
    throw badUri(`path segment '${segment}' is not [module:]name with YANG identifiers`);
  }
  return { module, name };
}

/**
 * Splits a RESTCONF path into segments. `raw` is the encoded text after `/rests/data` (or
 * `/rests/operations`), with or without its leading `/`; `keyDelimiter` is the configured key
 * delimiter as written in URIs (`%22`), or null to disable it. Throws RestconfError 400.
 */
export function lexPath(raw: string, keyDelimiter: string | null): LexedPath {
  if (/%2f/i.test(raw)) throw badUri("the path holds an encoded '/' (%2F); write such keys with the key delimiter instead");
  let text = raw.startsWith('/') ? raw.slice(1) : raw;
  if (text.endsWith('/')) text = text.slice(0, -1);
  const segments: UriSegment[] = [];
  if (text === '') return { segments, mountRest: undefined };
  const delimiter = keyDelimiter === null || keyDelimiter === '' ? null : keyDelimiter;
  let i = 0;
  for (;;) {
    const start = i;
    while (i < text.length && text[i] !== '/' && text[i] !== '=') i++;
    const nameText = text.slice(start, i);
    const decodedName = decode(nameText, nameText);
    if (decodedName === MOUNT_SEGMENT && text[i] !== '=') {
      segments.push({ module: 'yang-ext', name: 'mount', keys: undefined, raw: nameText });
      return { segments, mountRest: i < text.length ? text.slice(i + 1) : '' };
    }
    const { module, name } = identifier(decodedName, nameText);
    let keys: string[] | undefined;
    if (text[i] === '=') {
      keys = [];
      i++;
      for (;;) {
        const value = readKey(text, i, delimiter);
        keys.push(decode(value.text, text.slice(start, value.end)));
        i = value.end;
        if (text[i] !== ',') break;
        i++;
      }
    }
    segments.push({ module, name, keys, raw: text.slice(start, i) });
    if (i >= text.length) return { segments, mountRest: undefined };
    i++; // the '/'
    if (i >= text.length || text[i] === '/') throw badUri(`empty path segment after '${text.slice(start, i - 1)}'`);
  }
}

/** Reads one key value starting at `from`: its still-encoded text and where it ends. */
function readKey(text: string, from: number, delimiter: string | null): { text: string; end: number } {
  if (delimiter !== null && text.startsWith(delimiter, from)) {
    const open = from + delimiter.length;
    let at = text.indexOf(delimiter, open);
    while (at >= 0) {
      const after = at + delimiter.length;
      if (after === text.length || text[after] === ',' || text[after] === '/') return { text: text.slice(open, at), end: after };
      at = text.indexOf(delimiter, at + 1);
    }
    throw badUri(`key value starting '${text.slice(from, from + 40)}' opens the key delimiter ${delimiter} but never closes it`);
  }
  let i = from;
  while (i < text.length && text[i] !== ',' && text[i] !== '/') i++;
  return { text: text.slice(from, i), end: i };
}
