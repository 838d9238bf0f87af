/**
 * RESTCONF on `network-topology:network-topology/topology=uniconfig/node=<id>/configuration[/...]`
 * (the prefix `uniconfig-topology:` of `configuration` may be left out). The path below
 * `configuration` is resolved in the node's device schema, and the request is served by the same
 * handlers as local data (every method, YANG Patch, every query parameter): the node's configuration
 * is a datastore view (restconf/data-view.ts) whose schema is the device's and whose datastores are:
 * - Config: the intended configuration (the transaction's copy under a cookie); its `apply` is the
 *   engine's write (immediate commit to the device, or the transaction's view);
 * - Operational: the actual configuration, read-only.
 * `content=nonconfig` reads the actual configuration, `config` and `all` the intended one (this tree
 * holds configuration only, so there is nothing to merge); the content filter itself is not applied,
 * since the actual configuration is config data too.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Datastore, Datastores } from '../datastore/datastore';
import type { DataNode, DataRoot } from '../data/tree';
import { encodeJson } from '../data/json-encode';
import { JsonBodyError, parseJsonBody } from '../data/json-syntax';
import { encodeXml } from '../data/xml-encode';
import type { InsertPosition } from '../data/list';
import { createHooks } from '../hooks';
import type { PluginScope } from '../plugins/generation';
import type { RestconfContext } from '../restconf/context';
import type { DataCall, DataQuery } from '../restconf/data-call';
import { queryText, rawQueryOf } from '../restconf/data-query';
import { requestUser } from '../restconf/request-user';
import { TreeView } from '../restconf/tree-view';
import { decodeBody, readBody } from '../restconf/body';
import { badQuery, malformed, methodNotAllowed, unknownResource } from '../restconf/errors';
import { requestType, responseType } from '../restconf/media';
import { ALLOW } from '../restconf/options';
import { applyReadQuery, parseQuery, resolveInsert, showAtAbsentTarget } from '../restconf/query';
import { sendEmpty, sendText } from '../restconf/respond';
import { lexPath, MOUNT_SEGMENT, parseDevicePath, type ParsedPath } from '../restconf/uri';
import type { SchemaContext, SchemaNode } from '../yang/schema';
import type { UniconfigEngine } from './engine';
import { unwrapXmlConfiguration } from './configuration-xml';
import { TOPOLOGY_MODULE, TOPOLOGY_NAMESPACE, UNICONFIG_TOPOLOGY } from './node-store';
import type { Transaction } from './transactions';

/** A request path that reaches a uniconfig node's configuration: the node and the text below it. */
export interface ConfigurationPath {
  readonly nodeId: string;
  /** Encoded text after `configuration` ('' for the configuration itself), with its leading `/`. */
  readonly rest: string;
}

/**
 * Whether `raw` (the path after `/rests/data`, `uri.parse` taps applied) reaches a configuration;
 * undefined when it does not (or cannot be read: the ordinary route then answers the fault).
 */
export function configurationPath(raw: string, keyDelimiter: string | null): ConfigurationPath | undefined {
  let lexed: ReturnType<typeof lexPath>;
  try {
    lexed = lexPath(raw, keyDelimiter);
  } catch {
    return undefined;
  }
  const [top, topology, node, conf] = lexed.segments;
  if (top === undefined || topology === undefined || node === undefined || conf === undefined) return undefined;
  const shaped =
    top.module === 'network-topology' &&
    top.name === 'network-topology' &&
    top.keys === undefined &&
    topology.module === undefined &&
    topology.name === 'topology' &&
    topology.keys?.length === 1 &&
    topology.keys[0] === UNICONFIG_TOPOLOGY &&
    node.module === undefined &&
    node.name === 'node' &&
    node.keys?.length === 1 &&
    (conf.module === undefined || conf.module === TOPOLOGY_MODULE) &&
    conf.name === 'configuration' &&
    conf.keys === undefined;
  if (!shaped) return undefined;
  const prefix = `/${[top, topology, node, conf].map((s) => s.raw).join('/')}`;
  const text = raw.startsWith('/') ? raw : `/${raw}`;
  if (!text.startsWith(prefix)) return undefined;
  const rest = text.slice(prefix.length);
  if (rest !== '' && !rest.startsWith('/')) return undefined;
  return { nodeId: node.keys![0]!, rest: rest === '/' ? '' : rest };
}

