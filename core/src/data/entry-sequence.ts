/**
 * The entries of a large stored list as a persistent sequence, so that a copy-on-write edit of one
 * entry does not copy an array of every entry (a 100,000-entry array copy costs ~1.5 ms with the
 * garbage collection it causes; this costs a few microseconds).
 *
 * Entries sit in chunks of at most 2 * CHUNK, in list order. Each entry has a rank, a number that grows
 * along the list, so an entry is found by its key (key -> rank, a persistent `KeyIndex`) and then its
 * chunk by binary search. `fork()` copies only the chunk directory (n / CHUNK pointers); a change then
 * copies the one chunk it touches. New entries at the end get the next rank; an entry put between two
 * others gets the midpoint of their ranks, and when doubles run out of room there, every entry is
 * ranked afresh (O(n), after ~50 inserts at one spot of an `ordered-by user` list).
 */
import { KeyIndex } from './key-index';
import type { ListEntryNode } from './tree';

const CHUNK = 256;

interface Chunk {
  readonly ranks: number[];
  readonly entries: ListEntryNode[];
}

/** A persistent sequence of list entries; see the file comment. */
export class EntrySequence {
  private constructor(
    private chunks: Chunk[],
    private ranks: KeyIndex<number>,
    private count: number,
    /** Chunks created since the last fork: this sequence may change them in place. */
    private owned: Set<Chunk>,
    /** The entries as one array, built on demand and dropped on change. */
    private array: ListEntryNode[] | undefined,
  ) {}

  /** A sequence of `entries` (in order), each known by `keyOf(entry)`. O(n). */
  static from(entries: readonly ListEntryNode[], keyOf: (entry: ListEntryNode) => string): EntrySequence {
    const chunks: Chunk[] = [];
    const ranks = KeyIndex.empty<number>();
    for (let i = 0; i < entries.length; i += CHUNK) {
      const slice = entries.slice(i, i + CHUNK);
      const chunk: Chunk = { ranks: slice.map((_, j) => i + j), entries: slice };
      for (let j = 0; j < slice.length; j++) ranks.set(keyOf(slice[j]!), i + j);
      chunks.push(chunk);
    }
    return new EntrySequence(chunks, ranks, entries.length, new Set(), undefined);
  }

  /** An independent copy: O(n / CHUNK) for the chunk directory, O(1) for the ranks. */
  fork(): EntrySequence {
    this.owned = new Set(); // every chunk is shared from now on
    return new EntrySequence(this.chunks.slice(), this.ranks.fork(), this.count, new Set(), undefined);
  }

  get size(): number {
    return this.count;
  }

  /** All entries in order (built once per version of the sequence). */
  toArray(): ListEntryNode[] {
    if (this.array === undefined) {
      const out = new Array<ListEntryNode>(this.count);
      let n = 0;
      for (const chunk of this.chunks) for (const entry of chunk.entries) out[n++] = entry;
      this.array = out;
    }
    return this.array;
  }

  /** Puts `entry` where the entry of the same key is. False when the key is not in the sequence. */
  replace(key: string, entry: ListEntryNode): boolean {
    const rank = this.ranks.get(key);
    if (rank === undefined) return false;
    const [c, i] = this.locate(rank);
    this.writable(c).entries[i] = entry;
    this.array = undefined;
    return true;
  }

  /** Removes the entry of `key`; false when absent. */
  remove(key: string): boolean {
    const rank = this.ranks.get(key);
    if (rank === undefined) return false;
    const [c, i] = this.locate(rank);
    const chunk = this.writable(c);
    chunk.ranks.splice(i, 1);
    chunk.entries.splice(i, 1);
    if (chunk.entries.length === 0) this.chunks.splice(c, 1);
    this.ranks.delete(key);
    this.count -= 1;
    this.array = undefined;
    return true;
  }

