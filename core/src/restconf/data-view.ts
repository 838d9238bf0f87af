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
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PathStep } from '../data/edit';
import type { DataNode, DataRoot } from '../data/tree';
import type { ReadContext } from '../hooks';
import type { PluginScope } from '../plugins/generation';
import type { WriteOutcome, WriteRequest } from './commit';
import type { DataCall } from './data-call';
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
  /** Commits one write (all of it, or nothing); throws the fault a client sees. */
  commit(call: DataCall, write: WriteRequest): Promise<WriteOutcome>;
  /**
   * A view whose root is itself a node (a uniconfig node's `configuration`) answers a read or a
   * replace/merge of the whole root in that node's form rather than as a datastore root.
   */
  readonly root?: {
    read(call: DataCall, head: boolean): Promise<void>;
    write(call: DataCall, method: 'PUT' | 'PATCH'): Promise<void>;
  };
}
