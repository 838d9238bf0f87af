/**
 * XML (RFC 7950 §7 encoding, RESTCONF/NETCONF bodies) -> data tree. fast-xml-parser reads the text in
 * document order (`preserveOrder`), its validator reports malformed text with line and column, and
 * this walk resolves every element by namespace (`xmlns`, `xmlns:prefix`, scoped per element) and
 * local name against the schema. Repeated elements of a list or leaf-list gather into one node in
 * document order; identityref and instance-identifier values resolve their prefixes through the
 * namespace declarations in scope; RFC 7952 attributes are XML attributes in their module's namespace.
 *
 * Faults are those of the JSON decoder (see json-decode.ts), plus `unknown-namespace` for an element
 * or attribute whose namespace no module has. A DOCTYPE is refused (RESTCONF and NETCONF forbid it, and
 * entity expansion is an attack vector). Nesting is capped at 512 levels: schemas nest far less, and
 * the cap keeps anydata content and the parser itself well inside the stack.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { CompiledModule, LeafListSchema, LeafSchema, ListSchema, SchemaContext, SchemaNode } from '../yang/schema';
import { checkAttribute } from './attributes';
import { childTable, tableFor, type ChildTable } from './children';
import { DataError, fault, type ErrorTag } from './errors';
import type { DecodeOptions, Decoded } from './json-decode';
import { leafFromText } from './leaf-values';
import { keyString } from './list';
import { instancePath, valueText, type PathSegment } from './path';
import type { Attributes, ContainerNode, DataNode, DataRoot, LeafListNode, LeafNode, LeafValue, ListEntryNode, ListNode } from './tree';

/** Deepest element nesting accepted. */
export const MAX_XML_DEPTH = 512;

type XItem = Record<string, unknown>;
type XAttrs = Record<string, string>;

const parser = new XMLParser({
  preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', parseTagValue: false, parseAttributeValue: false,
  trimValues: false, processEntities: true, htmlEntities: false, ignoreDeclaration: true, ignorePiTags: true,
  removeNSPrefix: false, maxNestedTags: MAX_XML_DEPTH,
});

/** Numeric character references, which the parser leaves in place. */
function decodeCharRefs(text: string): string {
  if (!text.includes('&#')) return text;
  return text.replace(/&#(x[0-9a-fA-F]+|[0-9]+);/g, (m, ref: string) => {
    const code = ref[0] === 'x' ? parseInt(ref.slice(1), 16) : parseInt(ref, 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : m;
  });
}

/** Namespace declarations in scope: a chain, one link per element that declares any. */
interface Scope {
  readonly parent: Scope | undefined;
  readonly defaultNs: string | undefined;
  readonly prefixes: ReadonlyMap<string, string> | undefined;
}

function lookupPrefix(scope: Scope | undefined, prefix: string): string | undefined {
  for (let s = scope; s; s = s.parent) {
    const ns = s.prefixes?.get(prefix);
    if (ns !== undefined) return ns;
  }
  return undefined;
}

function scopeOf(attrs: XAttrs | undefined, parent: Scope | undefined): Scope | undefined {
  if (attrs === undefined) return parent;
  let defaultNs = parent?.defaultNs;
  let prefixes: Map<string, string> | undefined;
  let declares = false;
  for (const name in attrs) {
    if (name === 'xmlns') { defaultNs = attrs[name]; declares = true; }
    else if (name.startsWith('xmlns:')) { (prefixes ??= new Map()).set(name.slice(6), attrs[name]!); declares = true; }
  }
  return declares ? { parent, defaultNs, prefixes } : parent;
}

function elementName(item: XItem): string | undefined {
  for (const k in item) if (k !== ':@') return k;
  return undefined;
}

interface Frame {
  schema: SchemaNode;
  /** For a list entry: its child items, to name its keys in error paths. */
  entry: XItem[] | undefined;
}

class XmlDecoder {
  private readonly trail: Frame[] = [];
  private readonly allowState: boolean;

  constructor(private readonly ctx: SchemaContext, private readonly options: DecodeOptions) {
    this.allowState = options.allowState ?? true;
  }

