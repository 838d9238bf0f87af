/**
 * List entries by key, and where new entries and leaf-list values go.
 *
 * - A key string is made from the key leaves' canonical values; lookups go through `ListNode.index`,
 *   built on the first lookup (O(n) once, O(1) after) and kept up to date by the functions here.
 * - `ordered-by user` lists and leaf-lists take `insert` first/last/before/after a `point`.
 * - `ordered-by system` lists keep insertion order (new entries are appended), as most controllers
 *   do: the order is stable, deterministic, and costs nothing to maintain.
 *
 * These functions mutate the list they are given: call them on a private copy (see edit.ts).
 */
import { forgetListProof } from './decode-proof';
import { DataError, fault } from './errors';
import { EntrySequence } from './entry-sequence';
import { KeyIndex } from './key-index';
import { entryKeyValues, valueText } from './path';
import type { Attributes, LeafListNode, LeafValue, ListEntryNode, ListNode } from './tree';

/**
 * The length in UTF-8 bytes of a key value longer than `limit` bytes, or -1. A string of n UTF-16 code
 * units takes at most 3n bytes, so a short key costs one comparison; only a long one is measured.
 */
export function keyBytesOver(value: LeafValue, limit: number): number {
  if (typeof value !== 'string' || value.length * 3 <= limit) return -1;
  const bytes = Buffer.byteLength(value, 'utf8');
  return bytes > limit ? bytes : -1;
}

/** The message of a key value over the limit (`bytes` as keyBytesOver measured it). */
export function keyTooLongMessage(key: string, bytes: number, limit: number): string {
  return `key '${key}' is ${bytes} bytes long (UTF-8); a list key may be at most ${limit} bytes, so that its entry can be addressed by a URI`;
}

/**
 * The key string of a list entry from its key values. One key is its text; several are length-
 * prefixed so that no choice of values can make two different key tuples collide.
 */
export function keyString(values: readonly LeafValue[]): string {
  if (values.length === 1) return valueText(values[0]!);
  let out = '';
  for (const v of values) {
    const text = valueText(v);
    out += `${text.length}:${text}`;
  }
  return out;
}

/** The key string of an entry, from its key leaves. */
export function entryKey(entry: ListEntryNode): string {
  const keys = entry.schema.keys;
  if (keys.length === 1) {
    const first = entry.children[0];
    if (first !== undefined && first.schema === keys[0] && first.kind === 'leaf') return valueText(first.value);
  }
  return keyString(entryKeyValues(entry));
}

/** Seeds the duplicate check's hash per process, so no fixed set of keys collides everywhere. */
const HASH_SEED = (Math.random() * 0x100000000) >>> 0;
/** Probes one key may take in the duplicate check's table before the check falls back to a Set. */
const MAX_PROBES = 64;

/**
 * The position of the first of `keys[0..count)` equal to an earlier one, or -1: what a decoder needs to
 * refuse a list with a repeated key. The index itself (a Map of every entry) is left for the first
 * lookup to build (`listIndex`): a list read from a device or a client and written out again never
 * needs one, and a table of positions is a tenth of its memory. The table hashes the key text with a
 * per-process seed and probes linearly; a key that probes past MAX_PROBES (keys made to collide) sends
 * the whole check to a Set, whose hashing V8 seeds itself, so no input makes it quadratic.
 */
export function firstRepeatedKey(keys: readonly string[], count: number): number {
  if (count < 2 || ascending(keys, count)) return -1;
  let size = 16;
  while (size < count * 2) size *= 2;
  const table = new Int32Array(size); // 0: empty; else the key's position + 1
  const mask = size - 1;
  for (let i = 0; i < count; i++) {
    const key = keys[i]!;
    let h = HASH_SEED;
    for (let c = 0; c < key.length; c++) h = Math.imul(h ^ key.charCodeAt(c), 0x01000193);
    h ^= h >>> 16;
    let slot = Math.imul(h, 0x85ebca6b) & mask;
    for (let probes = 0; ; probes++) {
      const at = table[slot]!;
      if (at === 0) {
        table[slot] = i + 1;
        break;
      }
      if (keys[at - 1] === key) return i;
      if (probes === MAX_PROBES) return firstRepeatedKeyByMap(keys, count);
      slot = (slot + 1) & mask;
    }
  }
  return -1;
}

/**
 * Whether the keys come strictly ascending (shorter first, then by code units), so that no two are
 * equal: one comparison of neighbours per key and no table. Devices mostly answer lists in key order
 * (`eth0` .. `eth99999` ascends so); any other order costs the comparisons up to its first step back.
 */
function ascending(keys: readonly string[], count: number): boolean {
  let previous = keys[0]!;
  for (let i = 1; i < count; i++) {
    const key = keys[i]!;
    if (key.length < previous.length || (key.length === previous.length && key <= previous)) return false;
    previous = key;
  }
  return true;
}

function firstRepeatedKeyByMap(keys: readonly string[], count: number): number {
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) {
    const size = seen.size;
    seen.add(keys[i]!);
    if (seen.size === size) return i;
  }
  return -1;
}

