/**
 * RFC 7951 JSON -> data tree. The text is parsed by `JSON.parse` (native, iterative, so no input depth
 * can overflow the stack) and the parsed value is walked against the schema: every member must name a
 * schema child, every leaf value must pass its type. The walk recurses only where the schema nests,
 * and YANG schemas are finite and not recursive, so its depth is bounded by the schema; anydata
 * content is kept as parsed, without walking it.
 *
 * Speed (100,000-entry list, decode+validate ~2.5-3x JSON.parse): each schema node's children are
 * resolved through a `Members` table made once (shape, canonical order, compiled value codec; also
 * used by xml-decode.ts), so a member costs one map lookup and one allocation-free codec call
 * (`jsonValue`); children are copied out of a per-depth scratch array at their exact size; leaves of
 * types with few values share one frozen node per value (`sharedLeaf`); list keys are checked for
 * repeats once a list is read (`checkKeys`: a table of positions; the index is left for the first
 * lookup); entries of a document parsed here are dropped from it once decoded, so they die young.
 * While building, the decoder counts what validation would otherwise re-check per entry and records
 * what it proved (decode-proof.ts), so validating the result skips those entries.
 *
 * Attributes follow docs/restconf-api.md#attributes-in-json: an `@` object on containers and list entries, `{"@":..,"#":v}` for
 * leaves, leaf-lists, lists and single leaf-list values.
 *
 * Fault choices: unknown member -> `unknown-element`; bad value -> `invalid-value`; a list entry
 * without a key -> `missing-element`; two entries with one key, or a config leaf-list value given twice
 * -> `invalid-value` (a fault of the document itself, 400, not a conflict with stored data, so not
 * `data-exists`); state data where only configuration is allowed -> `invalid-value`; bad JSON ->
 * `malformed-message` with line and column, and so is an object holding one member twice (json-syntax.ts).
 * The first fault stops decoding.
 *
 * Why this file is longer than 400 lines: the JSON decoder is one walk whose steps share one document's
 * state on the hot path of every write (the per-depth scratch arrays, the key tables, the proof counters
 * of decode-proof.ts); split, that state would travel as parameters through every call.
 */
import type { CompiledModule, SchemaContext, SchemaNode, ListSchema, LeafSchema, LeafListSchema } from '../yang/schema';
import { checkAttributes, type AttributeOptions } from './attributes';
import { childTable, tableFor, type ChildTable } from './children';
import { ListProof, listPlan, recordListProof, requiredCount, type ProofMode } from './decode-proof';
import { DataError, fault, type ErrorTag } from './errors';
import { JsonBodyError, parseJsonBody } from './json-syntax';
import { INVALID, leafCodec, type Codec } from './leaf-values';
import { holdsNonXmlCharacter, nonXmlCharacterMessage } from '../yang/types/characters';
import { detached } from '../yang/types/detached';
import { firstRepeatedKey, keyBytesOver, keyString, keyTooLongMessage } from './list';
import { entryKeyValues, instancePath, valueText, type PathSegment } from './path';
import type {
  AnyNode,
  Attributes,
  ContainerNode,
  DataNode,
  DataRoot,
  LeafListNode,
  LeafNode,
  LeafValue,
  ListEntryNode,
  ListNode,
} from './tree';