  decode(items: XItem[]): Decoded {
    const root: DataRoot = { kind: 'root', children: [] };
    const table = tableFor(this.options.parent, this.ctx);
    let top = items;
    let scope: Scope | undefined;
    // A whole datastore may arrive wrapped (<data> of RESTCONF, <config> of NETCONF): look inside,
    // unless the element is a real top-level node of that name.
    const elements = items.filter((i) => elementName(i) !== '#text');
    if (this.options.parent === undefined && elements.length === 1) {
      const name = elementName(elements[0]!)!;
      const wrapperScope = scopeOf(elements[0]![':@'] as XAttrs | undefined, undefined);
      const colon = name.indexOf(':');
      const local = name.slice(colon + 1);
      const ns = colon >= 0 ? lookupPrefix(wrapperScope, name.slice(0, colon)) : wrapperScope?.defaultNs;
      const module = ns === undefined ? undefined : this.ctx.moduleByNamespace(ns);
      const isNode = module !== undefined && table.byQualified.has(`${module.name}:${local}`);
      if (!isNode && (local === 'data' || local === 'config')) {
        top = elements[0]![name] as XItem[];
        scope = wrapperScope;
      }
    }
    this.elements(top, table, root.children, scope);
    return { root, node: root.children.length === 1 ? root.children[0] : undefined };
  }

  private path(extra?: string): string {
    const segments: PathSegment[] = this.trail.map((f) => (f.entry ? { schema: f.schema, keys: this.rawKeys(f) } : { schema: f.schema }));
    let out = instancePath(segments, this.options.parentPath ?? '', this.options.parent?.module.name);
    if (extra !== undefined) out = (out === '/' ? '' : out) + '/' + extra;
    return out;
  }

  private rawKeys(frame: Frame): LeafValue[] {
    return (frame.schema as ListSchema).keys.map((k) => {
      const item = frame.entry!.find((i) => { const n = elementName(i); return n !== undefined && n.slice(n.indexOf(':') + 1) === k.name; });
      return item ? this.text(item[elementName(item)!] as XItem[]) : '';
    });
  }

  private fail(tag: ErrorTag, message: string, extra?: string): DataError {
    return new DataError(fault(tag, this.path(extra), message));
  }

  /** The module of an element name (`p:local` or `local`) under a scope, and its local part. */
  private moduleOf(name: string, scope: Scope | undefined): { module: CompiledModule; local: string } {
    const colon = name.indexOf(':');
    const local = colon >= 0 ? name.slice(colon + 1) : name;
    const ns = colon >= 0 ? lookupPrefix(scope, name.slice(0, colon)) : scope?.defaultNs;
    if (ns === undefined) throw this.fail('unknown-namespace', `element '${name}' has no namespace`, local);
    const module = this.ctx.moduleByNamespace(ns);
    if (module === undefined) throw this.fail('unknown-namespace', `no module has namespace '${ns}'`, local);
    return { module, local };
  }

  /** Decodes sibling elements into `out` in canonical order, gathering lists and leaf-lists. */
  private elements(items: XItem[], table: ChildTable, out: DataNode[], scope: Scope | undefined): void {
    let gathered: Map<SchemaNode, ListNode | LeafListNode> | undefined;
    let lastOrder = -Infinity;
    let sorted = true;
    for (const item of items) {
      const name = elementName(item);
      if (name === undefined) continue;
      if (name === '#text') {
        if ((item[name] as string).trim() !== '') throw this.fail('invalid-value', `unexpected text '${String(item[name]).trim().slice(0, 40)}' among elements`);
        continue;
      }
      const attrs = item[':@'] as XAttrs | undefined;
      const inner = scopeOf(attrs, scope);
      const { module, local } = this.moduleOf(name, inner);
      const slot = table.byQualified.get(`${module.name}:${local}`);
      if (slot === undefined) throw this.fail('unknown-element', `unknown element '${local}' in module '${module.name}'`, `${module.name}:${local}`);
      const schema = slot.schema;
      if (!this.allowState && !schema.config) throw this.fail('invalid-value', `state data '${local}' is not allowed here`, local);
      const content = item[name] as XItem[];
      this.trail.push({ schema, entry: undefined });
      let node: DataNode | undefined;
      if (schema.kind === 'list' || schema.kind === 'leaf-list') {
        gathered ??= new Map();
        let group = gathered.get(schema);
        if (group === undefined) {
          group = schema.kind === 'list'
            ? { kind: 'list', schema, entries: [], index: schema.keys.length > 0 ? new Map() : undefined } as ListNode
            : { kind: 'leaf-list', schema, values: [] } as LeafListNode;
          if (group.kind === 'list' && group.index === undefined) delete group.index;
          gathered.set(schema, group);
          node = group;
        }
        if (group.kind === 'list') this.entry(group, content, attrs, inner);
        else this.leafListValue(group, content, attrs, inner);
      } else {
        if (out.some((c) => c.schema === schema)) throw this.fail('invalid-value', `element '${local}' appears twice`);
        node = this.node(schema, content, attrs, inner);
      }
      this.trail.pop();
      if (node === undefined) continue;
      if (slot.order < lastOrder) sorted = false;
      lastOrder = slot.order;
      out.push(node);
    }
    if (!sorted) out.sort((a, b) => table.bySchema.get(a.schema)!.order - table.bySchema.get(b.schema)!.order);
  }

