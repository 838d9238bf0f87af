/**
 * A small namespace-aware XML reader and writer for NETCONF messages (RFC 6241 envelopes: hello,
 * rpc, rpc-reply, notification). NETCONF needs what general-purpose parsers make awkward: every element
 * resolved to its namespace URI, the namespace declarations in scope at each element (identityref and
 * instance-identifier values carry prefixes), and the exact source text of a subtree so payloads can be
 * handed on unchanged. One pass over the text, linear time, iterative (no recursion), depth capped; a
 * DOCTYPE is refused (entity expansion is an attack vector; RFC 6241 messages never carry one).
 */

/** A namespace-resolved element. `text` joins the element's own character data (children excluded). */
export interface XmlElement {
  /** Local name (`edit-config`). */
  readonly name: string;
  /** The prefix as written, '' when none. */
  readonly prefix: string;
  /** The namespace URI the element is in ('' when none is in scope). */
  readonly ns: string;
  /** Attributes by their name as written (`message-id`, `nc:operation`, `xmlns:if`). */
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  /** Character data directly inside the element, entities decoded. */
  text: string;
  /** Prefix -> namespace URI in scope at this element ('' is the default namespace). */
  readonly scope: ReadonlyMap<string, string>;
  /** Offsets of the element in the source: start of `<`, end after its closing `>`. */
  readonly start: number;
  end: number;
}

/** Why a text is not well-formed XML, with the place. */
export class XmlSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(`malformed XML at line ${line}, column ${column}: ${reason}`);
    this.name = 'XmlSyntaxError';
  }
}

/** Deepest element nesting accepted; NETCONF data nests far less. */
export const MAX_XML_DEPTH = 512;

const NAME = /[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?/y;
const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function positionOf(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++)
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  return { line, column: offset - lineStart + 1 };
}

function fail(text: string, offset: number, reason: string): never {
  const { line, column } = positionOf(text, offset);
  throw new XmlSyntaxError(reason, line, column);
}

/** Decodes the five predefined entities and character references; anything else is an error. */
export function decodeEntities(raw: string, source = raw, offset = 0): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(/&([^;&]{0,10});?/g, (m, ref: string) => {
    if (!m.endsWith(';')) fail(source, offset + raw.indexOf(m), 'unterminated entity reference');
    if (ref in ENTITIES) return ENTITIES[ref]!;
    const code = ref.startsWith('#x') ? parseInt(ref.slice(2), 16) : ref.startsWith('#') ? parseInt(ref.slice(1), 10) : NaN;
    if (!Number.isInteger(code) || code < 1 || code > 0x10ffff) fail(source, offset + raw.indexOf(m), `unknown entity &${ref};`);
    return String.fromCodePoint(code);
  });
}

/** Escapes character data for element content. */
export function escapeText(value: string): string {
  return value.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/** Escapes an attribute value (double-quoted). */
export function escapeAttr(value: string): string {
  return value.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));
}

/**
 * Parses one XML document (a NETCONF message) into its root element. Throws XmlSyntaxError with line
 * and column for anything not well-formed, an unbound prefix, a DOCTYPE, or nesting deeper than
 * MAX_XML_DEPTH.
 */
