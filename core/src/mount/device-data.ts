/**
 * Reads, writes and operations under a mount point, in data-tree terms (the RESTCONF layer parses the
 * URI and body against the device schema and encodes the answer; this file talks to the southbound):
 * - read: `device.read` answers RFC 7951 JSON, either from the top (`{"mod:top": ...}`, NETCONF) or the
 *   target alone (`{"mod:target": ...}`, the SDK's CLI engine); both become one DataRoot of the device
 *   schema in which the target sits at its path.
 * - write: a schema-driven southbound (NETCONF) gets the request's own edit and nothing read first (the
 *   device checks create/delete; the southbound reports whether a PUT's target existed); for a CLI
 *   device the configuration under the touched top-level node is read, the edit applied to it (the same
 *   edit code as local data, so create/delete check existence the same way), and the before/after
 *   documents plus the edit go to `device.write`.
 * - invoke: `device.invoke` with the operation's input, its output checked later against the schema.
 * Southbound errors come back as MountErrors (errors.ts); a device answer that does not fit the device
 * schema is a 502 naming the fault.
 */
import { applyEdits, type PathStep } from '../data/edit';
import { DataError } from '../data/errors';
import { decodeJson } from '../data/json-decode';
import { findEntry } from '../data/list';
import { toJsonValue } from '../data/json-encode';
import { instancePath, instancePathOf } from '../data/path';
import type { DataNode, DataRoot, LeafNode } from '../data/tree';
import type { ContentFilter, DeviceEdit, DeviceWriteResult, JsonObject, OperationResult } from '../hooks';
import type { PluginScope } from '../plugins/generation';
import { renderInstancePath } from '../yang/instance-path';
import { dataParent, type LeafSchema, type SchemaContext } from '../yang/schema';
import { decodedAnswer } from './codec';
import { timedCall } from './device-calls';
import { deviceFault, MountError, notServed } from './errors';
import type { MountedDevice } from './node';

/** What a GET under a mount point asks for. */
export interface DeviceReadRequest {
  /** Steps of the target in the device schema (empty: the whole device). */
  readonly steps: readonly PathStep[];
  readonly content: ContentFilter;
  /** The `fields` parameter as received, for southbounds that filter at the device. */
  readonly fields?: string;
}

/** Reads the device at the target; the answer as a DataRoot of the device schema (empty when nothing). */
export async function readDevice(device: MountedDevice, scope: PluginScope, request: DeviceReadRequest): Promise<DataRoot> {
  const hook = scope.hooks.device.read.get(device.node.protocol);
  if (hook === undefined || !hook.isUsed()) throw notServed(`no southbound plugin reads '${device.node.protocol}' devices`);
  const path = instancePathOf(request.steps);
  let json: JsonObject | undefined;
  try {
    json = await timedCall(device, 'read', () =>
      hook.promise({
        device: device.info,
        connection: device.connection,
        path,
        content: request.content,
        ...(request.fields !== undefined ? { fields: request.fields } : {}),
        ...(device.codec ? { codec: device.codec } : {}),
      }),
    );
  } catch (e) {
    // the device codec refusing the device's reply is the device's fault, not the client's
    throw e instanceof DataError ? unfitAnswer(device, e) : deviceFault(device.node.nodeId, e);
  }
  return deviceRoot(device, json ?? {}, request.steps);
}

/** The 502 of a device answer that does not fit the device's schema (or is not well-formed). */
function unfitAnswer(device: MountedDevice, e: DataError): MountError {
  const f = e.faults[0];
  return MountError.of(
    502,
    'operation-failed',
    `device '${device.node.nodeId}' answered data that does not fit its schema: ${f ? `${f.path}: ${f.message}` : e.message}`,
  );
}

/**
 * Why the mount point of a device whose models are translation units holds none (no unit serves its
 * device-type and version), for the 404 of a read there; undefined when units serve it or its models are its own.
 */