  private node(schema: SchemaNode, content: XItem[], attrs: XAttrs | undefined, scope: Scope | undefined): DataNode {
    switch (schema.kind) {
      case 'leaf': {
        const node: LeafNode = { kind: 'leaf', schema, value: this.value(schema, this.text(content), scope) };
        return this.withAttributes(node, attrs, scope);
      }
      case 'anydata': case 'anyxml':
        return this.withAttributes({ kind: 'any', schema, value: this.anyValue(content, scope, schema.module.namespace) }, attrs, scope);
      case 'container': case 'input': case 'output': case 'notification': {
        const node: ContainerNode = { kind: 'container', schema, children: [] };
        this.elements(content, childTable(schema), node.children, scope);
        return this.withAttributes(node, attrs, scope);
      }
      default:
        throw this.fail('unknown-element', `'${schema.name}' (${schema.kind}) cannot appear in data`);
    }
  }

  private entry(list: ListNode, content: XItem[], attrs: XAttrs | undefined, scope: Scope | undefined): void {
    const schema = list.schema;
    const frame = this.trail[this.trail.length - 1]!;
    frame.entry = content;
    const entry = this.withAttributes({ kind: 'entry', schema, children: [] } as ListEntryNode, attrs, scope);
    this.elements(content, childTable(schema), entry.children, scope);
    if (list.index !== undefined) {
      const values = this.keyValues(entry, schema.keys);
      const key = keyString(values);
      if (list.index.has(key)) throw this.fail('invalid-value', `duplicate entry of list '${schema.name}' with key ${values.map(valueText).join(',')}`);
      list.index.set(key, entry);
    }
    list.entries.push(entry);
  }

  private keyValues(entry: ListEntryNode, keys: readonly LeafSchema[]): LeafValue[] {
    return keys.map((k, i) => {
      const child = entry.children[i];
      if (child === undefined || child.schema !== k) throw this.fail('missing-element', `list entry lacks its key '${k.name}'`);
      return (child as LeafNode).value;
    });
  }

  private leafListValue(ll: LeafListNode, content: XItem[], attrs: XAttrs | undefined, scope: Scope | undefined): void {
    const value = this.value(ll.schema, this.text(content), scope);
    if (ll.schema.config && ll.values.some((v) => valueText(v) === valueText(value))) {
      throw this.fail('invalid-value', `value '${valueText(value)}' appears twice in leaf-list '${ll.schema.name}'`);
    }
    const attributes = this.attributes(attrs, scope);
    if (attributes !== undefined) (ll.valueAttributes ??= new Array(ll.values.length).fill(undefined));
    ll.values.push(value);
    ll.valueAttributes?.push(attributes);
  }

  /** The text content of a leaf element: text and CDATA only. */
  private text(content: XItem[]): string {
    let text = '';
    for (const item of content) {
      const name = elementName(item);
      if (name !== '#text') throw this.fail('invalid-value', `element '${name}' inside a leaf`);
      text += item[name] as string;
    }
    return decodeCharRefs(text);
  }

  private value(schema: LeafSchema | LeafListSchema, text: string, scope: Scope | undefined): LeafValue {
    const resolve = (prefix: string) => {
      const ns = lookupPrefix(scope, prefix);
      return ns === undefined ? undefined : this.ctx.moduleByNamespace(ns)?.name;
    };
    const result = leafFromText(schema.type, text, this.ctx, resolve, schema.module);
    if (!result.ok) {
      const shown = text.length > 80 ? `${text.slice(0, 77)}...` : text;
      throw this.fail('invalid-value', `invalid value '${shown}' for '${schema.name}': ${result.message}`);
    }
    return result.value;
  }

