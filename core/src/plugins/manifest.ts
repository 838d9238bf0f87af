/**
 * Plugin manifests: a plugin folder's package.json (`name`, semver `version`) and its `rosetta` field
 * (kind, entry, YANG folder, and for translation units the device type and version range). Validation
 * names the plugin and the field at fault, and never throws on whatever the file holds.
 */
import * as path from 'node:path';
import * as semver from 'semver';
import { isValidDeviceRange } from './version-match';

/** The plugin kinds the core knows. Others are refused, so a typo does not load a plugin that does nothing. */
export const PLUGIN_KINDS = ['southbound', 'translation-unit', 'schema-filter', 'tls', 'callbacks', 'extension'] as const;
export type PluginKind = (typeof PLUGIN_KINDS)[number];

export interface PluginManifest {
  readonly name: string;
  readonly version: string;
  readonly kind: PluginKind;
  /** Absolute path of the entry module. */
  readonly entry: string;
  /** Absolute path of the YANG folder, when given. */
  readonly yangDir: string | undefined;
  /** Translation units only. */
  readonly device: { readonly type: string; readonly versions: string } | undefined;
  readonly description: string | undefined;
}

/** One manifest fault: which plugin (name, or the folder when the name is unreadable) and which field. */
export interface ManifestProblem {
  readonly plugin: string;
  /** `package.json` field path, e.g. `rosetta.device.versions`. */
  readonly field: string;
  readonly message: string;
}

export type ManifestResult =
  | { readonly ok: true; readonly manifest: PluginManifest }
  | { readonly ok: false; readonly problems: readonly ManifestProblem[] };

/** Renders problems as one line an operator can act on. */
export function formatManifestProblems(problems: readonly ManifestProblem[]): string {
  return problems.map((p) => `plugin ${p.plugin}: ${p.field}: ${p.message}`).join('; ');
}

const NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
const DEVICE_TYPE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Validates the parsed package.json of the plugin in `folder`. Every path in the manifest must stay
 * inside the folder, so a manifest cannot make the core load arbitrary files.
 */
export function validateManifest(folder: string, packageJson: unknown): ManifestResult {
  const problems: ManifestProblem[] = [];
  const folderLabel = path.basename(folder);
  if (!isObject(packageJson)) {
    return { ok: false, problems: [{ plugin: folderLabel, field: 'package.json', message: 'must be a JSON object' }] };
  }
  const name = packageJson['name'];
  const label = typeof name === 'string' && name !== '' ? name : folderLabel;
  const bad = (field: string, message: string) => problems.push({ plugin: label, field, message });

  if (typeof name !== 'string' || !NAME.test(name) || name.length > 214) bad('name', `must be an npm package name, got ${show(name)}`);
  const version = packageJson['version'];
  if (typeof version !== 'string' || semver.valid(version) === null) bad('version', `must be a semver version, got ${show(version)}`);

  const rosetta = packageJson['rosetta'];
  if (!isObject(rosetta)) {
    bad('rosetta', 'missing: the manifest object (kind, entry, ...) is required');
    return { ok: false, problems };
  }
  const kind = rosetta['kind'];
  if (typeof kind !== 'string' || !(PLUGIN_KINDS as readonly string[]).includes(kind)) {
    bad('rosetta.kind', `must be one of ${PLUGIN_KINDS.join(', ')}, got ${show(kind)}`);
  }
  const entry = insidePath(folder, rosetta['entry'], 'rosetta.entry', bad, true);
  const yangDir = insidePath(folder, rosetta['yang'], 'rosetta.yang', bad, false);
  const description = typeof packageJson['description'] === 'string' ? packageJson['description'] : undefined;

  let device: PluginManifest['device'];
  const rawDevice = rosetta['device'];
  if (kind === 'translation-unit') {
    if (!isObject(rawDevice)) {
      bad('rosetta.device', 'a translation unit must name the device it serves: { "type": ..., "versions": ... }');
    } else {
      const type = rawDevice['type'];
      const versions = rawDevice['versions'];
      if (typeof type !== 'string' || !DEVICE_TYPE.test(type)) bad('rosetta.device.type', `must be a device type name, got ${show(type)}`);
      if (typeof versions !== 'string' || !isValidDeviceRange(versions)) {
        bad('rosetta.device.versions', `must be a semver range such as ">=8.1 <11" or "*", got ${show(versions)}`);
      }
      if (typeof type === 'string' && typeof versions === 'string') device = { type, versions };
    }
    if (yangDir === undefined && rosetta['yang'] === undefined) bad('rosetta.yang', 'a translation unit must name its YANG folder');
  } else if (rawDevice !== undefined) {
    bad('rosetta.device', `only translation units serve devices; this plugin is a ${show(kind)}`);
  }

  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    manifest: {
      name: name as string,
      version: semver.valid(version as string)!,
      kind: kind as PluginKind,
      entry: entry!,
      yangDir,
      device,
      description,
    },
  };
}

function insidePath(
  folder: string,
  raw: unknown,
  field: string,
  bad: (field: string, message: string) => void,
  required: boolean,
): string | undefined {
  if (raw === undefined && !required) return undefined;
  if (typeof raw !== 'string' || raw.trim() === '') {
    bad(field, `must be a path relative to the plugin folder, got ${show(raw)}`);
    return undefined;
  }
  const resolved = path.resolve(folder, raw);
  const relative = path.relative(folder, resolved);
  if (path.isAbsolute(raw) || relative.startsWith('..') || path.isAbsolute(relative)) {
    bad(field, `must stay inside the plugin folder, got ${show(raw)}`);
    return undefined;
  }
  return resolved;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 80 ? `${text.slice(0, 80)}...` : text;
}
