/**
 * RESTCONF under `yang-ext:mount` (docs/devices.md#mount-points): a mounted device as a datastore view
 * (data-view.ts), served by the same handler of each method as local data. The outer path must name a
 * node of a topology (`network-topology:network-topology/topology=<t>/node=<id>`); the rest is parsed
 * against that device's schema, and the mount layer (mount/) reads, writes and invokes on the device.
 * Read parameters apply to the device's answer with the same query module as local data (the read
 * parameters are checked against the target before the device is asked); writes accept what local
 * writes accept except `insert`, `apply-tags` and YANG Patch (501), refused before the body is read.
 * Device RPCs resolve in the device schema, which for a device whose models are translation units also
 * holds its southbound's own modules (a CLI southbound's execute-and-read and dry-run).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PathStep } from '../data/edit';
import { instancePath } from '../data/path';
import type { DataNode, DataRoot } from '../data/tree';
import { createHooks, type ReadContext } from '../hooks';
import { invokeDevice, noModelsReason, readDevice, writeDevice, type DeviceWriteRequest, type MountedDevice } from '../mount';
import type { PluginScope } from '../plugins/generation';
import { dataParent, type OperationSchema, type SchemaContext, type SchemaNode } from '../yang/schema';
import type { WriteRequest } from './commit';
import type { RestconfContext } from './context';
import type { DataCall, DataQuery } from './data-call';
import { queryText, rawQueryOf } from './data-query';
import type { DatastoreView, ReadContent } from './data-view';
import { badQuery, methodNotAllowed, RestconfError, unknownResource } from './errors';
import { filterRead } from './filter-points';
import { requestType, responseType, type MediaType } from './media';
import { callOperation, checkMandatoryLeaves } from './operation-call';
import { ALLOW, answerOptions } from './options';
import { applyReadQuery, checkReadTarget, parseQuery, type QueryOptions } from './query';
import { findTarget } from './target';
import { MOUNT_SEGMENT, parseDevicePath, type ParsedPath } from './uri';

/** The device a mounted path reaches, and where its path starts (for messages). */
function mountedDevice(ctx: RestconfContext, scope: PluginScope, parsed: ParsedPath): { device: MountedDevice; base: string } {
  const outer = parsed.mount!.outer;
  const [top, topology, node] = outer;
  const shaped =
    outer.length === 3 &&
    top!.schema.module.name === 'network-topology' &&
    top!.schema.name === 'network-topology' &&
    topology!.schema.name === 'topology' &&
    topology!.keys !== undefined &&
    node!.schema.name === 'node' &&
    node!.keys !== undefined;
  if (!shaped) {
    throw unknownResource(
      `${MOUNT_SEGMENT} is served under network-topology:network-topology/topology=<topology>/node=<node> only, not under ${parsed.mount!.outerPath}`,
      MOUNT_SEGMENT,
    );
  }
  if (ctx.mount === undefined) throw unknownResource('no device can be mounted: this service has no mount layer', MOUNT_SEGMENT);
  const device = ctx.mount.device(scope, String(topology!.keys![0]), String(node!.keys![0]));
  return { device, base: `${parsed.mount!.outerPath}/${MOUNT_SEGMENT}` };
}

/** Query parameters refused under a mount point (`point` goes only with `insert`); the OpenAPI documents leave them out. */
export const REFUSED_UNDER_MOUNT: ReadonlySet<string> = new Set(['insert', 'point', 'apply-tags']);

/** Write methods, refused before anything is read when they ask what a device cannot do. */
const WRITES: ReadonlySet<string> = new Set(['PUT', 'PATCH', 'POST', 'DELETE']);

/** Hooks the mount view hands the handlers: without `data.beforeRead`, which runs before local reads only. */
function deviceScope(scope: PluginScope): PluginScope {
  if (!scope.hooks.data.beforeRead.isUsed()) return scope;
  const hooks = { ...scope.hooks, data: { ...scope.hooks.data, beforeRead: createHooks().data.beforeRead } };
  return { ...scope, hooks: hooks as PluginScope['hooks'] };
}

