/**
 * The device trees decoded from stored configurations, kept for the most recently used ones only. A
 * stored configuration (a JSON object, never changed in place) decodes to the same tree every time, so
 * commits, diffs and transactions that read a node again skip the decoding; but a tree kept for every
 * idle node of a fleet costs about as much memory as the node's configuration itself
 * (docs/operations.md#memory), so beyond `capacity` the least recently used tree is dropped (decoded
 * again when next read). The bound is above what one transaction of a thousand nodes reads.
 *
 * Trees hang off their configuration object weakly (a configuration replaced or removed takes its tree
 * with it), and the recency order holds only weak references, so nothing here outlives the stored
 * configurations: after every node is uninstalled no tree is left.
 */
import type { DataRoot } from '../data/tree';
import type { SchemaContext } from '../yang/schema';

/** Trees kept: intended and actual of each node of a 1,000-node transaction, with room to spare. */
export const DECODED_TREES_KEPT = 2_500;

interface Kept {
  readonly schema: SchemaContext;
  root: DataRoot | undefined;
  readonly ref: WeakRef<Kept>;
}

export class DecodedTrees {
  private readonly byJson = new WeakMap<object, Kept>();
  /** Kept trees in use order, oldest first (a Set iterates in insertion order; a use moves its entry last). */
  private readonly recent = new Set<WeakRef<Kept>>();

  constructor(private readonly capacity = DECODED_TREES_KEPT) {}

  /** The tree decoded from `json` in `schema`, if it is still kept. */
  get(json: object, schema: SchemaContext): DataRoot | undefined {
    const kept = this.byJson.get(json);
    if (kept?.root === undefined || kept.schema !== schema) return undefined;
    this.recent.delete(kept.ref);
    this.recent.add(kept.ref);
    return kept.root;
  }

  /** Keeps `root` as the tree of `json` in `schema`, dropping the least recently used beyond the bound. */
  set(json: object, schema: SchemaContext, root: DataRoot): void {
    const previous = this.byJson.get(json);
    if (previous !== undefined) this.recent.delete(previous.ref);
    const kept: Kept = { schema, root, ref: undefined as never };
    (kept as { ref: WeakRef<Kept> }).ref = new WeakRef(kept);
    this.byJson.set(json, kept);
    this.recent.add(kept.ref);
    while (this.recent.size > this.capacity) {
      const oldest = this.recent.values().next().value!;
      this.recent.delete(oldest);
      const dropped = oldest.deref();
      if (dropped !== undefined) dropped.root = undefined;
    }
  }

  /** Trees kept now (some may belong to configurations already collected). */
  get size(): number {
    return this.recent.size;
  }
}
