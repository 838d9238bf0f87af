/**
 * A large answer written in pieces: RFC 7951 JSON or XML text, the same text the one-piece encoders
 * (json-encode.ts, xml-encode.ts) write, handed out as it is encoded, so that the caller can send each
 * piece and give the event loop back between them. Listing 10,000 nodes then neither holds the whole
 * body in memory at once nor keeps every other request waiting until it is done.
 *
 * Only what is large is cut: a list with more than STREAM_ENTRIES entries at or below a node makes that
 * node written part by part (its entries in batches, its ancestors' start and end around them); every
 * other node goes through the one-piece encoder whole, so the pieces cost what one encoding costs.
 */
import type { SchemaContext } from '../yang/schema';
import { encodeJson, type Json, JsonMapper, memberName } from './json-encode';
import type { DataNode, DataRoot, ListEntryNode } from './tree';
import { RESTCONF_NS, XmlWriter } from './xml-encode';

/** Entries written as one piece; a node holding more list entries than this is written in pieces. */
export const STREAM_ENTRIES = 256;

/** Whether more than `limit` list entries lie at or below `node` (stops counting past the limit). */
function entriesOver(node: DataNode | DataRoot, limit: number): boolean {
  let count = 0;
  const visit = (n: DataNode | DataRoot): boolean => {
    switch (n.kind) {
      case 'list':
        count += n.entries.length;
        if (count > limit) return true;
        for (const e of n.entries) if (visit(e)) return true;
        return false;
      case 'root':
      case 'container':
      case 'entry':
        for (const c of n.children) if (c.kind === 'list' || c.kind === 'container') if (visit(c)) return true;
        return false;
      default:
        return false;
    }
  };
  return visit(node);
}

/** Whether an answer is large enough to be written in pieces. */
export function isLargeAnswer(target: DataNode | DataRoot): boolean {
  return entriesOver(target, STREAM_ENTRIES);
}

/**
 * The JSON text of a tree or a node, in pieces: what `encodeJson` writes (compact), joined. `wrap` puts
 * a whole tree inside `{"ietf-restconf:data": ...}` as a RESTCONF GET of the datastore answers it.
 */
export function* encodeJsonPieces(target: DataNode | DataRoot, options: { attributes?: boolean; wrap?: boolean } = {}): Generator<string> {
  const withAttributes = options.attributes ?? true;
  const mapper = new JsonMapper(withAttributes);
  const large = (n: DataNode) => entriesOver(n, STREAM_ENTRIES);
  const attributesOf = (n: DataNode | ListEntryNode) => (withAttributes ? n.attributes : undefined);

  function* object(children: readonly DataNode[], attrs: DataNode['attributes'], module: string | undefined): Generator<string> {
    let sep = '';
    yield '{';
    if (attrs !== undefined && module !== undefined) {
      yield `"@":${JSON.stringify(mapper.attributes(attrs, module))}`;
      sep = ',';
    }
    for (const child of children) {
      yield `${sep}${JSON.stringify(memberName(child.schema, module))}:`;
      yield* value(child);
      sep = ',';
    }
    yield '}';
  }

  function* entries(list: readonly ListEntryNode[]): Generator<string> {
    let batch: Json[] = [];
    let sep = '';
    for (const entry of list) {
      if (large(entry)) {
        if (batch.length > 0) {
          yield `${sep}${JSON.stringify(batch).slice(1, -1)}`;
          batch = [];
          sep = ',';
        }
        yield sep;
        yield* object(entry.children, attributesOf(entry), entry.schema.module.name);
        sep = ',';
        continue;
      }
      batch.push(mapper.entry(entry));
      if (batch.length >= STREAM_ENTRIES) {
        yield `${sep}${JSON.stringify(batch).slice(1, -1)}`;
        batch = [];
        sep = ',';
      }
    }
    if (batch.length > 0) yield `${sep}${JSON.stringify(batch).slice(1, -1)}`;
  }

  function* value(node: DataNode): Generator<string> {
    if (!large(node)) {
      yield JSON.stringify(mapper.value(node));
      return;
    }
    const attrs = attributesOf(node);
    const module = node.schema.module.name;
    if (node.kind === 'list') {
      if (attrs !== undefined) yield `{"@":${JSON.stringify(mapper.attributes(attrs, module))},"#":`;
      yield '[';
      yield* entries(node.entries);
      yield ']';
      if (attrs !== undefined) yield '}';
      return;
    }
    if (node.kind === 'container' || node.kind === 'entry') yield* object(node.children, attrs, module);
  }

  if (!entriesOver(target, STREAM_ENTRIES)) {
    const text = encodeJson(target, { attributes: withAttributes });
    yield target.kind === 'root' && options.wrap ? `{"ietf-restconf:data":${text}}` : text;
    return;
  }
  if (target.kind === 'root') {
    if (options.wrap) yield '{"ietf-restconf:data":';
    yield* object(target.children, undefined, undefined);
    if (options.wrap) yield '}';
    return;
  }
  yield `{${JSON.stringify(`${target.schema.module.name}:${target.schema.name}`)}:`;
  if (target.kind === 'entry') {
    yield '[';
    yield* object(target.children, attributesOf(target), target.schema.module.name);
    yield ']';
  } else yield* value(target);
  yield '}';
}

/** The XML text of a tree or a node, in pieces: what `encodeXml` writes, joined. */
export function* encodeXmlPieces(
  target: DataNode | DataRoot,
  ctx: SchemaContext,
  options: { attributes?: boolean } = {},
): Generator<string> {
  const writer = new XmlWriter(ctx, options.attributes ?? true);
  const large = (n: DataNode) => entriesOver(n, STREAM_ENTRIES);

  function* node(n: DataNode, parentModule: string | undefined): Generator<string> {
    if (!large(n)) {
      writer.node(n, parentModule);
      return;
    }
    if (n.kind === 'list') {
      for (let i = 0; i < n.entries.length; i++) {
        yield* node(n.entries[i]!, parentModule);
        if (i % STREAM_ENTRIES === STREAM_ENTRIES - 1) yield writer.take();
      }
      return;
    }
    if (n.kind !== 'container' && n.kind !== 'entry') return;
    const children = n.kind === 'entry' ? writer.entryChildren(n) : n.children;
    if (!writer.openInner(n.schema, parentModule, children.length > 0, n.attributes)) return;
    for (const c of children) yield* node(c, n.schema.module.name);
    writer.closeInner(n.schema);
  }

  if (target.kind === 'root') {
    if (target.children.length === 0) {
      yield `<data xmlns="${RESTCONF_NS}"/>`;
      return;
    }
    writer.constant(`<data xmlns="${RESTCONF_NS}">`);
    for (const c of target.children) yield* node(c, undefined);
    writer.constant('</data>');
  } else yield* node(target, undefined);
  yield writer.take();
}