/** The datastore view of one mounted device, for one request (see the top of this file). */
export class MountView implements DatastoreView {
  readonly configOnly = false;
  readonly device: string;
  /** The device's answer to the last read, after the read filters: what absolute jsonb-filter paths read. */
  private readRoot: DataRoot | undefined;
  /** The request's query parameters, read when its call is built. */
  private options: QueryOptions = {};

  private constructor(
    private readonly ctx: RestconfContext,
    private readonly mounted: MountedDevice,
    /** The path up to and including `yang-ext:mount`, for messages. */
    private readonly base: string,
  ) {
    this.device = mounted.node.nodeId;
  }

  /** The view of the device a mounted path (parsed against the local schema) reaches; 404 when none. */
  static of(ctx: RestconfContext, scope: PluginScope, parsed: ParsedPath, keyDelimiter: string | null): MountView {
    const { device, base } = mountedDevice(ctx, scope, parsed);
    const viewCtx: RestconfContext = {
      ...ctx,
      schema: device.schema,
      options: keyDelimiter === ctx.options.keyDelimiter ? ctx.options : { ...ctx.options, keyDelimiter },
    };
    return new MountView(viewCtx, device, base);
  }

  resolve(devicePath: string, keyDelimiter: string | null): ParsedPath {
    return parseDevicePath(devicePath, this.mounted.schema, { keyDelimiter }, 'data', this.base);
  }

  call(scope: PluginScope, req: IncomingMessage, res: ServerResponse, target: ParsedPath, raw: string): DataCall {
    const method = req.method ?? '';
    const options = parseQuery(queryText(req), method);
    this.options = options;
    if (WRITES.has(method)) {
      if (options.insert !== undefined) throw badQuery('insert', 'is not supported under a mount point');
      if (options.applyTags === true) throw badQuery('apply-tags', 'is not supported under a mount point');
      if (target.target !== undefined && !target.target.config) {
        throw methodNotAllowed(method, ALLOW.state, `${target.path} is operational (config false) data of the device, which is read-only`);
      }
    }
    const schema = this.mounted.schema;
    const query: DataQuery = {
      content: options.content,
      insertInto: () => undefined,
      checkReferences: false,
      applyTags: false,
      hideAttributes: false,
      applyRead: async (found, targetSchema) => {
        const content = options.content ?? this.ctx.options.defaultContent;
        const result = await applyReadQuery(found, targetSchema, { ...options, content }, schema, this.readRoot);
        return result.kind === 'count' ? result.count : result.data;
      },
    };
    let negotiated: MediaType | undefined;
    return {
      view: this,
      ctx: this.ctx,
      scope: deviceScope(scope),
      req,
      res,
      target,
      rawPath: raw,
      query,
      // Negotiated when the answer is written: a device read's faults win over a bad Accept here.
      get responseType(): MediaType {
        negotiated ??= responseType(req.headers.accept);
        return negotiated;
      },
      rawQuery: rawQueryOf(req),
    };
  }

  isYangPatch(req: IncomingMessage): boolean {
    if (requestType(req.headers['content-type'], true).yangPatch)
      throw RestconfError.of('operation-not-supported', 'YANG Patch is not supported under a mount point', { type: 'application' });
    return false;
  }

  async invokeAction(scope: PluginScope, req: IncomingMessage, res: ServerResponse, target: ParsedPath): Promise<void> {
    const method = req.method ?? '';
    if (method !== 'POST') throw methodNotAllowed(method, ALLOW.operation, 'actions are invoked with POST');
    if (queryText(req) !== '') throw badQuery(queryText(req).split('=')[0]!, 'operations take no query parameters');
    // The southbound is given the action's path relative to the mount point.
    await runOperation(req, res, scope, this.mounted, this.mounted.schema, target.operation!, target.path, target.steps, this.ctx);
  }