/** How and where a JSON document is read. */
export interface DecodeOptions extends AttributeOptions {
  /**
   * The schema node whose children the document's top-level members are (a RESTCONF target's node
   * for PUT/PATCH bodies, or its parent; an rpc/action for `input`/`output`). Omitted: the top level
   * of the schema context, where members are module-qualified top-level nodes.
   */
  readonly parent?: SchemaNode;
  /** Instance path of that parent, prefixed to every error path. */
  readonly parentPath?: string;
  /**
   * XML only: the top-level elements are the schema context's notifications (RFC 7950 §7.16: a device's
   * `<notification>` content), not data nodes. Ignored with `parent`.
   */
  readonly notifications?: boolean;
  /** Whether `config false` nodes may appear (default true; false for configuration writes). */
  readonly allowState?: boolean;
  /** Drops members (XML: elements) that name no schema node, with their content, instead of `unknown-element`. */
  readonly skipUnknown?: boolean;
  /** Drops members of the schema nodes this answers true for, with their content (schema filters on writes). */
  readonly skip?: (schema: SchemaNode) => boolean;
  /**
   * XML only: leaf values may stay views into the document's text (see yang/types/detached.ts), 20-35%
   * faster on a list of long strings; only for a tree that does not outlive the document. By default
   * they are copies, as JSON.parse makes them, so a stored tree keeps none of its document alive.
   */
  readonly views?: boolean;
  /**
   * Longest string list key accepted, in UTF-8 bytes (`invalid-value` naming the key past it). RESTCONF
   * bodies set it (restconf/request-limits.ts) so that every entry a client creates has a usable URI.
   */
  readonly keyLimit?: number;
  /**
   * Anydata content is this service's own (a device configuration it encoded from a checked tree), so
   * its depth and characters are not checked again: storing a fleet's configurations walked each one
   * whole, twice per install, for nothing.
   */
  readonly anydataChecked?: boolean;
}

/** What a document decodes to: its top-level nodes, and the one node when there is exactly one. */
export interface Decoded {
  readonly root: DataRoot;
  readonly node: DataNode | undefined;
}

type JsonObject = Record<string, unknown>;

/**
 * Deepest anydata content accepted. Content is kept as parsed, but writing it (JSON.stringify, the
 * XML writer) recurses, so depth is capped where it enters the tree.
 */
export const MAX_ANYDATA_DEPTH = 512;

/**
 * What is wrong with anydata content (a JSON value, as parsed or as xml-decode.ts builds it), checked
 * without recursion: nesting deeper than MAX_ANYDATA_DEPTH (`malformed-message`, as XML deeper than its
 * bound is), or a string or member name holding a character no YANG string may hold (`invalid-value`).
 */
export function anydataFault(value: unknown): { tag: ErrorTag; message: string } | undefined {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v === 'string') {
      if (holdsNonXmlCharacter(v)) return { tag: 'invalid-value', message: `anydata content is refused: ${nonXmlCharacterMessage(v)}` };
      continue;
    }
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= MAX_ANYDATA_DEPTH)
      return { tag: 'malformed-message', message: `anydata content nests deeper than ${MAX_ANYDATA_DEPTH} levels` };
    if (Array.isArray(v)) {
      for (const child of v) stack.push([child, depth + 1]);
      continue;
    }
    for (const name in v) {
      if (holdsNonXmlCharacter(name))
        return { tag: 'invalid-value', message: `anydata member name is refused: ${nonXmlCharacterMessage(name)}` };
      stack.push([(v as JsonObject)[name], depth + 1]);
    }
  }
  return undefined;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export { lineColumn } from './json-syntax';

/**
 * Parses JSON text (`parseJsonBody`: a syntax fault or a member given twice refused), turning a refusal
 * into `malformed-message` with its line and column.
 */
export function parseJsonText(text: string): unknown {
  try {
    return parseJsonBody(text);
  } catch (e) {
    if (!(e instanceof JsonBodyError)) throw e;
    throw new DataError(fault('malformed-message', '/', e.message));
  }
}

/** What kind of node a member decodes to, decided once per schema node. */
export const enum Shape {
  Leaf,
  LeafList,
  List,
  Container,
  Any,
  Other,
}

/**
 * How one child decodes under one parent: its schema node, canonical order, shape and, for leaves,
 * the compiled value codec. Made once per schema node (schemas are immutable once compiled), so the
 * walk does one map lookup per member and no per-value cache lookups.
 */
export interface Member {
  readonly schema: SchemaNode;
  readonly order: number;
  readonly shape: Shape;
  readonly codec: Codec | undefined;
  readonly module: CompiledModule;
  /** A mandatory leaf or anydata: decoders count these against their parent's `required*` (see decode-proof.ts). */
  readonly mandatory: boolean;
  /** The members of this node's own children (containers, lists), filled in on first use. */
  children: Members | undefined;
  /** For a leaf whose type has few values: one frozen node per value, shared by every instance (see `sharedLeaf`). */
  readonly shared: Map<LeafValue, LeafNode> | undefined;
}

