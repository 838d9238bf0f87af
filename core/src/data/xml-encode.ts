/**
 * Data tree -> XML text, written as pieces joined once (see XmlWriter). The first element of each top-level node carries
 * `xmlns` of its module; a child carries `xmlns` where its module differs from its parent's. Values that
 * name modules (identityref, instance-identifier) and RFC 7952 attributes declare the prefixes they
 * use on their own element, so every element can be cut out and stand alone. With-defaults' `default`
 * attribute is written in RFC 6243's namespace (`wd:default`, RFC 8040 §4.8.9).
 *
 * List entries write their keys first. Attributes of a list or leaf-list as a whole have no element to
 * sit on in XML and are left out (they exist only in JSON, docs/restconf-api.md#attributes-in-json); per-entry and per-value
 * attributes are written.
 *
 * Why this file is longer than 400 lines: the writer (XmlWriter) keeps per-schema-node tag caches and
 * one output buffer that every node kind writes into; its methods share that state, and splitting them
 * would expose it. Escaping is xml-escape.ts's.
 */
import type { LeafListSchema, LeafSchema, SchemaContext } from '../yang/schema';
import { detached } from '../yang/types/detached';
import { annotationOf, xmlAttributeNamespace } from './attributes';
import { leafToText } from './leaf-values';
import { escapeXmlAttribute as escapeAttr, escapeXmlText as escapeText } from './xml-escape';
import type { Attributes, DataNode, DataRoot, LeafNode, LeafValue, ListEntryNode } from './tree';

/** Namespace of RESTCONF's `<data>` wrapper for a whole tree. */
export const RESTCONF_NS = 'urn:ietf:params:xml:ns:yang:ietf-restconf';

export interface EncodeXmlOptions {
  /** Write attributes (default true). */
  readonly attributes?: boolean;
  /**
   * The module of the element the output goes into (a NETCONF edit's target under its ancestors): a
   * top-level element of that module then carries no `xmlns`, as a child in its parent's module does not.
   */
  readonly parentModule?: string;
}

/** Prefix declarations one element needs (namespace -> prefix), kept unique within the element. */
class Declarations {
  private readonly byNamespace = new Map<string, string>();
  constructor(private readonly ctx: SchemaContext) {}

  /** The prefix of module `module`'s namespace (values naming it, and most attributes). */
  prefixFor = (module: string): string => {
    const compiled = this.ctx.modules.get(module);
    return this.prefixForNamespace(compiled?.namespace ?? module, compiled?.prefix ?? module);
  };

  /** The prefix of an attribute of `module`: in the namespace XML gives that module's attributes. */
  attributePrefixFor(module: string): string {
    const own = xmlAttributeNamespace(module);
    return own === undefined ? this.prefixFor(module) : this.prefixForNamespace(own.namespace, own.prefix);
  }

  private prefixForNamespace(namespace: string, base: string): string {
    let prefix = this.byNamespace.get(namespace);
    if (prefix === undefined) {
      prefix = base;
      const taken = new Set(this.byNamespace.values());
      for (let n = 2; taken.has(prefix); n++) prefix = `${base}${n}`;
      this.byNamespace.set(namespace, prefix);
    }
    return prefix;
  }

  get empty(): boolean {
    return this.byNamespace.size === 0;
  }

  write(): string {
    let out = '';
    for (const [namespace, prefix] of this.byNamespace) out += ` xmlns:${prefix}="${escapeAttr(namespace)}"`;
    return out;
  }
}

/**
 * Tag texts of one schema node, made once: building them per element was most of the encoder's garbage.
 * Opening tags come with their `>` already joined: the final join costs per piece, so fewer, longer
 * pieces are what makes the writer fast.
 */
interface Tags {
  /** The schema node's module name and built-in type: read here, one object shape, not from the schema's many. */
  readonly module: string;
  readonly builtin: string | undefined;
  /** `<name` */
  readonly open: string;
  /** `<name xmlns="namespace"` (where the module changes from the parent's) */
  readonly openNs: string;
  /** `<name>` */
  readonly start: string;
  /** `<name xmlns="namespace">` */
  readonly startNs: string;
  /** `</name>` */
  readonly close: string;
  /**
   * Whole elements of a leaf whose values come from a small set (boolean, enumeration, identityref),
   * written without a namespace change and without attributes: value -> `<name ...>text</name>`.
   */
  whole: Map<LeafValue, string> | undefined;
  /** identityref leaves: value -> what follows the tag name (` xmlns:p="ns">p:id</name>`). */
  identities: Map<string, string> | undefined;
  /** List entries: the children of the last entry written that held only leaves, keys first (see XmlWriter.entry). */
  shape: EntryShape | undefined;
}

