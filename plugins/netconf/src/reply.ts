/**
 * What an `<rpc-reply>` says before (or instead of) parsing it whole: its envelope (the root element's
 * name, namespace and message-id, read from the first start tag) and, when the reply holds nothing but
 * `<data>`, that element's content as a standalone `<data>` document. The tags are read by the SDK's
 * XML tokenizer (the core's, which reads every XML the service takes), stopping after the first two;
 * the end tags are found by reading back from the end of the text.
 *
 * The same for a reply that is a lone `<ok/>` (lock, edit-config, commit, unlock: four of a write's five
 * replies): the element tree it parses to is built from the envelope, without a parser.
 *
 * Why: a get/get-config reply can be megabytes, and the core's schema-aware decoder parses it strictly
 * anyway (the device codec). Parsing it first into a generic tree cost as much as that decode (2.2 ms
 * for 500 interfaces), for nothing but finding the message-id. Anything this reader does not recognise
 * with certainty (an rpc-error, a second child, a comment after the data) makes it answer undefined,
 * and the session parses the reply whole as before.
 */
import { escapeAttr, MAX_XML_DEPTH, NETCONF_NS, XmlToken, XmlTokenizer, type XmlElement } from '@rosetta/sdk';

/** The first start tag of a message. */
export interface Envelope {
  readonly prefix: string | undefined;
  readonly name: string;
  /** Its namespace (from its own declarations: a NETCONF root declares what it uses). */
  readonly ns: string | undefined;
  readonly attrs: ReadonlyMap<string, string>;
  /** Where its content starts (just after the start tag). */
  readonly contentStart: number;
  readonly selfClosing: boolean;
}

/** A start tag read by {@link leadingTags}: an envelope, plus where its `<` is. */
interface StartTag extends Envelope {
  readonly start: number;
}

/**
 * The first `count` start tags of a message, each the first child of the one before (white space
 * between them allowed), read by the SDK's XML tokenizer; fewer when something else comes first or the
 * text so far ends, none when the text does not start as XML (the whole parse then says why). Only
 * these tags are read, however long the message: from its first 4 KiB when they are in it, so a
 * megabyte reply costs no more than a short one.
 */
function leadingTags(text: string, count: number): StartTag[] {
  if (text.length > HEAD) {
    const head = readTags(text.slice(0, HEAD), count, true);
    if (head !== undefined) return head;
  }
  return readTags(text, count, false) ?? [];
}

const HEAD = 4096;

/**
 * See leadingTags; undefined when `text` is `cut` from a longer one and a fault (a tag cut short) may
 * be the cut's, not the message's. The tokenizer is not told the text goes on: that would size its
 * tables for a long document, more work than two tags are worth.
 */
function readTags(text: string, count: number, cut: boolean): StartTag[] | undefined {
  const tags: StartTag[] = [];
  const tok = XmlTokenizer.head(text, MAX_XML_DEPTH);
  try {
    while (tags.length < count) {
      const token = tok.next();
      if (token === XmlToken.Text && tok.textIsSpace()) continue;
      if (token !== XmlToken.Start) break;
      const attrs = new Map<string, string>();
      for (let i = 0; i < tok.attrCount; i++) attrs.set(tok.attrNames[i]!, tok.attrValues[i]!);
      const colon = tok.name.indexOf(':');
      const prefix = colon < 0 ? undefined : tok.name.slice(0, colon);
      const selfClosing = tok.rawTag() === undefined;
      tags.push({
        prefix,
        name: colon < 0 ? tok.name : tok.name.slice(colon + 1),
        ns: attrs.get(prefix === undefined ? 'xmlns' : `xmlns:${prefix}`),
        attrs,
        start: tok.tokenStart,
        contentStart: tok.offset,
        selfClosing,
      });
      if (selfClosing) break;
    }
  } catch {
    // not well-formed (a bad entity, a tag cut where the text so far ends): the tags read before it stand
    if (cut) return undefined;
  }
  return tags;
}

/**
 * The envelope readEnvelope read last, with the text it read it from and its first child's start tag:
 * a caller asks for the child (`loneData`, `loneOk`) right after, and it is read with the envelope.
 * One entry, not a map keyed by envelope: a WeakMap entry per message cost more than the tags.
 */
let lastRead: { readonly text: string; readonly envelope: Envelope; readonly child: StartTag | undefined } | undefined;

/** The envelope of a message, or undefined when its start does not read as XML. */
export function readEnvelope(text: string): Envelope | undefined {
  const [envelope, child] = leadingTags(text, 2);
  lastRead = envelope === undefined ? undefined : { text, envelope, child };
  return envelope;
}

/** The start tag of the envelope's first child (`<data>`, `<ok/>`), if it comes first in `text`. */
function firstChild(text: string, envelope: Envelope): StartTag | undefined {
  const last = lastRead;
  return last !== undefined && last.envelope === envelope && last.text === text ? last.child : leadingTags(text, 2)[1];
}

/** Whether an envelope is an rpc-reply of the NETCONF base namespace. */
export function isRpcReply(envelope: Envelope): boolean {
  return envelope.name === 'rpc-reply' && envelope.ns === NETCONF_NS;
}

/**
 * The content of a reply that holds only `<data>`, as `<data xmlns:p="...">...</data>` with the prefix
 * declarations of the reply and of `<data>` (values such as identityrefs may use them); '' for an empty
 * `<data>`. Undefined when the reply is anything else, or may hold an rpc-error: parse it whole then.
 */
export function loneDataText(text: string, envelope: Envelope): string | undefined {
  const data = loneData(text, envelope);
  if (data === undefined || data === '') return data;
  return `${data.start}${text.slice(data.contentStart, data.contentEnd)}</data>`;
}

