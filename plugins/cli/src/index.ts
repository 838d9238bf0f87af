/**
 * The CLI southbound plugin: registers its descriptor (southbound.ts: install container, topology,
 * settings module, status, rollback), claims install-node `cli` containers (device.connect) and serves
 * reads, writes and RPCs under their mount points (device.read/write/invoke) by running the serving
 * translation units over the device's SSH session. Everything here is wiring: the session is shell.ts +
 * session.ts, the device's life device.ts, the work operations.ts. YANG: yang/topology/cli-topology
 * (install-node settings, node status; local schema only) and yang/cli-unit-generic (execute-and-read,
 * dry-run; also joins every CLI device's schema).
 */
import { definePlugin, NodeSettingsError, registerSouthbound, type PluginApi } from '@rosetta/sdk';
import { CliDevice, DEFAULT_BACKOFF, isCliDevice } from './device';
import {
  DRY_RUN,
  EXECUTE_AND_READ,
  dryRunRpc,
  executeAndRead,
  noUnitsReason,
  readDevice,
  unitsOf,
  unusablePatternsOf,
  writeDevice,
} from './operations';
import { readCliSettings } from './settings';
import { CLI_SOUTHBOUND } from './southbound';

export { CliDevice, isCliDevice, DEFAULT_BACKOFF, type Backoff, type ConnectionStatus } from './device';
export {
  CliCommandError,
  CliConnectionError,
  CliDeviceUnusableError,
  CliNoModelsError,
  cliRequestError,
  CliTimeoutError,
  type RollbackReport,
} from './errors';
export {
  DRY_RUN,
  EXECUTE_AND_READ,
  dryRun,
  dryRunRpc,
  executeAndRead,
  noUnitsReason,
  readDevice,
  unitsOf,
  unusablePatternsOf,
  writeDevice,
} from './operations';
export { planSteps, undoFor } from './plan';
export { learnPrompt, type LearnedPrompt, type PromptMatch } from './prompt';
export { CliSession, DEFAULT_ERROR_PATTERNS, findDeviceError, pagingCommands } from './session';
export { readCliSettings, type CliNodeSettings } from './settings';
export { CliShell, type ShellOptions } from './shell';
export { CLI_SOUTHBOUND } from './southbound';

export default definePlugin({
  setup(api: PluginApi) {
    registerSouthbound(api.hooks, CLI_SOUTHBOUND);

    api.hooks.device.connect.for('cli').tapPromise('cli', async (ctx) => {
      const checked = readCliSettings(ctx.settings);
      if (!checked.ok) throw new NodeSettingsError('cli', ctx.device.nodeId, checked.problems);
      // A device no unit serves is still installed (execute-and-read works on it); its mount point has
      // no translated models, which the core's connected-message and the mount point's reads say.
      if (ctx.device.units.length === 0)
        api.log.warn(`${ctx.device.nodeId}: ${noUnitsReason(ctx.device)}; installing it without translated models`, {
          nodeId: ctx.device.nodeId,
        });
      const unusable = ctx.device.units.length > 0 ? unusablePatternsOf(unitsOf(ctx.device)) : [];
      return CliDevice.install(ctx.device.nodeId, checked.value, api.log, DEFAULT_BACKOFF, unusable, ctx.pacing, ctx.events);
    });

    api.hooks.device.read.for('cli').tapPromise('cli', async (ctx) => {
      if (!isCliDevice(ctx.connection)) return undefined;
      // no unit serves the device: nothing of it is translated, so its tree is empty (the mount layer's
      // 404 and the node's connected-message say why); writes and dry-runs refuse with the reason
      if (ctx.device.units.length === 0) return {};
      return readDevice(ctx.connection, unitsOf(ctx.device), ctx.path, ctx.content);
    });

    api.hooks.device.write.for('cli').tapPromise('cli', async (ctx) => {
      if (!isCliDevice(ctx.connection)) return undefined;
      // the core gives a CLI device (no codec) the documents its units plan commands from
      if (ctx.before === undefined || ctx.after === undefined)
        throw new Error(`a write to ${ctx.device.nodeId} came without before/after documents`);
      const commands = await writeDevice(ctx.connection, unitsOf(ctx.device), ctx.before, ctx.after);
      return { commands };
    });

    api.hooks.device.invoke.for('cli').tapPromise('cli', async (ctx) => {
      if (!isCliDevice(ctx.connection)) return undefined;
      if (ctx.operation === EXECUTE_AND_READ) return { output: await executeAndRead(ctx.connection, ctx.input) };
      if (ctx.operation === DRY_RUN) return { output: await dryRunRpc(ctx.connection, unitsOf(ctx.device), ctx.input) };
      return undefined; // not ours: the core answers 501 operation-not-supported
    });
  },
});
