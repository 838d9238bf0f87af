/**
 * plugins.json: which plugins are enabled, from which folder, with which settings. Reading it never throws;
 * each fault names the entry and the field. A bad entry is left out (and reported); the rest still load.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';

export interface PluginEntry {
  /** Absolute folder of the plugin. */
  readonly folder: string;
  /** The path as written in plugins.json, for messages. */
  readonly path: string;
  readonly enabled: boolean;
  /** The `config` object handed to the plugin's settings check (`{}` when absent). */
  readonly config: Readonly<Record<string, unknown>>;
}

export interface PluginsConfig {
  readonly watch: boolean;
  readonly entries: readonly PluginEntry[];
}

export interface ConfigProblem {
  /** `plugins[2].config`, `watch`, or '' for the file itself. */
  readonly field: string;
  readonly message: string;
}

export interface PluginsConfigResult {
  /** Undefined when the file as a whole cannot be used (unreadable, not JSON, not an object). */
  readonly config: PluginsConfig | undefined;
  readonly problems: readonly ConfigProblem[];
}

/** Reads and checks plugins.json; relative plugin paths are resolved against the file's folder. */
export async function readPluginsConfig(file: string): Promise<PluginsConfigResult> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    return { config: undefined, problems: [{ field: '', message: `cannot read ${file}: ${(err as Error).message}` }] };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { config: undefined, problems: [{ field: '', message: `${file} is not JSON: ${(err as Error).message}` }] };
  }
  return parsePluginsConfig(raw, path.dirname(file));
}

/** Checks an already parsed plugins.json document. */
export function parsePluginsConfig(raw: unknown, baseDir: string): PluginsConfigResult {
  const problems: ConfigProblem[] = [];
  if (!isObject(raw)) return { config: undefined, problems: [{ field: '', message: 'plugins.json must be a JSON object' }] };
  let watch = true;
  if (raw['watch'] !== undefined) {
    if (typeof raw['watch'] === 'boolean') watch = raw['watch'];
    else problems.push({ field: 'watch', message: 'must be true or false' });
  }
  const list = raw['plugins'] ?? [];
  if (!Array.isArray(list)) {
    return { config: undefined, problems: [...problems, { field: 'plugins', message: 'must be an array of { path, enabled, config }' }] };
  }
  const entries: PluginEntry[] = [];
  const seen = new Set<string>();
  list.forEach((item: unknown, i: number) => {
    const at = `plugins[${i}]`;
    if (!isObject(item)) {
      problems.push({ field: at, message: 'must be an object { path, enabled, config }' });
      return;
    }
    const p = item['path'];
    if (typeof p !== 'string' || p.trim() === '') {
      problems.push({ field: `${at}.path`, message: 'must be the plugin folder, relative to plugins.json' });
      return;
    }
    const enabled = item['enabled'] ?? true;
    if (typeof enabled !== 'boolean') {
      problems.push({ field: `${at}.enabled`, message: `plugin ${p}: must be true or false` });
      return;
    }
    const config = item['config'] ?? {};
    if (!isObject(config)) {
      problems.push({ field: `${at}.config`, message: `plugin ${p}: must be an object` });
      return;
    }
    const folder = path.resolve(baseDir, p);
    if (seen.has(folder)) {
      problems.push({ field: `${at}.path`, message: `plugin ${p}: listed twice` });
      return;
    }
    seen.add(folder);
    entries.push({ folder, path: p, enabled, config });
  });
  return { config: { watch, entries }, problems };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