/** A list entry's leaves by schema, in order, with their tags: the entries of a list mostly repeat one. */
interface EntryShape {
  readonly schemas: readonly DataNode['schema'][];
  readonly tags: readonly Tags[];
}

const tagCache = new WeakMap<object, Tags>();

/** Pieces joined into one chunk at a time. */
const CHUNK_PIECES = 4096;

/** Whole elements kept per schema node; beyond this a leaf is written piece by piece. */
const MAX_CACHED_ELEMENTS = 1024;

function tagsOf(schema: DataNode['schema']): Tags {
  let tags = tagCache.get(schema);
  if (tags === undefined) {
    const name = schema.name;
    const openNs = `<${name} xmlns="${escapeAttr(schema.module.namespace)}"`;
    const builtin = 'type' in schema ? schema.type.builtin : undefined;
    tags = {
      module: schema.module.name,
      builtin,
      open: `<${name}`,
      openNs,
      start: `<${name}>`,
      startNs: `${openNs}>`,
      close: `</${name}>`,
      whole: undefined,
      identities: undefined,
      shape: undefined,
    };
    tagCache.set(schema, tags);
  }
  return tags;
}

/**
 * A run of pieces from bounded sets (tags, cached whole elements) that follow one another, as one
 * string: `</name><description>`, or `</type><enabled>true</enabled></interface><interface><name>`.
 * Runs are found again by walking from the root one piece at a time (a Map lookup costs less than the
 * final join pays per piece, and a list entry's runs are the same for every entry). Shared by every
 * writer and bounded: a run stops growing at MAX_RUN_TEXT characters, and beyond MAX_RUN_NODES runs
 * a piece is written on its own.
 */
interface Run {
  readonly text: string;
  next: Map<string, Run> | undefined;
}

const NO_RUN: Run = { text: '', next: undefined };
const MAX_RUN_NODES = 16_384;
const MAX_RUN_TEXT = 512;
let runNodes = 0;

/** Whether `children` are the leaves of `shape`, one for one (a schema of the shape is a leaf's). */
function sameShape(shape: EntryShape, children: readonly DataNode[]): boolean {
  const schemas = shape.schemas;
  if (children.length !== schemas.length) return false;
  for (let i = 0; i < children.length; i++) if (children[i]!.schema !== schemas[i]) return false;
  return true;
}

/**
 * Writes into an array of pieces joined once at the end. Most pieces are strings the tree or the tag
 * cache already hold, so writing allocates little; growing one string with `+=` instead made a rope
 * of millions of cons cells that every garbage collection had to copy (~70% of the time).
 */
export class XmlWriter {
  /**
   * Pieces not yet joined; every few thousand they are joined into one chunk (cheaper than one huge
   * join). The array is reused by position (`count`) and never truncated to empty: V8 drops the storage
   * of an array whose length is set to 0, and growing it back for every chunk was garbage of its own.
   */
  private readonly parts: string[] = [];
  private count = 0;
  private readonly chunks: string[] = [];
  /** The constant pieces written since the last other piece (see Run). */
  private run: Run = NO_RUN;

  constructor(
    private readonly ctx: SchemaContext,
    private readonly withAttributes: boolean,
  ) {}

  private namespaceOf(module: string): string {
    return this.ctx.modules.get(module)?.namespace ?? module;
  }

  /** ` p:name="v"` for each attribute, declaring its prefixes in `decl`. */
  private attributes(attrs: Attributes | undefined, decl: Declarations | undefined): string {
    if (attrs === undefined || !this.withAttributes || decl === undefined) return '';
    let out = '';
    for (const name in attrs) {
      const colon = name.indexOf(':');
      const value = attrs[name];
      const annotation = annotationOf(name, this.ctx);
      const text =
        value === null ? '' : annotation && typeof value === 'string' ? leafToText(annotation.type, value, decl.prefixFor) : String(value);
      const module = colon >= 0 ? name.slice(0, colon) : undefined;
      const written =
        module !== undefined && this.ctx.modules.has(module) ? `${decl.attributePrefixFor(module)}:${name.slice(colon + 1)}` : name;
      out += ` ${written}="${escapeAttr(text)}"`;
    }
    return out;
  }

