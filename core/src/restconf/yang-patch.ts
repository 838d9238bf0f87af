/**
 * YANG Patch (RFC 8072) on `/rests/data[/...]` with `application/yang-patch+json|xml`: an ordered
 * list of edits (create, delete, insert, merge, move, replace, remove), each with a target relative
 * to the request URI, applied all or nothing in one datastore write. Answers 200 with
 * `ietf-yang-patch:yang-patch-status` (`ok`), or the status of the first failing edit's error with
 * that edit's errors in `edit-status` (errors of the patch as a whole, e.g. validation of the result,
 * in `global-errors`).
 *
 * Each edit is tried in order on the tree as it stands (cheap: copy-on-write) only to say *which*
 * edit failed; the real write hands all edits to the datastore at once and validates the result there.
 */
import { applyEdit, type Edit } from '../data/edit';
import { DataError, fault } from '../data/errors';
import type { InsertPosition } from '../data/list';
import type { DataNode, DataRoot } from '../data/tree';
import { dataParent } from '../yang/schema';
import { readBody } from './body';
import { refuseStateWrite, type DataCall } from './data-call';
import { RestconfError, fromDataError, entryOfFault, malformed, renderErrorsJson, type RestconfErrorEntry } from './errors';
import { withheldEntries } from './withheld-values';
import { requestType } from './media';
import { sendText } from './respond';
import { findTarget } from './target';
import { decodeJson } from '../data/json-decode';
import { JsonBodyError, parseJsonBody } from '../data/json-syntax';
import { decodeXml } from '../data/xml-decode';
import { escapeXmlText } from '../data/xml-escape';
import { readXmlPatch } from './yang-patch-xml';
import { instancePath } from '../data/path';
import { parseDataPath } from './uri';
import { bodyDecodeOptions } from './filter-points';
import { KEY_LIMIT } from './request-limits';

/** The decoding options the `data.decodeBody` taps give a request's bodies. */
type BodyFilters = ReturnType<typeof bodyDecodeOptions>;

const YANG_PATCH_NS = 'urn:ietf:params:xml:ns:yang:ietf-yang-patch';
const OPERATIONS = new Set(['create', 'delete', 'insert', 'merge', 'move', 'replace', 'remove']);
const WHERE = new Set(['before', 'after', 'first', 'last']);

/** One edit as read from the message, before its target is resolved. */
interface RawEdit {
  readonly id: string;
  readonly operation: string;
  readonly target: string;
  readonly point?: string;
  readonly where?: string;
  /** JSON: the `value` object; XML: the inner XML text of `<value>`. */
  readonly value?: unknown;
}

interface RawPatch {
  readonly patchId: string;
  readonly edits: readonly RawEdit[];
}

function str(v: unknown, what: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw malformed(`yang-patch: ${what} must be a string`);
}

function readJsonPatch(text: string): RawPatch {
  let doc: unknown;
  try {
    doc = parseJsonBody(text); // a member given twice, in the envelope or an edit's value, is refused here
  } catch (e) {
    throw e instanceof JsonBodyError ? malformed(e.message) : e;
  }
  const patch = (doc as Record<string, unknown> | null)?.['ietf-yang-patch:yang-patch'];
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
    throw malformed("the body must be an 'ietf-yang-patch:yang-patch' object");
  const p = patch as Record<string, unknown>;
  const list = p['edit'] ?? [];
  if (!Array.isArray(list)) throw malformed('yang-patch: edit must be an array');
  const edits = list.map((e: unknown, i: number): RawEdit => {
    if (typeof e !== 'object' || e === null) throw malformed(`yang-patch: edit #${i + 1} must be an object`);
    const o = e as Record<string, unknown>;
    return {
      id: str(o['edit-id'], 'edit-id'),
      operation: str(o['operation'], 'operation'),
      target: str(o['target'], 'target'),
      ...(o['point'] !== undefined ? { point: str(o['point'], 'point') } : {}),
      ...(o['where'] !== undefined ? { where: str(o['where'], 'where') } : {}),
      ...(o['value'] !== undefined ? { value: o['value'] } : {}),
    };
  });
  return { patchId: str(p['patch-id'], 'patch-id'), edits };
}

/** An edit's failure, tied to its edit-id. */
class EditFailure extends Error {
  constructor(
    readonly editId: string,
    readonly error: RestconfError,
  ) {
    super(error.message);
  }
}

