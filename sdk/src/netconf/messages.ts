/**
 * NETCONF message vocabulary shared by the client (the netconf southbound) and the device simulator:
 * namespaces, hello build and parse, and `rpc-error` in both directions (RFC 6241 §4.3), so both ends
 * agree on one structured error shape.
 */
import { child, childrenNamed, escapeAttr, escapeText, parseXml, XmlSyntaxError, type XmlElement } from './xml';

/** RFC 6241 base namespace (rpc, rpc-reply, hello, operations). */
export const NETCONF_NS = 'urn:ietf:params:xml:ns:netconf:base:1.0';
/** ietf-netconf-monitoring (get-schema, netconf-state/schemas). */
export const MONITORING_NS = 'urn:ietf:params:xml:ns:yang:ietf-netconf-monitoring';
/** ietf-yang-library 2016 (modules-state). */
export const YANG_LIBRARY_NS = 'urn:ietf:params:xml:ns:yang:ietf-yang-library';
/** YANG 1.1 `<action>` (RFC 7950 §7.15.2). */
export const YANG_1_NS = 'urn:ietf:params:xml:ns:yang:1';
/** RFC 5277 notifications and create-subscription. */
export const NOTIFICATION_NS = 'urn:ietf:params:xml:ns:netconf:notification:1.0';

export const CAP_CANDIDATE = 'urn:ietf:params:netconf:capability:candidate:1.0';
export const CAP_WRITABLE_RUNNING = 'urn:ietf:params:netconf:capability:writable-running:1.0';
export const CAP_NOTIFICATION = 'urn:ietf:params:netconf:capability:notification:1.0';
/** RFC 5277 §6: the session serves other RPCs while subscribed to notifications. */
export const CAP_INTERLEAVE = 'urn:ietf:params:netconf:capability:interleave:1.0';

/** The cheapest request every server answers: an empty subtree filter selects nothing (RFC 6241 §6.4.2). */
export const EMPTY_GET_CONFIG = '<get-config><source><running/></source><filter type="subtree"></filter></get-config>';

/**
 * How long a client waits for the first reply of a session before it sends EMPTY_GET_CONFIG once.
 * yuma123 netconfd leaves bytes that arrive in the same read as the client's hello unparsed until more
 * bytes arrive; a busy server reads the hello and the first request together and answers neither until
 * the next request (seen on a loaded CI machine: a 60 s timeout). A slow device merely gets one small
 * extra request.
 */
export const FIRST_REPLY_NUDGE_MS = 500;

/** A server's or client's hello. */
export interface Hello {
  readonly capabilities: readonly string[];
  /** Present in a server's hello. */
  readonly sessionId?: number;
}

/** Builds a hello message (unframed). */
export function helloMessage(capabilities: readonly string[], sessionId?: number): string {
  const caps = capabilities.map((c) => `<capability>${escapeText(c)}</capability>`).join('');
  const sid = sessionId === undefined ? '' : `<session-id>${sessionId}</session-id>`;
  return `<?xml version="1.0" encoding="UTF-8"?><hello xmlns="${NETCONF_NS}"><capabilities>${caps}</capabilities>${sid}</hello>`;
}

/** Reads a hello; throws XmlSyntaxError or Error naming what is wrong. */
export function parseHello(text: string): Hello {
  const root = parseXml(text);
  if (root.name !== 'hello' || root.ns !== NETCONF_NS)
    throw new Error(`expected <hello> in ${NETCONF_NS}, got <${root.name}> in ${root.ns || 'no namespace'}`);
  const caps = child(root, 'capabilities');
  if (!caps) throw new Error('hello without <capabilities>');
  const capabilities = childrenNamed(caps, 'capability')
    .map((c) => c.text.trim())
    .filter((c) => c !== '');
  if (capabilities.length === 0) throw new Error('hello with no capability');
  const sid = child(root, 'session-id');
  const sessionId = sid ? Number(sid.text.trim()) : undefined;
  return sessionId !== undefined && Number.isInteger(sessionId) ? { capabilities, sessionId } : { capabilities };
}

/** One `<rpc-error>` (RFC 6241 §4.3), structured. */
export interface RpcErrorInfo {
  readonly type: 'transport' | 'rpc' | 'protocol' | 'application';
  readonly tag: string;
  readonly severity: 'error' | 'warning';
  readonly appTag?: string;
  readonly path?: string;
  readonly message?: string;
  /** `error-info` children as name -> text (e.g. `bad-element`, `session-id`, `bad-value`). */
  readonly info?: Readonly<Record<string, string>>;
}

const ERROR_TYPES = new Set(['transport', 'rpc', 'protocol', 'application']);

/** Reads every `<rpc-error>` of a reply element (none when the reply is ok/data). */
export function parseRpcErrors(reply: XmlElement): RpcErrorInfo[] {
  return reply.children
    .filter((c) => c.name === 'rpc-error')
    .map((e) => {
      const text = (name: string) => {
        const c = child(e, name);
        return c ? c.text.trim() : undefined;
      };
      const type = text('error-type') ?? 'application';
      const infoEl = child(e, 'error-info');
      const info: Record<string, string> = {};
      for (const c of infoEl?.children ?? []) info[c.name] = c.text.trim();
      const appTag = text('error-app-tag');
      const path = text('error-path');
      const message = text('error-message');
      return {
        type: (ERROR_TYPES.has(type) ? type : 'application') as RpcErrorInfo['type'],
        tag: text('error-tag') ?? 'operation-failed',
        severity: text('error-severity') === 'warning' ? 'warning' : 'error',
        ...(appTag ? { appTag } : {}),
        ...(path ? { path } : {}),
        ...(message ? { message } : {}),
        ...(infoEl && Object.keys(info).length > 0 ? { info } : {}),
      };
    });
}

/** Renders one rpc-error element (the simulator's replies). */
export function renderRpcError(e: RpcErrorInfo): string {
  const parts = [
    `<error-type>${e.type}</error-type>`,
    `<error-tag>${escapeText(e.tag)}</error-tag>`,
    `<error-severity>${e.severity}</error-severity>`,
  ];
  if (e.appTag) parts.push(`<error-app-tag>${escapeText(e.appTag)}</error-app-tag>`);
  if (e.path) parts.push(`<error-path>${escapeText(e.path)}</error-path>`);
  if (e.message) parts.push(`<error-message xml:lang="en">${escapeText(e.message)}</error-message>`);
  if (e.info)
    parts.push(
      `<error-info>${Object.entries(e.info)
        .map(([k, v]) => `<${k}>${escapeText(v)}</${k}>`)
        .join('')}</error-info>`,
    );
  return `<rpc-error>${parts.join('')}</rpc-error>`;
}

/** Wraps a reply body in `<rpc-reply>` echoing the request's attributes (RFC 6241 §4.2). */
export function replyMessage(requestAttrs: Readonly<Record<string, string>>, body: string): string {
  const attrs = Object.entries(requestAttrs)
    .filter(([k]) => k !== 'xmlns')
    .map(([k, v]) => ` ${k}="${escapeAttr(v)}"`)
    .join('');
  return `<rpc-reply xmlns="${NETCONF_NS}"${attrs}>${body}</rpc-reply>`;
}

export { XmlSyntaxError };
