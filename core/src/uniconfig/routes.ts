/**
 * The uniconfig layer's routes in the RESTCONF dispatcher's route table (restconf/route-table.ts), ahead
 * of the core's own: a uniconfig node's `configuration` (a datastore view, data-route.ts), reads of the
 * uniconfig topology in a transaction (topology-view.ts), and the operations of uniconfig-manager,
 * dryrun-manager and snapshot-manager. The `UNICONFIGTXID` cookie picks the transaction (422
 * `invalid-transaction` when it names none); `create-transaction` answers 201 with the cookie. The
 * dispatcher answers OPTIONS and refuses methods other than POST on the operations; errors carry the
 * usual envelope.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dataSchemaChildren } from '../data/children';
import type { ContainerNode } from '../data/tree';
import type { PluginScope } from '../plugins/generation';
import type { RestconfContext } from '../restconf/context';
import { queryText } from '../restconf/data-query';
import { badQuery, RestconfError } from '../restconf/errors';
import { responseType } from '../restconf/media';
import { callOperation, checkMandatoryLeaves } from '../restconf/operation-call';
import { requestUser } from '../restconf/request-user';
import type { RouteTable } from '../restconf/route-table';
import type { OperationSchema } from '../yang/schema';
import { ConfigurationView, configurationPath } from './data-route';
import type { UniconfigEngine } from './engine';
import type { UniconfigOperations } from './operations';
import { claimsRequest, topologyView } from './topology-view';
import { COOKIE_NAME, DEFAULT_IDLE_SECONDS, MAX_IDLE_SECONDS, type TransactionRegistry } from './transactions';

/** The modules whose operations this layer serves. */
const OPERATION_MODULES: ReadonlySet<string> = new Set(['uniconfig-manager', 'dryrun-manager', 'snapshot-manager']);

export interface RouteParts {
  readonly ctx: RestconfContext;
  readonly engine: UniconfigEngine;
  readonly registry: TransactionRegistry;
  readonly operations: UniconfigOperations;
}

/**
 * Adds the layer's routes to the dispatcher's table: its data views (a node's configuration, the
 * topology read in a transaction) and its managers' operations.
 */
export function addUniconfigRoutes(table: RouteTable, parts: RouteParts): void {
  table.addData({
    name: 'uniconfig',
    match: ({ ctx, scope, req, raw, keyDelimiter }) => {
      if (!claimsRequest(raw, keyDelimiter, req)) return undefined;
      const where = configurationPath(raw, keyDelimiter);
      const tx = parts.registry.fromCookieHeader(req.headers.cookie);
      if (where !== undefined) return new ConfigurationView(ctx, parts.engine, scope, tx, where);
      // a read of the topology in a transaction shows the transaction's views (topology-view.ts)
      return tx === undefined ? undefined : topologyView(ctx, parts.engine, tx, raw, keyDelimiter);
    },
  });
  table.addOperations({
    name: 'uniconfig',
    match: ({ raw }) => {
      const operation = operationOf(parts.ctx, raw.slice(1));
      return operation === undefined
        ? undefined
        : { operation, invoke: ({ scope, req }, res) => runOperation(parts, scope, req, res, operation) };
    },
  });
}

/** The RPC a path names when it is one of ours (`module:rpc`, nothing after). */
function operationOf(ctx: RestconfContext, text: string): OperationSchema | undefined {
  const m = /^([A-Za-z_][A-Za-z0-9_.-]*):([A-Za-z_][A-Za-z0-9_.-]*)\/?$/.exec(text);
  if (m === null || !OPERATION_MODULES.has(m[1]!)) return undefined;
  return ctx.schema.rpcs.find((r) => r.module.name === m[1] && r.name === m[2]);
}

/** Runs one of the managers' operations (the input decoded and answered by restconf/operation-call.ts). */
async function runOperation(
  parts: RouteParts,
  scope: PluginScope,
  req: IncomingMessage,
  res: ServerResponse,
  op: OperationSchema,
): Promise<void> {
  const { ctx } = parts;
  const name = `${op.module.name}:${op.name}`;
  const params = new URLSearchParams(queryText(req));
  const call = {
    op,
    schema: ctx.schema,
    path: `/${name}`,
    bodyLimit: ctx.options.bodyLimit,
    media: responseType(req.headers.accept),
    // mandatory leaves present; the managers check the rest themselves
    checkInput: (input: ContainerNode) => checkMandatoryLeaves(input, dataSchemaChildren(op.input.children), `/${name}`),
    inputAttributes: false,
    // this layer builds outputs to the schema: a 10,000-change calculate-diff is not decoded and encoded again
    output: 'trusted' as const,
  };
  if (name === 'uniconfig-manager:create-transaction') {
    let idle = DEFAULT_IDLE_SECONDS;
    for (const [key, value] of params) {
      if (key !== 'timeout') throw badQuery(key, 'create-transaction takes only the timeout parameter');
      if (!/^\d{1,6}$/.test(value) || Number(value) < 1 || Number(value) > MAX_IDLE_SECONDS)
        throw badQuery('timeout', `must be a whole number of seconds from 1 to ${MAX_IDLE_SECONDS}`);
      idle = Number(value);
    }
    await callOperation(req, res, {
      ...call,
      status: 201,
      invoke: async () => {
        const tx = parts.registry.create(idle);
        await parts.registry.announce(tx);
        res.setHeader('Set-Cookie', `${COOKIE_NAME}=${tx.id};Path=/rests/`);
        return { 'transaction-id': tx.id };
      },
    });
    return;
  }
  const firstParam = [...params.keys()][0];
  if (firstParam !== undefined) throw badQuery(firstParam, 'is not allowed on operations');
  const tx = parts.registry.fromCookieHeader(req.headers.cookie);
  await callOperation(req, res, {
    ...call,
    invoke: async (input) => {
      const output = await parts.operations.run(name, scope, tx, input, requestUser(req));
      if (output === undefined) throw RestconfError.of('operation-not-supported', `'${name}' is not implemented`, { type: 'application' });
      return output;
    },
  });
}