/** Built-in types whose values are a small fixed set named by the model, so a node per value can be shared. */
const FEW_VALUES = new Set(['boolean', 'enumeration', 'identityref', 'empty']);

/**
 * The leaf node of `member` holding `value`. Leaves of a type with few values (boolean, enumeration,
 * identityref, empty) share one frozen node per value: trees are immutable once built and carry no
 * parent pointers, so a node may sit in many places, and a 100,000-entry list then allocates (and
 * the garbage collector copies) two objects fewer per entry for an `enabled` and a `type`.
 */
export function sharedLeaf(member: Member, value: LeafValue): LeafNode {
  const shared = member.shared;
  if (shared === undefined) return { kind: 'leaf', schema: member.schema as LeafSchema, value };
  let node = shared.get(value);
  if (node === undefined) {
    // kept for the life of the schema: a value cut from an XML document must not keep the document
    const own = typeof value === 'string' ? detached(value) : value;
    node = Object.freeze({ kind: 'leaf', schema: member.schema as LeafSchema, value: own }) as LeafNode;
    shared.set(own, node);
  }
  return node;
}

/** The members of a container's or list's children, cached on its member. */
export function childMembers(member: Member): Members {
  return (member.children ??= membersOf(childTable(member.schema)));
}

/**
 * The members of one parent by the names a JSON document may use (see children.ts), by XML
 * namespace and local name, and by schema node. Shared by the JSON and XML decoders.
 */
export interface Members {
  readonly byName: ReadonlyMap<string, Member>;
  readonly byNamespace: ReadonlyMap<string, ReadonlyMap<string, Member>>;
  readonly bySchema: ReadonlyMap<SchemaNode, Member>;
  /**
   * How many mandatory members every instance of the parent holds, validating as configuration / as
   * data; -1 when a decoder cannot prove an instance of it (see decode-proof.ts `requiredCount`).
   */
  readonly requiredConfig: number;
  readonly requiredData: number;
}

const memberTables = new WeakMap<ChildTable, Members>();

function shapeOf(schema: SchemaNode): Shape {
  switch (schema.kind) {
    case 'leaf':
      return Shape.Leaf;
    case 'leaf-list':
      return Shape.LeafList;
    case 'list':
      return Shape.List;
    case 'container':
    case 'input':
    case 'output':
    case 'notification':
      return Shape.Container;
    case 'anydata':
    case 'anyxml':
      return Shape.Any;
    default:
      return Shape.Other;
  }
}

/** The members of a child table, made on first use and cached. */
export function membersOf(table: ChildTable): Members {
  let members = memberTables.get(table);
  if (members === undefined) {
    const bySchema = new Map<SchemaNode, Member>();
    for (const [schema, slot] of table.bySchema) {
      const shape = shapeOf(schema);
      const codec = shape === Shape.Leaf || shape === Shape.LeafList ? leafCodec((schema as LeafSchema | LeafListSchema).type) : undefined;
      const mandatory = (shape === Shape.Leaf || shape === Shape.Any) && (schema as LeafSchema).mandatory;
      const shared =
        shape === Shape.Leaf && FEW_VALUES.has((schema as LeafSchema).type.builtin) ? new Map<LeafValue, LeafNode>() : undefined;
      bySchema.set(schema, { schema, order: slot.order, shape, codec, module: schema.module, mandatory, children: undefined, shared });
    }
    const byName = new Map<string, Member>();
    for (const [name, slot] of table.byName) byName.set(name, bySchema.get(slot.schema)!);
    const byNamespace = new Map<string, Map<string, Member>>();
    for (const [ns, locals] of table.byNamespace) {
      byNamespace.set(ns, new Map([...locals].map(([local, slot]) => [local, bySchema.get(slot.schema)!])));
    }
    const children = [...bySchema.keys()];
    members = {
      byName,
      byNamespace,
      bySchema,
      requiredConfig: requiredCount(children, 'config'),
      requiredData: requiredCount(children, 'data'),
    };
    memberTables.set(table, members);
  }
  return members;
}

