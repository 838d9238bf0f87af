/**
 * A device's RFC 5277 `<notification>` read with the device's compiled schema: its `eventTime`, its
 * content as RFC 7951 JSON (`{"module:event": {...}}`, the members an RFC 8040 §6.4 notification carries
 * beside `eventTime`) and the same content as the XML elements the device sent, so the XML encoding of an
 * event stream passes the device's own text on instead of encoding it again. Apart from codec.ts, which
 * reads replies to requests: a notification comes unasked, with a wrapper of its own.
 */
import { DataError, fault } from '../data/errors';
import { toJsonValue } from '../data/json-encode';
import { decodeXml } from '../data/xml-decode';
import { escapeXmlAttribute } from '../data/xml-escape';
import { MAX_XML_DEPTH, XmlToken, XmlTokenizer } from '../data/xml-tokenizer';
import type { JsonObject } from '../hooks';
import type { SchemaContext } from '../yang/schema';

export interface DeviceNotification {
  /** The device's `eventTime` as sent (RFC 3339). */
  readonly eventTime: string;
  /** The event element(s) as RFC 7951 JSON. */
  readonly content: JsonObject;
  /** The event element(s) as sent, each carrying the prefix declarations the `<notification>` made. */
  readonly xml: string;
}

function localName(name: string): string {
  return name.slice(name.indexOf(':') + 1);
}

/** The parts of a `<notification>`: its eventTime text, its other children's text, its prefix declarations. */
function split(xml: string): { eventTime: string; events: string[] } {
  const tok = new XmlTokenizer(xml, MAX_XML_DEPTH);
  if (tok.next() !== XmlToken.Start || localName(tok.name) !== 'notification')
    throw new DataError(fault('malformed-message', '/', 'a device notification is a <notification> element'));
  let declarations = '';
  for (let i = 0; i < tok.attrCount; i++)
    if (tok.attrNames[i]!.startsWith('xmlns:')) declarations += ` ${tok.attrNames[i]}="${escapeXmlAttribute(tok.attrValues[i]!)}"`;
  let eventTime: string | undefined;
  const events: string[] = [];
  let start = 0;
  let name = '';
  for (let t = tok.next(); t !== XmlToken.Eof; t = tok.next()) {
    if (t === XmlToken.Start && tok.level === 2) {
      start = tok.tokenStart;
      name = tok.name;
    } else if (t === XmlToken.Text && tok.level === 2 && localName(name) === 'eventTime') {
      eventTime = tok.textValue().trim();
    } else if (t === XmlToken.End && tok.level === 1 && localName(name) !== 'eventTime') {
      const element = xml.slice(start, tok.offset);
      // the element's own start tag gets the wrapper's prefix declarations: it is passed on without the wrapper
      events.push(declarations === '' ? element : `<${name}${declarations}${element.slice(name.length + 1)}`);
    }
  }
  if (eventTime === undefined) throw new DataError(fault('missing-element', '/notification', 'the notification has no eventTime'));
  if (events.length === 0) throw new DataError(fault('missing-element', '/notification', 'the notification carries no event'));
  return { eventTime, events };
}

/** Reads a device's `<notification>` with its schema. Throws DataError when the text or the event does not fit it. */
export function decodeNotification(schema: SchemaContext, xml: string): DeviceNotification {
  let parts: ReturnType<typeof split>;
  try {
    parts = split(xml);
  } catch (e) {
    if (e instanceof DataError) throw e;
    throw new DataError(fault('malformed-message', '/', e instanceof Error ? e.message : String(e)));
  }
  const text = parts.events.join('');
  const decoded = decodeXml(`<data>${text}</data>`, schema, { notifications: true });
  return { eventTime: parts.eventTime, content: toJsonValue(decoded.root) as JsonObject, xml: text };
}