  async read(
    call: DataCall,
    readCtx: ReadContext,
    content: ReadContent,
    steps: readonly PathStep[],
  ): Promise<DataNode | DataRoot | undefined> {
    const device = this.mounted;
    checkReadTarget(this.options, call.target.target, device.schema, steps.at(-1)?.keys !== undefined);
    // a CLI device no translation unit serves has nothing to read: say why rather than answer {}
    const noModels = noModelsReason(device);
    if (noModels !== undefined)
      throw RestconfError.of('data-missing', `no data at the target: ${noModels}`, { type: 'application', path: call.target.path });
    const fields = call.rawQuery['fields'];
    const answer = await readDevice(device, call.scope, { steps, content, ...(fields !== undefined ? { fields } : {}) });
    // Schema filters see the device's answer as they see local data, before the query parameters.
    this.readRoot = await filterRead(call.scope, answer, steps, { ...readCtx, device: device.node.nodeId });
    return findTarget(this.readRoot, steps);
  }

  async commit(call: DataCall, write: WriteRequest): Promise<{ readonly existed: boolean }> {
    const [edit] = write.edits;
    if (write.edits.length !== 1 || edit === undefined || !DEVICE_OPERATIONS.has(edit.operation))
      throw new Error(`a mount point takes one create, merge, replace or delete, not ${write.edits.map((e) => e.operation).join(', ')}`);
    return writeDevice(this.mounted, call.scope, {
      operation: edit.operation as DeviceWriteRequest['operation'],
      steps: edit.target,
      ...(edit.value !== undefined ? { value: edit.value } : {}),
    });
  }

  bodyScope(call: DataCall, scope: 'target' | 'child'): { parent?: SchemaNode; parentPath?: string } {
    const { steps, path, target } = call.target;
    if (scope === 'child') return target !== undefined ? { parent: target, parentPath: path } : { parentPath: this.base };
    const parent = target === undefined ? undefined : (dataParent(target) ?? steps.at(-2)?.schema);
    const parentPath = steps.length > 1 ? path.slice(0, path.lastIndexOf('/')) : this.base;
    return parent !== undefined ? { parent, parentPath } : { parentPath };
  }
}

/** The edits a device write takes. */
const DEVICE_OPERATIONS: ReadonlySet<string> = new Set(['create', 'merge', 'replace', 'delete']);

/** `/rests/operations/.../yang-ext:mount/<module>:<rpc>`: a device RPC. */
export async function handleMountOperation(
  ctx: RestconfContext,
  scope: PluginScope,
  req: IncomingMessage,
  res: ServerResponse,
  parsed: ParsedPath,
  keyDelimiter: string | null,
): Promise<void> {
  const { device, base } = mountedDevice(ctx, scope, parsed);
  const schema = device.schema;
  const target = parseDevicePath(parsed.mount!.devicePath, schema, { keyDelimiter }, 'operations', base);
  const method = req.method ?? '';
  if (method === 'OPTIONS') {
    answerOptions(res, ALLOW.operation);
    return;
  }
  if (target.operation === undefined) throw unknownResource(`${base}: name an operation of the device (<module>:<rpc>)`, MOUNT_SEGMENT);
  if (method !== 'POST') throw methodNotAllowed(method, ALLOW.operation, 'operations are invoked with POST');
  const op = target.operation;
  await runOperation(req, res, scope, device, schema, op, target.path, `${op.module.name}:${op.name}`, ctx);
}

/** Runs the operation on the device: its input and output in the device's schema. */
async function runOperation(
  req: IncomingMessage,
  res: ServerResponse,
  scope: PluginScope,
  device: MountedDevice,
  schema: SchemaContext,
  op: OperationSchema,
  path: string,
  name: string | readonly PathStep[],
  ctx: RestconfContext,
): Promise<void> {
  const operation = typeof name === 'string' ? name : instancePath(name);
  await callOperation(req, res, {
    op,
    schema,
    path,
    bodyLimit: ctx.options.bodyLimit,
    checkInput: (input) => checkMandatoryLeaves(input, op.input.children, path),
    invoke: async (input) => {
      const result = await invokeDevice(device, scope, name, input);
      return result.output === null || Object.keys(result.output).length === 0 ? null : result.output;
    },
    output: {
      checked: (e) => {
        ctx.log.error(
          `the output of ${operation} on ${device.node.nodeId} does not match its schema: ${e instanceof Error ? e.message : String(e)}`,
        );
        return RestconfError.of(
          'operation-failed',
          `device '${device.node.nodeId}' answered '${op.name}' with an output that does not match its schema`,
          { type: 'application' },
        );
      },
    },
  });
}