/** The path of a node's configuration, as `configurationPath` reads it back (the key percent-encoded). */
export function configurationBase(nodeId: string): string {
  return `/rests/data/network-topology:network-topology/topology=${UNICONFIG_TOPOLOGY}/node=${encodeURIComponent(nodeId)}/${TOPOLOGY_MODULE}:configuration`;
}

/** Hooks the view hands the handlers: the plugins' filters, without local-only hooks (state, commit notices). */
function viewScope(scope: PluginScope): PluginScope {
  const empty = createHooks();
  const hooks = {
    ...scope.hooks,
    data: {
      ...scope.hooks.data,
      readState: empty.data.readState,
      afterCommit: empty.data.afterCommit,
      beforeWrite: empty.data.beforeWrite,
    },
  };
  return { ...scope, hooks: hooks as PluginScope['hooks'] };
}

/** The datastore view of one node's configuration, for one request (see the top of this file). */
export class ConfigurationView extends TreeView {
  override readonly configOnly = true;
  /** The node's device schema, read when the path is resolved. */
  private deviceSchema: SchemaContext | undefined;

  constructor(
    ctx: RestconfContext,
    private readonly engine: UniconfigEngine,
    private readonly scope: PluginScope,
    private readonly tx: Transaction | undefined,
    private readonly where: ConfigurationPath,
  ) {
    super(ctx);
  }

  override resolve(): ParsedPath {
    // the device may be down: its stored copy is still served
    const deviceSchema = this.engine.schema(this.scope, this.where.nodeId);
    this.deviceSchema = deviceSchema;
    const parsed = parseDevicePath(this.where.rest, deviceSchema, { keyDelimiter: this.ctx.options.keyDelimiter }, 'data');
    if (parsed.mount !== undefined) throw unknownResource(`${MOUNT_SEGMENT} is not served under a uniconfig configuration`, MOUNT_SEGMENT);
    return parsed;
  }

  override isYangPatch(req: IncomingMessage): boolean {
    return requestType(req.headers['content-type'], true).yangPatch;
  }

  override invokeAction(_scope: PluginScope, req: IncomingMessage): Promise<void> {
    throw methodNotAllowed(req.method ?? '', ALLOW.config, 'device actions are invoked under yang-ext:mount, not on the uniconfig copy');
  }

  override call(scope: PluginScope, req: IncomingMessage, res: ServerResponse, target: ParsedPath): DataCall {
    const { engine, tx } = this;
    const { nodeId } = this.where;
    const deviceSchema = this.deviceSchema!;
    const method = req.method ?? '';
    const options = parseQuery(queryText(req), method);
    const actualView = (method === 'GET' || method === 'HEAD') && options.content === 'nonconfig';
    const intended: Datastore = {
      name: 'config',
      current: () => engine.read(scope, tx, nodeId, actualView ? 'actual' : 'intended'),
      apply: (edits, check) => engine.write(scope, tx, nodeId, edits, check, requestUser(req)),
    };
    const actual: Datastore = {
      name: 'operational',
      current: () => engine.read(scope, tx, nodeId, 'actual'),
      apply: () => Promise.reject(methodNotAllowed(method, ALLOW.state, 'the actual configuration is read from the device, not written')),
    };
    const datastores: Datastores = { config: intended, operational: actual, close: async () => undefined };
    // the node's changes are published by the engine once stored, as uniconfig-intended, not as Config's
    const { dataChanges: _ownEvents, ...ctx } = this.ctx;
    const viewCtx: RestconfContext = { ...ctx, schema: deviceSchema, datastores, options: { ...ctx.options, defaultContent: 'config' } };
    // The view's datastore already chose intended or actual, so the read parameters see all of it.
    const readAbsent = showAtAbsentTarget({ ...options, content: 'all' }, deviceSchema);
    const query: DataQuery = {
      content: 'config',
      insertInto: (schema: SchemaNode): InsertPosition | undefined => {
        if (options.insert === undefined) return undefined;
        if (schema.kind !== 'list' && schema.kind !== 'leaf-list')
          throw badQuery('insert', `'${schema.name}' is a ${schema.kind}, not an ordered-by user list or leaf-list`);
        return resolveInsert(options.insert, schema, deviceSchema, { keyDelimiter: ctx.options.keyDelimiter });
      },
      checkReferences: options.checkForReferences === true,
      applyTags: options.applyTags === true,
      hideAttributes: false,
      applyRead: async (found: DataNode | DataRoot, schema: SchemaNode | undefined) => {
        const result = await applyReadQuery(found, schema, { ...options, content: 'all' }, deviceSchema, intended.current());
        return result.kind === 'count' ? result.count : result.data;
      },
      ...(readAbsent !== undefined ? { readAbsent } : {}),
    };
    return {
      view: this,
      ctx: viewCtx,
      scope: viewScope(scope),
      req,
      res,
      target,
      rawPath: this.where.rest,
      query,
      responseType: responseType(req.headers.accept),
      rawQuery: rawQueryOf(req),
    };
  }

