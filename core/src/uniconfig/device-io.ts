/**
 * The uniconfig layer's traffic with devices, all through the mount layer's mounted device and the
 * southbound hooks (never a plugin's code): reading a device's whole configuration, pushing a change
 * from one configuration (actual) to another (intended), and saying what such a push would send
 * without sending it (dry run).
 *
 * A push hands the southbound the two whole documents plus the per-change edits of device-edits.ts
 * (each change at its own path, so nothing else on the device is touched). The CLI southbound plans
 * commands from the documents; the NETCONF one sends the edits as one edit-config. The dry run asks the
 * same southbound what it would send for the same input, so what it shows is what a commit sends (CLI:
 * its `cli-unit-generic:dry-run`; NETCONF: its `rosetta-netconf:dry-run-edit-config`, the lock /
 * edit-config / commit / unlock RPCs its own builder makes). The core builds no device XML.
 */
import { applyEdits, type Edit } from '../data/edit';
import { toJsonValue } from '../data/json-encode';
import type { DataRoot } from '../data/tree';
import type { JsonObject } from '../hooks';
import { deviceFault, invokeDevice, MountError, readDevice, type MountedDevice } from '../mount';
import type { PluginScope } from '../plugins/generation';
import type { SchemaNode } from '../yang/schema';
import { changeEdits } from './device-edits';

const CAP_CANDIDATE = 'urn:ietf:params:netconf:capability:candidate:1.0';
const CAP_ROLLBACK_ON_ERROR = 'urn:ietf:params:netconf:capability:rollback-on-error:1.0';
/** The CLI southbound's dry-run RPC (module cli-unit-generic). */
const CLI_DRY_RUN = 'cli-unit-generic:dry-run';
/** The NETCONF southbound's dry run of a write's edits (input `edits`, output `rpcs`). */
const NETCONF_DRY_RUN = 'rosetta-netconf:dry-run-edit-config';

/** The device's whole configuration now, as a tree of its schema. */
export async function readConfiguration(device: MountedDevice, scope: PluginScope): Promise<DataRoot> {
  return readDevice(device, scope, { steps: [], content: 'config' });
}

/**
 * The device's configuration after a push of `before` -> `after`, reading back only the top-level
 * nodes the push changed (the rest cannot have moved) and taking the others from `before`. A push that
 * touched more than two top-level nodes reads the whole configuration once instead.
 */
export async function readChanged(device: MountedDevice, scope: PluginScope, before: DataRoot, after: DataRoot): Promise<DataRoot> {
  const touched = new Set<SchemaNode>();
  for (const node of after.children) if (!before.children.includes(node)) touched.add(node.schema);
  for (const node of before.children) if (!after.children.some((c) => c.schema === node.schema)) touched.add(node.schema);
  if (touched.size > 2) return readConfiguration(device, scope);
  const edits: Edit[] = [];
  for (const schema of touched) {
    const read = await readDevice(device, scope, { steps: [{ schema }], content: 'config' });
    const node = read.children.find((c) => c.schema === schema);
    edits.push(
      node === undefined ? { operation: 'remove', target: [{ schema }] } : { operation: 'replace', target: [{ schema }], value: node },
    );
  }
  return applyEdits(before, edits, device.schema);
}

/** How a southbound undid its own partial write after refusing one (a commit's `rollback-status`). */
export interface SouthboundRollback {
  readonly status: 'complete' | 'fail' | 'unknown';
  /** What was done, for the node's error message. */
  readonly detail: string;
}

const rollbackReports = new WeakMap<object, SouthboundRollback>();

/** The southbound's rollback report carried by a fault {@link pushConfiguration} threw; undefined for other faults. */
export function southboundRollback(fault: unknown): SouthboundRollback | undefined {
  return typeof fault === 'object' && fault !== null ? rollbackReports.get(fault) : undefined;
}

/**
 * What the southbound did about its partial write: the CLI southbound's error carries its report
 * (`rollback {sent, failed, incomplete?}`); the NETCONF southbound discards the candidate (or the device
 * rolls back on error), but a device with neither leaves running changed up to the failing edit.
 */
