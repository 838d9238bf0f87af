/**
 * XML text -> a namespace-resolved element tree, for the documents read without a schema: NETCONF
 * messages (hello, rpc, rpc-reply, notification; the SDK exports this as `parseXml`) and the YANG
 * Patch envelope. It reads through the one tokenizer (xml-tokenizer.ts), so its well-formedness
 * checks, faults and depth bound are the data decoder's; what it adds is what these documents need
 * from a generic tree: every element resolved to its namespace URI, the namespace declarations in
 * scope at each element (identityref and instance-identifier values carry prefixes), and the source
 * offsets of each element so a subtree can be handed on unchanged (`standaloneText`, `innerText`).
 * Data with a schema is not read here: the schema-aware decoder (xml-decode.ts) builds the tree directly.
 */
import { escapeXmlAttribute } from './xml-escape';
import { MAX_XML_DEPTH, XmlToken, XmlTokenizer } from './xml-tokenizer';

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
  /** Character data directly inside the element, references decoded. */
  text: string;
  /** Prefix -> namespace URI in scope at this element ('' is the default namespace). */
  readonly scope: ReadonlyMap<string, string>;
  /** Offsets of the element in the source: start of `<`, end after its closing `>`. */
  readonly start: number;
  end: number;
}

const NO_SCOPE: ReadonlyMap<string, string> = new Map();

/**
 * Parses one XML document into its root element. Throws XmlSyntaxError (xml-tokenizer.ts) with line and
 * column for anything not well-formed, an unbound element prefix, a second root, a DOCTYPE, or nesting
 * deeper than MAX_XML_DEPTH.
 */
export function parseXmlElement(text: string): XmlElement {
  const tok = new XmlTokenizer(text, MAX_XML_DEPTH);
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  for (;;) {
    const token = tok.next();
    if (token === XmlToken.Eof) break;
    if (token === XmlToken.Text) {
      const top = stack[stack.length - 1]!;
      top.text += tok.textValue();
    } else if (token === XmlToken.End) {
      const closed = stack.pop()!;
      closed.end = tok.offset;
    } else if (token === XmlToken.Start) {
      if (root !== undefined && stack.length === 0) tok.fail('a second root element', tok.tokenStart);
      const parent = stack[stack.length - 1];
      const element = startElement(tok, parent?.scope ?? NO_SCOPE);
      if (parent === undefined) root = element;
      else parent.children.push(element);
      stack.push(element);
    }
  }
  return root!;
}

/** The element of the Start token `tok` holds, in scope `inherited`. */
function startElement(tok: XmlTokenizer, inherited: ReadonlyMap<string, string>): XmlElement {
  const attrs: Record<string, string> = {};
  let scope = inherited;
  for (let i = 0; i < tok.attrCount; i++) {
    const name = tok.attrNames[i]!;
    const value = tok.attrValues[i]!;
    attrs[name] = value;
    if (name === 'xmlns' || name.startsWith('xmlns:')) {
      if (scope === inherited) scope = new Map(inherited);
      (scope as Map<string, string>).set(name === 'xmlns' ? '' : name.slice(6), value);
    }
  }
  const qname = tok.name;
  const colon = qname.indexOf(':');
  const prefix = colon >= 0 ? qname.slice(0, colon) : '';
  const ns = scope.get(prefix);
  if (prefix !== '' && ns === undefined) tok.fail(`unbound namespace prefix ${prefix}`, tok.tokenStart);
  return {
    name: colon >= 0 ? qname.slice(colon + 1) : qname,
    prefix,
    ns: ns ?? '',
    attrs,
    children: [],
    text: '',
    scope,
    start: tok.tokenStart,
    end: tok.offset,
  };
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
  let decls = '';
  for (const [prefix, uri] of element.scope) {
    const attr = prefix === '' ? 'xmlns' : `xmlns:${prefix}`;
    if (attr in own) continue;
    decls += ` ${attr}="${escapeXmlAttribute(uri)}"`;
  }
  if (decls === '') return raw;
  const nameEnd = 1 + (element.prefix ? element.prefix.length + 1 : 0) + element.name.length;
  return raw.slice(0, nameEnd) + decls + raw.slice(nameEnd);
}

/** The inner source text of an element (its content between the tags), '' for an empty element. */
export function innerText(source: string, element: XmlElement): string {
  const raw = source.slice(element.start, element.end);
  if (raw.endsWith('/>')) return '';
  const open = raw.indexOf('>') + 1;
  const close = raw.lastIndexOf('</');
  return raw.slice(open, close);
}