  readonly root = { read: getConfigurationRoot, write: writeConfigurationRoot };
}

/**
 * GET of `configuration` itself: the node's whole configuration as the anydata member it is
 * (`{"uniconfig-topology:configuration": {...}}`, XML `<configuration xmlns=...>`), not as a datastore
 * root (`ietf-restconf:data`), which is what the local handlers would answer for an empty path.
 */
async function getConfigurationRoot(call: DataCall, head: boolean): Promise<void> {
  const result = await call.query.applyRead(call.ctx.datastores.config.current(), undefined);
  let body: string;
  if (typeof result === 'number') body = String(result);
  else {
    const children = result === undefined ? [] : result.kind === 'root' ? result.children : [result];
    if (call.responseType.encoding === 'json') body = `{"${TOPOLOGY_MODULE}:configuration":${encodeJson(children)}}`;
    else body = `<configuration xmlns="${TOPOLOGY_NAMESPACE}">${encodeXml(children, call.ctx.schema)}</configuration>`;
  }
  const type = typeof result === 'number' ? 'application/json' : call.responseType.type;
  if (!head) {
    sendText(call.res, 200, type, body);
    return;
  }
  // A HEAD has always named the bare type here (only application/json carries a charset by default).
  call.res.statusCode = 200;
  call.res.setHeader('Content-Type', type === 'application/json' ? 'application/json; charset=utf-8' : type);
  call.res.setHeader('Content-Length', Buffer.byteLength(body));
  call.res.end();
}

/**
 * The body of a PUT or PATCH of `configuration` itself without its wrapper: JSON
 * `{"uniconfig-topology:configuration": {...}}` (or bare `configuration`), XML `<configuration ...>...`.
 * A body without the wrapper (the device's top-level nodes) is taken as it is.
 */
function unwrapConfiguration(text: string, encoding: 'json' | 'xml'): string {
  if (encoding === 'json') {
    let doc: unknown;
    try {
      doc = parseJsonBody(text);
    } catch (e) {
      // the decoder names a syntax fault; a member given twice must be refused before the wrapper is dropped
      if (e instanceof JsonBodyError && e.kind === 'repeated-member') throw malformed(e.message);
      return text;
    }
    if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return text;
    const members = Object.keys(doc);
    if (members.length !== 1 || (members[0] !== `${TOPOLOGY_MODULE}:configuration` && members[0] !== 'configuration')) return text;
    const inner = (doc as Record<string, unknown>)[members[0]!];
    return JSON.stringify(inner === null ? {} : inner);
  }
  return unwrapXmlConfiguration(text);
}

/** PUT (replace) or plain PATCH (merge) of the whole configuration; 204 / 200. */
async function writeConfigurationRoot(call: DataCall, method: 'PUT' | 'PATCH'): Promise<void> {
  const media = requestType(call.req.headers['content-type'], false);
  const text = unwrapConfiguration(await readBody(call.req, call.ctx.options.bodyLimit), media.encoding);
  const root: DataRoot =
    text.trim() === '' || text.trim() === '{}'
      ? { kind: 'root', children: [] }
      : decodeBody(text, media, call.ctx.schema, { allowState: false }).root;
  await call.view.commit(call, {
    operation: method === 'PUT' ? 'replace' : 'patch',
    steps: [],
    path: '/',
    checkReferences: call.query.checkReferences,
    edits: [{ operation: method === 'PUT' ? 'replace' : 'merge', target: [], value: root }],
  });
  sendEmpty(call.res, method === 'PUT' ? 204 : 200);
}
