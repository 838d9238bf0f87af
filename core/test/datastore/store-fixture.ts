/**
 * What the datastore tests share: a data directory per test, edits of ietf-interfaces entries (the
 * corpus model) built the way the RESTCONF layer builds them (decodeJson under the target's parent),
 * and reading an entry back.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ExecutionContext } from 'ava';
import { decodeJson, encodeJson, findEntry, type Edit, type PathStep } from '../../src/data';
import { childTable, resolveChild, topTable } from '../../src/data/children';
import type { DataRoot, ListNode } from '../../src/data/tree';
import type { SchemaContext, SchemaNode } from '../../src/yang/schema';

/** A fresh data directory removed when the test ends. */
export function dataDirectory(t: ExecutionContext): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-store-'));
  t.teardown(() => fs.rmSync(directory, { recursive: true, force: true }));
  return directory;
}

/** Schema nodes of /ietf-interfaces:interfaces and its interface list. */
export function interfacesSchema(ctx: SchemaContext): { interfaces: SchemaNode; interface: SchemaNode } {
  const interfaces = resolveChild(topTable(ctx), 'ietf-interfaces:interfaces')!.schema as SchemaNode;
  return { interfaces, interface: resolveChild(childTable(interfaces), 'interface')!.schema as SchemaNode };
}

export function entryTarget(ctx: SchemaContext, name: string): PathStep[] {
  const s = interfacesSchema(ctx);
  return [{ schema: s.interfaces }, { schema: s.interface, keys: [name] }];
}

/** A merge (or other operation) of one interface entry with the given leaves. */
export function entryEdit(ctx: SchemaContext, fields: Record<string, unknown>, operation: Edit['operation'] = 'merge'): Edit {
  const name = String(fields.name);
  const decoded = decodeJson({ 'ietf-interfaces:interface': [fields] }, ctx, {
    parent: interfacesSchema(ctx).interfaces,
    parentPath: '/ietf-interfaces:interfaces',
  });
  return { operation, target: entryTarget(ctx, name), value: decoded.node! };
}

/** Replaces the whole interface list with `count` entries named `prefix0..`. */
export function bulkEdit(ctx: SchemaContext, count: number, prefix = 'eth'): Edit {
  const entries = Array.from({ length: count }, (_, i) => ({ name: `${prefix}${i}`, description: `port ${i}`, enabled: i % 2 === 0 }));
  const decoded = decodeJson({ 'ietf-interfaces:interfaces': { interface: entries } }, ctx);
  return { operation: 'replace', target: [{ schema: interfacesSchema(ctx).interfaces }], value: decoded.node! };
}

/** The interface list of a tree (undefined when absent). */
export function interfaceList(root: DataRoot): ListNode | undefined {
  const interfaces = root.children.find((c) => c.schema.name === 'interfaces');
  if (interfaces?.kind !== 'container') return undefined;
  const list = interfaces.children.find((c) => c.kind === 'list');
  return list?.kind === 'list' ? list : undefined;
}

/** The leaves of one interface entry as a plain object, or undefined when the entry is absent. */
export function readEntry(root: DataRoot, name: string): Record<string, unknown> | undefined {
  const list = interfaceList(root);
  const entry = list === undefined ? undefined : findEntry(list, [name]);
  if (entry === undefined) return undefined;
  return (JSON.parse(encodeJson(entry)) as Record<string, Array<Record<string, unknown>>>)['ietf-interfaces:interface']![0];
}
