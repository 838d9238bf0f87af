/**
 * The XML codec a schema-driven southbound (NETCONF) is handed for one mounted device
 * (`DeviceDataCodec`, hooks.ts): the device's XML replies become RFC 7951 JSON through the core's XML
 * decoder and JSON encoder, bound to the device's compiled schema.
 *
 * - Data (`<data>` of a get/get-config reply, or any wrapper element): its children are top-level
 *   nodes; `content` drops the config (`nonconfig`) or state (`config`) nodes, keeping list keys. A
 *   `<data>` document may also be decoded in pieces while it arrives (`dataReader`).
 * - Operation replies (`<rpc-reply>` of an RPC or action): the wrapper's children are the output
 *   members; `<ok/>` (or nothing) is `{}`. The operation is `module:rpc`, or an action's
 *   instance-identifier (`/m:interfaces/interface[name='eth0']/reset`).
 * - Edit values (`valueXml`): RFC 7951 JSON of the node at a path, written as XML by the core's
 *   schema-aware encoder, so identityref and instance-identifier values carry the prefixes and
 *   namespaces the device schema gives them (the southbound does not guess which strings are those).
 * - Operation input (`inputXml`): an RPC's or action's RFC 7951 input members, written the same way
 *   under the operation's `input` node.
 * A data answer is frozen (its top level) and remembered with the tree it was made from, so the core
 * need not decode it again when the southbound hands it back unchanged; the JSON of each of its members
 * is made when the member is first read, so a southbound that hands it back unread never pays for it.
 */
import { cutContent } from '../data/content';
import { DataError, fault } from '../data/errors';
import { decodeJson } from '../data/json-decode';
import { toJsonValue } from '../data/json-encode';
import { encodeXml } from '../data/xml-encode';
import { escapeXmlAttribute } from '../data/xml-escape';
import { MAX_XML_DEPTH, XmlToken, XmlTokenizer } from '../data/xml-tokenizer';
import { decodeXml, xmlPieceDecoder } from '../data/xml-decode';
import type { ContentFilter, DeviceDataCodec, DeviceDataReader, JsonObject, JsonValue } from '../hooks';
import type { DataNode, DataRoot } from '../data/tree';
import type { OperationSchema, SchemaContext, SchemaNode } from '../yang/schema';

/**
 * The data tree each answer of a codec was made from. A southbound usually hands the codec's answer
 * straight back to the core as its read result; the core then takes the tree instead of decoding the
 * JSON again (that second decode cost as much as a fifth of a large read). An answer the southbound
 * built itself (a merge of two answers) is not here and is decoded as usual.
 */
const treeOfAnswer = new WeakMap<JsonObject, DataRoot>();

/** The tree a codec's data answer was made from, if `answer` is one (see treeOfAnswer). */
export function decodedAnswer(answer: JsonObject): DataRoot | undefined {
  return treeOfAnswer.get(answer);
}

/** The XML codec of one device schema. */
export function deviceCodec(schema: SchemaContext): DeviceDataCodec {
  return {
    fromXml(xml: string, options: { readonly content?: ContentFilter; readonly operation?: string } = {}): JsonObject {
      if (options.operation !== undefined) return operationOutput(xml, schema, options.operation);
      return dataAnswer(decodeXml(asDataWrapper(xml), schema, {}).root, options.content);
    },
    dataReader(options: { readonly content?: ContentFilter } = {}): DeviceDataReader {
      const decoder = xmlPieceDecoder(schema, {});
      let started = false;
      return {
        push(piece) {
          // the wrapper must be `<data>` itself: fromXml renames another outer element, a piece cannot
          if (!started && piece.trim() !== '') {
            if (!/^\s*<data[\s>]/.test(piece)) throw new Error('a data reader takes a document whose element is <data>');
            started = true;
          }
          decoder.push(piece);
        },
        end: (rest) => dataAnswer(decoder.end(rest).root, options.content),
      };
    },
    valueXml: (path, value, options = {}) => valueXml(schema, path, value, options.attributes ?? ''),
    inputXml: (operation, input) => inputXml(schema, operation, input),
  };
}

/**
 * See DeviceDataCodec.valueXml: the value decoded against the schema under the path's parent, each of
 * its elements encoded on its own so `attributes` can go into its start tag.
 */
