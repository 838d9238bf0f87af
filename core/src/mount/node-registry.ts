/**
 * The mount manager's nodes by node-id, counting as they come and go how many of them each topology
 * holds. Every local write to network-topology asks which topologies hold installed nodes (their nodes
 * change only through install-node and uninstall-node): with thousands of nodes that answer must be kept
 * up to date per install and uninstall, not found by walking every node on each write.
 *
 * It is the Map the manager and the status rendering already read; only set, delete and clear, the
 * ways a node comes and goes, also keep the counts.
 */
import type { MountedNode } from './node';

export class NodeRegistry extends Map<string, MountedNode> {
  private readonly perTopology = new Map<string, number>();

  override set(nodeId: string, node: MountedNode): this {
    const previous = this.get(nodeId);
    if (previous !== undefined) this.uncount(previous);
    super.set(nodeId, node);
    this.perTopology.set(node.kind.topology, (this.perTopology.get(node.kind.topology) ?? 0) + 1);
    return this;
  }

  override delete(nodeId: string): boolean {
    const previous = this.get(nodeId);
    if (previous === undefined) return false;
    this.uncount(previous);
    return super.delete(nodeId);
  }

  override clear(): void {
    this.perTopology.clear();
    super.clear();
  }

  /** The topologies holding at least one node (installed or being installed). */
  topologies(): IterableIterator<string> {
    return this.perTopology.keys();
  }

  private uncount(node: MountedNode): void {
    const left = (this.perTopology.get(node.kind.topology) ?? 0) - 1;
    if (left > 0) this.perTopology.set(node.kind.topology, left);
    else this.perTopology.delete(node.kind.topology);
  }
}
