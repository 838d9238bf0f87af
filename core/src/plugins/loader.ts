/**
 * Loading one plugin folder into a live instance: read and check the manifest, require the entry afresh
 * (clearing the folder's modules from require.cache so a new version is really new), check the default
 * export and the settings, and run `setup` against a recorder. Every failure comes back as a message
 * naming the plugin and what was wrong; nothing a plugin does here escapes as an exception.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { JsonValue, ServingUnit } from '../hooks';
import type { JobStarter } from '../jobs';
import type { PluginDefinition, PluginLogger, SettingsResult } from './contract';
import { formatManifestProblems, validateManifest, type PluginManifest } from './manifest';
import type { PluginEntry } from './plugins-config';
import { createRecorder, type RecordedTap } from './taps';

/** A plugin loaded and set up: one version of one plugin, alive until it is swapped out and drained. */
export interface LoadedPlugin {
  /** Unique per loaded instance (a reload of the same version gets a new id). */
  readonly instanceId: number;
  readonly manifest: PluginManifest;
  readonly entry: PluginEntry;
  readonly fingerprint: string;
  readonly definition: PluginDefinition;
  readonly settings: unknown;
  readonly taps: readonly RecordedTap[];
  /** Set for translation units. */
  readonly unit: ServingUnit | undefined;
  readonly loadedAt: Date;
}

export type LoadResult =
  | { readonly ok: true; readonly plugin: LoadedPlugin }
  | { readonly ok: false; readonly plugin: string; readonly error: string; readonly missing: boolean };

export interface LoadOptions {
  readonly setupTimeoutMs: number;
  readonly log: (plugin: string) => PluginLogger;
  /** Handed to setup as `PluginApi.serviceConfig`. */
  readonly serviceConfig?: Readonly<Record<string, JsonValue>>;
  /** Handed to setup as `PluginApi.dataDir`. */
  readonly dataDir?: string;
  /** Handed to setup as `PluginApi.jobs`. */
  readonly jobs?: JobStarter;
}

let nextInstanceId = 1;

/** Loads the plugin in `entry.folder`. */
export async function loadPlugin(entry: PluginEntry, options: LoadOptions): Promise<LoadResult> {
  const folderLabel = entry.path;
  const fail = (plugin: string, error: string, missing = false): LoadResult => ({ ok: false, plugin, error, missing });

  let packageText: string;
  try {
    packageText = await fs.readFile(path.join(entry.folder, 'package.json'), 'utf8');
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    return fail(folderLabel, `plugin ${folderLabel}: package.json: ${missing ? 'not found' : (err as Error).message}`, missing);
  }
  let packageJson: unknown;
  try {
    packageJson = JSON.parse(packageText);
  } catch (err) {
    return fail(folderLabel, `plugin ${folderLabel}: package.json: not JSON: ${(err as Error).message}`);
  }
  const checked = validateManifest(entry.folder, packageJson);
  if (!checked.ok) return fail(checked.problems[0]!.plugin, formatManifestProblems(checked.problems));
  const manifest = checked.manifest;
  const who = `plugin ${manifest.name}@${manifest.version}`;

  const fingerprint = await fingerprintFolder(entry.folder);
  forgetModulesUnder(entry.folder);
  let exported: unknown;
  try {
    const mod = require(manifest.entry) as { default?: unknown };
    exported = mod && typeof mod === 'object' && 'default' in mod ? mod.default : mod;
  } catch (err) {
    return fail(manifest.name, `${who}: rosetta.entry ${path.relative(entry.folder, manifest.entry)} failed to load: ${describe(err)}`);
  }
  if (!isPluginDefinition(exported)) {
    return fail(manifest.name, `${who}: rosetta.entry must export definePlugin(...) as its default export`);
  }
  const definition = exported;
  if (manifest.kind === 'translation-unit' && definition.translationUnit?.kind !== 'rosetta-translation-unit') {
    return fail(manifest.name, `${who}: kind is translation-unit but the plugin defines no translation unit`);
  }

  let settings: unknown = entry.config;
  if (definition.settings) {
    let result: SettingsResult;
    try {
      result = definition.settings(entry.config);
    } catch (err) {
      return fail(manifest.name, `${who}: settings check threw: ${describe(err)}`);
    }
    if (!result.ok) {
      const list = result.problems.map((p) => `config${p.field ? `.${p.field}` : ''}: ${p.message}`).join('; ');
      return fail(manifest.name, `${who}: settings in plugins.json (${entry.path}): ${list}`);
    }
    settings = result.value;
  }

  const recorder = createRecorder();
  if (definition.setup) {
    const setup = definition.setup.bind(definition);
    const outcome = await withTimeout(
      (async () =>
        setup({
          hooks: recorder.hooks,
          settings,
          name: manifest.name,
          version: manifest.version,
          folder: entry.folder,
          yangDir: manifest.yangDir,
          log: options.log(manifest.name),
          serviceConfig: options.serviceConfig ?? {},
          ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
          ...(options.jobs !== undefined ? { jobs: options.jobs } : {}),
        }))(),
      options.setupTimeoutMs,
    );
    if (outcome !== 'done') {
      await disposeQuietly(definition);
      const why = outcome === 'timeout' ? `did not finish within ${options.setupTimeoutMs} ms` : `threw: ${describe(outcome.error)}`;
      return fail(manifest.name, `${who}: setup ${why}`);
    }
  }

  const unit: ServingUnit | undefined =
    manifest.device && definition.translationUnit
      ? {
          plugin: manifest.name,
          version: manifest.version,
          deviceType: manifest.device.type,
          versions: manifest.device.versions,
          yangDir: manifest.yangDir,
          definition: definition.translationUnit,
        }
      : undefined;
  return {
    ok: true,
    plugin: {
      instanceId: nextInstanceId++,
      manifest,
      entry,
      fingerprint,
      definition,
      settings,
      taps: recorder.collect(),
      unit,
      loadedAt: new Date(),
    },
  };
}

