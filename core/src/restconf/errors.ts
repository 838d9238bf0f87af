/**
 * The one catalogue of RESTCONF errors (RFC 8040 §7, docs/restconf-api.md#errors): the error value every handler
 * raises, the error-tag -> HTTP status table, the conversion of data faults (`DataError`) and of
 * anything unexpected, and the error envelope in JSON and XML.
 *
 * Unexpected errors (a bug, a plugin that threw something odd) answer 500 `operation-failed` with a
 * generic message; the detail goes to the log, never into a response. No stack trace is ever sent.
 */
import { DataError, type DataFault, type ErrorTag } from '../data/errors';
import { StorageFullError } from '../datastore/storage-full';
import { MountError } from '../mount/errors';
import { escapeNonXmlCharacters } from '../yang/types/characters';
import { parseJsonInstancePath, renderInstancePath } from '../yang/instance-path';

export type { ErrorTag } from '../data/errors';

/** RFC 8040 `error-type`: the layer at which the error happened. */
export type ErrorType = 'transport' | 'rpc' | 'protocol' | 'application';

/** One `error` entry of the envelope. */
export interface RestconfErrorEntry {
  readonly type: ErrorType;
  readonly tag: ErrorTag | string;
  readonly message: string;
  /** RFC 7951 instance-identifier of the node at fault. */
  readonly path?: string;
  readonly appTag?: string;
  /** `error-info`: free members (JSON) / child elements (XML), scalar values only. */
  readonly info?: Readonly<Record<string, string | number | boolean>>;
}

/**
 * Status of each error-tag (docs/restconf-api.md#errors). `invalid-value` is 400 except for a URI naming no schema
 * node, which callers raise with an explicit 404 (see {@link unknownResource}).
 */
export const STATUS_BY_TAG: Readonly<Record<ErrorTag, number>> = Object.freeze({
  'in-use': 409,
  'invalid-value': 400,
  'too-big': 413,
  'missing-attribute': 400,
  'bad-attribute': 400,
  'unknown-attribute': 400,
  'missing-element': 400,
  'bad-element': 400,
  'unknown-element': 400,
  'unknown-namespace': 400,
  'access-denied': 403,
  'lock-denied': 409,
  'resource-denied': 409,
  'rollback-failed': 500,
  'data-exists': 409,
  'data-missing': 404,
  'operation-not-supported': 501,
  'operation-failed': 500,
  'partial-operation': 500,
  'malformed-message': 400,
});

/** The status for a tag; unknown tags (a plugin's own) answer 500. */
export function statusOfTag(tag: string): number {
  return (STATUS_BY_TAG as Record<string, number>)[tag] ?? 500;
}

/**
 * A RESTCONF error: an HTTP status and one or more envelope entries. Handlers throw it; the error
 * middleware renders it in the negotiated encoding. Extra response headers (`Allow` on a 405) ride along.
 */