/** Indexes built for lists that were frozen without one (a stored tree is frozen; it cannot take `index`). */
const frozenIndexes = new WeakMap<ListNode, Map<string, ListEntryNode>>();

/** The index a list has already, on itself or beside it (frozen); undefined when none was built. */
function builtIndex(list: ListNode): Map<string, ListEntryNode> | undefined {
  return list.index ?? frozenIndexes.get(list);
}

/** The index of a keyed list (built now if it was not). Keyless lists have none. */
export function listIndex(list: ListNode): Map<string, ListEntryNode> | undefined {
  if (list.schema.keys.length === 0) return undefined;
  let index = builtIndex(list);
  if (index === undefined) {
    index = new Map<string, ListEntryNode>();
    for (const e of list.entries) index.set(entryKey(e), e);
    if (Object.isExtensible(list)) list.index = index;
    else frozenIndexes.set(list, index);
  }
  return index;
}

/** The entry with the given key values, if present. */
export function findEntry(list: ListNode, keys: readonly LeafValue[]): ListEntryNode | undefined {
  return listIndex(list)?.get(keyString(keys));
}

/** Where a new entry or value goes in an `ordered-by user` list or leaf-list. */
export type InsertPosition =
  | { readonly where: 'first' | 'last' }
  | { readonly where: 'before' | 'after'; readonly point: readonly LeafValue[] };

function missingPoint(path: string, point: readonly LeafValue[]): DataError {
  return new DataError(fault('bad-attribute', path, `insert point ${point.map(valueText).join(',')} does not exist`));
}

/**
 * Puts `entry` into `list`: at `pos` for `ordered-by user` lists (last when absent), appended
 * otherwise. An entry with the same key is replaced in place unless a position moves it. `path`
 * names the list for errors. Throws DataError `bad-attribute` when the point entry does not exist
 * (and then leaves the list as it was).
 */
export function putEntry(list: ListNode, entry: ListEntryNode, pos?: InsertPosition, path = '/'): void {
  forgetListProof(list);
  const index = listIndex(list);
  const key = index ? entryKey(entry) : '';
  const existing = index?.get(key);
  let point: ListEntryNode | undefined;
  if (pos !== undefined && 'point' in pos && list.schema.orderedBy === 'user') {
    point = findEntry(list, pos.point);
    if (point === undefined) throw missingPoint(path, pos.point);
  }
  const moves = pos !== undefined && list.schema.orderedBy === 'user' && (point === undefined || point !== existing);
  const sequence = sequences.get(list);
  if (sequence !== undefined) {
    if (existing !== undefined && !moves) sequence.replace(key, entry);
    else {
      if (existing !== undefined) sequence.remove(key);
      sequence.insert(key, entry, moves ? pos!.where : 'last', point === undefined ? undefined : entryKey(point));
    }
  } else if (existing !== undefined && !moves) {
    list.entries[list.entries.indexOf(existing)] = entry;
  } else {
    if (existing !== undefined) list.entries.splice(list.entries.indexOf(existing), 1);
    let at = list.entries.length;
    if (moves) {
      if (pos!.where === 'first') at = 0;
      else if (point !== undefined) at = list.entries.indexOf(point) + (pos!.where === 'after' ? 1 : 0);
    }
    list.entries.splice(at, 0, entry);
  }
  index?.set(key, entry);
}

/** Removes an entry (by identity) from the list; returns whether it was there. */
export function removeEntry(list: ListNode, entry: ListEntryNode): boolean {
  forgetListProof(list);
  const sequence = sequences.get(list);
  if (sequence !== undefined) {
    const key = entryKey(entry);
    if (list.index?.get(key) !== entry) return false;
    sequence.remove(key);
    list.index.delete(key);
    return true;
  }
  const at = list.entries.indexOf(entry);
  if (at < 0) return false;
  list.entries.splice(at, 1);
  if (list.index !== undefined) list.index.delete(entryKey(entry));
  return true;
}

/** Number of entries of a list (without building its entries array when it is a persistent sequence). */
export function listSize(list: ListNode): number {
  return sequences.get(list)?.size ?? list.entries.length;
}

/**
 * Lists copied by `copyList` from a list of at least this many keyed entries keep their entries in a
 * persistent `EntrySequence` (see entry-sequence.ts) instead of a copied array. Below it, copying the
 * array is cheaper than the sequence's bookkeeping.
 */
const SEQUENCE_THRESHOLD = 64;

/** The persistent entries of the lists that have them. `entries` of such a list is an accessor. */
const sequences = new WeakMap<ListNode, EntrySequence>();

/**
 * Gives `list` its entries as `sequence`: reading `entries` builds the array once per change of the
 * sequence; assigning `entries` turns the list back into a plain one holding the assigned array.
 */
