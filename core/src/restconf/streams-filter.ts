/**
 * The `filter` parameter of a stream subscription (RFC 8040 §4.8.4): an XPath 1.0 expression, evaluated
 * with the core's XPath engine (yang/xpath/) once per event over the event's notification content; the
 * event is sent when the expression's boolean value is true.
 *
 * How the content is seen: as a schema-less element tree built from its RFC 7951 JSON, not decoded
 * with the schema. A device's notification (the `NETCONF` streams) is in the device's modules, which the
 * local schema does not hold, and inside `anydata`; a schema-less tree lets a filter reach into it the
 * same way. Each JSON member is an element named by its local name and in the module its prefix names
 * (or its parent's); an array of objects is a list of entries, an array of values a leaf-list; a scalar
 * is a leaf whose string-value is its JSON text. The context node is the root above the content's
 * top-level members, so `/rosetta-events:node-status[status='connected']` and
 * `node-status/status = 'connected'` both select connected events.
 *
 * Names: a prefix is a module name (as RFC 7951 writes them) or the prefix a module of the local schema
 * declares; a name without a prefix matches an element of any module, so a client need not know which
 * module a device's notification comes from.
 */
import type { JsonObject } from '../hooks';
import type { StreamEvent } from '../events/types';
import type { DataNode, DataRoot } from '../data/tree';
import type { SchemaContext } from '../yang/schema';
import { XNode, XPathSession, describeSyntaxError, evaluate, parseXPath, toBoolean, type EvalEnv, type Expr } from '../yang/xpath';
import { XPathEvalFault } from '../yang/xpath/eval-context';
import { badQuery } from './errors';

/** The schema a schema-less element stands in for: only what XPath reads (name, module, leaf type). */
interface ElementSchema {
  readonly name: string;
  readonly module: { readonly name: string; readonly namespace: string };
  readonly type: { readonly builtin: 'string' };
  readonly keys: readonly never[];
}

const schemas = new Map<string, ElementSchema>();

/** One schema stand-in per module and name, shared by every event (they hold no data). */
function elementSchema(module: string, name: string): ElementSchema {
  const key = `${module}:${name}`;
  let s = schemas.get(key);
  if (s === undefined) {
    if (schemas.size > 10_000) schemas.clear(); // device notifications bring their own names; keep the cache bounded
    s = { name, module: { name: module, namespace: '' }, type: { builtin: 'string' }, keys: [] };
    schemas.set(key, s);
  }
  return s;
}

/** A JSON scalar as a leaf value (numbers, booleans and strings as the JSON gave them; `[null]` is empty). */
function scalar(value: unknown): string | number | boolean | null {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value) && value.length === 1 && value[0] === null) return null;
  return value === null ? null : JSON.stringify(value);
}

/** The elements one JSON object's members make, in the module `inherited` unless a member names its own. */
function elements(object: JsonObject, inherited: string, modules: Set<string>): DataNode[] {
  const out: DataNode[] = [];
  for (const [member, value] of Object.entries(object)) {
    if (member.startsWith('@')) continue; // RFC 7952 metadata, not content
    const colon = member.indexOf(':');
    const module = colon < 0 ? inherited : member.slice(0, colon);
    modules.add(module);
    const schema = elementSchema(module, colon < 0 ? member : member.slice(colon + 1)) as never;
    if (Array.isArray(value) && !(value.length === 1 && value[0] === null)) {
      if (value.every((v) => v !== null && typeof v === 'object' && !Array.isArray(v))) {
        const entries = value.map((v) => ({ kind: 'entry' as const, schema, children: elements(v as JsonObject, module, modules) }));
        out.push({ kind: 'list', schema, entries });
      } else {
        out.push({ kind: 'leaf-list', schema, values: value.map(scalar) });
      }
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out.push({ kind: 'container', schema, children: elements(value as JsonObject, module, modules) });
    } else {
      out.push({ kind: 'leaf', schema, value: scalar(value) });
    }
  }
  return out;
}

interface ElementTree {
  readonly root: DataRoot;
  /** Every module an element of the tree is in: a name without prefix matches any of them. */
  readonly modules: ReadonlySet<string>;
}

/** The element tree of each event's content, built once however many filtering subscribers read it. */
const trees = new WeakMap<JsonObject, ElementTree>();

function elementTree(content: JsonObject): ElementTree {
  let tree = trees.get(content);
  if (tree === undefined) {
    const modules = new Set<string>();
    tree = { root: { kind: 'root', children: elements(content, '', modules) }, modules };
    trees.set(content, tree);
  }
  return tree;
}

/** A compiled `filter`: tells whether an event's content passes it. */
export type EventFilter = (event: StreamEvent) => boolean;

/**
 * Parses `filter` and answers the test it makes. A syntax error, or a fault the expression makes on any
 * content (an unknown function, a wrong number of arguments: tried once on empty content), is 400
 * naming the parameter. An event on which evaluation faults does not pass.
 */
export function compileEventFilter(source: string, schema: SchemaContext): EventFilter {
  const parsed = parseXPath(source);
  if ('error' in parsed) throw badQuery('filter', describeSyntaxError(source, parsed.error));
  const expr = parsed.expr;
  const prefixes = new Map<string, string>();
  for (const m of schema.modules.values()) if (!prefixes.has(m.prefix)) prefixes.set(m.prefix, m.name);
  const resolvePrefix = (prefix: string): string => (schema.modules.has(prefix) ? prefix : (prefixes.get(prefix) ?? prefix));
  const fault = evaluateOn(expr, {}, schema, resolvePrefix);
  if (typeof fault === 'string') throw badQuery('filter', `XPath "${source}": ${fault}`);
  return (event) => evaluateOn(expr, event.content, schema, resolvePrefix) === true;
}

/** The expression's boolean value over `content`, or the fault's reason. */
function evaluateOn(expr: Expr, content: JsonObject, schema: SchemaContext, resolvePrefix: (prefix: string) => string): boolean | string {
  const { root, modules } = elementTree(content);
  const node = XNode.root(root);
  const env: EvalEnv = {
    ctx: schema,
    current: node,
    session: new XPathSession(),
    contextModule: undefined,
    resolvePrefix,
    defaultModules: [...modules, ''],
    evaluate,
  };
  try {
    return toBoolean(evaluate(expr, { node, position: 1, size: 1 }, env));
  } catch (e) {
    if (e instanceof XPathEvalFault) return e.reason;
    throw e;
  }
}
