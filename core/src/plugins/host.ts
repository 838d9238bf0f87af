/**
 * The plugin host: the one object the service holds for its plugins. It reads plugins.json, loads the
 * enabled plugins, keeps the current generation, hands out leases, and reloads (on demand, or when
 * plugins.json or a plugin folder changes). Reloads are serialised; a plugin that fails to load is
 * reported loudly and its previous version keeps serving.
 *
 * A rescan is composed here from one-concern modules: slots.ts applies plugins.json to the slots (what
 * each entry serves), local-yang.ts gates the plugins' YANG into the local schema, current-generation.ts
 * swaps generations and disposes drained instances, watch.ts turns file events into reloads.
 */
import type { RosettaHooks, ServingUnit } from '../hooks';
import type { JobStarter } from '../jobs';
import { type Logger, withWarn } from '../logger';
import type { PluginLogger } from './contract';
import { CurrentGeneration } from './current-generation';
import type { BuiltinTaps, PluginScope } from './generation';
import { LocalYangGate, type LocalYangVerdict } from './local-yang';
import { type LoadedPlugin, loadPlugin } from './loader';
import { readPluginsConfig } from './plugins-config';
import { PluginSlots, type PluginStatus, label } from './slots';
import { createRecorder } from './taps';
import type { UnitMatch } from './version-match';
import { PluginWatcher } from './watch';

export type { LocalYangVerdict } from './local-yang';
export type { PluginState, PluginStatus } from './slots';

/** The host's logger under the name its callers knew; errors are what an operator must see (a plugin left out, a reload refused). */
export type HostLogger = Logger;

export interface PluginHostOptions {
  /** Absolute path of plugins.json; plugin paths in it are relative to its folder. */
  readonly configFile: string;
  readonly logger?: HostLogger;
  /** Overrides plugins.json's `watch`. */
  readonly watch?: boolean;
  /** Quiet time after the last file event before a reload (default 150 ms). */
  readonly debounceMs?: number;
  /** Longest a plugin's setup may take (default 10 s). */
  readonly setupTimeoutMs?: number;
  /** The core's own taps, installed first in every generation. */
  readonly builtins?: readonly BuiltinTaps[];
  /** The plugin-facing sections of the service configuration, handed to every plugin's setup. */
  readonly serviceConfig?: Readonly<Record<string, import('../hooks').JsonValue>>;
  /** The service's data folder, handed to every plugin's setup (`PluginApi.dataDir`). */
  readonly dataDir?: string;
  /** The service's job board, handed to every plugin's setup (`PluginApi.jobs`). */
  readonly jobs?: JobStarter;
  /**
   * Checks the YANG of the plugins a rescan would serve in the local datastore (loaded plugins that are
   * not translation units and have a `yang` folder), before they are swapped in, whenever that set of
   * instances changes (the first rescan included). The plugins owning a faulty file keep their previous
   * version, or are left out, with the fault as their error; the check then runs again on what is left.
   * `commit` is called right after the swap, so the caller's schema changes with the generation.
   */
  readonly checkLocalYang?: (yangDirs: readonly string[]) => LocalYangVerdict;
}

export interface ReloadReport {
  readonly generation: number;
  /** Plugins whose instance changed: `name@version` (new) or `-name@version` (removed). */
  readonly swapped: readonly string[];
  readonly errors: readonly string[];
}

/** Records the taps a built-in part of the core takes, to be installed in every generation. */
export function builtinTaps(name: string, setup: (hooks: RosettaHooks) => void): BuiltinTaps {
  const recorder = createRecorder();
  setup(recorder.hooks);
  return { name, taps: recorder.collect() };
}

export class PluginHost {
  private readonly logger: Required<Logger>;
  private readonly slots: PluginSlots;
  private readonly serving: CurrentGeneration;
  private readonly yangGate: LocalYangGate | undefined;
  private reloading: Promise<ReloadReport> = Promise.resolve({ generation: 0, swapped: [], errors: [] });
  private watcher: PluginWatcher | undefined;
  private closed = false;
  private readonly changeListeners: Array<(report: ReloadReport) => void> = [];

  private constructor(private readonly options: PluginHostOptions) {
    this.logger = withWarn(options.logger ?? consoleLogger);
    this.slots = new PluginSlots(this.logger);
    this.serving = new CurrentGeneration(options.builtins ?? [], this.logger);
    this.yangGate = options.checkLocalYang ? new LocalYangGate(options.checkLocalYang, this.logger) : undefined;
  }

  /** Loads plugins.json and every enabled plugin, then starts watching when configured to. */
  static async start(options: PluginHostOptions): Promise<PluginHost> {
    const host = new PluginHost(options);
    const report = await host.reload();
    const watchWanted = options.watch ?? report.watchFromConfig;
    if (watchWanted) {
      host.watcher = new PluginWatcher(options.configFile, options.debounceMs ?? 150, () => host.reload(), host.logger);
      await host.watcher.start(host.slots.all().map((s) => s.entry));
    }
    return host;
  }

  /** Adds the core's own taps after start (e.g. introspection, which needs the host); rebuilds the generation. */
  addBuiltin(taps: BuiltinTaps): void {
    this.serving.addBuiltin(taps);
  }

  /** Leases the current generation. Call `release()` when the request is done, also on failure. */
  acquire(): PluginScope {
    return this.serving.acquire();
  }

