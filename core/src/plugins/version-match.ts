/**
 * Device-version matching: reading vendor OS version strings as semver, and picking the translation units
 * that serve a device (type equal, version in the unit's range, the highest version of each plugin).
 */
import * as semver from 'semver';

/** A device version as the matcher reads it: any version (`*`), or a coerced semver. */
export type DeviceVersion =
  | { readonly kind: 'any' }
  | { readonly kind: 'exact'; readonly semver: semver.SemVer; readonly original: string };

const MAX_VERSION_TEXT = 200;

/**
 * Reads a vendor version string as semver. The first three numbers give major.minor.patch; the patch
 * may follow `.`, `(` (IOS `15.2(4)M3`, NX-OS `9.3(8)`) or `R` (Junos `18.4R3-S2`). Whatever follows is
 * kept as build metadata (`15.2.4+M3`), which semver ignores for ordering. `*`, `any` or an empty string
 * mean any version. Returns undefined when the text holds no number to start from.
 */
export function coerceDeviceVersion(text: string): DeviceVersion | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === '*' || trimmed.toLowerCase() === 'any') return { kind: 'any' };
  if (trimmed.length > MAX_VERSION_TEXT) return undefined;
  // A leading product word or letter is skipped (`V8.4.4`, `FRRouting 8.4.4`, `B-20.10.R1`).
  const m = /^[^\d]*?(\d{1,9})(?:\.(\d{1,9}))?(?:(?:\.R?|\(|R)(\d{1,9}))?(.*)$/.exec(trimmed);
  if (!m) return undefined;
  const [, major, minor = '0', patch = '0', rest = ''] = m;
  const build = rest
    .split(/[^0-9A-Za-z]+/)
    .filter((s) => s !== '')
    .join('.');
  const text3 = `${Number(major)}.${Number(minor)}.${Number(patch)}${build ? `+${build}` : ''}`;
  const parsed = semver.parse(text3);
  return parsed ? { kind: 'exact', semver: parsed, original: trimmed } : undefined;
}

/** True when `range` is a semver range the matcher accepts (`*` included). */
export function isValidDeviceRange(range: string): boolean {
  return range.trim() !== '' && semver.validRange(range) !== null;
}

/** The facts of a translation unit the matcher needs. */
export interface UnitCandidate {
  /** Package name: two versions of one plugin never both serve a device. */
  readonly plugin: string;
  readonly version: string;
  readonly deviceType: string;
  readonly versions: string;
}

export interface UnitMatch<U extends UnitCandidate> {
  readonly units: readonly U[];
  /** Why no unit serves the device; set exactly when `units` is empty. */
  readonly reason?: string;
}

/**
 * The units that serve a device of `deviceType` running `deviceVersion`: type equal, version within the
 * unit's range (any unit of the type when the version is `*`), and of several versions of one plugin only
 * the highest. Units come back ordered by plugin name, so the order does not depend on load order.
 */
export function matchUnits<U extends UnitCandidate>(candidates: Iterable<U>, deviceType: string, deviceVersion: string): UnitMatch<U> {
  const version = coerceDeviceVersion(deviceVersion);
  const ofType = [...candidates].filter((u) => u.deviceType === deviceType);
  if (!version) {
    return { units: [], reason: `device version "${clip(deviceVersion)}" cannot be read as a version` };
  }
  if (ofType.length === 0) {
    return { units: [], reason: `no translation unit is loaded for device type "${clip(deviceType)}"` };
  }
  const best = new Map<string, U>();
  for (const unit of ofType) {
    const fits = version.kind === 'any' || semver.satisfies(version.semver, unit.versions);
    if (!fits) continue;
    const held = best.get(unit.plugin);
    if (!held || semver.gt(unit.version, held.version)) best.set(unit.plugin, unit);
  }
  if (best.size === 0) {
    const offered = ofType.map((u) => `${u.plugin} ${u.version} serves ${u.versions}`).join('; ');
    const shown = version.kind === 'exact' ? `${version.original} (read as ${version.semver.version})` : '*';
    return { units: [], reason: `no translation unit for ${deviceType} covers version ${shown}: ${offered}` };
  }
  return { units: [...best.values()].sort((a, b) => (a.plugin < b.plugin ? -1 : a.plugin > b.plugin ? 1 : 0)) };
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}...` : text;
}
