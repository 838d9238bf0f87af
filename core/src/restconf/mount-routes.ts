/**
 * RESTCONF under `yang-ext:mount` (docs/devices.md#mount-points): the HTTP half of mount points. The outer path must
 * name a node of a topology (`network-topology:network-topology/topology=<t>/node=<id>`); the rest is
 * parsed against that device's schema, and the mount layer (mount/) reads, writes and invokes on the
 * device. Read parameters apply to the device's answer with the same query module as local data;
 * writes accept what local writes accept except `insert`, `apply-tags` and YANG Patch (501).
 * Device RPCs resolve in the device schema, which for a device whose models are translation units also
 * holds its southbound's own modules (a CLI southbound's execute-and-read and dry-run).
 */
import type { IncomingMessage as Request, ServerResponse as Response } from 'node:http';
import type { PathStep } from '../data/edit';
import { DataError, fault } from '../data/errors';
import { decodeJson } from '../data/json-decode';
import { encodeJson, toJsonValue } from '../data/json-encode';
import { entryKeyValues, instancePath } from '../data/path';
import type { DataNode, DataRoot } from '../data/tree';
import { encodeXml } from '../data/xml-encode';
import type { JsonObject } from '../hooks';
import { invokeDevice, noModelsReason, readDevice, writeDevice, type MountedDevice } from '../mount';
import type { PluginScope } from '../plugins/generation';
import { dataParent, type OperationSchema, type SchemaContext, type SchemaNode } from '../yang/schema';
import { decodeBody, readBody } from './body';
import type { RestconfContext } from './context';
import { ALLOW, answerOptions, dataAllow } from './options';
import { dataMissing, methodNotAllowed, RestconfError, unknownResource, badQuery } from './errors';
import { resourceSegment } from './location';
import { requestType, responseType } from './media';
import { applyReadQuery, checkReadTarget, parseQuery } from './query';
import { findTarget } from './target';
import { bodyDecodeOptions, filterRead } from './filter-points';
import { queryText, rawQueryOf } from './data-query';
import { sendEmpty, sendText } from './respond';
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