/** Calls a plugin's dispose, reporting (never throwing) what goes wrong. */
export async function disposeQuietly(definition: PluginDefinition, onError?: (message: string) => void): Promise<void> {
  if (!definition.dispose) return;
  try {
    await definition.dispose();
  } catch (err) {
    onError?.(`dispose threw: ${describe(err)}`);
  }
}

/**
 * A cheap fingerprint of a folder's contents (paths, sizes, mtimes), so a rescan reloads only plugins that
 * changed. node_modules and dot-folders are skipped; the walk is bounded.
 */
export async function fingerprintFolder(folder: string, maxFiles = 5000): Promise<string> {
  const hash = createHash('sha1');
  let count = 0;
  const walk = async (dir: string): Promise<void> => {
    let names: import('node:fs').Dirent[];
    try {
      names = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    names.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const d of names) {
      if (count >= maxFiles) return;
      if (d.name === 'node_modules' || d.name.startsWith('.')) continue;
      const full = path.join(dir, d.name);
      if (d.isDirectory()) await walk(full);
      else if (d.isFile()) {
        count++;
        try {
          const st = await fs.stat(full);
          hash.update(`${path.relative(folder, full)}\0${st.size}\0${st.mtimeMs}\n`);
        } catch {
          hash.update(`${full}\0gone\n`);
        }
      }
    }
  };
  await walk(folder);
  return hash.digest('hex');
}

/** Drops every cached module under `folder`, so the next require reads the files again. */
function forgetModulesUnder(folder: string): void {
  const prefixes = [path.resolve(folder) + path.sep];
  try {
    prefixes.push(require('node:fs').realpathSync(folder) + path.sep);
  } catch {
    /* folder gone: the resolved path is enough */
  }
  for (const key of Object.keys(require.cache)) {
    if (prefixes.some((p) => key.startsWith(p))) delete require.cache[key];
  }
}

function isPluginDefinition(v: unknown): v is PluginDefinition {
  if (typeof v !== 'object' || v === null) return false;
  const d = v as Record<string, unknown>;
  return (
    d['rosettaPlugin'] === 1 &&
    (d['setup'] === undefined || typeof d['setup'] === 'function') &&
    (d['settings'] === undefined || typeof d['settings'] === 'function') &&
    (d['dispose'] === undefined || typeof d['dispose'] === 'function')
  );
}

async function withTimeout(work: Promise<unknown>, ms: number): Promise<'done' | 'timeout' | { error: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => 'done' as const,
        (error: unknown) => ({ error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message.split('\n')[0] ?? err.name;
  return String(err);
}
