/**
 * The uniconfig layer's traffic with devices, all through the mount layer's mounted device and the
 * southbound hooks (never a plugin's code): reading a device's whole configuration, pushing a change
 * from one configuration (actual) to another (intended), and saying what such a push would send
 * without sending it (dry run).
 *
 * A push hands the southbound the two whole documents plus edits computed here: each top-level node
 * that differs is replaced whole, each that disappeared is removed. The CLI southbound plans commands
 * from the documents; the NETCONF one sends the edits as one edit-config. The dry run derives from the
 * same edits, so what it shows is what a commit sends (CLI: the southbound's own dry-run RPC; NETCONF:
 * the lock / edit-config / commit / unlock RPCs built here from the device schema, as XML).
 */
import { applyEdits, type Edit } from '../data/edit';
import { toJsonValue } from '../data/json-encode';
import type { DataNode, DataRoot } from '../data/tree';
import { encodeXml } from '../data/xml-encode';
import type { DeviceEdit, JsonObject } from '../hooks';
import { deviceFault, invokeDevice, MountError, readDevice, type MountedDevice } from '../mount';
import type { PluginScope } from '../plugins/generation';
import type { SchemaNode } from '../yang/schema';

const NETCONF_NS = 'urn:ietf:params:xml:ns:netconf:base:1.0';
const CAP_CANDIDATE = 'urn:ietf:params:netconf:capability:candidate:1.0';
const CAP_ROLLBACK_ON_ERROR = 'urn:ietf:params:netconf:capability:rollback-on-error:1.0';
/** The CLI southbound's dry-run RPC (module cli-unit-generic). */
const CLI_DRY_RUN = 'cli-unit-generic:dry-run';

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
    edits.push(node === undefined ? { operation: 'remove', target: [{ schema }] } : { operation: 'replace', target: [{ schema }], value: node });
  }
  return applyEdits(before, edits, device.schema);
}

/** The edits that turn `before` into `after`: changed top-level nodes replaced, vanished ones removed. */
export function topLevelEdits(before: DataRoot, after: DataRoot): { edits: DeviceEdit[]; changed: DataNode[] } {
  const edits: DeviceEdit[] = [];
  const changed: DataNode[] = [];
  for (const node of after.children) {
    const old = before.children.find((c) => c.schema === node.schema);
    if (old === node) continue;
    const value = toJsonValue(node, { attributes: false }) as JsonObject;
    if (old !== undefined && JSON.stringify(toJsonValue(old, { attributes: false })) === JSON.stringify(value)) continue;
    const member = `${node.schema.module.name}:${node.schema.name}`;
    edits.push({ operation: 'replace', path: `/${member}`, value });
    changed.push(node);
  }
  for (const node of before.children) {
    if (!after.children.some((c) => c.schema === node.schema)) edits.push({ operation: 'remove', path: `/${node.schema.module.name}:${node.schema.name}` });
  }
  return { edits, changed };
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
    const failed = Array.isArray(r.failed) ? r.failed as Array<{ command?: unknown; message?: unknown }> : [];
    const incomplete = typeof r.incomplete === 'string' && r.incomplete !== '' ? r.incomplete : undefined;
    if (failed.length > 0 || incomplete !== undefined) {
      const refused = failed.map((f) => `${JSON.stringify(String(f.command ?? '').trim())}: ${String(f.message ?? '')}`);
      return { status: 'fail', detail: [refused.length > 0 ? `${refused.length} undo command(s) refused (${refused.join('; ')})` : '', incomplete ?? ''].filter((x) => x !== '').join('; ') };
    }
    return { status: 'complete', detail: r.sent.length === 0 ? 'nothing had been applied' : `undone with ${r.sent.length} command(s)` };
  }
  if (device.node.protocol === 'netconf') {
    const capabilities = device.connection.capabilities ?? [];
    if (capabilities.some((c) => c.startsWith(CAP_CANDIDATE))) return { status: 'complete', detail: 'the candidate was discarded' };
    if (capabilities.some((c) => c.startsWith(CAP_ROLLBACK_ON_ERROR))) return { status: 'complete', detail: 'the device rolled the edit back (rollback-on-error)' };
    return { status: 'fail', detail: 'the device has neither :candidate nor :rollback-on-error, so running may keep the edits before the failing one' };
  }
  return { status: 'unknown', detail: 'the southbound gave no rollback report' };
}