  /** Runs `work` with a lease that is released whatever happens. */
  async withScope<T>(work: (scope: PluginScope) => Promise<T> | T): Promise<T> {
    const scope = this.acquire();
    try {
      return await work(scope);
    } finally {
      scope.release();
    }
  }

  /** The current generation's number (grows by one per swap). */
  get generation(): number {
    return this.serving.generation.id;
  }

  /** The translation units serving a device now (outside a request; requests use their scope's). */
  unitsFor(deviceType: string, deviceVersion: string): UnitMatch<ServingUnit> {
    return this.serving.generation.unitsFor(deviceType, deviceVersion);
  }

  /**
   * YANG folders of the southbound plugins serving now (their own modules: device RPCs), the same array
   * for as long as the generation lasts: every mount-point request asks, and compares it by identity.
   */
  southboundYangDirs(): readonly string[] {
    return this.serving.southboundYangDirs();
  }

  /** YANG folders of loaded plugins that are not translation units: modules for the local datastore. */
  localYangDirs(): string[] {
    return this.serving.generation.plugins.filter((p) => !p.unit && p.manifest.yangDir).map((p) => p.manifest.yangDir!);
  }

  /** Every plugins.json entry as it stands, in file order. */
  status(): PluginStatus[] {
    return this.slots.status();
  }

  /** Generations swapped out but still serving requests in flight. */
  get draining(): number {
    return this.serving.draining;
  }

  /** Called after every reload that changed the generation. */
  onChange(listener: (report: ReloadReport) => void): void {
    this.changeListeners.push(listener);
  }

  /** Rescans plugins.json and every plugin folder; loads what changed. Concurrent calls run one after another. */
  reload(): Promise<ReloadReport & { watchFromConfig: boolean }> {
    const run = this.reloading.then(
      () => this.rescan(),
      () => this.rescan(),
    );
    this.reloading = run;
    return run;
  }

  /** Stops watching and disposes every instance once its leases drain (immediately when none are open). */
  async close(): Promise<void> {
    this.closed = true;
    await this.watcher?.close();
    await this.reloading.catch(() => undefined);
    this.serving.swapTo([]);
  }

  private async rescan(): Promise<ReloadReport & { watchFromConfig: boolean }> {
    const errors: string[] = [];
    const { config, problems } = await readPluginsConfig(this.options.configFile);
    for (const p of problems) {
      const message = `plugins.json${p.field ? ` ${p.field}` : ''}: ${p.message}`;
      errors.push(message);
      this.logger.error(`${message}${config ? '; that entry is left out' : '; keeping the plugins already loaded'}`);
    }
    if (!config) return { generation: this.generation, swapped: [], errors, watchFromConfig: false };

    const prior = this.slots.snapshot();
    await this.slots.apply(
      config.entries,
      (entry) =>
        loadPlugin(entry, {
          setupTimeoutMs: this.options.setupTimeoutMs ?? 10_000,
          log: this.pluginLogger,
          ...(this.options.serviceConfig !== undefined ? { serviceConfig: this.options.serviceConfig } : {}),
          ...(this.options.dataDir !== undefined ? { dataDir: this.options.dataDir } : {}),
          ...(this.options.jobs !== undefined ? { jobs: this.options.jobs } : {}),
        }),
      errors,
    );
    this.slots.supersedeDuplicates(errors);

    const previous = this.serving.generation.plugins;
    const commitYang = this.yangGate?.run(this.slots, prior, previous, errors);
    const next = this.slots.serving();
    const changed = next.length !== previous.length || next.some((p, i) => p !== previous[i]);
    const swapped = changed ? describeSwap(previous, next) : [];
    if (changed && !this.closed) this.serving.swapTo(next);
    if (commitYang && !this.closed) {
      try {
        commitYang();
      } catch (err) {
        this.logger.error(`installing the local schema failed: ${(err as Error).message}`);
      }
    }
    if (changed && !this.closed) {
      const report = { generation: this.generation, swapped, errors };
      for (const listener of this.changeListeners) {
        try {
          listener(report);
        } catch (err) {
          this.logger.error(`plugin change listener threw: ${(err as Error).message}`);
        }
      }
    }
    this.watcher?.follow(config.entries);
    return { generation: this.generation, swapped, errors, watchFromConfig: config.watch };
  }

  private readonly pluginLogger = (plugin: string): PluginLogger => ({
    info: (m, fields) => this.logger.info(`[${plugin}] ${m}`, { plugin, ...fields }),
    warn: (m, fields) => this.logger.warn(`[${plugin}] ${m}`, { plugin, ...fields }),
    error: (m, fields) => this.logger.error(`[${plugin}] ${m}`, { plugin, ...fields }),
  });
}

const consoleLogger: Logger = {
  info: (m) => console.log(`[plugins] ${m}`),
  warn: (m) => console.warn(`[plugins] WARNING: ${m}`),
  error: (m) => console.error(`[plugins] ERROR: ${m}`),
};

function describeSwap(previous: readonly LoadedPlugin[], next: readonly LoadedPlugin[]): string[] {
  const prev = new Set(previous);
  const nxt = new Set(next);
  return [...next.filter((p) => !prev.has(p)).map(label), ...previous.filter((p) => !nxt.has(p)).map((p) => `-${label(p)}`)];
}
