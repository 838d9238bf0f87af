/**
 * The datastore view: data held in a Config and an Operational datastore (`ctx.datastores`), resolved in
 * `ctx.schema`. The local datastores are served through one such view, built once per service; the
 * uniconfig layer serves a node's configuration and transaction reads of the topology through views
 * of this kind over its own trees (it overrides what differs there).
 *
 * A read merges only the target, never the whole datastores: reading one entry of a 100,000-entry
 * list costs the depth of the path, whatever `content` says. Operational data a module computes on
 * demand (`data.readState` taps) is asked only of the target's module (every module for the root).
 * A write goes through commit.ts: `data.beforeWrite` taps, validation on the real base tree, the journal.
 * Reads and writes use the call's context (`call.ctx`), which is this view's unless a subclass builds
 * the datastores per request (a node's configuration picks its intended or actual tree by the query).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mergeChildren, mergeNodes, type PathStep } from '../data/edit';
import { entryKey } from '../data/list';
import { topTable } from '../data/children';
import { decodeJson } from '../data/json-decode';
import type { DataNode, DataRoot, ListNode } from '../data/tree';
import { valueDecodeScope } from '../datastore/datastore';
import type { ReadContext, StateReadContext } from '../hooks';
import type { SchemaNode } from '../yang/schema';
import type { PluginScope } from '../plugins/generation';
import { commitWrite, type WriteOutcome, type WriteRequest } from './commit';
import { requestUser } from './request-user';
import type { RestconfContext } from './context';
import type { DataCall } from './data-call';
import { dataQuery, queryText, rawQueryOf } from './data-query';
import { requestOrigin } from './discovery';
import type { DatastoreView, ReadContent } from './data-view';
import { methodNotAllowed } from './errors';
import { filterRead } from './filter-points';
import { bareType, responseType } from './media';
import { invokeOperation } from './operations';
import { ALLOW } from './options';
import type { EntryWindow } from './query';
import { findTarget } from './target';
import { badUri } from './uri-segments';
import { parseDataPath, type ParsedPath } from './uri';

export class TreeView implements DatastoreView {
  readonly configOnly: boolean = false;

  constructor(readonly ctx: RestconfContext) {}

  resolve(raw: string, keyDelimiter: string | null): ParsedPath {
    return parseDataPath(raw, this.ctx.schema, { keyDelimiter });
  }

  call(scope: PluginScope, req: IncomingMessage, res: ServerResponse, target: ParsedPath, raw: string): DataCall {
    // Accept before the query: a 406 wins over a bad parameter.
    const negotiated = responseType(req.headers.accept);
    const ctx = this.ctx;
    return {
      view: this,
      ctx,
      scope,
      req,
      res,
      target,
      rawPath: raw,
      query: dataQuery(req, ctx),
      responseType: negotiated,
      rawQuery: rawQueryOf(req),
    };
  }

  isYangPatch(req: IncomingMessage): boolean {
    const type = req.headers['content-type'];
    return type !== undefined && bareType(type).startsWith('application/yang-patch');
  }

  async invokeAction(scope: PluginScope, req: IncomingMessage, res: ServerResponse, target: ParsedPath): Promise<void> {
    const method = req.method ?? '';
    if (method !== 'POST') throw methodNotAllowed(method, ALLOW.operation, 'actions are invoked with POST');
    rejectQuery(req);
    await invokeOperation(this.ctx, scope, req, res, target, responseType(req.headers.accept));
  }

  async read(
    call: DataCall,
    readCtx: ReadContext,
    content: ReadContent,
    steps: readonly PathStep[],
  ): Promise<DataNode | DataRoot | undefined> {
    const pick = async (root: DataRoot) => findTarget(await filterRead(call.scope, root, steps, readCtx), steps);
    if (content === 'config') return pick(call.ctx.datastores.config.current());
    if (steps === call.target.steps && isWholeList(steps) && computesState(call, steps)) {
      // a page is cut from the configuration's order, which content=nonconfig does not read: all of it then
      const window = content === 'all' ? (call.query.window ?? EVERY_ENTRY) : EVERY_ENTRY;
      return this.readList(call, readCtx, steps, window, content);
    }
    const state = await pick(await this.operationalRoot(call, readCtx));
    if (content === 'nonconfig') return state;
    const config = await pick(call.ctx.datastores.config.current());
    if (config === undefined) return state;
    if (state === undefined) return config;
    if (config.kind === 'root' || state.kind === 'root') {
      return {
        kind: 'root',
        children: mergeChildren((config as DataRoot).children, (state as DataRoot).children, topTable(call.ctx.schema)),
      };
    }
    return mergeNodes(config, state);
  }

  commit(call: DataCall, write: WriteRequest): Promise<WriteOutcome> {
    const user = requestUser(call.req);
    return commitWrite(call.ctx, call.scope, write, user !== undefined ? { user } : {});
  }

  bodyScope(call: DataCall, scope: 'target' | 'child'): { parent?: SchemaNode; parentPath?: string } {
    const steps = call.target.steps;
    const where =
      scope === 'target' ? valueDecodeScope(steps) : { parent: call.target.target, parentPath: steps.length > 0 ? call.target.path : '' };
    return where.parent !== undefined ? { parent: where.parent, parentPath: where.parentPath } : {};
  }

  /**
   * A whole list whose entries' state `data.readState` taps compute. Which entries exist is asked of the
   * taps by key only; then the state of the entries in `window` alone is computed, STATE_BATCH entries at
   * a time with the event loop given back between batches, and merged over them; every other entry stands
   * as its configuration (content=all), or its keys. The list has the entries of a full read in the same
   * order, so the query parameters cut the same page and count the same entries; a page costs the page,
   * not the list, and a full listing of thousands of nodes does not hold other requests up while it is read.
   */
  private async readList(call: DataCall, readCtx: ReadContext, steps: readonly PathStep[], window: EntryWindow, content: ReadContent) {
    const pick = async (root: DataRoot) => {
      const found = findTarget(await filterRead(call.scope, root, steps, readCtx), steps);
      return found?.kind === 'list' ? found : undefined;
    };
    const config = content === 'all' ? await pick(call.ctx.datastores.config.current()) : undefined;
    const keys = await pick(await this.operationalRoot(call, readCtx, 'keys'));
    let listed = config === undefined ? keys : keys === undefined ? config : withEntriesOf(config, keys);
    if (listed === undefined) return undefined;
    const end = window.limit === undefined ? listed.entries.length : window.offset + window.limit;
    const shown = listed.entries.slice(window.offset, end).map(entryKey);
    for (let i = 0; i < shown.length; i += STATE_BATCH) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const state = await pick(await this.operationalRoot(call, readCtx, new Set(shown.slice(i, i + STATE_BATCH))));
      if (state !== undefined) listed = mergeNodes(listed, state) as ListNode;
    }
    return listed;
  }

  /**
   * The Operational datastore plus what `data.readState` taps compute for the target's module (of a
   * list target, only `entries` when given: see StateReadContext).
   */
  private async operationalRoot(call: DataCall, readCtx: ReadContext, entries?: StateReadContext['entries']): Promise<DataRoot> {
    const stored = call.ctx.datastores.operational.current();
    const first = call.target.steps[0];
    const modules = first !== undefined ? [first.schema.module.name] : [...call.ctx.schema.modules.keys()];
    let root = stored;
    const origin = requestOrigin(call.req);
    for (const module of modules) {
      const hook = call.scope.hooks.data.readState.get(module);
      if (hook === undefined || !hook.isUsed()) continue;
      const json = await hook.promise({}, { module, path: readCtx.path, origin, ...(entries !== undefined ? { entries } : {}) });
      if (Object.keys(json).length === 0) continue;
      const decoded = decodeJson(json, call.ctx.schema, {});
      root = { kind: 'root', children: mergeChildren(root.children, decoded.root.children, topTable(call.ctx.schema)) };
    }
    return root;
  }
}

