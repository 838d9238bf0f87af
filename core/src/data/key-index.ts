/**
 * A persistent (copy-on-write) map from key strings to values: the key index of a list that a stored
 * tree shares between versions. `fork()` is O(1); after it, changing either copy copies only the few
 * nodes on the path to the change (O(log32 n)), so editing one entry of a 100,000-entry list does not
 * copy a 100,000-slot hash table as `new Map(old)` would.
 *
 * The structure is a hash array mapped trie (Bagwell): 32-way branch nodes with a bitmap of the slots
 * in use, entries as leaves, and a bucket for keys whose 32-bit hashes are equal. Nodes created since
 * the last fork belong to the map (`owner` token) and are changed in place, so building or bulk-editing
 * a private copy does not allocate a path per change.
 *
 * It implements `Map<string, V>`, so it can sit where the data tree declares `ListNode.index`.
 */

const BITS = 5;
const MASK = (1 << BITS) - 1;

class Entry<V> {
  constructor(
    readonly key: string,
    readonly hash: number,
    readonly value: V,
  ) {}
}

/** Keys whose whole 32-bit hash is equal. */
class Bucket<V> {
  constructor(
    public owner: object,
    readonly hash: number,
    public entries: Entry<V>[],
  ) {}
}

class Branch<V> {
  constructor(
    public owner: object,
    public bitmap: number,
    public slots: Node<V>[],
  ) {}
}

type Node<V> = Entry<V> | Bucket<V> | Branch<V>;

/** FNV-1a over UTF-16 code units: cheap, and spreads the short similar keys lists have (`eth1`, `eth2`). */
function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

function slotOf(hash: number, shift: number): number {
  return (hash >>> shift) & MASK;
}

function editable<V>(node: Branch<V>, owner: object): Branch<V> {
  return node.owner === owner ? node : new Branch(owner, node.bitmap, node.slots.slice());
}

/** A branch holding two leaves (or buckets) whose hashes differ. */
function join<V>(a: Entry<V> | Bucket<V>, b: Entry<V>, shift: number, owner: object): Branch<V> {
  const ia = slotOf(a.hash, shift);
  const ib = slotOf(b.hash, shift);
  if (ia === ib) return new Branch(owner, 1 << ia, [join(a, b, shift + BITS, owner)]);
  return new Branch(owner, (1 << ia) | (1 << ib), ia < ib ? [a, b] : [b, a]);
}

/** Mutable counter shared by one put/remove walk. */
interface Change {
  sizeDelta: number;
}

function put<V>(node: Node<V> | undefined, shift: number, entry: Entry<V>, owner: object, change: Change): Node<V> {
  if (node === undefined) {
    change.sizeDelta = 1;
    return entry;
  }
  if (node instanceof Entry) {
    if (node.key === entry.key) return entry;
    change.sizeDelta = 1;
    if (node.hash === entry.hash) return new Bucket(owner, entry.hash, [node, entry]);
    return join(node, entry, shift, owner);
  }
  if (node instanceof Bucket) {
    if (node.hash !== entry.hash) {
      change.sizeDelta = 1;
      return join(node, entry, shift, owner);
    }
    const at = node.entries.findIndex((e) => e.key === entry.key);
    const entries = node.owner === owner ? node.entries : node.entries.slice();
    if (at >= 0) entries[at] = entry;
    else {
      entries.push(entry);
      change.sizeDelta = 1;
    }
    if (node.owner === owner) return node;
    return new Bucket(owner, node.hash, entries);
  }
  const bit = 1 << slotOf(entry.hash, shift);
  const at = popcount(node.bitmap & (bit - 1));
  if ((node.bitmap & bit) !== 0) {
    const child = node.slots[at]!;
    const replaced = put(child, shift + BITS, entry, owner, change);
    if (replaced === child) return node;
    const out = editable(node, owner);
    out.slots[at] = replaced;
    return out;
  }
  change.sizeDelta = 1;
  const out = editable(node, owner);
  out.slots.splice(at, 0, entry);
  out.bitmap |= bit;
  return out;
}