export function noModelsReason(device: MountedDevice): string | undefined {
  if (device.node.kind.models !== 'translation-units' || device.info.units.length > 0) return undefined;
  const what =
    device.info.deviceType === undefined
      ? 'no device-type was given'
      : (device.info.unitsMissingReason ?? `no translation unit serves device-type ${device.info.deviceType}`);
  return `device '${device.node.nodeId}' has no translated models: ${what}`;
}

/** A southbound's JSON answer as a root of the device schema, whichever of the two forms it came in. */
export function deviceRoot(device: MountedDevice, json: JsonObject, steps: readonly PathStep[]): DataRoot {
  const members = Object.keys(json);
  if (members.length === 0) return { kind: 'root', children: [] };
  const decoded = decodedAnswer(json);
  if (decoded !== undefined) return decoded;
  const schema = device.schema;
  const target = steps.at(-1)?.schema;
  try {
    if (
      target !== undefined &&
      steps.length > 1 &&
      members.length === 1 &&
      members[0] === `${target.module.name}:${target.name}` &&
      !isTopLevel(schema, members[0]!)
    ) {
      const parentSteps = steps.slice(0, -1);
      const parent = dataParent(target) ?? parentSteps.at(-1)!.schema;
      const decoded = decodeJson(json, schema, { parent, parentPath: instancePath(parentSteps) });
      if (decoded.node === undefined) return { kind: 'root', children: [] };
      return { kind: 'root', children: [wrapInAncestors(parentSteps, decoded.node)] };
    }
    return decodeJson(json, schema, {}).root;
  } catch (e) {
    throw e instanceof DataError ? unfitAnswer(device, e) : e;
  }
}

function isTopLevel(schema: SchemaContext, member: string): boolean {
  const colon = member.indexOf(':');
  const module = member.slice(0, colon);
  const name = member.slice(colon + 1);
  return schema.data.some((n) => n.name === name && n.module.name === module);
}

/** `node` placed under the containers and list entries the steps name, up to the top. */
function wrapInAncestors(steps: readonly PathStep[], node: DataNode): DataNode {
  let inner = node;
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i]!;
    const schema = step.schema;
    if (schema.kind === 'list' && step.keys !== undefined) {
      const keyLeaves: LeafNode[] = schema.keys
        .map((k, n): LeafNode => ({ kind: 'leaf', schema: k as LeafSchema, value: step.keys![n]! }))
        .filter((k) => k.schema !== inner.schema);
      inner = { kind: 'list', schema, entries: [{ kind: 'entry', schema, children: [...keyLeaves, inner] }] };
    } else if (schema.kind === 'container') {
      inner = { kind: 'container', schema, children: [inner] };
    } else {
      throw MountError.of(500, 'operation-failed', `cannot place device data under the ${schema.kind} '${schema.name}'`);
    }
  }
  return inner;
}

/** A write under a mount point, as the RESTCONF method states it. */
export interface DeviceWriteRequest {
  readonly operation: 'create' | 'merge' | 'replace' | 'delete';
  /** Steps of the target in the device schema. */
  readonly steps: readonly PathStep[];
  /** The target's new content (as for a local edit); absent for delete. */
  readonly value?: DataNode | DataRoot;
}

/** What a mount-point write did. */
export interface DeviceWriteOutcome {
  /** Whether the target held data before (PUT answers 204 then, 201 otherwise). */
  readonly existed: boolean;
  /** What the southbound sent (commands, or edit-config operations). */
  readonly commands: readonly string[];
}

/**
 * Applies a write to the device. A schema-driven southbound (it has a codec: NETCONF) is given the
 * request's edit alone: the device refuses a create of existing data or a delete of missing data
 * itself, and for a PUT the southbound reports whether the target existed (its probe travels with the
 * edit, so no round trip is spent on a read first; the core finds the target in what it returns).
 * Otherwise (a CLI unit computes commands from before/after of the whole top-level node) the core reads the device's configuration under the
 * target's top-level node, applies the edit (DataError 409/404/400 as for local data), and sends
 * before/after and the edit to `device.write`.
 */