  /** Opening tag text up to (not including) `>` for a name outside the schema (anydata content). */
  private open(name: string, module: string, parentModule: string | undefined): string {
    return module === parentModule ? `<${name}` : `<${name} xmlns="${escapeAttr(this.namespaceOf(module))}"`;
  }

  nodes(nodes: readonly DataNode[], parentModule: string | undefined): void {
    for (let i = 0; i < nodes.length; i++) this.node(nodes[i]!, parentModule);
  }

  /** Appends one piece. */
  put(piece: string): void {
    if (this.run !== NO_RUN) this.endRun();
    this.parts[this.count++] = piece;
  }

  /** Appends a piece from a bounded set (a tag, a cached whole element): joined with its neighbours of that kind. */
  constant(piece: string): void {
    let next = this.run.next?.get(piece);
    if (next === undefined) {
      if (this.run !== NO_RUN && this.run.text.length + piece.length > MAX_RUN_TEXT) {
        this.endRun();
        next = NO_RUN.next?.get(piece);
      }
      if (next === undefined) {
        if (runNodes >= MAX_RUN_NODES) {
          this.put(piece);
          return;
        }
        const run = this.run;
        // joined: a flat string (`+` would make a rope that every join walks again)
        next = { text: run === NO_RUN ? piece : [run.text, piece].join(''), next: undefined };
        (run.next ??= new Map()).set(piece, next);
        runNodes++;
      }
    }
    this.run = next;
  }

  private endRun(): void {
    this.parts[this.count++] = this.run.text;
    this.run = NO_RUN;
  }

  /** Joins what is pending into a chunk once there is enough of it. */
  private flush(): void {
    if (this.count < CHUNK_PIECES) return;
    this.chunks.push(this.pending());
  }

  /** The pieces written since the last chunk, joined; the array keeps its storage for the next ones. */
  private pending(): string {
    if (this.run !== NO_RUN) this.endRun();
    const parts = this.parts;
    // a longer earlier chunk leaves pieces past `count`: cut them off (only ever a few, so V8 keeps the storage)
    if (parts.length !== this.count) parts.length = this.count;
    this.count = 0;
    return parts.join('');
  }

  /** The whole text written. */
  text(): string {
    if (this.chunks.length === 0) return this.pending();
    this.chunks.push(this.pending());
    return this.chunks.join('');
  }

  /** The text written since the last `take` (a piece of a document written in pieces, encode-stream.ts). */
  take(): string {
    const text = this.text();
    this.chunks.length = 0;
    return text;
  }

  node(node: DataNode, parentModule: string | undefined): void {
    switch (node.kind) {
      case 'leaf':
        this.leaf(tagsOf(node.schema), node.schema, parentModule, node.value, node.attributes);
        return;
      case 'leaf-list': {
        const tags = tagsOf(node.schema);
        for (let i = 0; i < node.values.length; i++) {
          this.leaf(tags, node.schema, parentModule, node.values[i]!, node.valueAttributes?.[i]);
          this.flush();
        }
        return;
      }
      case 'container':
        this.inner(node.schema, parentModule, node.children, node.attributes);
        return;
      case 'list': {
        const entries = node.entries;
        for (let i = 0; i < entries.length; i++) {
          this.entry(entries[i]!, parentModule);
          this.flush();
        }
        return;
      }
      case 'entry':
        this.entry(node, parentModule);
        return;
      case 'any':
        this.anyElement(node.schema.name, node.schema.module.name, parentModule, node.value, node.attributes);
        return;
    }
  }

