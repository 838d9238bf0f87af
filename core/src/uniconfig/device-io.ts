/**
 * The uniconfig layer's traffic with devices, all through the mount layer's mounted device and the
 * southbound hooks (never a plugin's code): reading a device's whole configuration, pushing a change
 * from one configuration (actual) to another (intended), and saying what such a push would send
 * without sending it (dry run). A commit's push asks the southbound to read what it changed back in the
 * same exchange as the write, so a device costs the write's round trips and no more.
 *
 * A push hands the southbound the two whole documents plus the per-change edits of device-edits.ts
 * (each change at its own path, so nothing else on the device is touched); a southbound plans from
 * whichever it uses. The dry run asks the same southbound what it would send for the same input, through
 * the device operation its descriptor names (SouthboundDescriptor.dryRun), so what it shows is what a
 * commit sends. When a push fails, the southbound's descriptor says what the device holds now
 * (`rollbackOf`). The core builds no device commands or XML.
 */
import { applyEdits, type Edit } from '../data/edit';
import { toJsonValue } from '../data/json-encode';
import type { DataRoot } from '../data/tree';
import type { DeviceConnection, DeviceEdit, JsonObject, SouthboundDescriptor, WriteRollback } from '../hooks';
import { deviceFault, deviceRoot, invokeDevice, MountError, readDevice, southboundsOf, timedCall, type MountedDevice } from '../mount';
import { instancePathOf } from '../data/path';
import type { PluginScope } from '../plugins/generation';
import { renderInstancePath } from '../yang/instance-path';
import type { SchemaNode } from '../yang/schema';
import { changeEdits } from './device-edits';

/** The device's whole configuration now, as a tree of its schema. */
export async function readConfiguration(device: MountedDevice, scope: PluginScope): Promise<DataRoot> {
  return readDevice(device, scope, { steps: [], content: 'config' });
}

/**
 * The top-level schema nodes a push of `before` -> `after` changes (the rest cannot have moved), or
 * undefined when it changes more than two: the whole configuration is then read back at once.
 */
function changedTopLevel(before: DataRoot, after: DataRoot): SchemaNode[] | undefined {
  const touched = new Set<SchemaNode>();
  for (const node of after.children) if (!before.children.includes(node)) touched.add(node.schema);
  for (const node of before.children) if (!after.children.some((c) => c.schema === node.schema)) touched.add(node.schema);
  return touched.size > 2 ? undefined : [...touched];
}

/** `before` with the top-level nodes `touched` taken from `read` (removed when `read` lacks them). */
function withReadBack(device: MountedDevice, before: DataRoot, touched: readonly SchemaNode[], read: DataRoot): DataRoot {
  const edits = touched.map((schema): Edit => {
    const node = read.children.find((c) => c.schema === schema);
    return node === undefined ? { operation: 'remove', target: [{ schema }] } : { operation: 'replace', target: [{ schema }], value: node };
  });
  return applyEdits(before, edits, device.schema);
}

/**
 * The device's configuration after a push of `before` -> `after`, reading back only the top-level
 * nodes the push changed ({@link changedTopLevel}) and taking the others from `before`.
 */
export async function readChanged(device: MountedDevice, scope: PluginScope, before: DataRoot, after: DataRoot): Promise<DataRoot> {
  const touched = changedTopLevel(before, after);
  if (touched === undefined) return readConfiguration(device, scope);
  let read: DataRoot = { kind: 'root', children: [] };
  for (const schema of touched) {
    const node = (await readDevice(device, scope, { steps: [{ schema }], content: 'config' })).children.find((c) => c.schema === schema);
    if (node !== undefined) read = { kind: 'root', children: [...read.children, node] };
  }
  return withReadBack(device, before, touched, read);
}

/** How a southbound undid its own partial write after refusing one (a commit's `rollback-status`). */
export type SouthboundRollback = WriteRollback;

const rollbackReports = new WeakMap<object, SouthboundRollback>();

/** The southbound's rollback report carried by a fault {@link pushConfiguration} threw; undefined for other faults. */
export function southboundRollback(fault: unknown): SouthboundRollback | undefined {
  return typeof fault === 'object' && fault !== null ? rollbackReports.get(fault) : undefined;
}

const NO_REPORT: SouthboundRollback = { status: 'unknown', detail: 'the southbound gave no rollback report' };