export class RestconfError extends Error {
  readonly status: number;
  readonly errors: readonly RestconfErrorEntry[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, errors: RestconfErrorEntry | readonly RestconfErrorEntry[], headers: Record<string, string> = {}) {
    const list: readonly RestconfErrorEntry[] = Array.isArray(errors) ? errors : [errors as RestconfErrorEntry];
    super(list.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; '));
    this.name = 'RestconfError';
    this.status = status;
    this.errors = list;
    this.headers = headers;
  }

  /** An error whose status follows from its tag. */
  static of(
    tag: ErrorTag,
    message: string,
    options: { type?: ErrorType; path?: string; appTag?: string; info?: RestconfErrorEntry['info'] } = {},
  ): RestconfError {
    return new RestconfError(statusOfTag(tag), { type: options.type ?? 'protocol', tag, message, ...strip(options) });
  }
}

function strip(o: { path?: string; appTag?: string; info?: RestconfErrorEntry['info'] }): Partial<RestconfErrorEntry> {
  const out: { path?: string; appTag?: string; info?: RestconfErrorEntry['info'] } = {};
  if (o.path !== undefined) out.path = o.path;
  if (o.appTag !== undefined) out.appTag = o.appTag;
  if (o.info !== undefined) out.info = o.info;
  return out;
}

// ---------------------------------------------------------------------------------------------------
// The catalogue: every error the RESTCONF layer raises itself, built in one place.

/** 400 `malformed-message`: the request cannot be read (syntax, encoding, headers). */
export function malformed(message: string, path?: string): RestconfError {
  return RestconfError.of('malformed-message', message, { type: 'rpc', ...(path ? { path } : {}) });
}

/** 400 `invalid-value` naming a query parameter (unknown parameter, bad value, wrong method). */
export function badQuery(parameter: string, message: string): RestconfError {
  return RestconfError.of('invalid-value', `query parameter '${parameter}': ${message}`, { info: { 'bad-attribute': parameter } });
}

/** 404 `invalid-value`: the URI names no schema node (docs/restconf-api.md#instance-identifiers); `segment` is the first unknown one. */
export function unknownResource(message: string, segment?: string): RestconfError {
  const entry: RestconfErrorEntry = {
    type: 'protocol',
    tag: 'invalid-value',
    message,
    ...(segment ? { info: { 'bad-element': segment } } : {}),
  };
  return new RestconfError(404, entry);
}

/** 404 `data-missing`: the schema node exists but holds no data. */
export function dataMissing(path: string): RestconfError {
  return RestconfError.of('data-missing', 'no data at the target', { type: 'application', path });
}

/** 405 on a method the resource does not allow (writes to the operational datastore, ...). */
export function methodNotAllowed(method: string, allow: readonly string[], why: string): RestconfError {
  return new RestconfError(
    405,
    { type: 'protocol', tag: 'operation-not-supported', message: `${method} is not allowed: ${why}` },
    { Allow: allow.join(', ') },
  );
}

/** 413 `too-big`: the body is larger than the configured limit. */
export function tooBig(limit: number): RestconfError {
  return RestconfError.of('too-big', `the request body is larger than the limit of ${limit} bytes`, { type: 'transport' });
}

/** 415: the request's Content-Type is not one the resource reads. */
export function unsupportedMediaType(given: string, accepted: readonly string[]): RestconfError {
  return new RestconfError(415, {
    type: 'protocol',
    tag: 'invalid-value',
    message: `unsupported Content-Type '${given}'; use one of ${accepted.join(', ')}`,
  });
}

/** 406: nothing in Accept is a type the resource can answer in. */
export function notAcceptable(given: string, offered: readonly string[]): RestconfError {
  return new RestconfError(406, {
    type: 'protocol',
    tag: 'invalid-value',
    message: `cannot answer in any type of Accept '${given}'; offered: ${offered.join(', ')}`,
  });
}

/** 501 `operation-not-supported`: no plugin implements an operation. */
export function notImplemented(operation: string): RestconfError {
  return RestconfError.of('operation-not-supported', `no plugin implements '${operation}'`, { type: 'application' });
}

/** 500 `operation-failed` with a message that reveals nothing of the cause (which is logged). */
export function internalError(): RestconfError {
  return RestconfError.of('operation-failed', 'internal error; the cause is in the service log', { type: 'application' });
}

// ---------------------------------------------------------------------------------------------------
// Conversion

/** One data fault as an envelope entry (validation and codec faults are `application` errors). */
export function entryOfFault(f: DataFault, type: ErrorType = 'application'): RestconfErrorEntry {
  const entry: { type: ErrorType; tag: ErrorTag; message: string; path?: string; appTag?: string } = {
    type,
    tag: f.tag,
    message: f.message,
  };
  if (f.path !== '/' && f.path !== '') entry.path = f.path;
  if (f.appTag !== undefined) entry.appTag = f.appTag;
  return entry;
}

/** A DataError as a RestconfError: 507 when the data directory's disk is full, else as fromFaults. */
export function fromDataError(e: DataError): RestconfError {
  if (!(e instanceof StorageFullError)) return fromFaults(e.faults);
  const entries = e.faults.map((f) => entryOfFault(f));
  return new RestconfError(507, entries);
}

/** A DataError (or a list of faults) as a RestconfError; the status is that of the first fault's tag. */
export function fromFaults(faults: readonly DataFault[]): RestconfError {
  const first = faults[0];
  const status = first === undefined ? 500 : statusOfTag(first.tag);
  // A body that cannot be read is an `rpc`-layer error; faults of the data itself are `application`.
  return new RestconfError(
    status,
    faults.map((f) => entryOfFault(f, f.tag === 'malformed-message' ? 'rpc' : 'application')),
  );
}

/**
 * Whatever a handler threw, as a RestconfError. Unknown errors become a generic 500 and are passed
 * to `log` with their stack, the only place the detail goes.
 */
export function toRestconfError(err: unknown, log: (message: string) => void): RestconfError {
  if (err instanceof RestconfError) return err;
  if (err instanceof DataError) return fromDataError(err);
  if (err instanceof MountError) return new RestconfError(err.status, err.entries);
  const bodyParser = bodyParserError(err);
  if (bodyParser !== undefined) return bodyParser;
  log(`unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return internalError();
}

/** Errors raised by Node/express while reading a request (aborted, bad encoding, too large). */
function bodyParserError(err: unknown): RestconfError | undefined {
  if (err instanceof URIError) return malformed('bad percent-encoding in the request URI');
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { type?: unknown; status?: unknown; limit?: unknown };
  if (e.type === 'entity.too.large') return tooBig(typeof e.limit === 'number' ? e.limit : 0);
  if (e.type === 'request.aborted') return malformed('the request was aborted before its body was complete');
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')
    return new RestconfError(415, { type: 'protocol', tag: 'invalid-value', message: 'unsupported content encoding or charset' });
  return undefined;
}

// ---------------------------------------------------------------------------------------------------
// Rendering

function jsonEntry(e: RestconfErrorEntry): Record<string, unknown> {
  const out: Record<string, unknown> = { 'error-type': e.type, 'error-tag': e.tag };
  if (e.appTag !== undefined) out['error-app-tag'] = e.appTag;
  if (e.path !== undefined) out['error-path'] = e.path;
  out['error-message'] = e.message;
  if (e.info !== undefined) out['error-info'] = e.info;
  return out;
}

/** The envelope as `ietf-restconf:errors` JSON (RFC 8040 §7.1). */
export function renderErrorsJson(errors: readonly RestconfErrorEntry[]): string {
  return JSON.stringify({ errors: { error: errors.map(jsonEntry) } });
}

/** Text for the XML envelope; a refused value a message or path quotes may hold characters XML cannot carry. */
function escapeXml(s: string): string {
  return escapeNonXmlCharacters(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Error-info member names become element names; anything that is not an XML name is made one. */
function xmlName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

/**
 * An RFC 7951 (JSON) instance path in its XML form (RFC 7950 §9.13.2): every node and key name
 * carries its module as prefix (the prefixes the error-path element declares are module names). A
 * path not in the canonical JSON form the core writes (a device's own error-path, already prefixed)
 * is passed on as it came.
 */
export function xmlInstancePath(path: string): string {
  const parsed = parseJsonInstancePath(path);
  if (!parsed.ok || renderInstancePath(parsed.path) !== path) return path;
  return renderInstancePath(parsed.path, { kind: 'xml', prefixFor: (module) => module });
}

/**
 * The envelope as XML. The error-path is an instance-identifier whose prefixes are module names, so
 * each module it names is declared on `error-path` with its namespace (as RFC 8040 requires).
 */
export function renderErrorsXml(errors: readonly RestconfErrorEntry[], namespaceOf: (module: string) => string | undefined): string {
  let out = '<errors xmlns="urn:ietf:params:xml:ns:yang:ietf-restconf">';
  for (const e of errors) {
    out += `<error><error-type>${e.type}</error-type><error-tag>${escapeXml(e.tag)}</error-tag>`;
    if (e.appTag !== undefined) out += `<error-app-tag>${escapeXml(e.appTag)}</error-app-tag>`;
    if (e.path !== undefined) {
      let decls = '';
      for (const module of new Set([...e.path.matchAll(/\/([A-Za-z_][A-Za-z0-9_.-]*):/g)].map((m) => m[1]!))) {
        const ns = namespaceOf(module);
        if (ns !== undefined) decls += ` xmlns:${module}="${escapeXml(ns)}"`;
      }
      out += `<error-path${decls}>${escapeXml(xmlInstancePath(e.path))}</error-path>`;
    }
    out += `<error-message>${escapeXml(e.message)}</error-message>`;
    if (e.info !== undefined) {
      out += '<error-info>';
      for (const [k, v] of Object.entries(e.info)) out += `<${xmlName(k)}>${escapeXml(String(v))}</${xmlName(k)}>`;
      out += '</error-info>';
    }
    out += '</error>';
  }
  return `${out}</errors>`;
}