/**
 * Sends the change `before` -> `after` to the device; resolves with what was sent. Throws the
 * southbound's refusal as a MountError, carrying its rollback report ({@link southboundRollback}).
 */
export async function pushConfiguration(device: MountedDevice, scope: PluginScope, before: DataRoot, after: DataRoot): Promise<readonly string[]> {
  const { edits } = topLevelEdits(before, after);
  if (edits.length === 0) return [];
  const hook = scope.hooks.device.write.get(device.node.protocol);
  if (hook === undefined || !hook.isUsed()) throw MountError.of(501, 'operation-not-supported', `no southbound plugin writes '${device.node.protocol}' devices`);
  let result;
  try {
    result = await hook.promise({
      device: device.info, connection: device.connection,
      before: toJsonValue(before, { attributes: false }) as JsonObject, after: toJsonValue(after, { attributes: false }) as JsonObject,
      edits, ...(device.codec ? { codec: device.codec } : {}),
    });
  } catch (e) {
    const fault = deviceFault(device.node.nodeId, e);
    rollbackReports.set(fault, rollbackOf(device, e));
    throw fault;
  }
  if (result === undefined) throw MountError.of(501, 'operation-not-supported', `no southbound plugin accepted a write to '${device.node.nodeId}'`);
  return result.commands;
}

/** What {@link pushConfiguration} would send for `before` -> `after`, sending nothing. */
export async function dryRunConfiguration(device: MountedDevice, scope: PluginScope, before: DataRoot, after: DataRoot): Promise<string[]> {
  const { edits, changed } = topLevelEdits(before, after);
  if (edits.length === 0) return [];
  if (device.node.protocol === 'netconf') return netconfRpcs(device, edits, changed);
  const result = await invokeDevice(device, scope, CLI_DRY_RUN, {
    before: toJsonValue(before, { attributes: false }) as JsonObject, after: toJsonValue(after, { attributes: false }) as JsonObject,
  });
  const commands = result.output?.['commands'];
  return Array.isArray(commands) ? commands.map(String) : [];
}

/** The NETCONF RPCs (XML) a write of `edits` sends: the same sequence as the NETCONF southbound's. */
function netconfRpcs(device: MountedDevice, edits: readonly DeviceEdit[], changed: readonly DataNode[]): string[] {
  const capabilities = device.connection.capabilities ?? [];
  const target = capabilities.some((c) => c.startsWith(CAP_CANDIDATE)) ? 'candidate' : 'running';
  const errorOption = capabilities.some((c) => c.startsWith(CAP_ROLLBACK_ON_ERROR)) ? '<error-option>rollback-on-error</error-option>' : '';
  let config = '';
  let next = 0;
  for (const edit of edits) {
    const operation = ` xmlns:nc="${NETCONF_NS}" nc:operation="${edit.operation}"`;
    if (edit.operation === 'replace') {
      config += withAttributes(encodeXml(changed[next++]!, device.schema, { attributes: false }), operation);
    } else {
      const [module, name] = edit.path.slice(1).split(':') as [string, string];
      const ns = device.schema.modules.get(module)?.namespace ?? '';
      config += `<${name} xmlns="${ns}"${operation}/>`;
    }
  }
  const rpcs = [`<lock><target><${target}/></target></lock>`, `<edit-config><target><${target}/></target>${errorOption}<config>${config}</config></edit-config>`];
  if (target === 'candidate') rpcs.push('<commit/>');
  rpcs.push(`<unlock><target><${target}/></target></unlock>`);
  return rpcs;
}

/** `xml` with `attributes` added to its root element's start tag. */
function withAttributes(xml: string, attributes: string): string {
  const end = xml.search(/\/?>/);
  return end < 0 ? xml : `${xml.slice(0, end)}${attributes}${xml.slice(end)}`;
}