function valueXml(schema: SchemaContext, path: string, value: JsonObject, attributes: string): string {
  const names = pathNames(path);
  let parent: SchemaNode | undefined;
  let children: readonly SchemaNode[] = schema.data;
  let module: string | undefined;
  for (const raw of names.slice(0, -1)) {
    const colon = raw.indexOf(':');
    if (colon >= 0) module = raw.slice(0, colon);
    parent = findChild(children, module, colon >= 0 ? raw.slice(colon + 1) : raw);
    if (parent === undefined) throw new DataError(fault('unknown-element', path, `the device schema has no node at '${path}'`));
    children = 'children' in parent ? (parent as { children: readonly SchemaNode[] }).children : [];
  }
  const parentPath = parent === undefined ? '' : path.slice(0, path.length - names[names.length - 1]!.length - 1);
  const decoded = decodeJson(value, schema, { ...(parent ? { parent, parentPath } : {}) });
  const parentModule = parent?.module.name;
  let out = '';
  for (const node of decoded.root.children) {
    const elements: DataNode[] =
      node.kind === 'list' ? [...node.entries] : node.kind === 'leaf-list' ? node.values.map((v) => ({ ...node, values: [v] })) : [node];
    const nsAttribute = node.schema.module.name === parentModule ? '' : ` xmlns="${escapeXmlAttribute(node.schema.module.namespace)}"`;
    const at = 1 + node.schema.name.length + nsAttribute.length;
    for (const element of elements) {
      const xml = encodeXml(element, schema, { attributes: false, ...(parentModule ? { parentModule } : {}) });
      out += attributes === '' ? xml : xml.slice(0, at) + attributes + xml.slice(at);
    }
  }
  return out;
}

/** See DeviceDataCodec.inputXml: the input decoded under the operation's `input`, its members encoded. */
function inputXml(schema: SchemaContext, operation: string, input: JsonObject): string {
  const op = findOperation(schema, operation);
  if (op === undefined) throw new DataError(fault('unknown-element', operation, `the device schema has no operation '${operation}'`));
  const module = op.module.name;
  const node = decodeJson({ [`${module}:input`]: input }, schema, { parent: op, parentPath: operation }).node;
  if (node === undefined || !('children' in node)) return '';
  return encodeXml(node.children, schema, { attributes: false, parentModule: module });
}

/** The node names of an instance-identifier, as written (`module:name` or `name`), its predicates dropped. */
function pathNames(path: string): string[] {
  const names: string[] = [];
  let name = '';
  let quote = '';
  let inPredicate = false;
  for (const c of path) {
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (inPredicate) {
      if (c === "'" || c === '"') quote = c;
      else if (c === ']') inPredicate = false;
    } else if (c === '[') inPredicate = true;
    else if (c === '/') {
      if (name !== '') names.push(name);
      name = '';
    } else name += c;
  }
  if (name !== '') names.push(name);
  return names;
}

/** A codec's answer for a decoded `<data>`: its content cut as asked, remembered with its tree. */
function dataAnswer(decoded: DataRoot, content: ContentFilter | undefined): JsonObject {
  const root = content === undefined || content === 'all' ? decoded : cutContent(decoded, content);
  const answer = lazyAnswer(root);
  treeOfAnswer.set(answer, root);
  return answer;
}

/**
 * The RFC 7951 JSON of a tree's top-level nodes, each member's value made when first read (a getter
 * that keeps what it made). Frozen: the tree stays the truth of this answer only if nobody edits it.
 */
function lazyAnswer(root: DataRoot): JsonObject {
  const answer: JsonObject = {};
  for (const node of root.children) {
    const member = `${node.schema.module.name}:${node.schema.name}`;
    let value: JsonValue | undefined;
    Object.defineProperty(answer, member, { enumerable: true, get: () => (value ??= toJsonValue([node])[member] as JsonValue) });
  }
  return Object.freeze(answer);
}

/** The outer element's start tag: prefix (with its colon), local name, attributes, where it ends. */
interface OuterTag {
  readonly prefix: string | undefined;
  readonly name: string;
  readonly attributes: ReadonlyArray<readonly [string, string]>;
  readonly end: number;
  readonly selfClosing: boolean;
}

/** The first start tag of `xml`, read by the XML tokenizer; undefined when the text does not start with one. */
function outerTag(xml: string): OuterTag | undefined {
  const tok = XmlTokenizer.head(xml, MAX_XML_DEPTH);
  try {
    if (tok.next() !== XmlToken.Start) return undefined;
  } catch {
    return undefined; // not well-formed where it starts: the decoder says where
  }
  const attributes: (readonly [string, string])[] = [];
  for (let i = 0; i < tok.attrCount; i++) attributes.push([tok.attrNames[i]!, tok.attrValues[i]!]);
  const colon = tok.name.indexOf(':');
  return {
    prefix: colon < 0 ? undefined : tok.name.slice(0, colon + 1),
    name: tok.name.slice(colon + 1),
    attributes,
    end: tok.offset,
    selfClosing: tok.rawTag() === undefined,
  };
}