export function parseXml(text: string): XmlElement {
  let i = 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const n = text.length;
  while (i < n) {
    const lt = text.indexOf('<', i);
    const chunk = lt < 0 ? text.slice(i) : text.slice(i, lt);
    if (chunk.length > 0) {
      const top = stack[stack.length - 1];
      if (top) top.text += decodeEntities(chunk, text, i);
      else if (chunk.trim() !== '') fail(text, i, 'text outside the root element');
    }
    if (lt < 0) break;
    i = lt;
    if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i + 2);
      if (end < 0) fail(text, i, 'unterminated processing instruction');
      i = end + 2;
    } else if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end < 0) fail(text, i, 'unterminated comment');
      i = end + 3;
    } else if (text.startsWith('<![CDATA[', i)) {
      const end = text.indexOf(']]>', i + 9);
      if (end < 0) fail(text, i, 'unterminated CDATA section');
      const top = stack[stack.length - 1];
      if (!top) fail(text, i, 'CDATA outside the root element');
      top.text += text.slice(i + 9, end);
      i = end + 3;
    } else if (text.startsWith('<!', i)) {
      fail(text, i, 'a DOCTYPE or other declaration is not allowed');
    } else if (text.startsWith('</', i)) {
      NAME.lastIndex = i + 2;
      const m = NAME.exec(text);
      if (!m) fail(text, i + 2, 'expected an element name');
      const top = stack.pop();
      if (!top) fail(text, i, `unexpected closing tag </${m[0]}>`);
      const written = top.prefix ? `${top.prefix}:${top.name}` : top.name;
      if (m[0] !== written) fail(text, i, `closing tag </${m[0]}> does not match <${written}>`);
      let j = i + 2 + m[0].length;
      while (j < n && /\s/.test(text[j]!)) j++;
      if (text[j] !== '>') fail(text, j, 'expected >');
      top.end = j + 1;
      i = j + 1;
    } else {
      if (root && stack.length === 0) fail(text, i, 'a second root element');
      if (stack.length >= MAX_XML_DEPTH) fail(text, i, `elements nest deeper than ${MAX_XML_DEPTH}`);
      const start = i;
      NAME.lastIndex = i + 1;
      const m = NAME.exec(text);
      if (!m) fail(text, i + 1, 'expected an element name');
      const qname = m[0];
      let j = i + 1 + qname.length;
      const attrs: Record<string, string> = {};
      let selfClosing = false;
      for (;;) {
        const ws = j;
        while (j < n && /\s/.test(text[j]!)) j++;
        if (j >= n) fail(text, j, `unterminated start tag <${qname}`);
        if (text[j] === '>') {
          j++;
          break;
        }
        if (text[j] === '/' && text[j + 1] === '>') {
          j += 2;
          selfClosing = true;
          break;
        }
        if (j === ws) fail(text, j, 'expected whitespace before an attribute');
        NAME.lastIndex = j;
        const a = NAME.exec(text);
        if (!a) fail(text, j, 'expected an attribute name');
        j += a[0].length;
        while (j < n && /\s/.test(text[j]!)) j++;
        if (text[j] !== '=') fail(text, j, `expected = after attribute ${a[0]}`);
        j++;
        while (j < n && /\s/.test(text[j]!)) j++;
        const quote = text[j];
        if (quote !== '"' && quote !== "'") fail(text, j, 'expected a quoted attribute value');
        const close = text.indexOf(quote, j + 1);
        if (close < 0) fail(text, j, 'unterminated attribute value');
        const raw = text.slice(j + 1, close);
        if (raw.includes('<')) fail(text, j, '< in an attribute value');
        if (a[0] in attrs) fail(text, j, `duplicate attribute ${a[0]}`);
        attrs[a[0]] = decodeEntities(raw, text, j + 1);
        j = close + 1;
      }
      const parent = stack[stack.length - 1];
      let scope: Map<string, string> | ReadonlyMap<string, string> = parent?.scope ?? new Map<string, string>();
      for (const [k, v] of Object.entries(attrs)) {
        if (k === 'xmlns' || k.startsWith('xmlns:')) {
          if (scope === parent?.scope || scope.size === 0) scope = new Map(scope);
          (scope as Map<string, string>).set(k === 'xmlns' ? '' : k.slice(6), v);
        }
      }
      const colon = qname.indexOf(':');
      const prefix = colon >= 0 ? qname.slice(0, colon) : '';
      const ns = scope.get(prefix);
      if (prefix && ns === undefined) fail(text, start, `unbound namespace prefix ${prefix}`);
      const element: XmlElement = {
        name: colon >= 0 ? qname.slice(colon + 1) : qname,
        prefix,
        ns: ns ?? '',
        attrs,
        children: [],
        text: '',
        scope,
        start,
        end: j,
      };
      if (parent) parent.children.push(element);
      else root = element;
      if (!selfClosing) stack.push(element);
      i = j;
    }
  }
  if (stack.length > 0) fail(text, n, `unclosed element <${stack[stack.length - 1]!.name}>`);
  if (!root) fail(text, 0, 'no root element');
  return root;
}

/** The first child with this local name (and namespace, when given). */
export function child(element: XmlElement, name: string, ns?: string): XmlElement | undefined {
  return element.children.find((c) => c.name === name && (ns === undefined || c.ns === ns));
}

/** Every child with this local name. */
export function childrenNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((c) => c.name === name);
}

/**
 * The exact source text of an element, made standalone: namespace declarations it inherits from its
 * ancestors are added to its start tag, so prefixes in its content (identityref values) still resolve.
 */
export function standaloneText(source: string, element: XmlElement): string {
  const raw = source.slice(element.start, element.end);
  const own = element.attrs;
  const decls: string[] = [];
  for (const [prefix, uri] of element.scope) {
    const attr = prefix === '' ? 'xmlns' : `xmlns:${prefix}`;
    if (attr in own) continue;
    decls.push(` ${attr}="${escapeAttr(uri)}"`);
  }
  if (decls.length === 0) return raw;
  const nameEnd = 1 + (element.prefix ? element.prefix.length + 1 : 0) + element.name.length;
  return raw.slice(0, nameEnd) + decls.join('') + raw.slice(nameEnd);
}

/** The inner source text of an element (its content between the tags), '' for an empty element. */
export function innerText(source: string, element: XmlElement): string {
  const raw = source.slice(element.start, element.end);
  if (raw.endsWith('/>')) return '';
  const open = raw.indexOf('>') + 1;
  const close = raw.lastIndexOf('</');
  return raw.slice(open, close);
}
