/**
 * The one bounded-concurrency runner: work over many items (devices, nodes) with at most `limit` of
 * them in flight, results in input order. It lives in the lowest layer because every layer above
 * (mount, uniconfig, datastore) runs per-device work this way, and a fleet of thousands must be
 * neither one round trip after another nor thousands of sessions asked at once.
 *
 * It starts items in input order, so "stop starting new ones" is meaningful: when `stop()` answers
 * true (checked before each start), items not yet started stay unstarted and their result is
 * `undefined`; those in flight are always awaited. A throw from `work` stops further starts too and
 * rejects, with the first error, once everything in flight has settled: nothing is left running.
 */

/** Each result in input order; `undefined` for an item that was never started. */
export type BoundedResults<R> = Array<R | undefined>;

export interface BoundedOptions {
  /** Checked before each item starts; true leaves the remaining items unstarted. */
  readonly stop?: () => boolean;
}

/** Runs `work` on each item, at most `limit` (at least 1) at once; see the top of this file. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
  options: BoundedOptions = {},
): Promise<BoundedResults<R>> {
  const results: BoundedResults<R> = new Array<R | undefined>(items.length).fill(undefined);
  let next = 0;
  let failed = false;
  let firstError: unknown;
  const lane = async (): Promise<void> => {
    while (next < items.length && !failed && options.stop?.() !== true) {
      const index = next++;
      try {
        results[index] = await work(items[index]!, index);
      } catch (e) {
        if (!failed) firstError = e;
        failed = true;
      }
    }
  };
  const lanes = Math.max(1, Math.min(Math.floor(limit) || 1, items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  if (failed) throw firstError;
  return results;
}