export async function writeDevice(device: MountedDevice, scope: PluginScope, request: DeviceWriteRequest): Promise<DeviceWriteOutcome> {
  const hook = scope.hooks.device.write.get(device.node.protocol);
  if (hook === undefined || !hook.isUsed()) throw notServed(`no southbound plugin writes '${device.node.protocol}' devices`);
  const path = instancePathOf(request.steps);
  const edit: DeviceEdit = {
    operation: request.operation,
    path,
    ...(request.value ? { value: toJsonValue(request.value) as JsonObject } : {}),
  };
  if (device.codec !== undefined) {
    const result = await runWrite(device, () =>
      hook.promise({
        device: device.info,
        connection: device.connection,
        edits: [edit],
        probeTarget: request.operation === 'replace',
        codec: device.codec,
      }),
    );
    return { existed: probedExistence(device, result.before, request.steps), commands: result.commands };
  }
  const before = await readDevice(device, scope, { steps: request.steps.slice(0, 1), content: 'config' });
  const existed = targetExists(before, request.steps);
  const after = applyEdits(
    before,
    [{ operation: request.operation, target: request.steps, ...(request.value ? { value: request.value } : {}) }],
    device.schema,
  );
  const result = await runWrite(device, () =>
    hook.promise({
      device: device.info,
      connection: device.connection,
      before: toJsonValue(before) as JsonObject,
      after: toJsonValue(after) as JsonObject,
      edits: [edit],
    }),
  );
  return { existed, commands: result.commands };
}

/**
 * Whether a southbound's probe of the target found it. The write is done by now, so a probe that is
 * missing or does not fit the schema cannot fail the request: the PUT is answered as a replacement (204).
 */
function probedExistence(device: MountedDevice, before: JsonObject | undefined, steps: readonly PathStep[]): boolean {
  if (before === undefined) return true;
  try {
    return targetExists(deviceRoot(device, before, steps), steps);
  } catch {
    return true;
  }
}

/** Runs a write hook: its refusal as a device fault, no answer as 501. */
async function runWrite(device: MountedDevice, write: () => Promise<DeviceWriteResult | undefined>): Promise<DeviceWriteResult> {
  let result: DeviceWriteResult | undefined;
  try {
    result = await timedCall(device, 'write', write);
  } catch (e) {
    throw deviceFault(device.node.nodeId, e);
  }
  if (result === undefined) throw notServed(`no southbound plugin accepted a write to '${device.node.nodeId}'`);
  return result;
}

function targetExists(root: DataRoot, steps: readonly PathStep[]): boolean {
  let here: DataNode | DataRoot = root;
  for (const step of steps) {
    if (here.kind !== 'root' && here.kind !== 'container' && here.kind !== 'entry') return false;
    const child: DataNode | undefined = here.children.find((c) => c.schema === step.schema);
    if (child === undefined) return false;
    if (child.kind === 'list' && step.keys !== undefined) {
      const entry = findEntry(child, step.keys);
      if (entry === undefined) return false;
      here = entry;
    } else {
      here = child;
    }
  }
  return true;
}

/**
 * Runs an RPC (`module:rpc`) or an action on the device. An action is named by its steps, handed to
 * the southbound as its instance path (and as that path's text in `operation`).
 */
export async function invokeDevice(
  device: MountedDevice,
  scope: PluginScope,
  name: string | readonly PathStep[],
  input: JsonObject,
): Promise<OperationResult> {
  const action = typeof name === 'string' ? undefined : instancePathOf(name);
  const operation = action === undefined ? (name as string) : renderInstancePath(action);
  const hook = scope.hooks.device.invoke.get(device.node.protocol);
  if (hook === undefined || !hook.isUsed()) throw notServed(`no southbound plugin runs operations on '${device.node.protocol}' devices`);
  try {
    const result = await timedCall(device, 'invoke', () =>
      hook.promise({
        device: device.info,
        connection: device.connection,
        operation,
        ...(action !== undefined ? { action } : {}),
        input,
        ...(device.codec ? { codec: device.codec } : {}),
      }),
    );
    if (result === undefined) throw notServed(`no southbound plugin implements '${operation}' on '${device.node.nodeId}'`);
    return result;
  } catch (e) {
    throw deviceFault(device.node.nodeId, e);
  }
}
