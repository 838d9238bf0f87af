/**
 * The southbounds a plugin generation serves, as their plugins described them (`device.southbounds` in
 * hooks.ts): the one place the mount and uniconfig layers learn which install-node containers,
 * topologies and settings modules exist. The core names no southbound; a new one (gNMI, say) only
 * registers its descriptor.
 *
 * The list is asked of a generation's hooks once and kept with them (a generation's taps are fixed once
 * it serves; the tap count is compared anyway, as a built-in tap may join a generation late).
 */
import type { RosettaHooks, SouthboundDescriptor } from '../hooks';

/** The core's own topology: every installed node, whatever its southbound (no descriptor may claim it). */
export const UNIFIED = 'unified';

/** The southbounds of one generation, looked up by what a request or a stored node names. */
export class Southbounds {
  private readonly byProtocol = new Map<string, SouthboundDescriptor>();
  private readonly byTopology = new Map<string, SouthboundDescriptor>();
  private readonly byContainer = new Map<string, SouthboundDescriptor>();
  /** In registration order; a descriptor that repeats an earlier one's protocol, container or topology is left out. */
  readonly all: readonly SouthboundDescriptor[];

  constructor(descriptors: readonly SouthboundDescriptor[]) {
    const kept: SouthboundDescriptor[] = [];
    for (const d of descriptors) {
      // `unified` is the core's own topology of every node, whatever its southbound
      if (d.topology === UNIFIED || this.byProtocol.has(d.protocol) || this.byTopology.has(d.topology)) continue;
      if (this.byContainer.has(d.installContainer)) continue;
      this.byProtocol.set(d.protocol, d);
      this.byTopology.set(d.topology, d);
      this.byContainer.set(d.installContainer, d);
      kept.push(d);
    }
    this.all = kept;
  }

  protocol(protocol: string): SouthboundDescriptor | undefined {
    return this.byProtocol.get(protocol);
  }

  topology(topologyId: string): SouthboundDescriptor | undefined {
    return this.byTopology.get(topologyId);
  }

  /** The install-node input members that install a device, in registration order. */
  get installContainers(): string[] {
    return this.all.map((d) => d.installContainer);
  }

  container(member: string): SouthboundDescriptor | undefined {
    return this.byContainer.get(member);
  }
}

const known = new WeakMap<RosettaHooks, { readonly taps: number; readonly southbounds: Southbounds }>();

/** The southbounds registered in a generation's hooks. */
export function southboundsOf(hooks: RosettaHooks): Southbounds {
  const hook = hooks.device.southbounds;
  const taps = hook.taps.length;
  const cached = known.get(hooks);
  if (cached !== undefined && cached.taps === taps) return cached.southbounds;
  const southbounds = new Southbounds(taps === 0 ? [] : hook.call([]));
  known.set(hooks, { taps, southbounds });
  return southbounds;
}