class JsonDecoder {
  /**
   * Where the walk stands, for error paths: the schema node of each level and, for list entries, the
   * raw entry (its keys name it). Two parallel arrays rather than an object per level: no allocation
   * per node on the hot path. Leaves are not pushed; their faults name them explicitly.
   */
  private readonly trailSchemas: SchemaNode[] = [];
  private readonly trailEntries: (JsonObject | KnownKeys | undefined)[] = [];
  private readonly allowState: boolean;
  /** The validation mode this decoder's proofs serve (see decode-proof.ts). */
  private readonly mode: ProofMode;
  /** Number of inner nodes decoded so far that lack a mandatory member (their lists get no complete proof). */
  private unproven = 0;
  /** One reusable array per depth where an object's children gather (see `members`). */
  private readonly scratch: DataNode[][] = [];

  /**
   * @param ownsDocument the parsed document is the decoder's own (parsed from text here), so list
   *   entries may be dropped from it once decoded: they then die young instead of being copied by
   *   every garbage collection while the rest of a large list is read.
   */
  constructor(
    private readonly ctx: SchemaContext,
    private readonly options: DecodeOptions,
    private readonly ownsDocument: boolean,
  ) {
    this.allowState = options.allowState ?? true;
    this.mode = this.allowState ? 'data' : 'config';
  }

  decode(doc: unknown): Decoded {
    if (!isObject(doc)) throw this.fail('malformed-message', 'a JSON object is expected at the top of the document');
    const table = tableFor(this.options.parent, this.ctx);
    const root: DataRoot = { kind: 'root', children: [] };
    this.members(doc, membersOf(table), root, false);
    return { root, node: root.children.length === 1 ? root.children[0] : undefined };
  }

  /** Path of the current position, plus an optional member name not yet resolved. */
  private path(extra?: string): string {
    const segments: PathSegment[] = this.trailSchemas.map((schema, i) => {
      const entry = this.trailEntries[i];
      if (entry === undefined) return { schema };
      return { schema, keys: entry instanceof KnownKeys ? entry.values : this.rawKeys(schema as ListSchema, entry) };
    });
    const parentModule = this.options.parent?.module.name;
    let out = instancePath(segments, this.options.parentPath ?? '', parentModule);
    if (extra !== undefined) out = `${out === '/' ? '' : out}/${extra}`;
    return out;
  }

  /** Key values of an entry as written, for paths of faults found before the entry is built. */
  private rawKeys(list: ListSchema, entry: JsonObject): LeafValue[] {
    return list.keys.map((k) => {
      const raw = entry[k.name] ?? entry[`${k.module.name}:${k.name}`];
      return typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean' ? raw : '';
    });
  }

  private fail(tag: ErrorTag, message: string, extra?: string): DataError {
    return new DataError(fault(tag, this.path(extra), message));
  }

  /** A fault of a node not on the trail (a leaf, or a child refused before it is entered). */
  private failAt(schema: SchemaNode, tag: ErrorTag, message: string): DataError {
    this.trailSchemas.push(schema);
    this.trailEntries.push(undefined);
    return this.fail(tag, message);
  }

