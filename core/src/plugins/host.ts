/**
 * The plugin host: reads plugins.json, loads the enabled plugins, keeps the current generation, hands out
 * leases, and reloads (on demand or when chokidar sees plugins.json or a plugin folder change). Reloads are
 * serialised; a plugin that fails to load is reported loudly and its previous version keeps serving.
 */
import * as path from 'node:path';
import * as semver from 'semver';
import { watch, type FSWatcher } from 'chokidar';
import type { RosettaHooks, ServingUnit } from '../hooks';
import { type Logger, withWarn } from '../logger';
import type { PluginLogger } from './contract';
import { Generation, leaseGeneration, type BuiltinTaps, type PluginScope } from './generation';
import { disposeQuietly, fingerprintFolder, loadPlugin, type LoadedPlugin } from './loader';
import type { PluginKind } from './manifest';
import { readPluginsConfig, type PluginEntry } from './plugins-config';
import { createRecorder } from './taps';
import type { UnitMatch } from './version-match';

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
  /**
   * Checks the YANG of the plugins a rescan would serve in the local datastore (loaded plugins that are
   * not translation units and have a `yang` folder), before they are swapped in, whenever that set of
   * instances changes (the first rescan included). The plugins owning a faulty file keep their previous
   * version, or are left out, with the fault as their error; the check then runs again on what is left.
   * `commit` is called right after the swap, so the caller's schema changes with the generation.
   */
  readonly checkLocalYang?: (yangDirs: readonly string[]) => LocalYangVerdict;
}

/** What `checkLocalYang` found: the schema compiles (and is installed by `commit`), or which files are at fault. */
export type LocalYangVerdict =
  | { readonly ok: true; commit(): void }
  | { readonly ok: false; readonly message: string; readonly files: readonly string[] };

export type PluginState = 'loaded' | 'failed' | 'disabled';

/** One plugins.json entry as it stands now. */
export interface PluginStatus {
  /** The path as written in plugins.json. */
  readonly path: string;
  readonly folder: string;
  readonly name: string | undefined;
  readonly version: string | undefined;
  readonly kind: PluginKind | undefined;
  readonly state: PluginState;
  /** The last load error (with state `loaded` when an older version kept serving). */
  readonly error: string | undefined;
  readonly device: { readonly type: string; readonly versions: string } | undefined;
  readonly yangDir: string | undefined;
  readonly loadedAt: Date | undefined;
}

export interface ReloadReport {
  readonly generation: number;
  /** Plugins whose instance changed: `name@version` (new) or `-name@version` (removed). */
  readonly swapped: readonly string[];
  readonly errors: readonly string[];
}

interface Slot {
  entry: PluginEntry;
  active: LoadedPlugin | undefined;
  state: PluginState;
  error: string | undefined;
}

/** Records the taps a built-in part of the core takes, to be installed in every generation. */
export function builtinTaps(name: string, setup: (hooks: RosettaHooks) => void): BuiltinTaps {
  const recorder = createRecorder();
  setup(recorder.hooks);
  return { name, taps: recorder.collect() };
}

export class PluginHost {
  private readonly logger: Required<Logger>;
  private readonly slots = new Map<string, Slot>();
  private readonly retired = new Set<Generation>();
  private readonly builtins: BuiltinTaps[];
  private current: Generation;
  private generationCounter = 0;
  private reloading: Promise<ReloadReport> = Promise.resolve({ generation: 0, swapped: [], errors: [] });
  private watcher: FSWatcher | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly changeListeners: Array<(report: ReloadReport) => void> = [];
  private southboundDirs: { readonly generation: Generation; readonly dirs: readonly string[] } | undefined;

  private constructor(private readonly options: PluginHostOptions) {
    this.logger = withWarn(options.logger ?? consoleLogger);
    this.builtins = [...(options.builtins ?? [])];
    this.current = new Generation(0, [], this.builtins);
  }

  /** Loads plugins.json and every enabled plugin, then starts watching when configured to. */
  static async start(options: PluginHostOptions): Promise<PluginHost> {
    const host = new PluginHost(options);
    const report = await host.reload();
    const watchWanted = options.watch ?? report.watchFromConfig;
    if (watchWanted) await host.startWatching();
    return host;
  }