function asRestconf(e: unknown): RestconfError | undefined {
  if (e instanceof RestconfError) return e;
  if (e instanceof DataError) return fromDataError(e);
  return undefined;
}

/** Turns one raw edit into a data edit against the tree's schema. */
function resolveEdit(
  call: DataCall,
  rawBase: string,
  raw: RawEdit,
  encoding: 'json' | 'xml',
  current: DataRoot,
  filters: BodyFilters,
): Edit {
  if (!OPERATIONS.has(raw.operation)) throw malformed(`operation '${raw.operation}' is not one of ${[...OPERATIONS].join(', ')}`);
  const relative = raw.target === '/' ? '' : raw.target.startsWith('/') ? raw.target : `/${raw.target}`;
  const parsed = parseDataPath(rawBase + relative, call.ctx.schema, { keyDelimiter: call.ctx.options.keyDelimiter });
  if (parsed.target !== undefined && !parsed.target.config)
    throw RestconfError.of('invalid-value', `${parsed.path} is operational data, which is read-only`);
  const steps = parsed.steps;
  let insert: InsertPosition | undefined;
  if (raw.operation === 'insert' || raw.operation === 'move') {
    const where = raw.where ?? 'last';
    if (!WHERE.has(where)) throw malformed(`where '${where}' is not one of before, after, first, last`);
    if (where === 'before' || where === 'after') {
      if (raw.point === undefined) throw RestconfError.of('missing-attribute', `${raw.operation} ${where} needs a point`);
      const relativePoint = raw.point.startsWith('/') ? raw.point : `/${raw.point}`;
      const point = parseDataPath(rawBase + relativePoint, call.ctx.schema, { keyDelimiter: call.ctx.options.keyDelimiter }).steps.at(-1);
      const values = point?.keys ?? (point?.value !== undefined ? [point.value] : undefined);
      if (values === undefined || point!.schema !== steps.at(-1)?.schema)
        throw RestconfError.of('invalid-value', `point '${raw.point}' does not name an entry of the target's list`);
      insert = { where, point: values };
    } else {
      insert = { where: where as 'first' | 'last' };
    }
  }
  switch (raw.operation) {
    case 'delete':
    case 'remove':
      return { operation: raw.operation, target: steps };
    case 'move': {
      const existing = findTarget(current, steps);
      if (existing === undefined) throw RestconfError.of('data-missing', `${parsed.path}: nothing to move`, { path: parsed.path });
      return { operation: 'merge', target: steps, value: existing as DataNode, insert: insert! };
    }
    default: {
      if (raw.value === undefined) throw RestconfError.of('missing-element', `${raw.operation} needs a value`, { path: parsed.path });
      const schema = parsed.target;
      const parent = schema === undefined ? undefined : dataParent(schema);
      const options = {
        allowState: false,
        keyLimit: KEY_LIMIT,
        ...(parent ? { parent, parentPath: instancePath(steps.slice(0, -1)) } : {}),
        ...filters,
      };
      const decoded =
        encoding === 'json' ? decodeJson(raw.value, call.ctx.schema, options) : decodeXml(String(raw.value), call.ctx.schema, options);
      const node =
        schema === undefined
          ? decoded.root
          : decoded.root.children.length === 1 && decoded.root.children[0]!.schema === schema
            ? decoded.root.children[0]!
            : undefined;
      if (node === undefined)
        throw RestconfError.of('invalid-value', `the value must hold exactly the target node of the edit`, { path: parsed.path });
      const operation = raw.operation === 'insert' ? 'create' : (raw.operation as 'create' | 'merge' | 'replace');
      return { operation, target: steps, value: node, ...(insert ? { insert } : {}) };
    }
  }
}

function statusBody(
  patchId: string,
  failure: { editId: string; errors: readonly RestconfErrorEntry[] } | undefined,
  global?: readonly RestconfErrorEntry[],
): Record<string, unknown> {
  const status: Record<string, unknown> = { 'patch-id': patchId };
  const envelope = (errors: readonly RestconfErrorEntry[]) => (JSON.parse(renderErrorsJson(errors)) as { errors: unknown }).errors;
  if (global) status['global-errors'] = envelope(global);
  else if (failure) status['edit-status'] = { edit: [{ 'edit-id': failure.editId, errors: envelope(failure.errors) }] };
  else status['ok'] = [null];
  return { 'ietf-yang-patch:yang-patch-status': status };
}