  /**
   * A list entry, keys first. An entry of leaves only, the same leaves as the entry before (the usual
   * case in a long list), is written straight from the remembered shape: no tag lookup, no dispatch.
   */
  entry(entry: ListEntryNode, parentModule: string | undefined): void {
    const tags = tagsOf(entry.schema);
    let children: readonly DataNode[] = entry.children;
    const shape = tags.shape;
    if (shape !== undefined && (entry.attributes === undefined || !this.withAttributes) && sameShape(shape, children)) {
      const module = tags.module;
      this.constant(module === parentModule ? tags.start : tags.startNs);
      for (let i = 0; i < children.length; i++) {
        const leaf = children[i] as LeafNode;
        this.leaf(shape.tags[i]!, leaf.schema, module, leaf.value, leaf.attributes);
      }
      this.constant(tags.close);
      return;
    }
    children = this.entryChildren(entry);
    if (children.length > 0 && children.every((c) => c.kind === 'leaf')) {
      tags.shape = { schemas: children.map((c) => c.schema), tags: children.map((c) => tagsOf(c.schema)) };
    }
    this.inner(entry.schema, parentModule, children, entry.attributes);
  }

  /** The children of a list entry in the order they are written: keys first. */
  entryChildren(entry: ListEntryNode): readonly DataNode[] {
    const keys = entry.schema.keys;
    const children = entry.children;
    for (let i = 0; i < keys.length; i++) {
      if (children[i]?.schema !== keys[i]) {
        const keyNodes = keys.map((k) => children.find((c) => c.schema === k)).filter((c): c is DataNode => c !== undefined);
        return [...keyNodes, ...children.filter((c) => !keyNodes.includes(c))];
      }
    }
    return children;
  }

  private inner(
    schema: DataNode['schema'],
    parentModule: string | undefined,
    children: readonly DataNode[],
    attrs: Attributes | undefined,
  ): void {
    if (!this.openInner(schema, parentModule, children.length > 0, attrs)) return;
    this.nodes(children, tagsOf(schema).module);
    this.constant(tagsOf(schema).close);
  }

  /**
   * The start tag of a container or list entry (with its attributes); false when it has no children,
   * and the element is then already closed (`/>`). Its children and end tag (`closeInner`) follow.
   */
  openInner(schema: DataNode['schema'], parentModule: string | undefined, hasChildren: boolean, attrs: Attributes | undefined): boolean {
    const tags = tagsOf(schema);
    const sameModule = tags.module === parentModule;
    if ((attrs === undefined || !this.withAttributes) && hasChildren) {
      this.constant(sameModule ? tags.start : tags.startNs);
      return true;
    }
    this.constant(sameModule ? tags.open : tags.openNs);
    if (attrs !== undefined && this.withAttributes) {
      const decl = new Declarations(this.ctx);
      const written = this.attributes(attrs, decl);
      this.put(decl.write() + written);
    }
    if (!hasChildren) {
      this.constant('/>');
      return false;
    }
    this.constant('>');
    return true;
  }

  closeInner(schema: DataNode['schema']): void {
    this.constant(tagsOf(schema).close);
  }

  private leaf(
    tags: Tags,
    schema: LeafSchema | LeafListSchema,
    parentModule: string | undefined,
    value: LeafValue,
    attrs: Attributes | undefined,
  ): void {
    const sameModule = tags.module === parentModule;
    const plain = attrs === undefined || !this.withAttributes;
    if (plain && sameModule && tags.whole !== undefined) {
      const element = tags.whole.get(value);
      if (element !== undefined) {
        this.constant(element);
        return;
      }
    }
    const open = sameModule ? tags.open : tags.openNs;
    const builtin = tags.builtin;
    if (
      typeof value === 'string' &&
      (builtin === 'identityref' || builtin === 'instance-identifier' || builtin === 'union' || builtin === 'leafref')
    ) {
      const type = schema.type;
      if (builtin === 'identityref' && plain) {
        const rest = this.identity(tags, type, value);
        if (sameModule) this.remember(tags, value, open + rest);
        this.constant(open);
        this.constant(rest);
        return;
      }
      const decl = new Declarations(this.ctx);
      const text = leafToText(type, value, decl.prefixFor);
      const written = plain ? '' : this.attributes(attrs, decl);
      this.finishLeaf(tags, open, decl.empty ? written : decl.write() + written, text);
      return;
    }
    const text =
      value === null ? '' : typeof value === 'string' ? value : typeof value === 'boolean' ? (value ? 'true' : 'false') : String(value);
    if (!plain) {
      const decl = new Declarations(this.ctx);
      const written = this.attributes(attrs, decl);
      this.finishLeaf(tags, open, decl.write() + written, text);
      return;
    }
    if (text === '') {
      this.constant(open);
      this.constant('/>');
      return;
    }
    if (sameModule && (builtin === 'boolean' || builtin === 'enumeration')) {
      const element = `${tags.start}${escapeText(text)}${tags.close}`;
      if (this.remember(tags, value, element)) this.constant(tags.whole!.get(value)!);
      else this.put(element);
      return;
    }
    this.constant(sameModule ? tags.start : tags.startNs);
    this.put(escapeText(text));
    this.constant(tags.close);
  }

