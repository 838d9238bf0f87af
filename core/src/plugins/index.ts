/**
 * The plugin host's public face: start a host, lease generations, match devices to translation units,
 * and the manifest / plugins.json / version checks it is built from.
 */
export type { PluginApi, PluginDefinition, PluginLogger, SettingsProblem, SettingsResult } from './contract';
export { Generation, type BuiltinTaps, type PluginScope } from './generation';
export {
  PluginHost,
  builtinTaps,
  type HostLogger,
  type LocalYangVerdict,
  type PluginHostOptions,
  type PluginState,
  type PluginStatus,
  type ReloadReport,
} from './host';
export { INTROSPECTION_MODULE, introspectionTaps, pluginsState, type InstalledDevice } from './introspection';
export { loadPlugin, type LoadedPlugin, type LoadResult } from './loader';
export {
  PLUGIN_KINDS,
  formatManifestProblems,
  validateManifest,
  type ManifestProblem,
  type ManifestResult,
  type PluginKind,
  type PluginManifest,
} from './manifest';
export { parsePluginsConfig, readPluginsConfig, type PluginEntry, type PluginsConfig, type PluginsConfigResult } from './plugins-config';
export {
  coerceDeviceVersion,
  isValidDeviceRange,
  matchUnits,
  type DeviceVersion,
  type UnitCandidate,
  type UnitMatch,
} from './version-match';
