/**
 * Data tree -> XML text, built directly as a string. The first element of each top-level node carries
 * `xmlns` of its module; a child carries `xmlns` where its module differs from its parent's. Values that
 * name modules (identityref, instance-identifier) and RFC 7952 attributes declare the prefixes they
 * use on their own element, so every element can be cut out and stand alone.
 *
 * List entries write their keys first. Attributes of a list or leaf-list as a whole have no element to
 * sit on in XML and are left out (they exist only in JSON, DESIGN.md §5.6); per-entry and per-value
 * attributes are written.
 */
import type { SchemaContext } from '../yang/schema';
import { annotationOf } from './attributes';
import { leafToText } from './leaf-values';
import type { Attributes, DataNode, DataRoot, LeafValue, ListEntryNode } from './tree';

/** Namespace of RESTCONF's `<data>` wrapper for a whole tree. */
export const RESTCONF_NS = 'urn:ietf:params:xml:ns:yang:ietf-restconf';

export interface EncodeXmlOptions {
  /** Write attributes (default true). */
  readonly attributes?: boolean;
}

function escapeText(s: string): string {
  return /[&<>\r]/.test(s) ? s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;') : s;
}

function escapeAttr(s: string): string {
  return /[&<"\t\n\r]/.test(s)
    ? s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;')
    : s;
}

/** Prefix declarations one element needs (module name -> prefix), kept unique within the element. */
class Declarations {
  private readonly byModule = new Map<string, string>();
  constructor(private readonly ctx: SchemaContext) {}

  prefixFor = (module: string): string => {
    let prefix = this.byModule.get(module);
    if (prefix === undefined) {
      const base = this.ctx.modules.get(module)?.prefix ?? module;
      prefix = base;
      const taken = new Set(this.byModule.values());
      for (let n = 2; taken.has(prefix); n++) prefix = `${base}${n}`;
      this.byModule.set(module, prefix);
    }
    return prefix;
  };

  get empty(): boolean {
    return this.byModule.size === 0;
  }

  write(): string {
    let out = '';
    for (const [module, prefix] of this.byModule) {
      out += ` xmlns:${prefix}="${escapeAttr(this.ctx.modules.get(module)?.namespace ?? module)}"`;
    }
    return out;
  }
}

class XmlWriter {
  constructor(private readonly ctx: SchemaContext, private readonly withAttributes: boolean) {}

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
      const text = value === null ? '' : annotation && typeof value === 'string' ? leafToText(annotation.type, value, decl.prefixFor) : String(value);
      const module = colon >= 0 ? name.slice(0, colon) : undefined;
      const written = module !== undefined && this.ctx.modules.has(module) ? `${decl.prefixFor(module)}:${name.slice(colon + 1)}` : name;
      out += ` ${written}="${escapeAttr(text)}"`;
    }
    return out;
  }

  /** Opening tag text up to (not including) `>`: name, xmlns where the module changes, declarations. */
  private open(name: string, module: string, parentModule: string | undefined): string {
    return module === parentModule ? `<${name}` : `<${name} xmlns="${escapeAttr(this.namespaceOf(module))}"`;
  }

  nodes(nodes: readonly DataNode[], parentModule: string | undefined, out: string): string {
    for (const n of nodes) out = this.node(n, parentModule, out);
    return out;
  }

  node(node: DataNode, parentModule: string | undefined, out: string): string {
    const schema = node.schema;
    const module = schema.module.name;
    const name = schema.name;
    switch (node.kind) {
      case 'leaf':
        return this.leaf(name, module, parentModule, node.schema.type, node.value, node.attributes, out);
      case 'leaf-list':
        for (let i = 0; i < node.values.length; i++) {
          out = this.leaf(name, module, parentModule, node.schema.type, node.values[i]!, node.valueAttributes?.[i], out);
        }
        return out;
      case 'container':
        return this.inner(name, module, parentModule, node.children, node.attributes, out);
      case 'list':
        for (const e of node.entries) out = this.entry(e, parentModule, out);
        return out;
      case 'entry':
        return this.entry(node, parentModule, out);
      case 'any':
        return this.anyElement(name, module, parentModule, node.value, node.attributes, out);
    }
  }

  entry(entry: ListEntryNode, parentModule: string | undefined, out: string): string {
    const keys = entry.schema.keys;
    let children = entry.children;
    const keysFirst = keys.every((k, i) => children[i]?.schema === k);
    if (!keysFirst) {
      const keyNodes = keys.map((k) => children.find((c) => c.schema === k)).filter((c): c is DataNode => c !== undefined);
      children = [...keyNodes, ...children.filter((c) => !keyNodes.includes(c))];
    }
    return this.inner(entry.schema.name, entry.schema.module.name, parentModule, children, entry.attributes, out);
  }

  private inner(name: string, module: string, parentModule: string | undefined, children: readonly DataNode[], attrs: Attributes | undefined, out: string): string {
    out += this.open(name, module, parentModule);
    if (attrs !== undefined && this.withAttributes) {
      const decl = new Declarations(this.ctx);
      const written = this.attributes(attrs, decl);
      out += decl.write() + written;
    }
    if (children.length === 0) return out + '/>';
    out = this.nodes(children, module, out + '>');
    return `${out}</${name}>`;
  }

  private leaf(
    name: string, module: string, parentModule: string | undefined, type: Parameters<typeof leafToText>[0], value: LeafValue,
    attrs: Attributes | undefined, out: string,
  ): string {
    let decl: Declarations | undefined;
    let text: string;
    if (typeof value === 'string' && (type.builtin === 'identityref' || type.builtin === 'instance-identifier' || type.builtin === 'union' || type.builtin === 'leafref')) {
      decl = new Declarations(this.ctx);
      text = leafToText(type, value, decl.prefixFor);
    } else {
      text = value === null ? '' : typeof value === 'boolean' ? (value ? 'true' : 'false') : String(value);
    }
    let written = '';
    if (attrs !== undefined && this.withAttributes) {
      decl ??= new Declarations(this.ctx);
      written = this.attributes(attrs, decl);
    }
    out += this.open(name, module, parentModule);
    if (decl !== undefined && !decl.empty) out += decl.write();
    out += written;
    return text === '' ? `${out}/>` : `${out}>${escapeText(text)}</${name}>`;
  }

  /** anydata content: members become elements (qualified names switch namespace), arrays repeat. */
  private anyElement(name: string, module: string, parentModule: string | undefined, value: unknown, attrs: Attributes | undefined, out: string): string {
    if (Array.isArray(value) && !(value.length === 1 && value[0] === null)) {
      for (const v of value) out = this.anyElement(name, module, parentModule, v, attrs, out);
      return out;
    }
    out += this.open(name, module, parentModule);
    if (attrs !== undefined && this.withAttributes) {
      const decl = new Declarations(this.ctx);
      const written = this.attributes(attrs, decl);
      out += decl.write() + written;
    }
    if (value === null || value === undefined || Array.isArray(value)) return out + '/>';
    if (typeof value !== 'object') return `${out}>${escapeText(String(value))}</${name}>`;
    out += '>';
    for (const [member, v] of Object.entries(value as Record<string, unknown>)) {
      const colon = member.indexOf(':');
      const childModule = colon >= 0 ? member.slice(0, colon) : module;
      out = this.anyElement(colon >= 0 ? member.slice(colon + 1) : member, childModule, module, v, undefined, out);
    }
    return `${out}</${name}>`;
  }
}

/**
 * Writes XML for: a whole tree (`DataRoot`, wrapped in RESTCONF's `<data>` element); one node (its
 * element; a list writes one element per entry, a leaf-list one per value); or sibling nodes (their
 * elements one after the other, which is only a well-formed document when there is one element).
 */
export function encodeXml(target: DataRoot | DataNode | readonly DataNode[], ctx: SchemaContext, options: EncodeXmlOptions = {}): string {
  const writer = new XmlWriter(ctx, options.attributes ?? true);
  if (Array.isArray(target)) return writer.nodes(target as readonly DataNode[], undefined, '');
  const t = target as DataRoot | DataNode;
  if (t.kind === 'root') {
    if (t.children.length === 0) return `<data xmlns="${RESTCONF_NS}"/>`;
    return `${writer.nodes(t.children, undefined, `<data xmlns="${RESTCONF_NS}">`)}</data>`;
  }
  return writer.node(t, undefined, '');
}