  /**
   * Inserts a new entry (its key must be absent): last, first, or right before/after the entry of
   * `pointKey` (which must be present).
   */
  insert(key: string, entry: ListEntryNode, where: 'first' | 'last' | 'before' | 'after' = 'last', pointKey?: string): void {
    let rank = this.rankFor(where, pointKey);
    if (rank === undefined) {
      this.rerank();
      rank = this.rankFor(where, pointKey)!;
    }
    let c = this.chunkFor(rank);
    const at = this.chunks[c];
    // Past the end of a shared last chunk already CHUNK long, a new chunk rather than a copy of it: a
    // list growing at its end one write at a time (a fleet's nodes installed one by one, each write a
    // fork) then copies a few entries per insert, not hundreds.
    const appendsToFull =
      at !== undefined &&
      c === this.chunks.length - 1 &&
      at.ranks[at.ranks.length - 1]! < rank &&
      at.entries.length >= CHUNK &&
      !this.owned.has(at);
    if (c < 0 || appendsToFull) {
      this.chunks.push({ ranks: [], entries: [] });
      c = this.chunks.length - 1;
      this.owned.add(this.chunks[c]!);
    }
    const chunk = this.writable(c);
    let i = chunk.ranks.length;
    while (i > 0 && chunk.ranks[i - 1]! > rank) i--;
    chunk.ranks.splice(i, 0, rank);
    chunk.entries.splice(i, 0, entry);
    if (chunk.entries.length > 2 * CHUNK) {
      const tail: Chunk = { ranks: chunk.ranks.splice(CHUNK), entries: chunk.entries.splice(CHUNK) };
      this.chunks.splice(c + 1, 0, tail);
      this.owned.add(tail);
    }
    this.ranks.set(key, rank);
    this.count += 1;
    this.array = undefined;
  }

  /** A rank for a new entry at `where`, or undefined when doubles leave no room there. */
  private rankFor(where: 'first' | 'last' | 'before' | 'after', pointKey: string | undefined): number | undefined {
    const first = this.chunks[0]?.ranks[0];
    const lastChunk = this.chunks[this.chunks.length - 1];
    const last = lastChunk?.ranks[lastChunk.ranks.length - 1];
    if (where === 'last' || first === undefined || last === undefined) return last === undefined ? 0 : last + 1;
    if (where === 'first') return first - 1;
    const point = this.ranks.get(pointKey!)!;
    const [c, i] = this.locate(point);
    const neighbour = where === 'after' ? this.rankAt(c, i + 1) : this.rankAt(c, i - 1);
    if (neighbour === undefined) return where === 'after' ? point + 1 : point - 1;
    const middle = (point + neighbour) / 2;
    return middle === point || middle === neighbour ? undefined : middle;
  }

  /** The rank at position `i` of chunk `c`, spilling into the neighbouring chunks. */
  private rankAt(c: number, i: number): number | undefined {
    if (i < 0) {
      const before = this.chunks[c - 1];
      return before?.ranks[before.ranks.length - 1];
    }
    const chunk = this.chunks[c]!;
    return i < chunk.ranks.length ? chunk.ranks[i] : this.chunks[c + 1]?.ranks[0];
  }

  /** Gives every entry a fresh rank 0..n-1, copying every chunk (this sequence's own from now on). */
  private rerank(): void {
    const ranks = KeyIndex.empty<number>();
    const byEntry = new Map<ListEntryNode, string>();
    for (const [key, rank] of this.ranks) {
      const [c, i] = this.locate(rank);
      byEntry.set(this.chunks[c]!.entries[i]!, key);
    }
    let n = 0;
    this.chunks = this.chunks.map((chunk) => {
      const copy: Chunk = { ranks: chunk.entries.map(() => n++), entries: chunk.entries.slice() };
      for (let i = 0; i < copy.entries.length; i++) ranks.set(byEntry.get(copy.entries[i]!)!, copy.ranks[i]!);
      return copy;
    });
    this.ranks = ranks;
    this.owned = new Set(this.chunks);
  }

  /** The chunk whose first rank is the greatest at or below `rank` (0 when below all; -1 when empty). */
  private chunkFor(rank: number): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    if (hi < 0) return -1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.chunks[mid]!.ranks[0]! <= rank) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Chunk and position of the entry with `rank` (which is present). */
  private locate(rank: number): [number, number] {
    const c = this.chunkFor(rank);
    const ranks = this.chunks[c]!.ranks;
    let lo = 0;
    let hi = ranks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ranks[mid]! < rank) lo = mid + 1;
      else hi = mid;
    }
    return [c, lo];
  }

  /** Chunk `c`, copied first unless this sequence made it since its last fork. */
  private writable(c: number): Chunk {
    const chunk = this.chunks[c]!;
    if (this.owned.has(chunk)) return chunk;
    const copy: Chunk = { ranks: chunk.ranks.slice(), entries: chunk.entries.slice() };
    this.chunks[c] = copy;
    this.owned.add(copy);
    return copy;
  }
}