  /**
   * Keeps a leaf's whole element for its value (see Tags.whole), up to the cache's size; false when full.
   * The cache lives as long as the schema: what it keeps is `detached` from the tree's strings.
   */
  private remember(tags: Tags, value: LeafValue, element: string): boolean {
    const cache = (tags.whole ??= new Map());
    if (cache.size >= MAX_CACHED_ELEMENTS) return false;
    cache.set(typeof value === 'string' ? detached(value) : value, detached(element));
    return true;
  }

  private finishLeaf(tags: Tags, open: string, declarations: string, text: string): void {
    this.constant(open);
    this.put(declarations);
    if (text === '') {
      this.constant('/>');
      return;
    }
    this.constant('>');
    this.put(escapeText(text));
    this.constant(tags.close);
  }

  /**
   * The rest of an identityref leaf after its name: prefix declaration, prefixed value and end tag.
   * Cached per value: a long list names a handful of identities.
   */
  private identity(tags: Tags, type: LeafSchema['type'], value: string): string {
    let text = tags.identities?.get(value);
    if (text === undefined) {
      const decl = new Declarations(this.ctx);
      const written = leafToText(type, value, decl.prefixFor);
      const head = decl.empty ? '' : decl.write();
      text = written === '' ? `${head}/>` : `${head}>${escapeText(written)}${tags.close}`;
      text = detached(text); // kept as long as the schema, like Tags.whole
      const cache = (tags.identities ??= new Map());
      if (cache.size < MAX_CACHED_ELEMENTS) cache.set(detached(value), text);
    }
    return text;
  }

  /** anydata content: members become elements (qualified names switch namespace), arrays repeat. */
  private anyElement(name: string, module: string, parentModule: string | undefined, value: unknown, attrs: Attributes | undefined): void {
    if (Array.isArray(value) && !(value.length === 1 && value[0] === null)) {
      for (const v of value) this.anyElement(name, module, parentModule, v, attrs);
      return;
    }
    this.put(this.open(name, module, parentModule));
    if (attrs !== undefined && this.withAttributes) {
      const decl = new Declarations(this.ctx);
      const written = this.attributes(attrs, decl);
      this.put(decl.write() + written);
    }
    if (value === null || value === undefined || Array.isArray(value)) {
      this.put('/>');
      return;
    }
    if (typeof value !== 'object') {
      this.put('>');
      this.put(escapeText(String(value)));
      this.put(`</${name}>`);
      return;
    }
    this.put('>');
    for (const [member, v] of Object.entries(value as Record<string, unknown>)) {
      const colon = member.indexOf(':');
      const childModule = colon >= 0 ? member.slice(0, colon) : module;
      this.anyElement(colon >= 0 ? member.slice(colon + 1) : member, childModule, module, v, undefined);
    }
    this.put(`</${name}>`);
  }
}

/**
 * Writes XML for: a whole tree (`DataRoot`, wrapped in RESTCONF's `<data>` element); one node (its
 * element; a list writes one element per entry, a leaf-list one per value); or sibling nodes (their
 * elements one after the other, which is only a well-formed document when there is one element).
 */
export function encodeXml(target: DataRoot | DataNode | readonly DataNode[], ctx: SchemaContext, options: EncodeXmlOptions = {}): string {
  const writer = new XmlWriter(ctx, options.attributes ?? true);
  const parentModule = options.parentModule;
  if (Array.isArray(target)) {
    writer.nodes(target as readonly DataNode[], parentModule);
    return writer.text();
  }
  const t = target as DataRoot | DataNode;
  if (t.kind === 'root') {
    if (t.children.length === 0) return `<data xmlns="${RESTCONF_NS}"/>`;
    writer.constant(`<data xmlns="${RESTCONF_NS}">`);
    writer.nodes(t.children, undefined);
    writer.constant('</data>');
    return writer.text();
  }
  writer.node(t, parentModule);
  return writer.text();
}