function remove<V>(
  node: Node<V> | undefined,
  shift: number,
  hash: number,
  key: string,
  owner: object,
  change: Change,
): Node<V> | undefined {
  if (node === undefined) return undefined;
  if (node instanceof Entry) {
    if (node.key !== key) return node;
    change.sizeDelta = -1;
    return undefined;
  }
  if (node instanceof Bucket) {
    const at = node.hash === hash ? node.entries.findIndex((e) => e.key === key) : -1;
    if (at < 0) return node;
    change.sizeDelta = -1;
    const entries = node.entries.filter((_, i) => i !== at);
    return entries.length === 1 ? entries[0]! : new Bucket(owner, hash, entries);
  }
  const bit = 1 << slotOf(hash, shift);
  if ((node.bitmap & bit) === 0) return node;
  const at = popcount(node.bitmap & (bit - 1));
  const child = node.slots[at]!;
  const replaced = remove(child, shift + BITS, hash, key, owner, change);
  if (replaced === child) return node;
  if (replaced === undefined) {
    if (node.bitmap === bit) return undefined;
    const out = editable(node, owner);
    out.slots.splice(at, 1);
    out.bitmap &= ~bit;
    // A branch left with one leaf collapses into it: lookups compare whole keys, so depth is free.
    const only = out.slots.length === 1 ? out.slots[0]! : undefined;
    return only !== undefined && !(only instanceof Branch) ? only : out;
  }
  const out = editable(node, owner);
  out.slots[at] = replaced;
  return out;
}

function* walk<V>(node: Node<V> | undefined): Generator<Entry<V>, undefined, undefined> {
  if (node === undefined) return undefined;
  if (node instanceof Entry) yield node;
  else if (node instanceof Bucket) yield* node.entries;
  else for (const slot of node.slots) yield* walk(slot);
  return undefined;
}

/** A persistent map from strings to `V`; see the file comment. Iteration order is hash order. */
export class KeyIndex<V> implements Map<string, V> {
  private root: Node<V> | undefined;
  private count: number;
  /** Token marking the nodes this map may change in place (those created since its last fork). */
  private owner: object = {};

  private constructor(root: Node<V> | undefined, count: number) {
    this.root = root;
    this.count = count;
  }

  /** An empty index. */
  static empty<V>(): KeyIndex<V> {
    return new KeyIndex<V>(undefined, 0);
  }

  /** An index holding the given pairs (later pairs win on equal keys). O(n). */
  static from<V>(pairs: Iterable<readonly [string, V]>): KeyIndex<V> {
    const index = KeyIndex.empty<V>();
    for (const [key, value] of pairs) index.set(key, value);
    return index;
  }

  /** An independent copy in O(1): later changes to either are invisible to the other. */
  fork(): KeyIndex<V> {
    this.owner = {}; // nodes made so far are now shared: neither copy may change them in place
    return new KeyIndex(this.root, this.count);
  }

  get size(): number {
    return this.count;
  }

  get(key: string): V | undefined {
    return this.find(key)?.value;
  }

  has(key: string): boolean {
    return this.find(key) !== undefined;
  }

  private find(key: string): Entry<V> | undefined {
    const hash = hashOf(key);
    let node = this.root;
    let shift = 0;
    while (node instanceof Branch) {
      const bit = 1 << slotOf(hash, shift);
      if ((node.bitmap & bit) === 0) return undefined;
      node = node.slots[popcount(node.bitmap & (bit - 1))];
      shift += BITS;
    }
    if (node instanceof Entry) return node.key === key ? node : undefined;
    return node?.entries.find((e) => e.key === key);
  }

  set(key: string, value: V): this {
    const change: Change = { sizeDelta: 0 };
    this.root = put(this.root, 0, new Entry(key, hashOf(key), value), this.owner, change);
    this.count += change.sizeDelta;
    return this;
  }

  delete(key: string): boolean {
    const change: Change = { sizeDelta: 0 };
    this.root = remove(this.root, 0, hashOf(key), key, this.owner, change);
    this.count += change.sizeDelta;
    return change.sizeDelta !== 0;
  }

  clear(): void {
    this.root = undefined;
    this.count = 0;
  }

  forEach(callback: (value: V, key: string, map: Map<string, V>) => void, thisArg?: unknown): void {
    for (const entry of walk(this.root)) callback.call(thisArg, entry.value, entry.key, this);
  }

  *entries(): MapIterator<[string, V]> {
    for (const entry of walk(this.root)) yield [entry.key, entry.value];
    return undefined;
  }

  *keys(): MapIterator<string> {
    for (const entry of walk(this.root)) yield entry.key;
    return undefined;
  }

  *values(): MapIterator<V> {
    for (const entry of walk(this.root)) yield entry.value;
    return undefined;
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'KeyIndex';
  }
}
