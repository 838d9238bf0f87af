/**
 * GET and HEAD on a data resource, in whichever datastore view it lives: reads the target from the
 * view (the Config datastore, the Operational one, or both merged, as `content` says; default from
 * the configuration), runs the read hooks, answers 404 `data-missing` when it holds nothing, applies
 * the read query parameters and writes the result: a large one (a list of more than a few hundred
 * entries) in pieces as it is encoded, so that a listing of thousands of nodes does not hold other
 * requests up until it is all written.
 *
 * A target without data may still show some: with `with-defaults=report-all`, a leaf whose value is
 * its default answers that default, found below the deepest node on the target's path that holds data.
 */
import { encodeJsonPieces, encodeXmlPieces, isLargeAnswer } from '../data/encode-stream';
import { encodeJson } from '../data/json-encode';
import { encodeXml } from '../data/xml-encode';
import type { DataNode, DataRoot } from '../data/tree';
import type { ReadContext } from '../hooks';
import type { DataCall } from './data-call';
import type { ReadContent } from './data-view';
import { dataMissing } from './errors';
import { sendPieces, sendText } from './respond';

/**
 * What the read parameters show at a target that holds no data (see `DataQuery.readAbsent`), found
 * below the deepest node on its path that holds data. Only a non-presence container can be absent on
 * the way to a default: a missing list entry or presence container has none, so the walk up stops there.
 */
async function readAbsent(call: DataCall, readCtx: ReadContext, content: ReadContent): Promise<DataNode | undefined> {
  const show = call.query.readAbsent;
  const steps = call.target.steps;
  if (show === undefined) return undefined;
  for (let k = steps.length - 1; k >= 0; k--) {
    const holder = await call.view.read(call, readCtx, content, steps.slice(0, k));
    if (holder !== undefined) return show(holder, steps[k - 1]?.schema, steps.slice(k));
    const above = steps[k - 1]!.schema;
    if (above.kind !== 'container' || above.presence !== undefined) return undefined;
  }
  return undefined;
}

/** Writes a read result in the negotiated encoding. */
function encodeResult(call: DataCall, result: DataNode | DataRoot): string {
  const attributes = !call.query.hideAttributes;
  if (call.responseType.encoding === 'json') {
    const text = encodeJson(result, { attributes });
    return result.kind === 'root' ? `{"ietf-restconf:data":${text}}` : text;
  }
  return encodeXml(result, call.ctx.schema, { attributes });
}

/** A large read result in the negotiated encoding, in pieces as it is encoded (data/encode-stream.ts). */
function resultPieces(call: DataCall, result: DataNode | DataRoot): Iterable<string> {
  const attributes = !call.query.hideAttributes;
  if (call.responseType.encoding === 'json') return encodeJsonPieces(result, { attributes, wrap: true });
  return encodeXmlPieces(result, call.ctx.schema, { attributes });
}

export async function handleGet(call: DataCall, head: boolean): Promise<void> {
  if (call.target.steps.length === 0 && call.view.root !== undefined) return call.view.root.read(call, head);
  const content = call.query.content ?? call.ctx.options.defaultContent;
  let readCtx: ReadContext = {
    datastore: content === 'nonconfig' ? 'operational' : 'config',
    path: call.target.pathValue,
    query: call.rawQuery,
    schema: call.ctx.schema,
  };
  if (call.scope.hooks.data.beforeRead.isUsed()) readCtx = await call.scope.hooks.data.beforeRead.promise(readCtx);
  const found = (await call.view.read(call, readCtx, content, call.target.steps)) ?? (await readAbsent(call, readCtx, content));
  if (found === undefined) throw dataMissing(call.target.path);
  const result = await call.query.applyRead(found, call.target.target);
  if (result === undefined) throw dataMissing(call.target.path);
  if (typeof result === 'number') sendText(call.res, 200, 'application/json', String(result), head);
  else if (!head && isLargeAnswer(result)) await sendPieces(call.res, 200, call.responseType.type, resultPieces(call, result));
  else sendText(call.res, 200, call.responseType.type, encodeResult(call, result), head);
}