  /**
   * Decodes the members of one JSON object into `out` (children of one parent), keeping the
   * canonical child order. Returns the object's `@` member when `attributed` allows one.
   */
  private members(obj: JsonObject, members: Members, holder: { children: DataNode[] }, attributed: boolean): Attributes | undefined {
    let attributes: Attributes | undefined;
    let lastOrder = -Infinity;
    let sorted = true;
    const byName = members.byName;
    // Children gather in a scratch array of this depth and are copied out at their exact size: an
    // array grown by push keeps room for 16, which for small list entries doubles what the tree holds.
    const depth = this.trailSchemas.length;
    const out = this.scratch[depth] ?? (this.scratch[depth] = []);
    let count = 0;
    let mandatory = 0;
    for (const name in obj) {
      const raw = obj[name];
      const member = byName.get(name);
      if (member === undefined) {
        if (name === '@' && attributed) {
          attributes = this.attributes(raw);
          continue;
        }
        if (this.options.skipUnknown === true) continue;
        throw this.fail('unknown-element', `unknown element '${name}'`, name);
      }
      const schema = member.schema;
      if (this.options.skip?.(schema)) continue;
      if (!this.allowState && !schema.config) throw this.fail('invalid-value', `state data '${name}' is not allowed here`, name);
      let node: DataNode | undefined;
      switch (member.shape) {
        case Shape.Leaf:
          node = this.leaf(member, raw);
          break;
        case Shape.LeafList:
          node = this.enter(member, raw);
          break;
        case Shape.List:
          node = this.enter(member, raw);
          break;
        case Shape.Container:
          node = this.enter(member, raw);
          break;
        case Shape.Any:
          node = this.enter(member, raw);
          break;
        default:
          throw this.failAt(schema, 'unknown-element', `'${schema.name}' (${schema.kind}) cannot appear in data`);
      }
      if (node === undefined) continue;
      if (member.order < lastOrder) sorted = false;
      lastOrder = member.order;
      if (member.mandatory) mandatory++;
      out[count++] = node;
    }
    if (mandatory !== (this.allowState ? members.requiredData : members.requiredConfig)) this.unproven++;
    const children: DataNode[] = out.slice(0, count);
    out.fill(undefined as unknown as DataNode, 0, count); // the scratch must not keep the tree alive
    if (!sorted) children.sort((a, b) => members.bySchema.get(a.schema)!.order - members.bySchema.get(b.schema)!.order);
    holder.children = children;
    return attributes;
  }

  /** Decodes a node below which faults need the node on the trail. */
  private enter(member: Member, raw: unknown): DataNode | undefined {
    const schema = member.schema;
    this.trailSchemas.push(schema);
    this.trailEntries.push(undefined);
    let node: DataNode | undefined;
    switch (member.shape) {
      case Shape.LeafList:
        node = this.leafList(member, raw);
        break;
      case Shape.List:
        node = this.list(member, raw);
        break;
      case Shape.Any: {
        const refused = this.options.anydataChecked === true ? undefined : anydataFault(raw);
        if (refused !== undefined) throw this.fail(refused.tag, refused.message);
        node = { kind: 'any', schema: schema as AnyNode['schema'], value: raw } satisfies AnyNode;
        break;
      }
      default:
        node = this.container(member, raw);
        break;
    }
    this.trailSchemas.pop();
    this.trailEntries.pop();
    return node;
  }

  private container(member: Member, raw: unknown): ContainerNode {
    if (!isObject(raw)) throw this.fail('invalid-value', `${describe(raw)} where a container (JSON object) is expected`);
    const node: ContainerNode = { kind: 'container', schema: member.schema as ContainerNode['schema'], children: [] };
    const attributes = this.members(raw, childMembers(member), node, true);
    if (attributes !== undefined) node.attributes = attributes;
    return node;
  }

