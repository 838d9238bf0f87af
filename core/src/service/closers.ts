/**
 * The service's shutdown as one stack: each start-up step that opens something pushes the closer that
 * undoes it, and both a failure part-way through start-up and a normal stop unwind the same stack, last
 * opened first. So the order things close in is written once, by the order they open in, instead of
 * once per way start-up can fail.
 */

/** Undoes one start-up step. */
export type Closer = () => void | Promise<void>;

export class CloserStack {
  private readonly closers: Closer[] = [];

  /** Registers the closer of a step that has just succeeded. */
  push(closer: Closer): void {
    this.closers.push(closer);
  }

  /**
   * Runs every closer, newest first, each after the previous one settled. A closer that throws does
   * not keep the older ones from running; the first error is rethrown once all have run.
   */
  async unwind(): Promise<void> {
    let failure: { error: unknown } | undefined;
    for (let closer = this.closers.pop(); closer !== undefined; closer = this.closers.pop()) {
      try {
        await closer();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure) throw failure.error;
  }

  /** Unwinds what has started, then rethrows `error` (the reason start-up stopped). */
  async abandon(error: unknown): Promise<never> {
    await this.unwind().catch(() => undefined);
    throw error;
  }
}
