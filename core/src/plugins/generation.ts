/**
 * Generations and leases. A generation is one immutable set of live plugin instances with its own hooks
 * object and translation-unit table. Requests lease the current generation and use it to the end; a
 * swap builds a new generation and makes it current, and the old one is finalised (instances that left
 * are disposed) only when its last lease is released. This is how requests in flight finish on the
 * version they started with and no request fails because of a swap.
 */
import { createHooks, type RosettaHooks, type ServingUnit } from '../hooks';
import type { LoadedPlugin } from './loader';
import type { RecordedTap } from './taps';
import { replayTaps } from './taps';
import { matchUnits, type UnitMatch } from './version-match';

/** Taps the core itself contributes (its own behaviour, replaceable like any plugin's). */
export interface BuiltinTaps {
  readonly name: string;
  readonly taps: readonly RecordedTap[];
}

export class Generation {
  /** Open leases; the host finalises a retired generation when this reaches zero. */
  leases = 0;
  readonly hooks: RosettaHooks;
  readonly units: readonly ServingUnit[];
  private readonly matchCache = new Map<string, UnitMatch<ServingUnit>>();

  constructor(
    readonly id: number,
    readonly plugins: readonly LoadedPlugin[],
    builtins: readonly BuiltinTaps[],
  ) {
    this.hooks = createHooks();
    for (const b of builtins) replayTaps(this.hooks, b.taps);
    for (const p of plugins) replayTaps(this.hooks, p.taps);
    this.units = plugins.flatMap((p) => (p.unit ? [p.unit] : []));
  }

  /** The units serving a device of this type and version in this generation (memoised per generation). */
  unitsFor(deviceType: string, deviceVersion: string): UnitMatch<ServingUnit> {
    const key = `${deviceType}\0${deviceVersion}`;
    let found = this.matchCache.get(key);
    if (!found) {
      found = matchUnits(this.units, deviceType, deviceVersion);
      if (this.matchCache.size > 10_000) this.matchCache.clear(); // garbage device strings cannot grow it forever
      this.matchCache.set(key, found);
    }
    return found;
  }
}

/** What a request holds while it runs: one generation's hooks and units. Release exactly once (extra calls are ignored). */
export interface PluginScope {
  readonly generation: number;
  readonly hooks: RosettaHooks;
  unitsFor(deviceType: string, deviceVersion: string): UnitMatch<ServingUnit>;
  release(): void;
}

/** Takes a lease on `generation`; `onDrained` runs when a retired generation's last lease goes. */
export function leaseGeneration(generation: Generation, isRetired: () => boolean, onDrained: () => void): PluginScope {
  generation.leases++;
  let released = false;
  return {
    generation: generation.id,
    hooks: generation.hooks,
    unitsFor: (type, version) => generation.unitsFor(type, version),
    release() {
      if (released) return;
      released = true;
      generation.leases--;
      if (generation.leases === 0 && isRetired()) onDrained();
    },
  };
}
