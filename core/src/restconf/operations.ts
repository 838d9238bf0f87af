/**
 * RPCs and actions of local modules: `GET /rests/operations` lists every RPC the schema has;
 * `POST /rests/operations/<module>:<rpc>` and `POST /rests/data/<path to an action>` check the input
 * against the schema first (400 with the path at fault), then ask `rpc.invoke` (keyed by
 * `module:name`): 200 with `output`, 204 when there is none, 501 when no plugin answers.
 *
 * For an action the hook context's `operation` is the action's instance path (which entry it runs on).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DataError, fault } from '../data/errors';
import { decodeJson } from '../data/json-decode';
import { encodeJson } from '../data/json-encode';
import { encodeXml } from '../data/xml-encode';
import type { ContainerNode, DataNode } from '../data/tree';
import { validateOperationInput } from '../data/validate';
import type { JsonObject } from '../hooks';
import type { PluginScope } from '../plugins/generation';
import type { OperationSchema } from '../yang/schema';
import { decodeBody, readBody } from './body';
import type { RestconfContext } from './context';
import { RestconfError, notImplemented } from './errors';
import { requestType, type MediaType } from './media';
import { sendEmpty, sendText } from './respond';
import type { ParsedPath } from './uri';

/** `GET /rests/operations`: every RPC of the schema (RFC 8040 §3.3.2). */
export function listOperations(ctx: RestconfContext, media: MediaType): string {
  const rpcs = ctx.schema.rpcs;
  if (media.encoding === 'json') {
    const members: Record<string, [null]> = {};
    for (const r of rpcs) members[`${r.module.name}:${r.name}`] = [null];
    return JSON.stringify({ 'ietf-restconf:operations': members });
  }
  let out = '<operations xmlns="urn:ietf:params:xml:ns:yang:ietf-restconf">';
  for (const r of rpcs) out += `<${r.name} xmlns="${r.module.namespace}"/>`;
  return `${out}</operations>`;
}

/** The decoded `input` of an operation (an empty input when the body is empty and nothing is mandatory). */
async function readInput(req: IncomingMessage, ctx: RestconfContext, op: OperationSchema, path: string): Promise<ContainerNode> {
  const text = await readBody(req, ctx.options.bodyLimit);
  let input: ContainerNode = { kind: 'container', schema: op.input, children: [] };
  if (text.trim() !== '') {
    const media = requestType(req.headers['content-type'], false);
    const decoded = decodeBody(text, media, ctx.schema, { parent: op, parentPath: path });
    const node = decoded.root.children[0];
    if (decoded.root.children.length !== 1 || node?.schema !== op.input) {
      throw new DataError(fault('invalid-value', path, `the body must hold '${op.module.name}:input' only`));
    }
    input = node as ContainerNode;
  }
  // The whole input subtree against the schema (mandatory nodes at any depth, choices, min/max-elements,
  // keys, unique, must/when with absolute paths reading the Config datastore), before any implementation
  // runs (docs/restconf-api.md#operations: bad input is checked first). Leafrefs are checked only on writes that ask.
  const inputPath = `/${op.module.name}:input`;
  const faults = validateOperationInput(input, ctx.datastores.config.current(), ctx.schema, { type: 'data' });
  if (faults.length > 0) {
    // A missing choice is `data-missing` in RFC 7950, which RESTCONF answers 404: here it is a fault of the body.
    throw new DataError(
      faults.map((f) => ({
        ...f,
        ...(f.tag === 'data-missing'
          ? { tag: f.appTag === 'missing-choice' ? ('missing-element' as const) : ('invalid-value' as const) }
          : {}),
        // must/min/max/unique faults are `operation-failed` (500) in RFC 7950; bad input is 400 here (docs/restconf-api.md#validation).
        ...(f.tag === 'operation-failed' ? { tag: 'invalid-value' as const } : {}),
        ...(f.path.startsWith(inputPath) ? { path: `${path}/input${f.path.slice(inputPath.length)}` } : {}),
      })),
    );
  }
  return input;
}

/** The RFC 7951 members of a container (what the hook receives as `input`). */
function membersOf(node: DataNode): JsonObject {
  const doc = JSON.parse(encodeJson(node)) as Record<string, JsonObject>;
  return Object.values(doc)[0] ?? {};
}

/**
 * Runs an RPC or action and writes the answer. `parsed.operation` is the operation; for an action
 * `parsed.steps` lead to it.
 */
export async function invokeOperation(
  ctx: RestconfContext,
  scope: PluginScope,
  req: IncomingMessage,
  res: ServerResponse,
  parsed: ParsedPath,
  media: MediaType,
): Promise<void> {
  const op = parsed.operation!;
  const name = `${op.module.name}:${op.name}`;
  const input = await readInput(req, ctx, op, parsed.path);
  const hook = scope.hooks.rpc.invoke.get(name);
  if (hook === undefined || !hook.isUsed()) throw notImplemented(name);
  const operation = op.kind === 'action' ? parsed.path : name;
  const result = await hook.promise({ operation, input: membersOf(input) });
  if (result === undefined) throw notImplemented(name);
  if (result.output === null || Object.keys(result.output).length === 0) {
    sendEmpty(res, 204);
    return;
  }
  let output: DataNode | undefined;
  try {
    output = decodeJson({ [`${op.module.name}:output`]: result.output }, ctx.schema, { parent: op, parentPath: parsed.path }).node;
  } catch (e) {
    ctx.log.error(`the output of ${name} does not match its schema: ${e instanceof Error ? e.message : String(e)}`);
    throw RestconfError.of('operation-failed', `the implementation of '${name}' answered an output that does not match the schema`, {
      type: 'application',
    });
  }
  sendText(res, 200, media.type, media.encoding === 'json' ? encodeJson(output!) : encodeXml(output!, ctx.schema));
}
