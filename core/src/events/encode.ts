/**
 * The text of an event as RFC 8040 §6.4 sends it, in JSON and in XML.
 *
 *   JSON: {"ietf-restconf:notification":{"eventTime":"...","<module>:<name>":{...}}}
 *   XML:  <notification xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0"><eventTime>...</eventTime>
 *         <name xmlns="<module's namespace>">...</name></notification>
 *
 * XML content given by the producer (a device's notification as received) is used as it is. Otherwise
 * the RFC 7951 content is written as XML by its shape: a `<module>:<name>` member opens that module's
 * namespace (looked up in the local schema), arrays repeat their element, `[null]` is an empty leaf.
 * The content of the hub's own streams is open (anydata: a device's notification, a changed value),
 * so there is no schema node to type it by; a value's text is written as JSON gives it.
 */
import { escapeXmlAttribute, escapeXmlText } from '../data/xml-escape';
import type { JsonValue } from '../hooks';
import type { SchemaContext } from '../yang/schema';
import type { StreamEvent } from './types';

export const NOTIFICATION_NS = 'urn:ietf:params:xml:ns:netconf:notification:1.0';

/** The namespace of a module by name; undefined when the local schema does not know it. */
export type NamespaceOf = (module: string) => string | undefined;

export function namespacesOf(schema: () => SchemaContext | undefined): NamespaceOf {
  return (module) => schema()?.modules.get(module)?.namespace;
}

export function encodeJsonNotification(event: StreamEvent): string {
  return JSON.stringify({ 'ietf-restconf:notification': { eventTime: event.eventTime, ...event.content } });
}

export function encodeXmlNotification(event: StreamEvent, namespaceOf: NamespaceOf): string {
  const content = event.xml ?? contentXml(event.content, namespaceOf);
  return `<notification xmlns="${NOTIFICATION_NS}"><eventTime>${escapeXmlText(event.eventTime)}</eventTime>${content}</notification>`;
}

/** RFC 7951 JSON members as XML elements. */
export function contentXml(members: { readonly [member: string]: JsonValue }, namespaceOf: NamespaceOf): string {
  const out: string[] = [];
  writeMembers(members, undefined, namespaceOf, out);
  return out.join('');
}

function writeMembers(
  members: { readonly [member: string]: JsonValue },
  parentModule: string | undefined,
  namespaceOf: NamespaceOf,
  out: string[],
): void {
  for (const [member, value] of Object.entries(members)) {
    const colon = member.indexOf(':');
    const module = colon > 0 ? member.slice(0, colon) : parentModule;
    const name = colon > 0 ? member.slice(colon + 1) : member;
    let open = name;
    if (module !== undefined && module !== parentModule) {
      // A module the schema does not know keeps a namespace of its own name, so its elements stay apart.
      const namespace = namespaceOf(module) ?? `urn:rosetta:module:${module}`;
      open = `${name} xmlns="${escapeXmlAttribute(namespace)}"`;
    }
    const values = Array.isArray(value) && !(value.length === 1 && value[0] === null) ? value : [value];
    for (const item of values) writeElement(open, name, item, module, namespaceOf, out);
  }
}

function writeElement(
  open: string,
  name: string,
  value: JsonValue,
  module: string | undefined,
  namespaceOf: NamespaceOf,
  out: string[],
): void {
  if (value === null || (Array.isArray(value) && value.length === 1 && value[0] === null)) {
    out.push(`<${open}/>`);
  } else if (Array.isArray(value)) {
    // A list of lists has no RFC 7951 form; each item becomes an element of the same name.
    for (const item of value) writeElement(open, name, item, module, namespaceOf, out);
  } else if (typeof value === 'object') {
    out.push(`<${open}>`);
    writeMembers(value, module, namespaceOf, out);
    out.push(`</${name}>`);
  } else {
    out.push(`<${open}>${escapeXmlText(String(value))}</${name}>`);
  }
}