function rollbackOf(device: MountedDevice, e: unknown): SouthboundRollback {
  const report = typeof e === 'object' && e !== null ? (e as { rollback?: unknown }).rollback : undefined;
  if (typeof report === 'object' && report !== null && Array.isArray((report as { sent?: unknown }).sent)) {
    const r = report as { sent: unknown[]; failed?: unknown; incomplete?: unknown };
    const failed = Array.isArray(r.failed) ? (r.failed as Array<{ command?: unknown; message?: unknown }>) : [];
    const incomplete = typeof r.incomplete === 'string' && r.incomplete !== '' ? r.incomplete : undefined;
    if (failed.length > 0 || incomplete !== undefined) {
      const refused = failed.map((f) => `${JSON.stringify(String(f.command ?? '').trim())}: ${String(f.message ?? '')}`);
      return {
        status: 'fail',
        detail: [refused.length > 0 ? `${refused.length} undo command(s) refused (${refused.join('; ')})` : '', incomplete ?? '']
          .filter((x) => x !== '')
          .join('; '),
      };
    }
    return { status: 'complete', detail: r.sent.length === 0 ? 'nothing had been applied' : `undone with ${r.sent.length} command(s)` };
  }
  if (device.node.protocol === 'netconf') {
    const capabilities = device.connection.capabilities ?? [];
    if (capabilities.some((c) => c.startsWith(CAP_CANDIDATE))) return { status: 'complete', detail: 'the candidate was discarded' };
    if (capabilities.some((c) => c.startsWith(CAP_ROLLBACK_ON_ERROR)))
      return { status: 'complete', detail: 'the device rolled the edit back (rollback-on-error)' };
    return {
      status: 'fail',
      detail: 'the device has neither :candidate nor :rollback-on-error, so running may keep the edits before the failing one',
    };
  }
  return { status: 'unknown', detail: 'the southbound gave no rollback report' };
}

/**
 * Sends the change `before` -> `after` to the device; resolves with what was sent. Throws the
 * southbound's refusal as a MountError, carrying its rollback report ({@link southboundRollback}).
 */
export async function pushConfiguration(
  device: MountedDevice,
  scope: PluginScope,
  before: DataRoot,
  after: DataRoot,
): Promise<readonly string[]> {
  const edits = changeEdits(before, after);
  if (edits.length === 0) return [];
  const hook = scope.hooks.device.write.get(device.node.protocol);
  if (hook === undefined || !hook.isUsed())
    throw MountError.of(501, 'operation-not-supported', `no southbound plugin writes '${device.node.protocol}' devices`);
  let result: Awaited<ReturnType<typeof hook.promise>>;
  try {
    result = await hook.promise({
      device: device.info,
      connection: device.connection,
      before: toJsonValue(before, { attributes: false }) as JsonObject,
      after: toJsonValue(after, { attributes: false }) as JsonObject,
      edits,
      ...(device.codec ? { codec: device.codec } : {}),
    });
  } catch (e) {
    const fault = deviceFault(device.node.nodeId, e);
    rollbackReports.set(fault, rollbackOf(device, e));
    throw fault;
  }
  if (result === undefined)
    throw MountError.of(501, 'operation-not-supported', `no southbound plugin accepted a write to '${device.node.nodeId}'`);
  return result.commands;
}

/** What {@link pushConfiguration} would send for `before` -> `after`, sending nothing. */
export async function dryRunConfiguration(device: MountedDevice, scope: PluginScope, before: DataRoot, after: DataRoot): Promise<string[]> {
  const edits = changeEdits(before, after);
  if (edits.length === 0) return [];
  if (device.node.protocol === 'netconf') {
    const result = await invokeDevice(device, scope, NETCONF_DRY_RUN, { edits: edits as unknown as JsonObject[] });
    const rpcs = result.output?.['rpcs'];
    return Array.isArray(rpcs) ? rpcs.map(String) : [];
  }
  const result = await invokeDevice(device, scope, CLI_DRY_RUN, {
    before: toJsonValue(before, { attributes: false }) as JsonObject,
    after: toJsonValue(after, { attributes: false }) as JsonObject,
  });
  const commands = result.output?.['commands'];
  return Array.isArray(commands) ? commands.map(String) : [];
}
