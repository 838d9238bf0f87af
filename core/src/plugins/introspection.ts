/**
 * The plugin host's own face in YANG (core/yang/rosetta-plugins@2026-11-22.yang): operational data listing
 * the loaded plugins and the units serving each installed device, and the `reload` RPC. Both are taps on
 * the ordinary hooks (`data.readState` for `rosetta-plugins`, `rpc.invoke` for `rosetta-plugins:reload`),
 * so they are served exactly as a plugin's would be.
 */
import type { JsonObject, JsonValue } from '../hooks';
import { builtinTaps, type PluginHost } from './host';
import type { BuiltinTaps } from './generation';

export const INTROSPECTION_MODULE = 'rosetta-plugins';

/** An installed device as the mount layer knows it. */
export interface InstalledDevice {
  readonly nodeId: string;
  readonly deviceType?: string;
  readonly deviceVersion?: string;
}

/** The RFC 7951 JSON of `rosetta-plugins:plugins-state`. */
export function pluginsState(host: PluginHost, devices: Iterable<InstalledDevice>): JsonObject {
  const plugin: JsonObject[] = host.status().map((s) => {
    const entry: JsonObject = { path: s.path, state: s.state };
    if (s.name !== undefined) entry['name'] = s.name;
    if (s.version !== undefined) entry['version'] = s.version;
    if (s.kind !== undefined) entry['kind'] = s.kind;
    if (s.error !== undefined) entry['error'] = s.error;
    if (s.loadedAt !== undefined) entry['loaded-at'] = s.loadedAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
    if (s.device) entry['device'] = { type: s.device.type, versions: s.device.versions };
    return entry;
  });
  const device: JsonObject[] = [];
  for (const d of devices) {
    const entry: JsonObject = { 'node-id': d.nodeId };
    if (d.deviceType !== undefined) entry['device-type'] = d.deviceType;
    if (d.deviceVersion !== undefined) entry['device-version'] = d.deviceVersion;
    if (d.deviceType !== undefined) {
      const match = host.unitsFor(d.deviceType, d.deviceVersion ?? '*');
      if (match.units.length > 0) entry['translation-unit'] = match.units.map((u) => ({ name: u.plugin, version: u.version }));
      if (match.reason !== undefined) entry['reason'] = match.reason;
    }
    device.push(entry);
  }
  const state: JsonObject = { generation: host.generation, plugin };
  if (device.length > 0) state['device'] = device;
  return { [`${INTROSPECTION_MODULE}:plugins-state`]: state };
}

/**
 * The built-in taps serving the introspection module. `devices` is asked on each read (the mount layer
 * supplies it; until one exists, no devices are listed).
 */
export function introspectionTaps(host: PluginHost, devices: () => Iterable<InstalledDevice> = () => []): BuiltinTaps {
  return builtinTaps('core:plugins-introspection', (hooks) => {
    hooks.data.readState.for(INTROSPECTION_MODULE).tapPromise('core:plugins-state', async (json) => ({
      ...json,
      ...pluginsState(host, devices()),
    }));
    hooks.rpc.invoke.for(`${INTROSPECTION_MODULE}:reload`).tapPromise('core:plugins-reload', async () => {
      const report = await host.reload();
      const output: Record<string, JsonValue> = { generation: report.generation };
      if (report.swapped.length > 0) output['swapped'] = [...report.swapped];
      if (report.errors.length > 0) output['error'] = [...report.errors];
      return { output };
    });
  });
}
