/**
 * Leaves marked `rosetta-secret:sensitive` (core/yang/rosetta-secret@2026-11-22.yang) and what the
 * Config datastore does with their values: it seals each one before it is kept (sealEdits, sealTree),
 * so its tree, journal records and snapshots hold only `$rosetta$v2$...`; reading back, it opens them
 * in the stored JSON before decoding (openStoredSecrets: the type is checked on the clear value, as
 * when it was written) and seals them again. `revealSecret` is how a part of the service that needs a
 * clear value (a southbound session, a plugin's outgoing request) gets it.
 *
 * A value is sealed for its leaf's instance path (`secretContext`), so a sealed value copied elsewhere
 * does not open. A write whose value already has the current sealed form is kept as written: that is
 * a client writing back what it read (it opens where it came from, nowhere else).
 *
 * Walks look only into subtrees whose schema holds a sensitive leaf (`holdsSensitive`, memoized per
 * schema node), so a write to a model without secrets costs one lookup per edit.
 */
import type { Edit, PathStep } from '../data/edit';
import { entryKeyValues, valueText } from '../data/path';
import { resolveChild, tableFor } from '../data/children';
import type { DataNode, DataRoot, LeafNode, LeafValue } from '../data/tree';
import { dataChildren, type LeafSchema, type ListSchema, type SchemaContext, type SchemaNode } from '../yang/schema';
import { SEALED_PREFIX, SecretBox } from './secrets';

/** The module and extension that mark a secret. */
export const SENSITIVE_MODULE = 'rosetta-secret';
export const SENSITIVE_EXTENSION = 'sensitive';

/** True for a leaf marked sensitive (list keys excepted: they are in every path and URI). */
export function isSensitive(node: SchemaNode): node is LeafSchema {
  return (
    node.kind === 'leaf' && !node.isKey && node.extensions.some((e) => e.module === SENSITIVE_MODULE && e.name === SENSITIVE_EXTENSION)
  );
}

const holding = new WeakMap<SchemaNode, boolean>();

/** Whether `node` is a sensitive leaf or has one below it (RPC/action/notification content excluded). */
export function holdsSensitive(node: SchemaNode): boolean {
  let known = holding.get(node);
  if (known === undefined) {
    known = isSensitive(node);
    if (!known && (node.kind === 'container' || node.kind === 'list' || node.kind === 'choice' || node.kind === 'case')) {
      for (const child of dataChildren(node.children)) {
        if (holdsSensitive(child)) {
          known = true;
          break;
        }
      }
    }
    holding.set(node, known);
  }
  return known;
}

/** Whether any top-level data node of `ctx` holds a sensitive leaf. */
export function schemaHoldsSensitive(ctx: SchemaContext): boolean {
  return ctx.data.some(holdsSensitive);
}

// ---------------------------------------------------------------------------------------------------
// The context a value is sealed for. The format is owned here (not data/path.ts) because stored
// values depend on it: it must never change.

/** One step of a context: `/module:name`, plus `[...]` (JSON of the key texts) for a list entry. */
function formatStep(qualifiedName: string, keyTexts: readonly string[] | undefined): string {
  const step = `/${qualifiedName}`;
  return keyTexts === undefined ? step : `${step}${JSON.stringify(keyTexts)}`;
}

function contextStep(schema: SchemaNode, keys: readonly LeafValue[] | undefined): string {
  return formatStep(`${schema.module.name}:${schema.name}`, keys?.map(valueText));
}

/**
 * The context step of a node known only by its stored form (no schema: parked data of an absent
 * module): its `module:name` and, for a list entry, its key values as stored JSON, in key order.
 */
export function storedContextStep(qualifiedName: string, storedKeys?: readonly unknown[]): string {
  return formatStep(
    qualifiedName,
    storedKeys?.map((k) => valueText(storedKeyText(k))),
  );
}

