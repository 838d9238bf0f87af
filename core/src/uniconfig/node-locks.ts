/**
 * Per-node locks of the uniconfig store (node-store.ts): commits and immediate writes of one node run
 * one at a time; several nodes are always locked in sorted order, so two commits cannot deadlock.
 */
export class NodeLocks {
  private readonly locks = new Map<string, Promise<void>>();

  /** Runs `work` holding the locks of `nodeIds` (taken in sorted order, released in any case). */
  async locked<T>(nodeIds: readonly string[], work: () => Promise<T>): Promise<T> {
    const sorted = [...new Set(nodeIds)].sort();
    const releases: Array<() => void> = [];
    try {
      for (const id of sorted) releases.push(await this.lock(id));
      return await work();
    } finally {
      for (const release of releases) release();
    }
  }

  private async lock(nodeId: string): Promise<() => void> {
    const previous = this.locks.get(nodeId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => {
      release = r;
    });
    const chained = previous.then(() => mine);
    this.locks.set(nodeId, chained);
    await previous;
    return () => {
      release();
      if (this.locks.get(nodeId) === chained) this.locks.delete(nodeId);
    };
  }
}