/** The parts of a yang-patch-status (as `statusBody` builds it) that its XML form writes. */
interface PatchStatus {
  readonly 'patch-id': unknown;
  readonly ok?: unknown;
  readonly 'global-errors'?: { readonly error: readonly Record<string, unknown>[] };
  readonly 'edit-status'?: {
    readonly edit: readonly { readonly 'edit-id': string; readonly errors: { readonly error: readonly Record<string, unknown>[] } }[];
  };
}

function statusXml(body: Record<string, unknown>): string {
  const s = body['ietf-yang-patch:yang-patch-status'] as PatchStatus;
  let out = `<yang-patch-status xmlns="${YANG_PATCH_NS}"><patch-id>${escapeXmlText(String(s['patch-id']))}</patch-id>`;
  const infoXml = (info: unknown) =>
    info !== null && typeof info === 'object'
      ? `<error-info>${Object.entries(info)
          .filter(([k]) => /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(k))
          .map(([k, v]) => `<${k}>${escapeXmlText(String(v))}</${k}>`)
          .join('')}</error-info>`
      : '';
  const errorsXml = (list: readonly Record<string, unknown>[]) =>
    `<errors>${list
      .map(
        (e) =>
          `<error>${Object.entries(e)
            .map(([k, v]) => (k === 'error-info' ? infoXml(v) : `<${k}>${escapeXmlText(String(v))}</${k}>`))
            .join('')}</error>`,
      )
      .join('')}</errors>`;
  if (s['ok']) out += '<ok/>';
  if (s['global-errors']) out += `<global-errors>${errorsXml(s['global-errors'].error)}</global-errors>`;
  if (s['edit-status']) {
    out += '<edit-status>';
    for (const e of s['edit-status'].edit)
      out += `<edit><edit-id>${escapeXmlText(e['edit-id'])}</edit-id>${errorsXml(e.errors.error)}</edit>`;
    out += '</edit-status>';
  }
  return `${out}</yang-patch-status>`;
}

export async function handleYangPatch(call: DataCall): Promise<void> {
  refuseStateWrite(call, 'PATCH');
  const media = requestType(call.req.headers['content-type'], true);
  const text = await readBody(call.req, call.ctx.options.bodyLimit);
  if (text.trim() === '') throw malformed('the request needs a body');
  const patch = media.encoding === 'json' ? readJsonPatch(text) : readXmlPatch(text);
  const rawBase = call.rawPath;
  const send = (status: number, body: Record<string, unknown>) => {
    const json = call.responseType.encoding === 'json';
    sendText(
      call.res,
      status,
      json ? 'application/yang-data+json' : 'application/yang-data+xml',
      json ? JSON.stringify(body) : statusXml(body),
    );
  };
  // Edit values are write bodies too: the same data.decodeBody policy as PUT, POST and plain PATCH.
  const filters = bodyDecodeOptions(call.scope, {
    method: 'PATCH',
    path: call.target.pathValue,
    query: call.rawQuery,
    schema: call.ctx.schema,
  });
  const seen = new Set<string>();
  const edits: Edit[] = [];
  let trial = call.ctx.datastores.config.current();
  try {
    for (const raw of patch.edits) {
      try {
        if (seen.has(raw.id)) throw malformed(`edit-id '${raw.id}' appears twice`);
        seen.add(raw.id);
        const edit = resolveEdit(call, rawBase, raw, media.encoding, trial, filters);
        trial = applyEdit(trial, edit, call.ctx.schema);
        edits.push(edit);
      } catch (e) {
        const error = asRestconf(e);
        if (error === undefined) throw e;
        throw new EditFailure(raw.id, error);
      }
    }
    if (edits.length > 0) {
      await call.view.commit(call, {
        operation: 'patch',
        steps: call.target.steps,
        path: call.target.path,
        edits,
        checkReferences: call.query.checkReferences,
      });
    }
  } catch (e) {
    if (e instanceof EditFailure) {
      // No secret goes back in an error message (withheld-values.ts).
      send(e.error.status, statusBody(patch.patchId, { editId: e.editId, errors: withheldEntries(e.error.errors, call.ctx.schema) }));
      return;
    }
    const error = asRestconf(e);
    if (error === undefined) throw e;
    send(
      error.status,
      statusBody(
        patch.patchId,
        undefined,
        error.errors.length
          ? withheldEntries(error.errors, call.ctx.schema)
          : [entryOfFault(fault('operation-failed', '/', error.message))],
      ),
    );
    return;
  }
  send(200, statusBody(patch.patchId, undefined));
}