/** Renames the outer element to `<data>` (the decoder's datastore wrapper), keeping its prefix declarations. */
function asDataWrapper(xml: string): string {
  const outer = outerTag(xml);
  if (outer === undefined) throw new DataError(fault('malformed-message', '/', 'the device reply has no element'));
  const decls = prefixDeclarations(outer);
  if (outer.selfClosing) return `<data${decls}/>`;
  const close = closingTag(xml, outer.prefix, outer.name);
  if (close === undefined) throw new DataError(fault('malformed-message', '/', `the device reply's <${outer.name}> is not closed`));
  // already the wrapper (a NETCONF session hands <data> over as it came): nothing to copy
  if (outer.prefix === undefined && outer.name === 'data' && outer.attributes.every(([name]) => name.startsWith('xmlns:'))) return xml;
  return `<data${decls}>${xml.slice(outer.end, close)}</data>`;
}

/** Where `</prefix:name>` starts when it ends the text (white space aside); undefined otherwise. */
function closingTag(xml: string, prefix: string | undefined, name: string): number | undefined {
  const tag = `</${prefix ?? ''}${name}`;
  let end = xml.length;
  while (end > 0 && isSpace(xml.charCodeAt(end - 1))) end--;
  if (xml[end - 1] !== '>') return undefined;
  let i = end - 1;
  while (i > 0 && isSpace(xml.charCodeAt(i - 1))) i--;
  return xml.startsWith(tag, i - tag.length) ? i - tag.length : undefined;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** The outer element's prefix declarations, written again for the element that replaces it. */
function prefixDeclarations(outer: OuterTag): string {
  let out = '';
  for (const [name, value] of outer.attributes) if (name.startsWith('xmlns:')) out += ` ${name}="${escapeXmlAttribute(value)}"`;
  return out;
}

/** Whether an rpc-reply's content is nothing, or only `<ok/>` (any prefix, any attributes). */
function isOkOnly(inner: string): boolean {
  if (inner.trim() === '') return true;
  const tok = XmlTokenizer.head(inner, MAX_XML_DEPTH);
  try {
    if (tok.next() !== XmlToken.Start || tok.name.slice(tok.name.indexOf(':') + 1) !== 'ok' || tok.rawTag() !== undefined) return false;
    tok.next(); // the end of <ok/>
    return tok.next() === XmlToken.Eof;
  } catch {
    return false; // not well-formed: the decoder reports it
  }
}

/** The output members of an rpc-reply for `operation`. */
function operationOutput(xml: string, schema: SchemaContext, operation: string): JsonObject {
  const op = findOperation(schema, operation);
  if (op === undefined) throw new DataError(fault('unknown-element', operation, `the device schema has no operation '${operation}'`));
  const outer = outerTag(xml);
  if (outer === undefined) throw new DataError(fault('malformed-message', '/', 'the device reply has no element'));
  if (outer.selfClosing) return {};
  const close = closingTag(xml, outer.prefix, outer.name);
  if (close === undefined) throw new DataError(fault('malformed-message', '/', `the device reply's <${outer.name}> is not closed`));
  const inner = xml.slice(outer.end, close);
  if (isOkOnly(inner)) return {};
  const wrapped = `<output xmlns="${op.module.namespace}"${prefixDeclarations(outer)}>${inner}</output>`;
  // an operation's output is answered and dropped: its values may stay views into the reply
  const decoded = decodeXml(wrapped, schema, { parent: op, parentPath: operation, views: true });
  const node = decoded.node;
  if (node === undefined) return {};
  const json = toJsonValue(node) as Record<string, JsonObject>;
  return Object.values(json)[0] ?? {};
}

/**
 * The RPC `module:rpc`, or the action an instance-identifier names (predicates are skipped: the schema
 * node is the same for every entry).
 */
export function findOperation(schema: SchemaContext, operation: string): OperationSchema | undefined {
  if (!operation.startsWith('/')) {
    const [module, name] = operation.split(':');
    return schema.rpcs.find((r) => r.module.name === module && r.name === name);
  }
  const names = operation
    .replace(/\[[^\]]*\]/g, '')
    .split('/')
    .filter((s) => s !== '');
  let children: readonly SchemaNode[] = schema.data;
  let module: string | undefined;
  let found: SchemaNode | undefined;
  for (const raw of names) {
    const colon = raw.indexOf(':');
    if (colon >= 0) module = raw.slice(0, colon);
    const name = colon >= 0 ? raw.slice(colon + 1) : raw;
    found = findChild(children, module, name);
    if (found === undefined) return undefined;
    children = 'children' in found ? (found as { children: readonly SchemaNode[] }).children : [];
  }
  return found?.kind === 'action' ? found : undefined;
}

function findChild(children: readonly SchemaNode[], module: string | undefined, name: string): SchemaNode | undefined {
  for (const c of children) {
    if (c.kind === 'choice' || c.kind === 'case') {
      const f = findChild(c.children, module, name);
      if (f) return f;
    } else if (c.name === name && (module === undefined || c.module.name === module)) {
      return c;
    }
  }
  return undefined;
}
