/**
 * A FIFO mutex: the writers of one datastore take turns. `run(task)` starts `task` once every task
 * queued before it has settled, whether it succeeded or failed, so a failing writer never blocks the
 * ones behind it and the order of `run` calls is the order of execution.
 */

/** Serializes async tasks in call order. */
export class WriteQueue {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;

  /** Tasks queued or running. */
  get size(): number {
    return this.waiting;
  }

  /** Runs `task` after every earlier task has settled; settles as `task` does. */
  run<T>(task: () => T | PromiseLike<T>): Promise<T> {
    this.waiting += 1;
    const result = this.tail.then(async () => {
      try {
        return await task();
      } finally {
        this.waiting -= 1;
      }
    });
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Resolves once every task queued so far has settled. */
  idle(): Promise<void> {
    return this.tail;
  }
}