/**
 * The element tree of a reply that holds nothing but `<ok/>` in NETCONF's namespace (what parseXml would
 * make of it), or undefined when the reply is anything else: parse it whole then.
 */
export function loneOk(text: string, envelope: Envelope): XmlElement | undefined {
  if (envelope.selfClosing || !isRpcReply(envelope)) return undefined;
  const ok = firstChild(text, envelope);
  if (ok === undefined || ok.name !== 'ok' || !ok.selfClosing || ok.attrs.size > 0) return undefined;
  const okPrefix = ok.prefix;
  if (envelope.attrs.get(okPrefix === undefined ? 'xmlns' : `xmlns:${okPrefix}`) !== NETCONF_NS) return undefined;
  const close = closingTagAt(text, envelope.prefix, 'rpc-reply', text.length);
  if (close === undefined || text.slice(ok.contentStart, close).trim() !== '') return undefined;
  const attrs = Object.fromEntries(envelope.attrs);
  const scope = new Map<string, string>();
  for (const [name, value] of envelope.attrs) {
    if (name === 'xmlns') scope.set('', value);
    else if (name.startsWith('xmlns:')) scope.set(name.slice(6), value);
  }
  const okStart = ok.start;
  const okElement: XmlElement = {
    name: 'ok',
    prefix: okPrefix ?? '',
    ns: NETCONF_NS,
    attrs: {},
    children: [],
    text: '',
    scope,
    start: okStart,
    end: ok.contentStart,
  };
  return {
    name: 'rpc-reply',
    prefix: envelope.prefix ?? '',
    ns: NETCONF_NS,
    attrs,
    children: [okElement],
    // the white space around <ok/>, as a parser joins the root's own character data
    text: text.slice(envelope.contentStart, okStart) + text.slice(ok.contentStart, close),
    scope,
    start: text.lastIndexOf('<', envelope.contentStart - 1),
    end: text.indexOf('>', close) + 1,
  };
}

/** Where a reply's `<data>` content is, and the start tag that makes it a standalone document. */
export interface DataRange {
  /** `<data xmlns:p="...">`: the reply's and data's prefix declarations, data in no namespace. */
  readonly start: string;
  readonly contentStart: number;
  readonly contentEnd: number;
  /** `</data>` as the reply writes it (with its prefix), for a reader that must not read past it. */
  readonly endTag: string;
}

/** See loneDataText: the range of the content; '' for an empty `<data>`, undefined for another reply. */
export function loneData(text: string, envelope: Envelope): DataRange | '' | undefined {
  if (envelope.selfClosing || text.includes('rpc-error')) return undefined;
  const start = dataStart(text, envelope);
  if (start === undefined) return undefined;
  // the reply's end tag, then (unless <data/>) data's own end tag just before it
  const replyClose = closingTagAt(text, envelope.prefix, 'rpc-reply', text.length);
  if (replyClose === undefined) return undefined;
  if (start.selfClosing) return text.slice(start.contentStart, replyClose).trim() === '' ? '' : undefined;
  const dataClose = closingTagAt(text, start.prefix, 'data', replyClose);
  if (dataClose === undefined || dataClose < start.contentStart) return undefined;
  if (text.slice(start.contentStart, dataClose).trim() === '') return '';
  return { start: start.start, contentStart: start.contentStart, contentEnd: dataClose, endTag: start.endTag };
}

/**
 * The `<data>` start tag right after the envelope's, if the reply's text so far holds it whole and it
 * is NETCONF's: what a reader of the data as it arrives needs before the rest of the reply is in.
 */
export function dataStart(
  text: string,
  envelope: Envelope,
): (Omit<DataRange, 'contentEnd'> & { readonly prefix: string | undefined; readonly selfClosing: boolean }) | undefined {
  if (envelope.selfClosing) return undefined;
  const data = firstChild(text, envelope);
  if (data === undefined || data.name !== 'data') return undefined;
  const dataAttrs = data.attrs;
  const prefix = data.prefix;
  const dataNs =
    prefix === undefined
      ? (dataAttrs.get('xmlns') ?? envelope.attrs.get('xmlns'))
      : (dataAttrs.get(`xmlns:${prefix}`) ?? envelope.attrs.get(`xmlns:${prefix}`));
  if (dataNs !== NETCONF_NS) return undefined;
  let declarations = '';
  const declared = new Map([...envelope.attrs, ...dataAttrs]);
  for (const [name, value] of declared) {
    if (name.startsWith('xmlns:')) declarations += ` ${name}="${escapeAttr(value)}"`;
  }
  return {
    start: `<data${declarations}>`,
    contentStart: data.contentStart,
    endTag: `</${prefix === undefined ? '' : `${prefix}:`}data`,
    prefix,
    selfClosing: data.selfClosing,
  };
}

/**
 * Where `</prefix:name>` starts when it is the last thing before `end` (white space aside), else
 * undefined.
 */
function closingTagAt(text: string, prefix: string | undefined, name: string, end: number): number | undefined {
  const tag = prefix === undefined ? name : `${prefix}:${name}`;
  let i = end;
  while (i > 0 && isSpace(text.charCodeAt(i - 1))) i--;
  if (text.charCodeAt(i - 1) !== 0x3e /* > */) return undefined;
  i--;
  while (i > 0 && isSpace(text.charCodeAt(i - 1))) i--;
  const start = i - tag.length - 2;
  if (start < 0 || text.charCodeAt(start) !== 0x3c /* < */ || text.charCodeAt(start + 1) !== 0x2f /* / */) return undefined;
  return text.startsWith(tag, start + 2) ? start : undefined;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}
