/**
 * GET and HEAD on `/rests/data[/...]`: reads the Config datastore, the Operational one, or both
 * merged (`content`, default from the configuration), runs the read hooks, finds the target (404
 * `data-missing` when it holds nothing), applies the read query parameters and writes the result.
 *
 * Only the target is merged, never the whole datastores: reading one entry of a 100,000-entry list
 * costs the depth of the path, whatever `content` says. Operational data that a module computes on
 * demand (`data.readState` taps) is asked only of the target's module (every module for the root).
 *
 * A target without data may still show some: with `with-defaults=report-all`, a leaf whose value is
 * its default answers that default, found below the deepest node on the target's path that holds data.
 */
import { mergeChildren, mergeNodes, type PathStep } from '../data/edit';
import { decodeJson } from '../data/json-decode';
import { encodeJson } from '../data/json-encode';
import { encodeXml } from '../data/xml-encode';
import { topTable } from '../data/children';
import type { DataNode, DataRoot } from '../data/tree';
import type { ReadContext } from '../hooks';
import { dataMissing } from './errors';
import { filterRead } from './filter-points';
import type { PlainDataCall } from './data-call';
import { sendText } from './respond';
import { findTarget } from './target';

/** The Operational datastore plus what `data.readState` taps compute for `modules`. */
async function operationalRoot(call: PlainDataCall, readCtx: ReadContext): Promise<DataRoot> {
  const stored = call.ctx.datastores.operational.current();
  const first = call.target.steps[0];
  const modules = first !== undefined ? [first.schema.module.name] : [...call.ctx.schema.modules.keys()];
  let root = stored;
  for (const module of modules) {
    const hook = call.scope.hooks.data.readState.get(module);
    if (hook === undefined || !hook.isUsed()) continue;
    const json = await hook.promise({}, { module, path: readCtx.path });
    if (Object.keys(json).length === 0) continue;
    const decoded = decodeJson(json, call.ctx.schema, {});
    root = { kind: 'root', children: mergeChildren(root.children, decoded.root.children, topTable(call.ctx.schema)) };
  }
  return root;
}

/** The data at `steps` (the target's, or a prefix of them), from the datastore(s) `content` selects; undefined when absent. */
async function readTarget(
  call: PlainDataCall,
  readCtx: ReadContext,
  content: 'config' | 'nonconfig' | 'all',
  steps: readonly PathStep[],
): Promise<DataNode | DataRoot | undefined> {
  const pick = async (root: DataRoot) => findTarget(await filterRead(call.scope, root, steps, readCtx), steps);
  if (content === 'config') return pick(call.ctx.datastores.config.current());
  const state = await pick(await operationalRoot(call, readCtx));
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

/**
 * What the read parameters show at a target that holds no data (see `DataQuery.readAbsent`), found
 * below the deepest node on its path that holds data. Only a non-presence container can be absent on
 * the way to a default: a missing list entry or presence container has none, so the walk up stops there.
 */
async function readAbsent(
  call: PlainDataCall,
  readCtx: ReadContext,
  content: 'config' | 'nonconfig' | 'all',
): Promise<DataNode | undefined> {
  const show = call.query.readAbsent;
  const steps = call.target.steps;
  if (show === undefined) return undefined;
  for (let k = steps.length - 1; k >= 0; k--) {
    const holder = await readTarget(call, readCtx, content, steps.slice(0, k));
    if (holder !== undefined) return show(holder, steps[k - 1]?.schema, steps.slice(k));
    const above = steps[k - 1]!.schema;
    if (above.kind !== 'container' || above.presence !== undefined) return undefined;
  }
  return undefined;
}

/** Writes a read result in the negotiated encoding. */
function encodeResult(call: PlainDataCall, result: DataNode | DataRoot): string {
  const attributes = !call.query.hideAttributes;
  if (call.responseType.encoding === 'json') {
    const text = encodeJson(result, { attributes });
    return result.kind === 'root' ? `{"ietf-restconf:data":${text}}` : text;
  }
  return encodeXml(result, call.ctx.schema, { attributes });
}

export async function handleGet(call: PlainDataCall, head: boolean): Promise<void> {
  const content = call.query.content ?? call.ctx.options.defaultContent;
  let readCtx: ReadContext = {
    datastore: content === 'nonconfig' ? 'operational' : 'config',
    path: call.target.path,
    query: call.rawQuery,
    schema: call.ctx.schema,
  };
  if (call.scope.hooks.data.beforeRead.isUsed()) readCtx = await call.scope.hooks.data.beforeRead.promise(readCtx);
  const found = (await readTarget(call, readCtx, content, call.target.steps)) ?? (await readAbsent(call, readCtx, content));
  if (found === undefined) throw dataMissing(call.target.path);
  const result = await call.query.applyRead(found, call.target.target);
  if (result === undefined) throw dataMissing(call.target.path);
  if (typeof result === 'number') sendText(call.res, 200, 'application/json', String(result), head);
  else sendText(call.res, 200, call.responseType.type, encodeResult(call, result), head);
}