  private withAttributes<T extends DataNode>(node: T, attrs: XAttrs | undefined, scope: Scope | undefined): T {
    const attributes = this.attributes(attrs, scope);
    if (attributes !== undefined) node.attributes = attributes;
    return node;
  }

  /** The RFC 7952 attributes of an element (namespace declarations aside). */
  private attributes(attrs: XAttrs | undefined, scope: Scope | undefined): Attributes | undefined {
    if (attrs === undefined) return undefined;
    let out: Attributes | undefined;
    for (const name in attrs) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
      const colon = name.indexOf(':');
      let written = name;
      if (colon >= 0 && !this.options.extraAttributes?.has(name)) {
        const ns = lookupPrefix(scope, name.slice(0, colon));
        const module = ns === undefined ? undefined : this.ctx.moduleByNamespace(ns);
        if (module === undefined) throw this.fail('unknown-namespace', `attribute '${name}' is in no known namespace`);
        written = `${module.name}:${name.slice(colon + 1)}`;
      } else if (colon < 0 && !this.options.extraAttributes?.has(name)) {
        throw this.fail('unknown-attribute', `attribute '${name}' has no namespace, so no module declares it`);
      }
      const resolvePrefix = (prefix: string) => {
        const ns = lookupPrefix(scope, prefix);
        return ns === undefined ? undefined : this.ctx.moduleByNamespace(ns)?.name;
      };
      const checked = checkAttribute(written, decodeCharRefs(attrs[name]!), undefined, this.ctx, this.options, { resolvePrefix });
      if ('tag' in checked) throw this.fail(checked.tag, checked.message);
      (out ??= {})[checked.name] = checked.value;
    }
    return out;
  }

  /**
   * anydata/anyxml content as a JSON value, the way RFC 7951 would write it without a schema:
   * elements become members (module-qualified where the namespace changes), repeated ones arrays,
   * text-only elements strings.
   */
  private anyValue(content: XItem[], scope: Scope | undefined, parentNs: string): unknown {
    const hasElements = content.some((i) => elementName(i) !== '#text');
    if (!hasElements) return this.text(content);
    // A Map, turned into an object at the end: a member named `__proto__` must stay a member.
    const obj = new Map<string, unknown>();
    const repeated = new Set<string>();
    for (const item of content) {
      const name = elementName(item);
      if (name === undefined || name === '#text') continue;
      const inner = scopeOf(item[':@'] as XAttrs | undefined, scope);
      const colon = name.indexOf(':');
      const local = colon >= 0 ? name.slice(colon + 1) : name;
      const ns = colon >= 0 ? lookupPrefix(inner, name.slice(0, colon)) : inner?.defaultNs;
      const module = ns === undefined || ns === parentNs ? undefined : this.ctx.moduleByNamespace(ns);
      const member = module ? `${module.name}:${local}` : local;
      const value = this.anyValue(item[name] as XItem[], inner, ns ?? parentNs);
      if (!obj.has(member)) obj.set(member, value);
      else if (repeated.has(member)) (obj.get(member) as unknown[]).push(value);
      else {
        obj.set(member, [obj.get(member), value]);
        repeated.add(member);
      }
    }
    return Object.fromEntries(obj);
  }
}

/**
 * Decodes an XML document against the schema (options as for JSON). Throws DataError with the
 * instance path of the first fault; malformed text is `malformed-message` with line and column.
 */
export function decodeXml(text: string, ctx: SchemaContext, options: DecodeOptions = {}): Decoded {
  if (text.trim() === '') throw new DataError(fault('malformed-message', '/', 'the document is empty'));
  if (/<!DOCTYPE/i.test(text)) throw new DataError(fault('malformed-message', '/', 'a DOCTYPE is not allowed'));
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    throw new DataError(fault('malformed-message', '/', `malformed XML at line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg}`));
  }
  let items: XItem[];
  try {
    items = parser.parse(text) as XItem[];
  } catch (e) {
    throw new DataError(fault('malformed-message', '/', `malformed XML: ${e instanceof Error ? e.message : String(e)}`));
  }
  return new XmlDecoder(ctx, options).decode(items);
}