function attachSequence(list: ListNode, sequence: EntrySequence): void {
  sequences.set(list, sequence);
  Object.defineProperty(list, 'entries', {
    configurable: true,
    enumerable: true,
    get: () => sequence.toArray(),
    set(entries: ListEntryNode[]) {
      sequences.delete(list);
      Object.defineProperty(list, 'entries', { value: entries, writable: true, enumerable: true, configurable: true });
    },
  });
}

/**
 * A shallow copy of a list node that may be changed without touching the original. The key index is
 * forked, not copied: a stored list's index becomes a persistent `KeyIndex` (converted once, O(n), the
 * first time the list is copied; the original keeps an equal index), so each later copy costs O(1) for
 * the index and one edit O(log n), whatever the size of the list.
 */
export function copyList(list: ListNode): ListNode {
  const keyed = list.schema.keys.length > 0;
  let sequence = sequences.get(list);
  if (sequence === undefined && keyed && list.entries.length >= SEQUENCE_THRESHOLD) {
    sequence = EntrySequence.from(list.entries, entryKey);
    // Same entries, same order: readers of the original see no difference. (A frozen tree keeps its array.)
    if (Object.isExtensible(list)) attachSequence(list, sequence);
  }
  const copy = { kind: 'list', schema: list.schema } as ListNode;
  if (sequence !== undefined) attachSequence(copy, sequence.fork());
  else copy.entries = list.entries.slice();
  if (list.attributes !== undefined) copy.attributes = list.attributes;
  if (keyed) {
    let shared: KeyIndex<ListEntryNode>;
    if (list.index instanceof KeyIndex) shared = list.index as KeyIndex<ListEntryNode>;
    else {
      shared = KeyIndex.from(builtIndex(list) ?? list.entries.map((e) => [entryKey(e), e] as const));
      if (Object.isExtensible(list)) list.index = shared; // a cache, equal in content: readers of the original see no difference
    }
    copy.index = shared.fork();
  }
  return copy;
}

// ---------------------------------------------------------------------------------------------------
// Leaf-lists

/** Position of a value in a leaf-list, compared by canonical text (-1 when absent). */
export function valueIndex(ll: LeafListNode, value: LeafValue): number {
  const text = valueText(value);
  for (let i = 0; i < ll.values.length; i++) if (valueText(ll.values[i]!) === text) return i;
  return -1;
}

/**
 * Puts a value into a leaf-list: at `pos` for `ordered-by user` leaf-lists, else appended. A value
 * already present stays where it is unless a position moves it; its attributes are replaced when
 * given. Throws DataError `bad-attribute` when the point value does not exist (list unchanged).
 */
export function putValue(ll: LeafListNode, value: LeafValue, attributes?: Attributes, pos?: InsertPosition, path = '/'): void {
  const existing = valueIndex(ll, value);
  let point = -1;
  if (pos !== undefined && 'point' in pos && ll.schema.orderedBy === 'user') {
    point = pos.point.length === 1 ? valueIndex(ll, pos.point[0]!) : -1;
    if (point < 0) throw missingPoint(path, pos.point);
  }
  const moves = pos !== undefined && ll.schema.orderedBy === 'user' && (point < 0 || point !== existing);
  if (existing >= 0 && !moves) {
    if (attributes !== undefined) setValueAttributes(ll, existing, attributes);
    return;
  }
  const pointValue = point >= 0 ? ll.values[point]! : undefined;
  let attrs = attributes;
  if (existing >= 0) {
    attrs ??= ll.valueAttributes?.[existing];
    ll.values.splice(existing, 1);
    ll.valueAttributes?.splice(existing, 1);
  }
  let at = ll.values.length;
  if (moves) {
    if (pos!.where === 'first') at = 0;
    else if (pointValue !== undefined) at = valueIndex(ll, pointValue) + (pos!.where === 'after' ? 1 : 0);
  }
  ll.values.splice(at, 0, value);
  if (ll.valueAttributes !== undefined) ll.valueAttributes.splice(at, 0, attrs);
  else if (attrs !== undefined) setValueAttributes(ll, at, attrs);
}

function setValueAttributes(ll: LeafListNode, at: number, attributes: Attributes): void {
  if (ll.valueAttributes === undefined) ll.valueAttributes = new Array(ll.values.length).fill(undefined);
  ll.valueAttributes[at] = attributes;
}

/** Removes a value from a leaf-list; returns whether it was there. */
export function removeValue(ll: LeafListNode, value: LeafValue): boolean {
  const at = valueIndex(ll, value);
  if (at < 0) return false;
  ll.values.splice(at, 1);
  ll.valueAttributes?.splice(at, 1);
  return true;
}

/** A shallow copy of a leaf-list node that may be changed without touching the original. */
export function copyLeafList(ll: LeafListNode): LeafListNode {
  const copy: LeafListNode = { kind: 'leaf-list', schema: ll.schema, values: ll.values.slice() };
  if (ll.attributes !== undefined) copy.attributes = ll.attributes;
  if (ll.valueAttributes !== undefined) copy.valueAttributes = ll.valueAttributes.slice();
  return copy;
}
