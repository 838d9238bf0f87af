/**
 * What a request does on a CLI device, each run as one job of the device's command stream:
 * - read: the serving units' readers over a per-request caching session (each show command once), the
 *   show commands typed ahead in one write when the units say the device takes that;
 * - write: the units' plan for before -> after, sent in one configuration session; on the first command the
 *   device refuses, the steps already sent are undone in reverse and the error names the command;
 * - execute-and-read and dry-run (module cli-unit-generic).
 */
import {
  renderInstancePath,
  type InstancePath,
  asTranslationUnit,
  cachingSession,
  readUnits,
  type CliSession as UnitSession,
  type DeviceInfo,
  type JsonObject,
  type JsonValue,
  type TranslationUnit,
  type WritePlan,
} from '@rosetta/sdk';
import type { CliDevice } from './device';
import {
  CliCommandError,
  CliConnectionError,
  CliDeviceUnusableError,
  CliNoModelsError,
  cliRequestError,
  CliTimeoutError,
  type RollbackReport,
} from './errors';
import { planSteps, undoFor } from './plan';
import { findDeviceError, type CliSession } from './session';

export const EXECUTE_AND_READ = 'cli-unit-generic:execute-and-read';
export const DRY_RUN = 'cli-unit-generic:dry-run';

/** Why no translation unit serves a device (for its connection message and its mount point's answers). */
export function noUnitsReason(device: DeviceInfo): string {
  const what = device.deviceType
    ? `device-type ${JSON.stringify(device.deviceType)} version ${JSON.stringify(device.deviceVersion ?? '*')}`
    : 'a device without device-type';
  return `no translation unit serves ${what}${device.unitsMissingReason ? `: ${device.unitsMissingReason}` : ''}`;
}

/**
 * The translation units serving a device, as the SDK engine runs them. CliNoModelsError (404) when there
 * are none: the device is installed, but its mount point has no translated models to read or write.
 */
export function unitsOf(device: DeviceInfo): TranslationUnit[] {
  if (device.units.length === 0)
    throw new CliNoModelsError(`${noUnitsReason(device)}; the mount point has no translated models (execute-and-read still works)`);
  return device.units.map((u) => asTranslationUnit(u.definition));
}

/** The error patterns of every serving unit (the session's defaults when none declares any). */
export function errorPatternsOf(units: readonly TranslationUnit[]): RegExp[] {
  return units.flatMap((u) => u.errorPatterns);
}

/** The device-unusable patterns of every serving unit (none: no such check). */
export function unusablePatternsOf(units: readonly TranslationUnit[]): RegExp[] {
  return units.flatMap((u) => u.unusablePatterns);
}

/** A session failure the caller must get as such (its status), not as a reader's or writer's fault. */
function sessionFailure(e: unknown): e is CliTimeoutError | CliConnectionError | CliDeviceUnusableError {
  return e instanceof CliTimeoutError || e instanceof CliConnectionError || e instanceof CliDeviceUnusableError;
}

/** Most reads (target and content) whose show commands a device remembers for type-ahead. */
const READ_PLANS_PER_DEVICE = 32;
/** Most commands typed ahead at once (a device's input buffer is finite). */
const MAX_TYPE_AHEAD = 64;

/** Per device: the show commands the last read of a target and content asked for. */
const readPlans = new WeakMap<CliDevice, Map<string, readonly string[]>>();

/**
 * Reads the target (RFC 7951 instance path under the mount point); `{}` when it has no data. The units'
 * readers see exec-mode commands only. When the session itself failed (a timeout, a broken connection),
 * that error is what the caller gets, with the engine's message naming the node being read, so its status
 * (504, 502) survives the engine's wrapping.
 *
 * When every serving unit says the device takes typed-ahead commands, the show commands the previous read
 * of the same target and content asked for are sent in one write before the readers run (each is still
 * sent and answered now, never taken from an earlier request): the device answers them back to back
 * instead of waiting a round trip for each. A command the readers no longer ask for (the configuration
 * changed) costs its output once; one they newly ask for is sent as usual; the next read uses what this
 * one asked for.
 */
export async function readDevice(
  device: CliDevice,
  units: readonly TranslationUnit[],
  path: InstancePath,
  content: 'config' | 'nonconfig' | 'all',
): Promise<JsonObject> {
  device.useUnusablePatterns(unusablePatternsOf(units));
  const typeAhead = units.every((u) => u.typeAhead);
  const plans = typeAhead ? (readPlans.get(device) ?? new Map<string, readonly string[]>()) : undefined;
  if (plans) readPlans.set(device, plans);
  const planKey = `${content} ${renderInstancePath(path)}`;
  return device.run(async (session) => {
    let failure: Error | undefined;
    const noteFailure = (e: unknown) => {
      if (sessionFailure(e)) failure ??= e;
      throw e;
    };
    const reader: UnitSession = {
      exec: (command) => session.exec(command).catch(noteFailure),
      ...(typeAhead ? { execAll: (commands: readonly string[]) => session.execAll(commands).map((p) => p.catch(noteFailure)) } : {}),
    };
    const cached = cachingSession(reader);
    const prefetched = cached.prefetch(plans?.get(planKey) ?? []);
    try {
      const tree = (await readUnits(units, cached, { path, content })) ?? {};
      if (plans) remember(plans, planKey, cached.commandsAsked.slice(0, MAX_TYPE_AHEAD));
      return tree;
    } catch (e) {
      if (failure === undefined) throw e;
      failure.message = e instanceof Error ? e.message : failure.message;
      throw failure;
    } finally {
      // the job owns the shell until the device has answered every command typed ahead
      await prefetched;
    }
  });
}