  private list(member: Member, raw: unknown): ListNode | undefined {
    const schema = member.schema as ListSchema;
    let attributes: Attributes | undefined;
    let items = raw;
    if (isObject(raw)) {
      ({ attributes, value: items } = this.wrapped(raw));
    }
    if (!Array.isArray(items)) throw this.fail('invalid-value', `${describe(items)} where a list (JSON array) is expected`);
    if (items.length === 0 && attributes === undefined) return undefined;
    const node: ListNode = { kind: 'list', schema, entries: new Array(items.length) };
    if (attributes !== undefined) node.attributes = attributes;
    const members = childMembers(member);
    const keys = schema.keys;
    // Keys are gathered here and checked for repeats once the list is read (see `checkKeys`).
    const keyStrings: string[] | undefined = keys.length > 0 ? new Array(items.length) : undefined;
    const level = this.trailEntries.length - 1;
    const unprovenBefore = this.unproven;
    let done = 0;
    try {
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        if (!isObject(item)) throw this.fail('invalid-value', `${describe(item)} where a list entry (JSON object) is expected`);
        this.trailEntries[level] = item;
        const entry: ListEntryNode = { kind: 'entry', schema, children: [] };
        const entryAttributes = this.members(item, members, entry, true);
        if (entryAttributes !== undefined) entry.attributes = entryAttributes;
        if (keyStrings !== undefined) keyStrings[i] = this.entryKey(entry, keys);
        node.entries[i] = entry;
        if (this.ownsDocument) items[i] = undefined;
        done = i + 1;
      }
    } catch (e) {
      // A fault further on: a duplicate among the entries before it comes first in the document.
      if (keyStrings !== undefined && e instanceof DataError) this.checkKeys(node, keyStrings, done, level);
      throw e;
    }
    this.trailEntries[level] = undefined;
    if (keyStrings !== undefined) this.checkKeys(node, keyStrings, items.length, level);
    const complete = this.unproven === unprovenBefore && listPlan(schema, this.mode).plain;
    recordListProof(node, this.mode, complete ? ListProof.Complete : keys.length > 0 ? ListProof.Keys : ListProof.None);
    return node;
  }

  /**
   * Throws the fault of the first of a list's first `count` entries (trail level `level`) whose key an
   * earlier one has. The list's index is left for its first lookup to build (see `firstRepeatedKey`).
   */
  private checkKeys(list: ListNode, keyStrings: readonly string[], count: number, level: number): void {
    const at = firstRepeatedKey(keyStrings, count);
    if (at < 0) return;
    this.trailSchemas.length = this.trailEntries.length = level + 1;
    this.trailEntries[level] = new KnownKeys(entryKeyValues(list.entries[at]!));
    throw this.fail('invalid-value', `duplicate entry of list '${list.schema.name}' with key ${valueText(keyStrings[at]!)}`);
  }

  /** The key string of a decoded entry (its keys are first, in key order, once sorted). */
  private entryKey(entry: ListEntryNode, keys: readonly LeafSchema[]): string {
    const limit = this.options.keyLimit;
    if (keys.length === 1) {
      const child = entry.children[0];
      if (child === undefined || child.schema !== keys[0])
        throw this.fail('missing-element', `list entry lacks its key '${keys[0]!.name}'`);
      const value = (child as LeafNode).value;
      if (limit !== undefined) this.checkKeyLength(keys[0]!, value, limit);
      return valueText(value);
    }
    const values: LeafValue[] = new Array(keys.length);
    for (let k = 0; k < keys.length; k++) {
      const child = entry.children[k];
      if (child === undefined || child.schema !== keys[k]) {
        throw this.fail('missing-element', `list entry lacks its key '${keys[k]!.name}'`);
      }
      values[k] = (child as LeafNode).value;
      if (limit !== undefined) this.checkKeyLength(keys[k]!, values[k]!, limit);
    }
    return keyString(values);
  }

  /** Refuses a key value over `limit` bytes, naming the key under its list (not the entry, whose name would quote it whole). */
  private checkKeyLength(key: LeafSchema, value: LeafValue, limit: number): void {
    const bytes = keyBytesOver(value, limit);
    if (bytes < 0) return;
    this.trailEntries[this.trailEntries.length - 1] = undefined;
    throw this.failAt(key, 'invalid-value', keyTooLongMessage(key.name, bytes, limit));
  }

  private leaf(member: Member, raw: unknown): LeafNode {
    const schema = member.schema as LeafSchema;
    if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
      this.trailSchemas.push(schema);
      this.trailEntries.push(undefined);
      const { attributes, value } = this.wrapped(raw as JsonObject);
      const node: LeafNode = { kind: 'leaf', schema, value: this.value(member, value) };
      if (attributes !== undefined) node.attributes = attributes;
      this.trailSchemas.pop();
      this.trailEntries.pop();
      return node;
    }
    const value = member.codec!.jsonValue(raw, this.ctx, member.module.name);
    if (value === INVALID)
      throw this.failAt(schema, 'invalid-value', `invalid value ${describe(raw)} for '${schema.name}': ${this.refusal(member, raw)}`);
    return sharedLeaf(member, value);
  }

  /** Why a leaf's codec refuses a value (asked only once it has). */
  private refusal(member: Member, raw: unknown): string {
    const result = member.codec!.json(raw, this.ctx, member.module.name);
    return result.ok ? 'refused' : result.message;
  }

  private leafList(member: Member, raw: unknown): LeafListNode | undefined {
    const schema = member.schema as LeafListSchema;
    let attributes: Attributes | undefined;
    let items = raw;
    if (isObject(raw)) ({ attributes, value: items } = this.wrapped(raw));
    if (!Array.isArray(items)) throw this.fail('invalid-value', `${describe(items)} where a leaf-list (JSON array) is expected`);
    if (items.length === 0 && attributes === undefined) return undefined;
    const values: LeafValue[] = new Array(items.length);
    let valueAttributes: (Attributes | undefined)[] | undefined;
    const seen = schema.config ? new Set<string>() : undefined;
    for (let i = 0; i < items.length; i++) {
      let item = items[i];
      if (isObject(item)) {
        const w = this.wrapped(item);
        item = w.value;
        if (w.attributes !== undefined) (valueAttributes ??= new Array(items.length).fill(undefined))[i] = w.attributes;
      }
      const v = this.value(member, item);
      if (seen !== undefined) {
        const text = valueText(v);
        if (seen.has(text)) throw this.fail('invalid-value', `value '${text}' appears twice in leaf-list '${schema.name}'`);
        seen.add(text);
      }
      values[i] = v;
    }
    const node: LeafListNode = { kind: 'leaf-list', schema, values };
    if (valueAttributes !== undefined) node.valueAttributes = valueAttributes;
    if (attributes !== undefined) node.attributes = attributes;
    return node;
  }

  /** Splits `{"@": {...}, "#": value}`. */
  private wrapped(obj: JsonObject): { attributes: Attributes | undefined; value: unknown } {
    let attributes: Attributes | undefined;
    let value: unknown;
    let hasValue = false;
    for (const k in obj) {
      if (k === '@') attributes = this.attributes(obj[k]);
      else if (k === '#') {
        value = obj[k];
        hasValue = true;
      } else throw this.fail('invalid-value', `unexpected member '${k}': only "@" and "#" may wrap a value`);
    }
    if (!hasValue) throw this.fail('invalid-value', 'a "#" member with the value is missing beside "@"');
    return { attributes, value };
  }

  private attributes(raw: unknown): Attributes {
    const owner = this.trailSchemas[this.trailSchemas.length - 1] ?? this.options.parent;
    const result = checkAttributes(raw, owner?.module, this.ctx, this.options);
    if ('tag' in result) throw this.fail(result.tag, result.message);
    return result.attributes;
  }

  /** A value of a leaf or leaf-list on the trail. */
  private value(member: Member, raw: unknown): LeafValue {
    const value = member.codec!.jsonValue(raw, this.ctx, member.module.name);
    if (value === INVALID)
      throw this.fail('invalid-value', `invalid value ${describe(raw)} for '${member.schema.name}': ${this.refusal(member, raw)}`);
    return value;
  }
}

/** A list entry on the trail named by its decoded key values (its JSON object is gone). */
class KnownKeys {
  constructor(readonly values: LeafValue[]) {}
}

/** A short description of a JSON value for messages (never the whole of a large value). */
function describe(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'an object';
  const text = JSON.stringify(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Decodes an RFC 7951 JSON document (text, or a value already parsed with `JSON.parse`) against the
 * schema. Throws DataError with the instance path of the first fault.
 */
export function decodeJson(input: string | unknown, ctx: SchemaContext, options: DecodeOptions = {}): Decoded {
  let doc = input;
  if (typeof input === 'string') {
    if (input.trim() === '') throw new DataError(fault('malformed-message', '/', 'the document is empty'));
    doc = parseJsonText(input);
  }
  return new JsonDecoder(ctx, options, typeof input === 'string').decode(doc);
}