/**
 * `config` with the entries of `keys` (entries holding their keys only) that it lacks, placed as a merge
 * places them: merging the others would only copy entries that merging them leaves as they are.
 */
function withEntriesOf(config: ListNode, keys: ListNode): ListNode {
  const present = new Set(config.entries.map(entryKey));
  const missing = keys.entries.filter((e) => !present.has(entryKey(e)));
  if (missing.length === 0) return config;
  const { index: _dropped, ...rest } = keys; // the key index belongs to the old entries array (tree.ts)
  return mergeNodes(config, { ...rest, entries: missing }) as ListNode;
}

/** Entries whose state one `data.readState` call computes when a list is read in batches. */
const STATE_BATCH = 64;

const EVERY_ENTRY: EntryWindow = { offset: 0, limit: undefined };

/** Whether `data.readState` taps compute state of the target's module (its entries are then read by key first). */
function computesState(call: DataCall, steps: readonly PathStep[]): boolean {
  const hook = call.scope.hooks.data.readState.get(steps[0]!.schema.module.name);
  return hook?.isUsed() === true;
}

/** Whether a target names a whole list (not one of its entries). */
function isWholeList(steps: readonly PathStep[]): boolean {
  const last = steps.at(-1);
  return last !== undefined && last.schema.kind === 'list' && last.keys === undefined;
}

/** Operations take no query parameters (RFC 8040 §4.8 lists none for them). */
export function rejectQuery(req: IncomingMessage): void {
  const name = queryText(req)
    .split('&')
    .find((p) => p !== '')
    ?.split('=')[0];
  if (name !== undefined) throw badUri(`query parameter '${decodeURIComponentSafe(name)}' is not allowed on operations`);
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