/** The path as received, without the query (express keeps it in `originalUrl`; node's request has `url`). */
function pathText(req: Request): string {
  const url = (req as { originalUrl?: string }).originalUrl ?? req.url ?? '';
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/** `/rests/data/.../yang-ext:mount[/...]`: every method on a device's data, and its actions. */
export async function handleMountData(
  ctx: RestconfContext,
  scope: PluginScope,
  req: Request,
  res: Response,
  parsed: ParsedPath,
  keyDelimiter: string | null,
): Promise<void> {
  const { device, base } = mountedDevice(ctx, scope, parsed);
  const target = parseDevicePath(parsed.mount!.devicePath, device.schema, { keyDelimiter }, 'data', base);
  const method = req.method ?? '';
  if (method === 'OPTIONS') {
    answerOptions(res, dataAllow(target));
    return;
  }
  if (target.operation !== undefined) {
    if (method !== 'POST') throw methodNotAllowed(method, ALLOW.operation, 'actions are invoked with POST');
    if (queryText(req) !== '') throw badQuery(queryText(req).split('=')[0]!, 'operations take no query parameters');
    // The southbound is given the action's path relative to the mount point.
    await runOperation(req, res, scope, device, device.schema, target.operation, target.path, target.steps, ctx);
    return;
  }
  const options = parseQuery(queryText(req), method);
  switch (method) {
    case 'GET':
    case 'HEAD': {
      const content = options.content ?? ctx.options.defaultContent;
      const isEntry = target.steps.at(-1)?.keys !== undefined;
      checkReadTarget(options, target.target, device.schema, isEntry);
      // a CLI device no translation unit serves has nothing to read: say why rather than answer {}
      const noModels = noModelsReason(device);
      if (noModels !== undefined)
        throw RestconfError.of('data-missing', `no data at the target: ${noModels}`, { type: 'application', path: target.path });
      const query = rawQueryOf(req);
      const fields = query['fields'];
      const answer = await readDevice(device, scope, { steps: target.steps, content, ...(fields !== undefined ? { fields } : {}) });
      // Schema filters see the device's answer as they see local data, before the query parameters.
      const root = await filterRead(scope, answer, target.steps, {
        datastore: content === 'nonconfig' ? 'operational' : 'config',
        path: target.pathValue,
        query,
        schema: device.schema,
        device: device.node.nodeId,
      });
      const found = findTarget(root, target.steps);
      if (found === undefined) throw dataMissing(target.path);
      const result = await applyReadQuery(found, target.target, { ...options, content }, device.schema, root);
      if (result.kind === 'data' && result.data === undefined) throw dataMissing(target.path);
      const media = responseType(req.headers.accept);
      const body = result.kind === 'count' ? String(result.count) : encode(result.data!, device.schema, media.encoding);
      sendText(res, 200, result.kind === 'count' ? 'application/json' : media.type, body, method === 'HEAD');
      return;
    }
    case 'PUT':
    case 'PATCH':
    case 'POST':
    case 'DELETE':
      if (options.insert !== undefined) throw badQuery('insert', 'is not supported under a mount point');
      if (options.applyTags === true) throw badQuery('apply-tags', 'is not supported under a mount point');
      if (target.target !== undefined && !target.target.config) {
        throw methodNotAllowed(method, ALLOW.state, `${target.path} is operational (config false) data of the device, which is read-only`);
      }
      return writeMounted(ctx, scope, req, res, device, target, method, keyDelimiter);
    default:
      throw methodNotAllowed(method, ALLOW.config, `${method} is not a RESTCONF method`);
  }
}

function encode(data: DataNode | DataRoot, schema: SchemaContext, encoding: 'json' | 'xml'): string {
  if (encoding === 'json') {
    const text = encodeJson(data);
    return data.kind === 'root' ? `{"ietf-restconf:data":${text}}` : text;
  }
  return encodeXml(data, schema);
}

/** PUT, PATCH, POST and DELETE under a mount point. */
async function writeMounted(
  ctx: RestconfContext,
  scope: PluginScope,
  req: Request,
  res: Response,
  device: MountedDevice,
  target: ParsedPath,
  method: string,
  keyDelimiter: string | null,
): Promise<void> {
  if (method === 'DELETE') {
    await writeDevice(device, scope, { operation: 'delete', steps: target.steps });
    sendEmpty(res, 204);
    return;
  }
  const media = requestType(req.headers['content-type'], method === 'PATCH');
  if (media.yangPatch)
    throw RestconfError.of('operation-not-supported', 'YANG Patch is not supported under a mount point', { type: 'application' });
  const text = await readBody(req, ctx.options.bodyLimit);
  const steps = target.steps;
  const schema = target.target;
  const base = target.path.slice(0, target.path.indexOf(MOUNT_SEGMENT) + MOUNT_SEGMENT.length);
  const filters = bodyDecodeOptions(scope, {
    method: method as 'PUT' | 'POST' | 'PATCH',
    path: target.pathValue,
    query: rawQueryOf(req),
    schema: device.schema,
    device: device.node.nodeId,
  });
  if (method === 'POST') {
    const decoded = decodeBody(text, media, device.schema, {
      ...(schema !== undefined ? { parent: schema, parentPath: target.path } : { parentPath: base }),
      allowState: false,
      ...filters,
    });
    if (decoded.root.children.length !== 1)
      throw new DataError(
        fault(
          'invalid-value',
          target.path,
          `the body of a POST must hold exactly one child of the target, not ${decoded.root.children.length}`,
        ),
      );
    const { step, value } = childStep(decoded.root.children[0]!, target.path);
    await writeDevice(device, scope, { operation: 'create', steps: [...steps, step], value });
    res.setHeader('Location', `${pathText(req).replace(/\/+$/, '')}/${resourceSegment(step, schema?.module.name, keyDelimiter)}`);
    sendEmpty(res, 201);
    return;
  }
  const parent = schema === undefined ? undefined : (dataParent(schema) ?? steps.at(-2)?.schema);
  const parentPath = steps.length > 1 ? target.path.slice(0, target.path.lastIndexOf('/')) : base;
  const decoded = decodeBody(text, media, device.schema, {
    ...(parent !== undefined ? { parent } : {}),
    parentPath,
    allowState: false,
    ...filters,
  });
  const value = bodyIsTarget(decoded.root, schema, target.path);
  const outcome = await writeDevice(device, scope, { operation: method === 'PUT' ? 'replace' : 'merge', steps, value });
  sendEmpty(res, method === 'PATCH' ? 200 : outcome.existed ? 204 : 201);
}

function bodyIsTarget(root: DataRoot, target: SchemaNode | undefined, path: string): DataNode | DataRoot {
  if (target === undefined) return root;
  const only = root.children.length === 1 ? root.children[0]! : undefined;
  if (only === undefined || only.schema !== target) {
    const named = root.children.map((c) => `${c.schema.module.name}:${c.schema.name}`).join(', ') || 'nothing';
    throw new DataError(
      fault(
        'invalid-value',
        path,
        `the body must hold exactly the target node '${target.module.name}:${target.name}' (the last URI segment), not ${named}`,
      ),
    );
  }
  return only;
}

function childStep(node: DataNode, path: string): { step: PathStep; value: DataNode } {
  if (node.kind === 'list') {
    if (node.entries.length !== 1 || node.schema.keys.length === 0)
      throw new DataError(
        fault('invalid-value', path, `POST creates one entry of keyed list '${node.schema.name}', ${node.entries.length} given`),
      );
    const entry = node.entries[0]!;
    return { step: { schema: node.schema, keys: entryKeyValues(entry) }, value: entry };
  }
  if (node.kind === 'leaf-list' && node.values.length === 1) return { step: { schema: node.schema, value: node.values[0]! }, value: node };
  return { step: { schema: node.schema }, value: node };
}

/** `/rests/operations/.../yang-ext:mount/<module>:<rpc>`: a device RPC. */
export async function handleMountOperation(
  ctx: RestconfContext,
  scope: PluginScope,
  req: Request,
  res: Response,
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

/** Decodes the input against `schema`, runs the operation on the device, answers its output (204 without). */
async function runOperation(
  req: Request,
  res: Response,
  scope: PluginScope,
  device: MountedDevice,
  schema: SchemaContext,
  op: OperationSchema,
  path: string,
  name: string | readonly PathStep[],
  ctx: RestconfContext,
): Promise<void> {
  const operation = typeof name === 'string' ? name : instancePath(name);
  const text = await readBody(req, ctx.options.bodyLimit);
  let input: JsonObject = {};
  if (text.trim() !== '') {
    const decoded = decodeBody(text, requestType(req.headers['content-type'], false), schema, { parent: op, parentPath: path });
    const node = decoded.root.children[0];
    if (decoded.root.children.length !== 1 || node?.schema !== op.input)
      throw new DataError(fault('invalid-value', path, `the body must hold '${op.module.name}:input' only`));
    input = (Object.values(toJsonValue(node)) as JsonObject[])[0] ?? {};
  }
  const missing = op.input.children.filter(
    (c) => c.kind === 'leaf' && c.mandatory && input[c.name] === undefined && input[`${c.module.name}:${c.name}`] === undefined,
  );
  if (missing.length > 0)
    throw new DataError(missing.map((c) => fault('missing-element', `${path}/input/${c.name}`, `mandatory input '${c.name}' is missing`)));
  const result = await invokeDevice(device, scope, name, input);
  if (result.output === null || Object.keys(result.output).length === 0) {
    sendEmpty(res, 204);
    return;
  }
  let output: DataNode | undefined;
  try {
    output = decodeJson({ [`${op.module.name}:output`]: result.output }, schema, { parent: op, parentPath: path }).node;
  } catch (e) {
    ctx.log.error(
      `the output of ${operation} on ${device.node.nodeId} does not match its schema: ${e instanceof Error ? e.message : String(e)}`,
    );
    throw RestconfError.of(
      'operation-failed',
      `device '${device.node.nodeId}' answered '${op.name}' with an output that does not match its schema`,
      { type: 'application' },
    );
  }
  const media = responseType(req.headers.accept);
  sendText(res, 200, media.type, media.encoding === 'json' ? encodeJson(output!) : encodeXml(output!, schema));
}