/** What the device holds after its southbound's write threw `e`, as the southbound's descriptor says. */
function rollbackOf(southbound: SouthboundDescriptor | undefined, e: unknown, connection: DeviceConnection): SouthboundRollback {
  if (southbound === undefined) return NO_REPORT;
  try {
    return southbound.rollbackOf(e, connection);
  } catch {
    return NO_REPORT;
  }
}

/** What a push sent and, when it was asked to read back and its southbound did so in the same exchange, what the device holds after it. */
export interface PushResult {
  readonly sent: readonly string[];
  readonly now?: DataRoot;
}

/**
 * Sends the change `before` -> `after` to the device; resolves with what was sent. Throws the
 * southbound's refusal as a MountError, carrying its rollback report ({@link southboundRollback}).
 * With `readBack` the southbound is asked to read the changed top-level nodes back within the write's
 * own exchange (a NETCONF device: get-config under the write's lock, sent with the commit), which saves
 * the round trip of a {@link readChanged} after it; `now` is absent when it did not.
 */
export async function pushConfiguration(
  device: MountedDevice,
  scope: PluginScope,
  before: DataRoot,
  after: DataRoot,
  options: { readonly readBack?: boolean } = {},
): Promise<PushResult> {
  const edits = changeEdits(before, after);
  if (edits.length === 0) return { sent: [] };
  const hook = scope.hooks.device.write.get(device.node.protocol);
  if (hook === undefined || !hook.isUsed())
    throw MountError.of(501, 'operation-not-supported', `no southbound plugin writes '${device.node.protocol}' devices`);
  const touched = options.readBack === true ? changedTopLevel(before, after) : undefined;
  const readBack =
    options.readBack !== true ? undefined : touched === undefined ? [[]] : touched.map((schema) => instancePathOf([{ schema }]));
  let result: Awaited<ReturnType<typeof hook.promise>>;
  try {
    result = await timedCall(device, 'write', () =>
      hook.promise({
        device: device.info,
        connection: device.connection,
        before: toJsonValue(before, { attributes: false }) as JsonObject,
        after: toJsonValue(after, { attributes: false }) as JsonObject,
        edits,
        ...(readBack !== undefined ? { readBack } : {}),
        ...(device.codec ? { codec: device.codec } : {}),
      }),
    );
  } catch (e) {
    const fault = deviceFault(device.node.nodeId, e);
    rollbackReports.set(fault, rollbackOf(southboundsOf(scope.hooks).protocol(device.node.protocol), e, device.connection));
    throw fault;
  }
  if (result === undefined)
    throw MountError.of(501, 'operation-not-supported', `no southbound plugin accepted a write to '${device.node.nodeId}'`);
  if (readBack === undefined || result.after === undefined) return { sent: result.commands };
  let read: DataRoot;
  try {
    read = deviceRoot(device, result.after, []);
  } catch {
    return { sent: result.commands }; // the change is made; the caller's own read says what is wrong with the answer
  }
  return { sent: result.commands, now: touched === undefined ? read : withReadBack(device, before, touched, read) };
}

/** An edit as the dry run's JSON input carries it: the path as its RFC 7951 text. */
function editJson(edit: DeviceEdit): JsonObject {
  return { operation: edit.operation, path: renderInstancePath(edit.path), ...(edit.value !== undefined ? { value: edit.value } : {}) };
}

/** What {@link pushConfiguration} would send for `before` -> `after`, sending nothing. */
export async function dryRunConfiguration(device: MountedDevice, scope: PluginScope, before: DataRoot, after: DataRoot): Promise<string[]> {
  const edits = changeEdits(before, after);
  if (edits.length === 0) return [];
  const dryRun = southboundsOf(scope.hooks).protocol(device.node.protocol)?.dryRun;
  if (dryRun === undefined)
    throw MountError.of(501, 'operation-not-supported', `no southbound plugin previews writes to '${device.node.protocol}' devices`);
  const input: JsonObject =
    dryRun.input === 'edits'
      ? { edits: edits.map(editJson) }
      : {
          before: toJsonValue(before, { attributes: false }) as JsonObject,
          after: toJsonValue(after, { attributes: false }) as JsonObject,
        };
  const result = await invokeDevice(device, scope, dryRun.operation, input);
  const listed = result.output?.[dryRun.output];
  return Array.isArray(listed) ? listed.map(String) : [];
}
