/**
 * A datastore view: what the data handlers (read.ts, put.ts, post.ts, patch.ts, yang-patch.ts,
 * delete.ts) read from and write to. The local datastores are one view (tree-view.ts); a uniconfig
 * node's configuration (uniconfig/data-route.ts) and a topology read in a transaction are others, each
 * with its own schema and trees; a mount point (mount-view.ts) reads and writes a device. The dispatcher
 * (dispatcher.ts) finds the view a path belongs to in its route table, then runs the one handler of the
 * request's method over it, so every method means the same thing wherever the data lives.
 *
 * A view is built per request only when it carries per-request state (a transaction, a device); the
 * local view is built once per service, which keeps the common request's allocations where they were.
 *
 * The call a view builds per request (DataCall, with its typed DataQuery) is declared here too, since a
 * view's methods take a call and a call names its view; what handlers do with a call is data-call.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PathStep } from '../data/edit';
import type { InsertPosition } from '../data/list';
import type { DataNode, DataRoot } from '../data/tree';
import type { ReadContext } from '../hooks';
import type { PluginScope } from '../plugins/generation';
import type { SchemaNode } from '../yang/schema';
import type { WriteRequest } from './commit';
import type { RestconfContext } from './context';
import type { MediaType } from './media';
import type { EntryWindow } from './query';
import type { ParsedPath } from './uri';

/** What a GET reads: the Config datastore, the Operational one, or both merged. */
export type ReadContent = 'config' | 'nonconfig' | 'all';

export interface DatastoreView {
  /**
   * Every node of the view is configuration (a uniconfig node's configuration): OPTIONS answers every
   * method wherever the target is. False: operational (`config false`) targets are read-only.
   */
  readonly configOnly: boolean;
  /** The target `raw` (the encoded path below the view's root) names, in the view's schema. */
  resolve(raw: string, keyDelimiter: string | null): ParsedPath;
  /**
   * The handlers' view of one request on `target` (its query read, its response type negotiated, in
   * the order this view's clients have always seen those faults).
   */
  call(scope: PluginScope, req: IncomingMessage, res: ServerResponse, target: ParsedPath, raw: string): DataCall;
  /** Whether a PATCH is a YANG Patch (true) or a plain merge (false); 415 for a type neither takes. */
  isYangPatch(req: IncomingMessage): boolean;
  /** Serves a request on an action the target names (POST invokes it; other methods 405). */
  invokeAction(scope: PluginScope, req: IncomingMessage, res: ServerResponse, target: ParsedPath): Promise<void>;
  /**
   * The data at `steps` (the target's, or a prefix of them, for defaults shown at an absent target),
   * from the tree(s) `content` selects, after the read filters; undefined when nothing is there.
   */
  read(call: DataCall, readCtx: ReadContext, content: ReadContent, steps: readonly PathStep[]): Promise<DataNode | DataRoot | undefined>;
  /**
   * Commits one write (all of it, or nothing); throws the fault a client sees. `existed`: whether the
   * target held data before (a PUT answers 204 then, 201 otherwise).
   */
  commit(call: DataCall, write: WriteRequest): Promise<{ readonly existed: boolean }>;
  /**
   * Where the members of a write body are decoded: 'target', they are the target itself (PUT, PATCH);
   * 'child', they are children of it (POST). The parent schema node and the path faults are named from.
   */
  bodyScope(call: DataCall, scope: 'target' | 'child'): { readonly parent?: SchemaNode; readonly parentPath?: string };
  /** The device the view reaches (its node id), named to the read and body filters; absent for stored data. */
  readonly device?: string;
  /**
   * A view whose root is itself a node (a uniconfig node's `configuration`) answers a read or a
   * replace/merge of the whole root in that node's form rather than as a datastore root.
   */
  readonly root?: {
    read(call: DataCall, head: boolean): Promise<void>;
    write(call: DataCall, method: 'PUT' | 'PATCH'): Promise<void>;
  };
}

/** The query options the data handlers act on (typed; parsed by the query module). */
export interface DataQuery {
  /**
   * Applies the read parameters (content, depth, fields, with-defaults, paging, ...) to the data
   * found at the target; a number for `fetch=count`; undefined when nothing is left. Asynchronous:
   * a long jsonb-filter gives the event loop back while it runs.
   */
  readonly applyRead: (found: DataNode | DataRoot, target: SchemaNode | undefined) => Promise<DataNode | DataRoot | number | undefined>;
  /**
   * What the read parameters (`with-defaults=report-all`) show at a target that holds no data (a
   * leaf whose value is its default): found below `holder`, the deepest node on the target's path
   * that holds data (`holderSchema` its schema, undefined for the root), down the steps `below`;
   * undefined when they show nothing there. `applyRead` then applies to it as to data found.
   * Absent: nothing is shown at a target without data.
   */
  readonly readAbsent?: (
    holder: DataNode | DataRoot,
    holderSchema: SchemaNode | undefined,
    below: readonly PathStep[],
  ) => DataNode | undefined;
  readonly content: 'config' | 'nonconfig' | 'all' | undefined;
  /**
   * For a GET of a whole list: the entries its answer shows in full when that is fewer than all and the
   * others count by key only (query/paging.ts `shownWindow`); a view whose entries are computed on demand
   * computes only these. Absent: all of them.
   */
  readonly window?: EntryWindow;
  /**
   * Where `insert`/`point` put a new entry of the list or leaf-list `schema` (undefined without
   * `insert`); 400 when `schema` is not ordered-by user or the point does not fit it.
   */
  readonly insertInto: (schema: SchemaNode) => InsertPosition | undefined;
  readonly checkReferences: boolean;
  readonly applyTags: boolean;
  readonly hideAttributes: boolean;
}

/** One data request, as the handler of its method sees it, over the datastore view its path belongs to. */
export interface DataCall {
  /** Where the data lives: the handlers read and commit through it. */
  readonly view: DatastoreView;
  /** The schema, datastores and options of the view. */
  readonly ctx: RestconfContext;
  readonly scope: PluginScope;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly target: ParsedPath;
  /** The encoded path after the view's root (after `uri.parse` taps), for YANG Patch edit targets. */
  readonly rawPath: string;
  readonly query: DataQuery;
  /** The type responses are written in (negotiated from Accept). */
  readonly responseType: MediaType;
  /** Parameters as received, for the read hooks. */
  readonly rawQuery: Readonly<Record<string, string>>;
}
