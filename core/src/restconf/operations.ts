/**
 * RPCs and actions of local modules: `GET /rests/operations` lists every RPC the schema has;
 * `POST /rests/operations/<module>:<rpc>` and `POST /rests/data/<path to an action>` check the input
 * against the schema first (400 with the path at fault), then ask `rpc.invoke` (keyed by
 * `module:name`): 200 with `output`, 204 when there is none, 501 when no plugin answers.
 *
 * For an action the hook context's `operation` is the action's instance path (which entry it runs on).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DataError } from '../data/errors';
import type { ContainerNode } from '../data/tree';
import { validateOperationInput } from '../data/validate';
import type { PluginScope } from '../plugins/generation';
import type { OperationSchema } from '../yang/schema';
import type { RestconfContext } from './context';
import { RestconfError, notImplemented } from './errors';
import type { MediaType } from './media';
import { callOperation } from './operation-call';
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

/**
 * Checks the whole input subtree against the schema (mandatory nodes at any depth, choices,
 * min/max-elements, keys, unique, must/when with absolute paths reading the Config datastore), before any
 * implementation runs (docs/restconf-api.md#operations: bad input is checked first). Leafrefs are checked
 * only on writes that ask.
 */
function checkInput(ctx: RestconfContext, op: OperationSchema, path: string, input: ContainerNode): void {
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
  await callOperation(req, res, {
    op,
    schema: ctx.schema,
    path: parsed.path,
    bodyLimit: ctx.options.bodyLimit,
    media,
    checkInput: (input) => checkInput(ctx, op, parsed.path, input),
    invoke: async (input) => {
      const hook = scope.hooks.rpc.invoke.get(name);
      if (hook === undefined || !hook.isUsed()) throw notImplemented(name);
      const operation = op.kind === 'action' ? parsed.path : name;
      const result = await hook.promise({ operation, input });
      if (result === undefined) throw notImplemented(name);
      return result.output === null || Object.keys(result.output).length === 0 ? null : result.output;
    },
    output: {
      checked: (e) => {
        ctx.log.error(`the output of ${name} does not match its schema: ${e instanceof Error ? e.message : String(e)}`);
        return RestconfError.of('operation-failed', `the implementation of '${name}' answered an output that does not match the schema`, {
          type: 'application',
        });
      },
    },
  });
}
