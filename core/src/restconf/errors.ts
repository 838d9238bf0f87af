/**
 * The RESTCONF layer's errors (RFC 8040 §7, docs/restconf-api.md#errors): the named errors every handler
 * raises, the conversion of whatever a handler threw into the envelope's entries, and the error envelope
 * in JSON and XML. Every error is the one fault type (`fault/fault.ts`) and its status comes from the one
 * tag -> status catalogue (`fault/status.ts`); a RestconfError is that fault with every entry ready to
 * render (its error-type resolved, a data fault's whole-document path `/` left out).
 *
 * Unexpected errors (a bug, a plugin that threw something odd) answer 500 `operation-failed` with a
 * generic message; the detail goes to the log, never into a response. No stack trace is ever sent.
 */
import { DataError, type DataFault, type ErrorTag } from '../data/errors';
import { FaultError, statusOfTag, typeOfFault, type ErrorType, type Fault } from '../fault';
import { escapeNonXmlCharacters } from '../yang/types/characters';
import { escapeXmlText } from '../data/xml-escape';
import { parseJsonInstancePath, renderInstancePath } from '../yang/instance-path';

export type { ErrorTag, ErrorType } from '../fault';
export { STATUS_BY_TAG, statusOfTag } from '../fault';

/** One `error` entry of the envelope: a fault with its error-type. */
export interface RestconfErrorEntry extends Fault {
  readonly type: ErrorType;
}

/**
 * A RESTCONF error: an HTTP status and one or more envelope entries. Handlers throw it; the error
 * middleware renders it in the negotiated encoding. Extra response headers (`Allow` on a 405) ride along.
 */
export class RestconfError extends FaultError {
  declare readonly faults: readonly RestconfErrorEntry[];

  constructor(status: number, errors: RestconfErrorEntry | readonly RestconfErrorEntry[], headers: Record<string, string> = {}) {
    super(errors, { status, headers });
    this.name = 'RestconfError';
  }

  /** The entries, by the envelope's name for them. */
  get errors(): readonly RestconfErrorEntry[] {
    return this.faults;
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
// The named errors the RESTCONF layer raises itself, built in one place.

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

/** One fault as an envelope entry: its error-type resolved, a whole-document path (`/`) left out. */
export function entryOfFault(f: Fault): RestconfErrorEntry {
  const entry: { type: ErrorType; tag: string; message: string; path?: string; appTag?: string; info?: Fault['info'] } = {
    type: typeOfFault(f),
    tag: f.tag,
    message: f.message,
  };
  if (f.path !== undefined && f.path !== '/' && f.path !== '') entry.path = f.path;
  if (f.appTag !== undefined) entry.appTag = f.appTag;
  if (f.info !== undefined) entry.info = f.info;
  return entry;
}

/** A fault error of any layer as a RestconfError, keeping its status and headers. */
export function fromFaultError(e: FaultError): RestconfError {
  if (e instanceof RestconfError) return e;
  return new RestconfError(e.status, e.faults.map(entryOfFault), { ...e.headers });
}

/** A DataError as a RestconfError (507 when the data directory's disk is full). */
export function fromDataError(e: DataError): RestconfError {
  return fromFaultError(e);
}

/** A list of data faults as a RestconfError; the status is that of the first fault's tag. */
export function fromFaults(faults: readonly DataFault[]): RestconfError {
  return fromFaultError(new DataError(faults));
}

/**
 * Whatever a handler threw, as a RestconfError. Unknown errors become a generic 500 and are passed
 * to `log` with their stack, the only place the detail goes.
 */
export function toRestconfError(err: unknown, log: (message: string) => void): RestconfError {
  if (err instanceof FaultError) return fromFaultError(err);
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
/**
 * Error text in XML: the one escaping, after characters XML cannot hold are made visible (a message may
 * quote any input); `"` too, as error bodies always wrote it.
 */
function escapeXml(s: string): string {
  return escapeXmlText(escapeNonXmlCharacters(s)).replace(/"/g, '&quot;');
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
