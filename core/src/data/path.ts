/**
 * RFC 7951 instance paths (`/ietf-interfaces:interfaces/interface[name='eth0']/ietf-ip:ipv4/mtu`) for
 * error messages, RESTCONF error-path and diff results. The module name prefixes the first node and
 * every node whose module differs from its parent's; list entries carry one predicate per key, in key
 * order; leaf-list entries carry `[.='value']`.
 *
 * Trees have no parent pointers, so paths are computed from an ancestor chain that the walker keeps.
 */
import type { ListSchema, SchemaNode } from '../yang/schema';
import type { DataNode, LeafValue, ListEntryNode } from './tree';

/** One step of an instance path: a schema node, plus key values for a list entry or a leaf-list value. */
export interface PathSegment {
  readonly schema: SchemaNode;
  /** Key values in key order, for one list entry. Raw strings are taken as already in text form. */
  readonly keys?: readonly LeafValue[];
  /** The value, for one leaf-list entry. */
  readonly value?: LeafValue;
}

/** Text form of a canonical leaf value as it appears in paths and key strings. */
export function valueText(value: LeafValue): string {
  if (typeof value === 'string') return value;
  if (value === null) return '';
  return String(value);
}

/**
 * Quotes a predicate value as XPath 1.0 allows: single quotes unless the value holds one, then
 * double quotes; a value with both kinds is spelled with concat(), XPath having no escapes.
 */
export function quotePredicate(text: string): string {
  if (!text.includes("'")) return `'${text}'`;
  if (!text.includes('"')) return `"${text}"`;
  const parts = text.split("'").map((p) => `'${p}'`);
  return `concat(${parts.join(`, "'", `)})`;
}

/** Appends one segment to a path text; `parentModule` is the module of the previous segment. */
function appendSegment(out: string, seg: PathSegment, parentModule: string | undefined): string {
  const module = seg.schema.module.name;
  out += module === parentModule ? `/${seg.schema.name}` : `/${module}:${seg.schema.name}`;
  if (seg.keys && seg.schema.kind === 'list') {
    const keys = (seg.schema as ListSchema).keys;
    for (let i = 0; i < keys.length && i < seg.keys.length; i++) {
      out += `[${keys[i]!.name}=${quotePredicate(valueText(seg.keys[i]!))}]`;
    }
  } else if (seg.value !== undefined && seg.schema.kind === 'leaf-list') {
    out += `[.=${quotePredicate(valueText(seg.value))}]`;
  }
  return out;
}

/**
 * The instance path of a chain of segments, outermost first. `base` is the path of the chain's
 * parent (a RESTCONF target the document sits under) and `baseModule` that parent's module.
 */
export function instancePath(segments: readonly PathSegment[], base = '', baseModule?: string): string {
  let out = base === '/' ? '' : base;
  let module = baseModule;
  for (const seg of segments) {
    out = appendSegment(out, seg, module);
    module = seg.schema.module.name;
  }
  return out === '' ? '/' : out;
}

/** The key values of a list entry, in key order (undefined for a key the entry lacks). */
export function entryKeyValues(entry: ListEntryNode): LeafValue[] {
  const keys = entry.schema.keys;
  const values: LeafValue[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    // Keys sit first in a well-formed entry; the scan covers trees built in any order.
    const child = entry.children[i]?.schema === key ? entry.children[i] : entry.children.find((c) => c.schema === key);
    values[i] = child?.kind === 'leaf' ? child.value : (undefined as unknown as LeafValue);
  }
  return values;
}

/** The path segment that names a data node (list entries with their keys). */
export function segmentOf(node: DataNode): PathSegment {
  if (node.kind === 'entry') return { schema: node.schema, keys: entryKeyValues(node) };
  return { schema: node.schema };
}

/**
 * The instance path of the last node of an ancestor chain (outermost first). A `list` node in the
 * chain names the list as a whole; follow it by the entry to name one entry (the list node is then
 * skipped, since an entry's segment already names the list).
 */
export function pathOfChain(chain: readonly DataNode[], base = '', baseModule?: string): string {
  const segments: PathSegment[] = [];
  for (let i = 0; i < chain.length; i++) {
    const node = chain[i]!;
    if (node.kind === 'list' && chain[i + 1]?.kind === 'entry') continue;
    segments.push(segmentOf(node));
  }
  return instancePath(segments, base, baseModule);
}
