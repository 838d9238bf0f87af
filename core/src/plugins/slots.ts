/**
 * The plugins.json entries as they stand: one slot per listed folder, holding the instance it serves (if
 * any), its state and its last error. A rescan applies plugins.json to the slots here: entries no longer
 * listed are dropped, disabled ones emptied, changed ones (configuration or folder fingerprint) loaded
 * again; a failed load keeps the previous instance serving. Which instances serve is read from the
 * slots, in plugins.json order.
 */
import * as semver from 'semver';
import type { Logger } from '../logger';
import { type LoadedPlugin, type LoadResult, fingerprintFolder } from './loader';
import type { PluginKind } from './manifest';
import type { PluginEntry } from './plugins-config';

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

export interface Slot {
  entry: PluginEntry;
  active: LoadedPlugin | undefined;
  state: PluginState;
  error: string | undefined;
}

export class PluginSlots {
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly logger: Required<Logger>) {}

  all(): Slot[] {
    return [...this.slots.values()];
  }

  /** Which instance each slot serves now: what a rescan compares with to find what it changed. */
  snapshot(): Map<Slot, LoadedPlugin | undefined> {
    return new Map(this.all().map((s) => [s, s.active] as const));
  }

  /** Every plugins.json entry as it stands, in file order. */
  status(): PluginStatus[] {
    return this.all().map((s) => ({
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

  /** The instances the slots serve now, in plugins.json order. */
  serving(): LoadedPlugin[] {
    return this.all().flatMap((s) => (s.active && s.state === 'loaded' ? [s.active] : []));
  }

  /** Applies plugins.json's entries: drops unlisted slots, empties disabled ones, loads what changed. */
  async apply(entries: readonly PluginEntry[], load: (entry: PluginEntry) => Promise<LoadResult>, errors: string[]): Promise<void> {
    const listed = new Set(entries.map((e) => e.folder));
    for (const [folder, slot] of this.slots) {
      if (!listed.has(folder)) {
        if (slot.active) this.logger.info(`plugin ${label(slot.active)} removed from plugins.json; unloading`);
        this.slots.delete(folder);
      }
    }
    for (const entry of entries) {
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
      const result = await load(entry);
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
  }

  /**
   * Two folders holding the same plugin name: translation units may coexist (matching takes the highest
   * version that covers a device), but any other kind would tap every hook twice, so only the highest stays.
   */
  supersedeDuplicates(errors: string[]): void {
    const byName = new Map<string, Slot[]>();
    for (const s of this.slots.values()) {
      if (!s.active || s.state !== 'loaded' || s.active.unit) continue;
      byName.set(s.active.manifest.name, [...(byName.get(s.active.manifest.name) ?? []), s]);
    }
    for (const [name, group] of byName) {
      if (group.length < 2) continue;
      group.sort((a, b) => semver.compare(b.active!.manifest.version, a.active!.manifest.version)); // both validated as semver by the manifest check
      for (const loser of group.slice(1)) {
        const message = `plugin ${name}: ${loser.entry.path} (${loser.active!.manifest.version}) is superseded by ${group[0]!.entry.path} (${group[0]!.active!.manifest.version})`;
        errors.push(message);
        this.logger.warn(message);
        Object.assign(loser, { active: undefined, state: 'failed', error: message });
      }
    }
  }
}

/** `name@version`, how every log line names an instance. */
export function label(p: LoadedPlugin): string {
  return `${p.manifest.name}@${p.manifest.version}`;
}

function sameConfig(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
