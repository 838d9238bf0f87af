/**
 * The cache of generated documents (or their parts) per schema object and module selection: a schema
 * swap brings a new object, so the next request regenerates, and the old schema's entries go with it.
 * Each schema keeps a few selections and at most 64 Mi characters of them, oldest first out and the
 * newest always kept, so that clients asking for ever new `?modules=` sets cannot grow it without bound
 * (a whole big schema is about 24 MB of text).
 */
import type { SchemaContext } from '../yang/schema';

/** Module selections kept per schema, and the characters of text they may hold together. */
const SELECTIONS_KEPT = 8;
const CHARACTERS_KEPT = 64 * 1024 * 1024;

export class SelectionCache<T> {
  private readonly bySchema = new WeakMap<SchemaContext, Map<string, T>>();

  /** `size`: the characters an entry holds. */
  constructor(private readonly size: (entry: T) => number) {}

  /**
   * The entry of `schema` and `modules` (any order, repeats ignored) in `variant` (what else it depends
   * on), made by `make` the first time.
   */
  get(schema: SchemaContext, modules: readonly string[] | undefined, variant: string, make: () => T): T {
    const key = `${variant}:${modules === undefined ? '' : [...new Set(modules)].sort().join(',')}`;
    let entries = this.bySchema.get(schema);
    if (entries === undefined) this.bySchema.set(schema, (entries = new Map()));
    let entry = entries.get(key);
    if (entry === undefined) {
      entry = make();
      entries.set(key, entry);
      let size = 0;
      for (const e of entries.values()) size += this.size(e);
      for (const [oldest, e] of entries) {
        if (entries.size <= 1 || (entries.size <= SELECTIONS_KEPT && size <= CHARACTERS_KEPT)) break;
        entries.delete(oldest);
        size -= this.size(e);
      }
    }
    return entry;
  }
}
