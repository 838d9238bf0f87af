/**
 * Which generation serves: the current one, the retired ones still draining their leases, and the
 * disposal of instances once no live generation uses them. A swap makes a new generation current (with
 * the core's built-in taps first) and retires the old one; a retired generation is finalised when its
 * last lease is released, so requests in flight finish on the version they started with.
 */
import type { Logger } from '../logger';
import { Generation, leaseGeneration, type BuiltinTaps, type PluginScope } from './generation';
import { disposeQuietly, type LoadedPlugin } from './loader';
import { label } from './slots';

export class CurrentGeneration {
  private current: Generation;
  private counter = 0;
  private readonly retired = new Set<Generation>();
  private readonly builtins: BuiltinTaps[];
  private southboundDirs: { readonly generation: Generation; readonly dirs: readonly string[] } | undefined;

  constructor(
    builtins: readonly BuiltinTaps[],
    private readonly logger: Required<Logger>,
  ) {
    this.builtins = [...builtins];
    this.current = new Generation(0, [], this.builtins);
  }

  get generation(): Generation {
    return this.current;
  }

  /** Generations swapped out but still serving requests in flight. */
  get draining(): number {
    return this.retired.size;
  }

  /** Adds the core's own taps; the same instances serve in a new generation that has them. */
  addBuiltin(taps: BuiltinTaps): void {
    this.builtins.push(taps);
    this.swapTo(this.current.plugins);
  }

  /** Leases the current generation. */
  acquire(): PluginScope {
    const g = this.current;
    return leaseGeneration(
      g,
      () => g !== this.current,
      () => this.finalise(g),
    );
  }

  /** Makes a generation of these instances current and retires the one serving until now. */
  swapTo(plugins: readonly LoadedPlugin[]): void {
    const old = this.current;
    this.current = new Generation(++this.counter, plugins, this.builtins);
    this.retire(old);
  }

  /**
   * YANG folders of the southbound plugins serving now (their own modules: device RPCs), the same array
   * for as long as the generation lasts: every mount-point request asks, and compares it by identity.
   */
  southboundYangDirs(): readonly string[] {
    const current = this.current;
    if (this.southboundDirs?.generation !== current) {
      const dirs = current.plugins.flatMap((p) => (p.manifest.kind === 'southbound' && p.manifest.yangDir ? [p.manifest.yangDir] : []));
      this.southboundDirs = { generation: current, dirs };
    }
    return this.southboundDirs.dirs;
  }

  private retire(generation: Generation): void {
    this.retired.add(generation);
    if (generation.leases === 0) this.finalise(generation);
  }

  /** A retired generation has drained: dispose the instances no live generation still uses. */
  private finalise(generation: Generation): void {
    if (!this.retired.delete(generation)) return;
    const live = new Set<LoadedPlugin>(this.current.plugins);
    for (const g of this.retired) for (const p of g.plugins) live.add(p);
    for (const p of generation.plugins) {
      if (live.has(p)) continue;
      void disposeQuietly(p.definition, (m) => this.logger.error(`plugin ${label(p)}: ${m}`));
    }
  }
}
