/**
 * Instance paths of data-tree nodes: schema-bound segments (a schema node with typed key values or a
 * leaf-list value) turned into the instance path value (yang/instance-path.ts), which southbound hooks
 * carry, and into its RFC 7951 text (`/ietf-interfaces:interfaces/interface[name='eth0']/ietf-ip:ipv4/mtu`)
 * for error messages, RESTCONF error-path and diff results, written by that file's one renderer.
 *
 * Trees have no parent pointers, so paths are computed from an ancestor chain that the walker keeps.
 */
import { type InstancePath, type InstancePathSegment, renderInstancePath, setKey } from '../yang/instance-path';
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

export { quotePredicate } from '../yang/instance-path';

/** The instance path value of one schema-bound segment (key and leaf-list values in text form). */
function valueSegment(seg: PathSegment): InstancePathSegment {
  const module = seg.schema.module.name;
  const name = seg.schema.name;
  if (seg.keys && seg.schema.kind === 'list') {
    const names = (seg.schema as ListSchema).keys;
    const keys: Record<string, string> = {};
    for (let i = 0; i < names.length && i < seg.keys.length; i++) setKey(keys, names[i]!.name, valueText(seg.keys[i]!));
    return { module, name, keys };
  }
  if (seg.value !== undefined && seg.schema.kind === 'leaf-list') return { module, name, value: valueText(seg.value) };
  return { module, name };
}

/** The instance path value of a chain of segments, outermost first. */
export function instancePathOf(segments: readonly PathSegment[]): InstancePath {
  const out: InstancePathSegment[] = new Array(segments.length);
  for (let i = 0; i < segments.length; i++) out[i] = valueSegment(segments[i]!);
  return out;
}

/**
 * The instance path of a chain of segments, outermost first. `base` is the path of the chain's
 * parent (a RESTCONF target the document sits under) and `baseModule` that parent's module.
 */
export function instancePath(segments: readonly PathSegment[], base = '', baseModule?: string): string {
  return renderInstancePath(instancePathOf(segments), { kind: 'json', base, ...(baseModule !== undefined ? { baseModule } : {}) });
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