/** The context of the leaf a chain of path steps names (the chain ends with the leaf). */
export function secretContext(steps: readonly PathStep[]): string {
  let out = '';
  for (const s of steps) out += contextStep(s.schema, s.schema.kind === 'list' ? s.keys : undefined);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Sealing what is written

/**
 * `value` as stored: a value in the current sealed form is kept as written (it opens only for the leaf
 * it was sealed for, so copied elsewhere it opens nowhere); anything else, an earlier version's
 * sealed form included, is a clear value and is sealed for `context`.
 */
function sealedValue(value: string, context: string, box: SecretBox): string {
  return value.startsWith(SEALED_PREFIX) ? value : box.seal(value, context);
}

function sealLeaf(node: LeafNode, context: string, box: SecretBox): LeafNode {
  if (typeof node.value !== 'string') return node;
  const value = sealedValue(node.value, context, box);
  return value === node.value ? node : { ...node, value };
}

/** `node` (whose parent's context is `parent`) with every sensitive leaf sealed; the same node when none changed. */
function sealNode(node: DataNode, parent: string, box: SecretBox): DataNode {
  if (!holdsSensitive(node.schema as SchemaNode)) return node;
  switch (node.kind) {
    case 'leaf':
      return isSensitive(node.schema) ? sealLeaf(node, parent + contextStep(node.schema, undefined), box) : node;
    case 'list': {
      let entries: typeof node.entries | undefined;
      node.entries.forEach((entry, i) => {
        const sealed = sealNode(entry, parent, box);
        if (sealed !== entry) (entries ??= [...node.entries])[i] = sealed as typeof entry;
      });
      if (entries === undefined) return node;
      const copy = { ...node, entries };
      delete copy.index; // the index points at the old entries
      return copy;
    }
    case 'entry':
    case 'container': {
      const own = parent + contextStep(node.schema as SchemaNode, node.kind === 'entry' ? entryKeyValues(node) : undefined);
      const children = sealChildren(node.children, own, box);
      return children === node.children ? node : { ...node, children };
    }
    default:
      return node;
  }
}

function sealChildren(children: DataNode[], context: string, box: SecretBox): DataNode[] {
  let out: DataNode[] | undefined;
  children.forEach((child, i) => {
    const sealed = sealNode(child, context, box);
    if (sealed !== child) (out ??= [...children])[i] = sealed;
  });
  return out ?? children;
}

/** A whole tree with every sensitive leaf sealed (copy-on-write: unchanged subtrees are shared). */
export function sealTree(root: DataRoot, box: SecretBox): DataRoot {
  const children = sealChildren(root.children, '', box);
  return children === root.children ? root : { ...root, children };
}

/** `edits` with the sensitive leaves of their values sealed; the same array when there are none. */
export function sealEdits(edits: readonly Edit[], box: SecretBox): readonly Edit[] {
  let out: Edit[] | undefined;
  edits.forEach((edit, i) => {
    if (edit.value === undefined) return;
    let value: DataNode | DataRoot;
    if (edit.value.kind === 'root') value = sealTree(edit.value, box);
    else {
      // The value is the target's node (for a list entry: the entry, or a list holding just it).
      value = sealNode(edit.value, secretContext(edit.target.slice(0, -1)), box);
    }
    if (value !== edit.value) (out ??= [...edits])[i] = { ...edit, value };
  });
  return out ?? edits;
}

// ---------------------------------------------------------------------------------------------------
// Reading back

type JsonObject = Record<string, unknown>;
const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Text of a stored key value as the typed value's `valueText` gives it (JSON scalars of RFC 7951). */
function storedKeyText(raw: unknown): LeafValue {
  if (Array.isArray(raw) && raw.length === 1 && raw[0] === null) return null; // `empty`
  return typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean' ? raw : String(raw);
}

/**
 * Opens, in place, the sealed values of sensitive leaves in stored RFC 7951 JSON `doc` under `parent`
 * (undefined: the top level) whose leaf path starts with `parentContext`. Values sealed by earlier
 * versions open too. Returns the clear values opened, for the caller to keep out of its log lines. A
 * value that does not open stays as it is; `onUnopened` is told its context when it has a sealed form.
 */
export function openStoredSecrets(
  doc: JsonObject,
  parent: SchemaNode | undefined,
  parentContext: string,
  ctx: SchemaContext,
  box: SecretBox,
  opened: string[] = [],
  onUnopened?: (context: string) => void,
): string[] {
  const table = tableFor(parent, ctx);
  for (const name of Object.keys(doc)) {
    if (name === '@') continue;
    const schema = resolveChild(table, name)?.schema as SchemaNode | undefined;
    if (schema === undefined || !holdsSensitive(schema)) continue;
    const raw = doc[name];
    if (schema.kind === 'leaf') {
      const wrapped = isObject(raw) && '#' in raw; // a leaf with attributes: {"@": ..., "#": value}
      const value = wrapped ? raw['#'] : raw;
      if (typeof value !== 'string') continue;
      const context = parentContext + contextStep(schema, undefined);
      const clear = box.open(value, context) ?? box.openLegacy(value);
      if (clear === undefined) {
        if (SecretBox.isSealed(value)) onUnopened?.(context);
        continue;
      }
      opened.push(clear);
      if (wrapped) raw['#'] = clear;
      else doc[name] = clear;
    } else if (schema.kind === 'container' && isObject(raw)) {
      openStoredSecrets(raw, schema, parentContext + contextStep(schema, undefined), ctx, box, opened, onUnopened);
    } else if (schema.kind === 'list') {
      const entries = isObject(raw) && Array.isArray(raw['#']) ? raw['#'] : raw;
      if (!Array.isArray(entries)) continue;
      const keys = (schema as ListSchema).keys;
      for (const entry of entries) {
        if (!isObject(entry)) continue;
        const keyValues = keys.map((k) => storedKeyText(entry[k.name] ?? entry[`${k.module.name}:${k.name}`]));
        openStoredSecrets(entry, schema, parentContext + contextStep(schema, keyValues), ctx, box, opened, onUnopened);
      }
    }
  }
  return opened;
}

/**
 * The clear value of the sensitive leaf that `steps` name in `root` (a Config datastore tree);
 * undefined when the leaf is absent, not sensitive, or its value does not open with `box`.
 */
export function revealSecret(root: DataRoot, steps: readonly PathStep[], box: SecretBox): string | undefined {
  const leaf = steps.at(-1)?.schema;
  if (leaf === undefined || !isSensitive(leaf)) return undefined;
  let children: readonly DataNode[] = root.children;
  let found: DataNode | undefined;
  for (const step of steps) {
    found = children.find((c) => c.schema === step.schema);
    if (found === undefined) return undefined;
    if (found.kind === 'list') {
      const keys = step.keys ?? [];
      found = found.entries.find((e) => entryKeyValues(e).every((v, i) => valueText(v) === valueText(keys[i] ?? null)));
      if (found === undefined) return undefined;
    }
    children = found.kind === 'container' || found.kind === 'entry' ? found.children : [];
  }
  return found?.kind === 'leaf' && typeof found.value === 'string' ? box.open(found.value, secretContext(steps)) : undefined;
}
