/**
 * The NETCONF southbound plugin: registers its descriptor (southbound.ts: install container, topology,
 * settings module, status, rollback; YANG yang/topology/netconf-node-topology), claims install-node
 * `netconf` containers (device.connect), serves reads,
 * writes and operations under their mount points (device.read/write/invoke), plus the plugin's own
 * `rosetta-netconf:dry-run-edit-config` operation (device.invoke, never sent to the device: the RPCs a
 * write of the given edits would send, for the uniconfig dry run). Everything here is wiring:
 * the protocol is in session.ts, the device's life in device.ts, the operations in operations.ts.
 */
import path from 'node:path';
import { definePlugin, defineSettings, NodeSettingsError, registerSouthbound, type DeviceDataCodec, type PluginApi } from '@rosetta/sdk';
import { isNetconfDevice, NetconfDevice } from './device';
import { NetconfSessionError } from './errors';
import { DRY_RUN_EDIT, dryRunEdit, editsFromDocuments, invokeOperation, readData, writeEdits } from './operations';
import { readNodeSettings } from './settings';
import { NETCONF_SOUTHBOUND } from './southbound';

export { NetconfDevice, isNetconfDevice, traceText, type ConnectionStatus, type DeviceOptions } from './device';
export { NetconfRpcError, NetconfSessionError, type NetconfFault, type SessionFailure } from './errors';
export { parseFields, subtreeFilter, FieldsSyntaxError, type FieldSelection } from './filter';
export { parseDevicePath, pathText, type DevicePathResult, type DeviceSegment } from './path';
export {
  configSource,
  createSubscription,
  DRY_RUN_EDIT,
  dryRunEdit,
  DryRunInputError,
  editRpcs,
  editsFromDocuments,
  invokeOperation,
  mergeContent,
  readData,
  writeEdits,
  type OperationSession,
  type ReadRequest,
  type TargetProbe,
  type WriteOutcome,
} from './operations';
export {
  discoverSchemas,
  getSchema,
  listModules,
  moduleSetId,
  modulesFromCapabilities,
  type DiscoveredSchemas,
  type ModuleRef,
  type RpcSender,
  type SchemaSource,
} from './schemas';
export { NetconfSession, type RpcReply, type SessionOptions } from './session';
export { readNodeSettings, type NetconfNodeSettings } from './settings';
export { NETCONF_SOUTHBOUND } from './southbound';
export {
  actionXml,
  editConfigXml,
  jsonToXml,
  namespaceOf,
  rpcXml,
  XmlBuildError,
  type ConfigEdit,
  type Namespaces,
} from './xml-build';

/** The plugin's own settings (plugins.json `config`). */
const pluginSettings = defineSettings({
  /**
   * Default schema cache folder when a node names none (relative paths are from the working directory).
   * Absent: `netconf-schema-cache` under the service's data folder.
   */
  schemaCacheDirectory: { type: 'string' },
  /** Log every RPC sent to a device (its first 2000 characters): what crossed the wire, for operators and tests. */
  logRpcs: { type: 'boolean', default: false },
});

type Settings = { schemaCacheDirectory?: string; logRpcs: boolean };

/** The schema cache of nodes that name none: the plugin setting, else under the service's data folder. */
function defaultCacheDirectory(api: PluginApi & { readonly settings: Settings }): string {
  if (api.settings.schemaCacheDirectory !== undefined) return path.resolve(api.settings.schemaCacheDirectory);
  return path.join(api.dataDir !== undefined ? api.dataDir : path.resolve('data'), 'netconf-schema-cache');
}

function needCodec(codec: DeviceDataCodec | undefined, nodeId: string): DeviceDataCodec {
  if (!codec)
    throw new NetconfSessionError('malformed', `no schema codec for ${nodeId}: the core did not provide the device's compiled schema`);
  return codec;
}

export default definePlugin<Settings>({
  settings: pluginSettings,
  setup(api: PluginApi & { readonly settings: Settings }) {
    const defaultCache = defaultCacheDirectory(api);
    const logRpcs = api.settings.logRpcs === true;
    registerSouthbound(api.hooks, NETCONF_SOUTHBOUND);

    api.hooks.device.connect.for('netconf').tapPromise('netconf', async (ctx) => {
      const checked = readNodeSettings(ctx.settings);
      if (!checked.ok) throw new NodeSettingsError('netconf', ctx.device.nodeId, checked.problems);
      const cache = checked.value.schemaCacheDirectory ? path.resolve(checked.value.schemaCacheDirectory) : defaultCache;
      // the core owns the connection from here: it survives a swap of this plugin's version
      return NetconfDevice.install(ctx.device.nodeId, checked.value, cache, api.log, {
        logRpcs,
        ...(api.jobs !== undefined ? { jobs: api.jobs } : {}),
        ...(ctx.pacing !== undefined ? { pacing: ctx.pacing } : {}),
        ...(ctx.events !== undefined ? { events: ctx.events } : {}),
      });
    });

    api.hooks.device.read.for('netconf').tapPromise('netconf', async (ctx) => {
      if (!isNetconfDevice(ctx.connection)) return undefined;
      const device = ctx.connection;
      return readData(
        device.current(),
        { path: ctx.path, content: ctx.content, ...(ctx.fields ? { fields: ctx.fields } : {}) },
        device.namespaces,
        needCodec(ctx.codec, device.nodeId),
      );
    });

    api.hooks.device.write.for('netconf').tapPromise('netconf', async (ctx) => {
      if (!isNetconfDevice(ctx.connection)) return undefined;
      const device = ctx.connection;
      const edits = ctx.edits ?? (ctx.before && ctx.after ? editsFromDocuments(ctx.before, ctx.after) : undefined);
      if (edits === undefined)
        throw new NetconfSessionError('malformed', `a write to ${device.nodeId} came with neither edits nor before/after documents`);
      const codec = ctx.codec;
      const probe =
        ctx.probeTarget && edits.length === 1 && codec
          ? { path: edits[0]!.path, decode: (xml: string) => codec.fromXml(xml, { content: 'config' }) }
          : undefined;
      const readBack =
        ctx.readBack && codec ? { paths: ctx.readBack, decode: (xml: string) => codec.fromXml(xml, { content: 'config' }) } : undefined;
      const written = await device.serializeWrite(() =>
        writeEdits(device.current(), edits, device.namespaces, probe, needCodec(codec, device.nodeId), readBack),
      );
      return {
        commands: written.rpcs,
        ...(written.before !== undefined ? { before: written.before } : {}),
        ...(written.after !== undefined ? { after: written.after } : {}),
      };
    });

    api.hooks.device.invoke.for('netconf').tapPromise('netconf', async (ctx) => {
      if (!isNetconfDevice(ctx.connection)) return undefined;
      const device = ctx.connection;
      if (ctx.operation === DRY_RUN_EDIT)
        return { output: dryRunEdit(device.current(), ctx.input, device.namespaces, needCodec(ctx.codec, device.nodeId)) };
      const output = await invokeOperation(
        device.current(),
        ctx.operation,
        ctx.input,
        device.namespaces,
        needCodec(ctx.codec, device.nodeId),
        ctx.action,
      );
      return { output };
    });
  },
});