  /** Adds the core's own taps after start (e.g. introspection, which needs the host); rebuilds the generation. */
  addBuiltin(taps: BuiltinTaps): void {
    this.builtins.push(taps);
    this.swapTo(this.current.plugins);
  }

  /** Leases the current generation. Call `release()` when the request is done, also on failure. */
  acquire(): PluginScope {
    const g = this.current;
    return leaseGeneration(
      g,
      () => g !== this.current,
      () => this.finalise(g),
    );
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
    return this.current.id;
  }

  /** The translation units serving a device now (outside a request; requests use their scope's). */
  unitsFor(deviceType: string, deviceVersion: string): UnitMatch<ServingUnit> {
    return this.current.unitsFor(deviceType, deviceVersion);
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

  /** YANG folders of loaded plugins that are not translation units: modules for the local datastore. */
  localYangDirs(): string[] {
    return this.current.plugins.filter((p) => !p.unit && p.manifest.yangDir).map((p) => p.manifest.yangDir!);
  }

  /** Every plugins.json entry as it stands, in file order. */
  status(): PluginStatus[] {
    return [...this.slots.values()].map((s) => ({
      path: s.entry.path,
      folder: s.entry.folder,
      name: s.active?.manifest.name,
      version: s.active?.manifest.version,
      kind: s.active?.manifest.kind,
      state: s.state,
      error: s.error,
      device: s.active?.manifest.device,
      yangDir: s.active?.manifest.yangDir,
      loadedAt: s.active?.loadedAt,
    }));
  }

  /** Generations swapped out but still serving requests in flight. */
  get draining(): number {
    return this.retired.size;
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
    clearTimeout(this.debounce);
    await this.watcher?.close();
    await this.reloading.catch(() => undefined);
    const last = this.current;
    this.current = new Generation(++this.generationCounter, [], this.builtins);
    this.retire(last);
  }

  private async rescan(): Promise<ReloadReport & { watchFromConfig: boolean }> {
    const errors: string[] = [];
    const { config, problems } = await readPluginsConfig(this.options.configFile);
    for (const p of problems) {
      const message = `plugins.json${p.field ? ` ${p.field}` : ''}: ${p.message}`;
      errors.push(message);
      this.logger.error(`${message}${config ? '; that entry is left out' : '; keeping the plugins already loaded'}`);
    }
    if (!config) return { generation: this.current.id, swapped: [], errors, watchFromConfig: false };

    const prior = new Map([...this.slots.values()].map((s) => [s, s.active] as const));
    const listed = new Set(config.entries.map((e) => e.folder));
    for (const [folder, slot] of this.slots) {
      if (!listed.has(folder)) {
        if (slot.active) this.logger.info(`plugin ${label(slot.active)} removed from plugins.json; unloading`);
        this.slots.delete(folder);
      }
    }
    for (const entry of config.entries) {
      const slot = this.slots.get(entry.folder) ?? { entry, active: undefined, state: 'failed' as PluginState, error: undefined };
      this.slots.set(entry.folder, slot);
      slot.entry = entry;
      if (!entry.enabled) {
        if (slot.active) this.logger.info(`plugin ${label(slot.active)} disabled in plugins.json; unloading`);
        Object.assign(slot, { active: undefined, state: 'disabled', error: undefined });
        continue;
      }
      if (
        slot.active &&
        sameConfig(slot.active.entry.config, entry.config) &&
        slot.active.fingerprint === (await fingerprintFolder(entry.folder))
      )
        continue;
      const result = await loadPlugin(entry, {
        setupTimeoutMs: this.options.setupTimeoutMs ?? 10_000,
        log: this.pluginLogger,
        ...(this.options.serviceConfig !== undefined ? { serviceConfig: this.options.serviceConfig } : {}),
        ...(this.options.dataDir !== undefined ? { dataDir: this.options.dataDir } : {}),
      });
      if (result.ok) {
        const before = slot.active;
        Object.assign(slot, { active: result.plugin, state: 'loaded', error: undefined });
        this.logger.info(
          before
            ? `plugin ${label(before)} replaced by ${label(result.plugin)}`
            : `plugin ${label(result.plugin)} loaded from ${entry.path}`,
        );
      } else if (result.missing && slot.active) {
        this.logger.warn(`plugin ${label(slot.active)}: folder ${entry.path} is gone; unloading`);
        Object.assign(slot, { active: undefined, state: 'failed', error: result.error });
        errors.push(result.error);
      } else {
        errors.push(result.error);
        slot.error = result.error;
        slot.state = slot.active ? 'loaded' : 'failed';
        this.logger.error(
          slot.active ? `${result.error}; ${label(slot.active)} keeps serving` : `${result.error}; the service runs without this plugin`,
        );
      }
    }
    this.supersedeDuplicates(errors);

    const previous = this.current.plugins;
    const commitYang = this.checkYang(prior, previous, errors);
    const next = this.serving();
    const changed = next.length !== previous.length || next.some((p, i) => p !== previous[i]);
    const swapped = changed ? describeSwap(previous, next) : [];
    if (changed && !this.closed) this.swapTo(next);
    if (commitYang && !this.closed) {
      try {
        commitYang();
      } catch (err) {
        this.logger.error(`installing the local schema failed: ${(err as Error).message}`);
      }
    }
    if (changed && !this.closed) {
      const report = { generation: this.current.id, swapped, errors };
      for (const listener of this.changeListeners) {
        try {
          listener(report);
        } catch (err) {
          this.logger.error(`plugin change listener threw: ${(err as Error).message}`);
        }
      }
    }
    if (this.watcher) this.syncWatchedFolders(config.entries);
    return { generation: this.current.id, swapped, errors, watchFromConfig: config.watch };
  }

  /** The instances the slots serve now, in plugins.json order. */
  private serving(): LoadedPlugin[] {
    return [...this.slots.values()].flatMap((s) => (s.active && s.state === 'loaded' ? [s.active] : []));
  }

  /**
   * Runs `checkLocalYang` when the plugins with local YANG change. A fault in a file of a plugin changed by
   * this rescan sends that plugin back to its previous instance (or leaves it out) with the fault as its
   * error, and the check runs again on what is left; a fault no changed plugin owns is reported and the
   * schema stays as it is. Returns what to call once the new generation is current.
   */
  private checkYang(
    prior: ReadonlyMap<Slot, LoadedPlugin | undefined>,
    previous: readonly LoadedPlugin[],
    errors: string[],
  ): (() => void) | undefined {
    const check = this.options.checkLocalYang;
    if (!check) return undefined;
    const firstCheck = !this.yangChecked;
    for (;;) {
      const wanted = withLocalYang(this.serving());
      if (!firstCheck && sameInstances(wanted, withLocalYang(previous))) return undefined;
      const verdict = check(wanted.map((p) => p.manifest.yangDir!));
      if (verdict.ok) {
        this.yangChecked = true;
        return () => verdict.commit();
      }
      const changedSlots = [...this.slots.values()].filter((s) => {
        const before = prior.get(s);
        return s.active !== before && (hasLocalYang(s.active) || hasLocalYang(before));
      });
      const owning = changedSlots.filter((s) => verdict.files.some((f) => isInside(f, s.active?.manifest.yangDir)));
      const culprits = owning.length > 0 ? owning : changedSlots;
      if (culprits.length === 0) {
        errors.push(verdict.message);
        this.logger.error(`the local YANG modules do not compile; the schema stays as it was: ${verdict.message}`);
        return undefined;
      }
      for (const slot of culprits) {
        const refused = slot.active;
        const before = prior.get(slot);
        const message = `plugin ${refused ? label(refused) : slot.entry.path}: its YANG does not compile into the local schema: ${verdict.message}`;
        errors.push(message);
        Object.assign(slot, { active: before, state: before ? 'loaded' : 'failed', error: message });
        this.logger.error(before ? `${message}; ${label(before)} keeps serving` : `${message}; the service runs without this plugin`);
        if (refused && refused !== before)
          void disposeQuietly(refused.definition, (m) => this.logger.error(`plugin ${label(refused)}: ${m}`));
      }
    }
  }

  private yangChecked = false;

  /**
   * Two folders holding the same plugin name: translation units may coexist (matching takes the highest
   * version that covers a device), but any other kind would tap every hook twice, so only the highest stays.
   */
  private supersedeDuplicates(errors: string[]): void {
    const byName = new Map<string, Slot[]>();
    for (const s of this.slots.values()) {
      if (!s.active || s.state !== 'loaded' || s.active.unit) continue;
      byName.set(s.active.manifest.name, [...(byName.get(s.active.manifest.name) ?? []), s]);
    }
    for (const [name, group] of byName) {
      if (group.length < 2) continue;
      group.sort((a, b) => compareVersions(b.active!.manifest.version, a.active!.manifest.version));
      for (const loser of group.slice(1)) {
        const message = `plugin ${name}: ${loser.entry.path} (${loser.active!.manifest.version}) is superseded by ${group[0]!.entry.path} (${group[0]!.active!.manifest.version})`;
        errors.push(message);
        this.logger.warn(message);
        Object.assign(loser, { active: undefined, state: 'failed', error: message });
      }
    }
  }

  private swapTo(plugins: readonly LoadedPlugin[]): void {
    const old = this.current;
    this.current = new Generation(++this.generationCounter, plugins, this.builtins);
    this.retire(old);
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

  private readonly pluginLogger = (plugin: string): PluginLogger => ({
    info: (m) => this.logger.info(`[${plugin}] ${m}`),
    warn: (m) => this.logger.warn(`[${plugin}] ${m}`),
    error: (m) => this.logger.error(`[${plugin}] ${m}`),
  });

  private async startWatching(): Promise<void> {
    const watcher = watch(this.options.configFile, {
      ignoreInitial: true,
      ignored: (p: string) => /[\\/](node_modules|\.git)([\\/]|$)/.test(p),
    });
    this.watcher = watcher;
    const schedule = (): void => {
      if (this.closed) return;
      clearTimeout(this.debounce);
      this.debounce = setTimeout(() => {
        this.reload().catch((err: unknown) => this.logger.error(`plugin reload failed: ${(err as Error).message}`));
      }, this.options.debounceMs ?? 150);
    };
    watcher.on('all', schedule);
    watcher.on('error', (err: unknown) => this.logger.error(`plugin watcher: ${(err as Error).message}`));
    this.syncWatchedFolders([...this.slots.values()].map((s) => s.entry));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  }

  private watchedFolders = new Set<string>();

  private syncWatchedFolders(entries: readonly PluginEntry[]): void {
    const wanted = new Set(entries.map((e) => e.folder));
    for (const f of this.watchedFolders) if (!wanted.has(f)) this.watcher?.unwatch(f);
    for (const f of wanted) if (!this.watchedFolders.has(f)) this.watcher?.add(f);
    this.watchedFolders = wanted;
  }
}

const consoleLogger: Logger = {
  info: (m) => console.log(`[plugins] ${m}`),
  warn: (m) => console.warn(`[plugins] WARNING: ${m}`),
  error: (m) => console.error(`[plugins] ERROR: ${m}`),
};

function label(p: LoadedPlugin): string {
  return `${p.manifest.name}@${p.manifest.version}`;
}

function describeSwap(previous: readonly LoadedPlugin[], next: readonly LoadedPlugin[]): string[] {
  const prev = new Set(previous);
  const nxt = new Set(next);
  return [...next.filter((p) => !prev.has(p)).map(label), ...previous.filter((p) => !nxt.has(p)).map((p) => `-${label(p)}`)];
}

function hasLocalYang(p: LoadedPlugin | undefined): boolean {
  return p !== undefined && !p.unit && p.manifest.yangDir !== undefined;
}

function withLocalYang(plugins: readonly LoadedPlugin[]): LoadedPlugin[] {
  return plugins.filter(hasLocalYang);
}

function sameInstances(a: readonly LoadedPlugin[], b: readonly LoadedPlugin[]): boolean {
  return a.length === b.length && a.every((p, i) => p === b[i]);
}

/** Whether `file` lies inside `dir` (both absolute). */
function isInside(file: string, dir: string | undefined): boolean {
  if (dir === undefined) return false;
  const rel = path.relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

function sameConfig(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function compareVersions(a: string, b: string): number {
  return semver.compare(a, b); // both were validated as semver by the manifest check
}
