/**
 * Committing a write to the Config datastore, the same way for every method: compute the would-be
 * tree, let `data.beforeWrite` taps veto it, then hand the edits to the datastore, which applies them
 * after the writes queued before (serialized, all or nothing) and resolves once they are on disk.
 * Validation runs inside the datastore's check, on the real base tree, so a concurrent writer can
 * never slip an unvalidated combination in; `data.afterCommit` runs once the change is durable.
 *
 * `beforeWrite` is asynchronous while the datastore's check is not, so taps see the newest tree as of
 * the request's start (writes applied but not yet durable included; a concurrent write may land
 * between); schema validation always sees the real base. The tree computed for the taps is handed to
 * the datastore, which uses it when no write landed between, rather than applying the edits twice.
 *
 * Once durable, the write's own edits are published as one data-change event (events/data-change-feed.ts),
 * and the commit resolves (so the handler answers 2xx) only once the event is in the replay log: a
 * client that saw the 2xx finds the event there. Events are published in the order the datastore made
 * the writes durable, since its queue resolves them in that order and the publish starts at once.
 */
import type { Datastore, PreparedWrite, ValueSource } from '../datastore/datastore';
import { applyEdits, type Edit, type PathStep } from '../data/edit';
import { DataError, type DataFault } from '../data/errors';
import { diffTrees } from '../data/diff';
import { editsOfRequest } from '../events/data-change';
import { sealEdits } from '../datastore/sensitive';
import { instancePathOf } from '../data/path';
import type { DataRoot } from '../data/tree';
import type { WriteContext } from '../hooks';
import type { PluginScope } from '../plugins/generation';
import type { RestconfContext } from './context';
import { fromFaults } from './errors';
import { findTarget } from './target';
import { validateWrite } from './write-validation';

/** One write as a handler describes it. */
export interface WriteRequest {
  readonly operation: WriteContext['operation'];
  /** The URI target (for messages, hooks, 201/204 and validation scope). */
  readonly steps: readonly PathStep[];
  readonly path: string;
  readonly edits: readonly Edit[];
  readonly checkReferences: boolean;
  /** The text the one edit's value was decoded from, for the journal to keep (see ValueSource). */
  readonly source?: ValueSource;
  /** Extra checks on the real base tree (e.g. apply-tags `update` needs existing data). */
  readonly precheck?: (previous: DataRoot) => void;
}

/** Who made a write, for its data-change event. */
export interface WriteOrigin {
  /** The authenticated user; absent when authentication is off. */
  readonly user?: string;
}

/** What the commit found: whether the target held data before (201 vs 204), and the new tree. */
export interface WriteOutcome {
  readonly existed: boolean;
  readonly tree: DataRoot;
}

/**
 * A validation fault of the written data as the client's error. A reference to missing data is a
 * fault of the request (400 `invalid-value`), not a missing resource (404), which is what
 * `data-missing` would answer. RFC 7950 §15 tags a broken `must`, `unique` or min-/max-elements
 * `operation-failed`, which RESTCONF answers 500; the client's data broke the rule, so it is 400
 * `invalid-value`, keeping the error-app-tag that names the rule (see docs/restconf-api.md). An
 * `operation-failed` without an app tag (an expression that could not be evaluated) stays the
 * server's.
 */
function asClientFault(f: DataFault): DataFault {
  if (f.tag === 'data-missing' || (f.tag === 'operation-failed' && f.appTag !== undefined)) return { ...f, tag: 'invalid-value' };
  return f;
}

/** Runs `write` against the Config datastore; throws RestconfError/DataError on any fault, nothing changed. */
export async function commitWrite(
  ctx: RestconfContext,
  scope: PluginScope,
  write: WriteRequest,
  origin: WriteOrigin = {},
): Promise<WriteOutcome> {
  const store: Datastore = ctx.datastores.config;
  const hooks = scope.hooks.data;
  let tree: PreparedWrite['tree'];
  if (hooks.beforeWrite.isUsed()) {
    const before = store.newest?.() ?? store.current();
    const after = applyEdits(before, write.edits, ctx.schema);
    const faults: DataFault[] = [];
    await hooks.beforeWrite.promise({
      datastore: 'config',
      operation: write.operation,
      path: instancePathOf(write.steps),
      before,
      after,
      faults,
    });
    if (faults.length > 0) throw fromFaults(faults);
    tree = { base: before, next: after };
  }
  const change = {
    datastore: 'config' as const,
    ...(origin.user !== undefined ? { user: origin.user } : {}),
    edits: editsOfRequest(ctx.secrets === undefined ? write.edits : sealEdits(write.edits, ctx.secrets)),
  };
  // with a database, the events commit with the change (one flush for both)
  const events = ctx.dataChanges?.within(change);
  const prepared: PreparedWrite | undefined =
    tree === undefined && write.source === undefined && events === undefined
      ? undefined
      : {
          ...(tree !== undefined ? { tree } : {}),
          ...(write.source !== undefined ? { source: write.source } : {}),
          ...(events !== undefined ? { committedWith: events } : {}),
        };
  let existed = false;
  let base: DataRoot | undefined;
  const stored = await store.apply(
    write.edits,
    (next, previous) => {
      base = previous;
      existed = findTarget(previous, write.steps) !== undefined;
      write.precheck?.(previous);
      const faults = validateWrite(next, write.steps, ctx.schema, { checkReferences: write.checkReferences });
      if (faults.length > 0) throw new DataError(faults.map(asClientFault));
    },
    prepared,
  );
  // started before any other await, so events follow the order the datastore resolved the writes in
  // A replay log that cannot be written does not undo a durable write: the failure is the operator's to see.
  const published = (events?.ran() === true ? undefined : ctx.dataChanges?.publish(change))?.catch((e: unknown) =>
    ctx.log.error(`publishing a data-change event failed: ${e instanceof Error ? e.message : String(e)}`),
  );
  if (hooks.afterCommit.isUsed() && base !== undefined) {
    const before = base;
    const changed = diffTrees(before, stored).map((c) => c.pathValue);
    hooks.afterCommit.promise({ datastore: 'config', before, after: stored, changed }).catch((e: unknown) => {
      ctx.log.error(`data.afterCommit tap failed: ${e instanceof Error ? e.message : String(e)}`);
    });
  }
  await published;
  return { existed, tree: stored };
}