function remember(plans: Map<string, readonly string[]>, key: string, commands: readonly string[]): void {
  plans.delete(key);
  if (plans.size >= READ_PLANS_PER_DEVICE) plans.delete(plans.keys().next().value!);
  plans.set(key, commands);
}

/** The commands a write would send and their undo, without touching the device. */
export function dryRun(units: readonly TranslationUnit[], before: JsonObject, after: JsonObject): WritePlan {
  return planSteps(units, before, after);
}

/** Sends the write in one configuration session; returns the commands sent. Throws CliCommandError on a refusal. */
export async function writeDevice(
  device: CliDevice,
  units: readonly TranslationUnit[],
  before: JsonObject,
  after: JsonObject,
): Promise<string[]> {
  const plan = planSteps(units, before, after);
  if (plan.commands.length === 0) return [];
  const patterns = errorPatternsOf(units);
  device.useUnusablePatterns(unusablePatternsOf(units));
  return device.run(async (session) => {
    const sent: string[] = [];
    try {
      await session.enterConfig();
      for (let i = 0; i < plan.commands.length; i++) {
        const command = plan.commands[i]!;
        // configure() re-enters configuration mode if a writer's `exit` (or a device quirk) left it
        const output = await session.configure(command);
        sent.push(command);
        const refused = findDeviceError(output, patterns);
        if (refused !== undefined) throw new CliCommandError(command, refused, await rollback(session, plan, i, patterns));
      }
      await session.leaveConfig();
    } catch (e) {
      // the session broke or hung mid-write: nothing can be undone on it; say what had gone through
      if (sent.length > 0 && sessionFailure(e)) {
        e.message = `${e.message}; commands sent before the failure, not rolled back: ${sent.map((c) => JSON.stringify(c.trim())).join(', ')}`;
      }
      throw e;
    }
    return sent;
  });
}

/** Undoes the steps sent before command `failedAt`, in reverse, from the top of configuration mode. */
async function rollback(session: CliSession, plan: WritePlan, failedAt: number, patterns: readonly RegExp[]): Promise<RollbackReport> {
  const undo = undoFor(plan, failedAt);
  const sent: string[] = [];
  const failed: Array<{ command: string; message: string }> = [];
  const gaps = plan.undoGaps.length > 0 ? `no inverse writer for ${plan.undoGaps.join('; ')}` : undefined;
  try {
    await session.leaveConfig(); // out of whatever sub-mode the failed command left us in
    for (const command of undo) {
      const output = await session.configure(command);
      sent.push(command);
      const refused = findDeviceError(output, patterns);
      if (refused !== undefined) failed.push({ command, message: refused });
    }
    await session.leaveConfig();
  } catch (e) {
    return { sent, failed, incomplete: [`the session failed during rollback: ${(e as Error).message}`, gaps].filter(Boolean).join('; ') };
  }
  return gaps ? { sent, failed, incomplete: gaps } : { sent, failed };
}

/** `cli-unit-generic:execute-and-read`: one exec-mode command, its output. */
export async function executeAndRead(device: CliDevice, input: JsonObject): Promise<JsonObject> {
  const command = input['command'];
  if (typeof command !== 'string' || command.trim() === '')
    throw cliRequestError('execute-and-read: input command must be a non-empty string');
  if (/[\r\n]/.test(command)) throw cliRequestError('execute-and-read: input command must be one line (no line breaks)');
  if (command.length > 4096) throw cliRequestError('execute-and-read: input command is longer than 4096 characters');
  // the device's answer as printed, whatever it says (a device that cannot serve says so in it)
  const output = await device.run((session) => session.execRaw(command));
  return { output };
}

/**
 * `cli-unit-generic:dry-run`: input `after` (the device configuration wanted, RFC 7951 JSON of the mount
 * point's config) and optionally `before` (default: the device's configuration read now); output
 * `commands` (what a write would send) and `undo-commands` (what would undo it).
 */
export async function dryRunRpc(device: CliDevice, units: readonly TranslationUnit[], input: JsonObject): Promise<JsonObject> {
  const after = input['after'];
  const given = input['before'];
  if (!isObject(after)) throw cliRequestError('dry-run: input after must be the device configuration as a JSON object');
  if (given !== undefined && !isObject(given)) throw cliRequestError('dry-run: input before, when given, must be a JSON object');
  const before = given ?? (await readDevice(device, units, [], 'config'));
  const plan = dryRun(units, before, after);
  return { commands: [...plan.commands], 'undo-commands': [...plan.undo] };
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
