/**
 * XML (RFC 7950 §7 encoding, RESTCONF/NETCONF bodies) -> data tree, in one pass: the tokenizer
 * (xml-tokenizer.ts) hands over start tags, text and end tags, and this decoder resolves each element
 * by namespace (`xmlns`, `xmlns:prefix`, scoped per element) and local name against the schema and
 * builds the node when the element closes. Repeated elements of a list or leaf-list gather into one
 * node in document order; identityref and instance-identifier values resolve their prefixes through
 * the namespace declarations in scope; RFC 7952 attributes are XML attributes in their module's
 * namespace (with-defaults' `default` also in RFC 6243's, see attributes.ts).
 *
 * Why not fast-xml-parser here: validating and parsing into its generic tree, then walking that, took
 * ~40x JSON.parse on a 100,000-entry list; streaming from a dedicated tokenizer is about 10x faster.
 * The open elements are an explicit stack of reusable frames, so nesting costs no recursion.
 *
 * Repeated shapes take a fast path (`predicted`): each depth remembers, by position, how its children
 * were written and what they resolved to, and an element written exactly the same again is matched
 * whole by the tokenizer (a leaf as `<tag>text</name>`) and placed without a token, frame or lookup.
 * A list entry made only of such leaves is, after 64 alike, matched whole by one pattern that captures
 * its leaves' texts (`wholeEntry`). A 100,000-entry list decodes about twice as fast per element, and
 * whole entries take another 15–30% off; anything that differs takes the general path.
 *
 * Faults are those of the JSON decoder (see json-decode.ts), plus `unknown-namespace` for an element
 * or attribute whose namespace no module has. Malformed text (including a DOCTYPE, which RESTCONF and
 * NETCONF forbid) is `malformed-message` with line and column. Nesting is capped at 512 levels.
 */
import type { CompiledModule, LeafListSchema, LeafSchema, ListSchema, SchemaContext, SchemaNode } from '../yang/schema';
import { attributeModuleByXmlNamespace, checkAttribute } from './attributes';
import { tableFor } from './children';
import { ListProof, listPlan, recordListProof, type ProofMode } from './decode-proof';
import { DataError, fault, type ErrorTag } from './errors';
import {
  anydataFault,
  childMembers,
  membersOf,
  sharedLeaf,
  type DecodeOptions,
  type Decoded,
  type Member,
  type Members,
} from './json-decode';
import { firstRepeatedKey, keyBytesOver, keyString, keyTooLongMessage } from './list';
import { entryKeyValues, instancePath, valueText, type PathSegment } from './path';
// From where it is defined: the re-export in leaf-values.ts compiles to a getter, called per leaf.
import { INVALID } from '../yang/types/codecs';
import { detached } from '../yang/types/detached';
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
import { elementPattern, entryPattern, XmlSyntaxError, XmlToken, XmlTokenizer } from './xml-tokenizer';

/** Deepest element nesting accepted. */
export const MAX_XML_DEPTH = 512;

/** Namespace declarations in scope: a chain, one link per element that declares any. */
class Scope {
  private resolver: ((prefix: string) => string | undefined) | undefined;
  /** The last scope an element made below this one (see XmlDecoder.scopeOf). */
  lastChild: Scope | undefined;
  constructor(
    readonly parent: Scope | undefined,
    readonly defaultNs: string | undefined,
    readonly prefixes: ReadonlyMap<string, string> | undefined,
    private readonly ctx: SchemaContext,
    /** The declaring attributes, name then value, in document order. */
    private readonly declarations: readonly string[],
  ) {}

  /** Whether the current start tag declares exactly what made this scope. */
  declaredBy(tok: XmlTokenizer): boolean {
    const d = this.declarations;
    let k = 0;
    for (let i = 0; i < tok.attrCount; i++) {
      const name = tok.attrNames[i]!;
      if (name !== 'xmlns' && !name.startsWith('xmlns:')) continue;
      if (k >= d.length || d[k] !== name || d[k + 1] !== tok.attrValues[i]) return false;
      k += 2;
    }
    return k === d.length;
  }

  lookup(prefix: string): string | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const ns = s.prefixes?.get(prefix);
      if (ns !== undefined) return ns;
    }
    return undefined;
  }

  /** Prefix -> module name, for values that carry prefixes (made once per scope, not per leaf). */
  get resolvePrefix(): (prefix: string) => string | undefined {
    if (this.resolver === undefined) {
      let lastPrefix: string | undefined;
      let lastModule: string | undefined;
      this.resolver = (prefix) => {
        if (prefix === lastPrefix) return lastModule; // values of one leaf use one prefix, over and over
        const ns = this.lookup(prefix);
        lastPrefix = prefix;
        lastModule = ns === undefined ? undefined : this.ctx.moduleByNamespace(ns)?.name;
        return lastModule;
      };
    }
    return this.resolver;
  }
}

const noPrefixes = (): undefined => undefined;

/** What an open element is, and so what its content and end mean. */
const enum Kind {
  Root,
  Inner,
  Leaf,
  Any,
  AnyChild,
  Skip,
}

/** One open element. Frames are reused by depth: the walk allocates only what the tree keeps. */
class Frame {
  kind = Kind.Root;
  schema: SchemaNode | undefined;
  scope: Scope | undefined;
  /** Inner: the children's members and where children go, in canonical order. */
  table: Members | undefined;
  /** The member this element was resolved to (undefined for the root, wrappers and anydata content). */
  slot: Member | undefined;
  out: DataNode[] = [];
  /**
   * Where an entry's or container's children gather while it is open (kept by the frame and reused):
   * they are copied to the node at their exact size when it closes, since an array grown by push
   * keeps room for 17, four times what a small list entry holds. Only the first `filled` slots are
   * this element's; the array is cleared slot by slot, never truncated: V8 drops the storage of an
   * array whose length is set to 0, and growing it again for every list entry was a third of the
   * decoder's garbage.
   */
  readonly gathering: DataNode[] = [];
  filled = 0;
  node: ContainerNode | ListEntryNode | undefined;
  gathered: Map<SchemaNode, Group> | undefined;
  lastOrder = -Infinity;
  sorted = true;
  /** Leaf and Any: the text so far; the group a leaf-list value joins; the element's attributes. */
  text = '';
  group: Group | undefined;
  attributes: Attributes | undefined;
  /** Any/AnyChild: member name, namespace, members seen (a Map: `__proto__` must stay a member). */
  anyName = '';
  ns = '';
  anyMembers: Map<string, unknown> | undefined;
  repeated: Set<string> | undefined;
  /** Inner: mandatory children met so far, and the decoder's `unproven` count when the element opened. */
  mandatory = 0;
  unprovenAtStart = 0;
  /** Inner: child elements started so far (the position `start` predicts from). */
  childCount = 0;
  /**
   * The children the last element of `seqTable` at this depth had, by position: name as written, scope
   * and member. Not reset per element: sibling list entries repeat one sequence of children, and the
   * tokenizer hands back the same name strings, so a child resolves by comparing pointers instead of
   * splitting its name and looking up namespace and local name.
   */
  seqTable: Members | undefined;
  readonly seqNames: string[] = [];
  readonly seqScopes: (Scope | undefined)[] = [];
  readonly seqSlots: Member[] = [];
  /** The start tags' text, where it can be matched whole (see `XmlDecoder.predicted`). */
  readonly seqTags: (string | undefined)[] = [];
  /** How often each was matched since it was remembered, and its compiled matcher once that is worth it. */
  readonly seqHits: number[] = [];
  readonly seqPatterns: (RegExp | undefined)[] = [];
  /** For a list remembered at a position: how its entries were written, when that can be matched whole (see `wholeEntry`). */
  readonly seqEntries: (EntryShape | undefined)[] = [];
  /** Inner: how many children the last element that closed at this depth had (what `seq*` then describe). */
  shapeCount = 0;
}

/**
 * A list entry written as a run of leaves, each matched whole with its text captured: one match of
 * `pattern` reads the entry, its elements' slots and scopes (the leaves' namespace declarations) known
 * in advance. Each list entry otherwise costs six predicted elements and an end tag.
 */
interface EntryShape {
  readonly pattern: RegExp;
  readonly slots: readonly Member[];
  readonly scopes: readonly (Scope | undefined)[];
}

/**
 * How many leading children of an element `Frame.seq*` remember by position; the one after holds the
 * last child resolved past them (the next entry of a long list, the next value of a long leaf-list).
 */
const PREDICTED_CHILDREN = 64;

/**
 * Matches of one remembered element after which it gets a compiled matcher (`elementPattern`): its
 * ~20 µs compile pays back after some hundreds of matches; matchers are kept for later documents, so
 * a shape a device sends read after read pays it once. A document whose shapes change more often than
 * this never compiles.
 */
const COMPILE_AFTER = 64;

/** Matches after which an element takes a matcher an earlier document made, when there is one. */
const REUSE_AFTER = 4;

/** The children of an entry or container until it closes (`endInner` sets them): one array for all, none allocated per node. */
const NOT_YET = Object.freeze([]) as unknown as DataNode[];

/** A list or leaf-list being gathered under one parent, with what detects duplicates. */
interface Group {
  readonly node: ListNode | LeafListNode;
  readonly seen: Set<string> | undefined;
  /** A list entry lacks something its proof needs (see decode-proof.ts). */
  unproven: boolean;
  /** A keyed list: the key strings of its entries so far, indexed once the list is complete (see `index`). */
  readonly keys: string[] | undefined;
}

class XmlDecoder {
  private readonly frames: Frame[] = [];
  private depth = 0;
  private readonly allowState: boolean;
  /** Whether elements may take the fast path (`predicted`): not when the caller skips some by schema. */
  private readonly predicting: boolean;
  /** Whether leaf values are copied out of the document (see DecodeOptions.views). */
  private readonly copies: boolean;
  /** The validation mode this decoder's proofs serve (see decode-proof.ts). */
  private readonly mode: ProofMode;
  /** Number of inner nodes decoded so far that lack a mandatory child (their lists get no complete proof). */
  private unproven = 0;
  private readonly root: DataRoot = { kind: 'root', children: [] };
  private readonly topTable: Members;
  private wrapped = false;
  private topCount = 0;
  /** The last scope a top-level element made (see scopeOf). */
  private topScope: Scope | undefined;
  /** The leaf values of an entry `wholeEntry` reads, before it places them (reused). */
  private readonly entryValues: LeafValue[] = [];

  constructor(
    private readonly ctx: SchemaContext,
    private readonly options: DecodeOptions,
    private readonly tok: XmlTokenizer,
  ) {
    this.allowState = options.allowState ?? true;
    this.mode = this.allowState ? 'data' : 'config';
    this.predicting = options.skip === undefined;
    this.copies = options.views !== true;
    this.topTable = membersOf(tableFor(options.parent, ctx));
    const top = this.push(Kind.Root, undefined, undefined);
    top.table = this.topTable;
    top.out = this.root.children;
  }

  decode(): Decoded {
    this.read();
    return this.finish();
  }

  /** Reads the tokens the tokenizer has: to the end of the document, or of a partial one's text so far. */
  read(): void {
    const tok = this.tok;
    try {
      for (;;) {
        const f = this.frames[this.depth - 1]!;
        if (f.kind === Kind.Inner && f.seqTable === f.table && this.predicting && this.predicted(f)) continue;
        const t = tok.next();
        if (t === XmlToken.Start) this.start();
        else if (t === XmlToken.Text) this.content();
        else if (t === XmlToken.End) this.end();
        else break;
      }
    } catch (e) {
      // A fault further on: a duplicate list entry before it comes first in the document.
      if (e instanceof DataError) this.checkOpenLists();
      throw e;
    }
  }

  /** The tree, once `read` has reached the end of the document. */
  finish(): Decoded {
    this.finishInner(this.frames[0]!);
    const children = this.root.children;
    return { root: this.root, node: children.length === 1 ? children[0] : undefined };
  }

  private push(kind: Kind, schema: SchemaNode | undefined, scope: Scope | undefined): Frame {
    let f = this.frames[this.depth];
    if (f === undefined) this.frames[this.depth] = f = new Frame();
    this.depth++;
    f.kind = kind;
    f.schema = schema;
    f.scope = scope;
    f.node = undefined;
    f.gathered = undefined;
    f.lastOrder = -Infinity;
    f.sorted = true;
    f.text = '';
    f.group = undefined;
    f.attributes = undefined;
    f.anyMembers = undefined;
    f.slot = undefined;
    f.repeated = undefined;
    f.mandatory = 0;
    f.unprovenAtStart = this.unproven;
    f.childCount = 0;
    f.filled = 0;
    return f;
  }

  // ---------------------------------------------------------------------------------------------
  // Paths and faults

  private path(extra?: string, last?: PathSegment): string {
    const segments: PathSegment[] = [];
    for (let i = 1; i < this.depth; i++) {
      const f = this.frames[i]!;
      if (f.schema === undefined || f.kind === Kind.AnyChild) continue;
      if (f.node?.kind === 'entry') segments.push({ schema: f.schema, keys: this.keysSoFar(f.node, childrenOf(f)) });
      else segments.push({ schema: f.schema });
    }
    if (last !== undefined) segments.push(last);
    let out = instancePath(segments, this.options.parentPath ?? '', this.options.parent?.module.name);
    if (extra !== undefined) out = `${out === '/' ? '' : out}/${extra}`;
    return out;
  }

  /** Key values of an entry still being read: those decoded so far (keys come first in XML). */
  private keysSoFar(entry: ListEntryNode, children: readonly DataNode[]): LeafValue[] {
    return entry.schema.keys.map((k) => {
      const child = children.find((c) => c.schema === k);
      return child?.kind === 'leaf' ? child.value : '';
    });
  }

  private fail(tag: ErrorTag, message: string, extra?: string): DataError {
    return new DataError(fault(tag, this.path(extra), message));
  }

  // ---------------------------------------------------------------------------------------------
  // Start tags

  /** The scope of an element: its parent's, plus the namespaces its attributes declare. */
  private scopeOf(parent: Scope | undefined): Scope | undefined {
    const tok = this.tok;
    // Siblings often declare the same namespaces (a prefix for an identity value in every list
    // entry): reuse the scope the previous such element made under the same parent. A scope holds
    // copies of its declarations (it may outlive the document), so this compares their text.
    const cached = parent === undefined ? this.topScope : parent.lastChild;
    if (cached?.declaredBy(tok)) return cached;
    let defaultNs = parent?.defaultNs;
    let prefixes: Map<string, string> | undefined;
    let declarations: string[] | undefined;
    // detached: a scope can outlive its document (a codec remembers the last prefix resolver it was given)
    for (let i = 0; i < tok.attrCount; i++) {
      const name = tok.attrNames[i]!;
      const value = tok.attrValues[i]!;
      if (name === 'xmlns') defaultNs = detached(value);
      else if (name.startsWith('xmlns:')) (prefixes ??= new Map()).set(detached(name.slice(6)), detached(value));
      else continue;
      (declarations ??= []).push(detached(name), detached(value));
    }
    if (declarations === undefined) return parent;
    const scope = new Scope(parent, defaultNs, prefixes, this.ctx, declarations);
    if (parent === undefined) this.topScope = scope;
    else parent.lastChild = scope;
    return scope;
  }

  private start(): void {
    const tok = this.tok;
    const parent = this.frames[this.depth - 1]!;
    const scope = tok.attrCount > 0 ? this.scopeOf(parent.scope) : parent.scope;
    const name = tok.name;
    switch (parent.kind) {
      case Kind.Leaf:
        throw this.fail('invalid-value', `element '${name}' inside a leaf`);
      case Kind.Any:
      case Kind.AnyChild:
        this.anyChild(parent, scope, localName(name), namespaceOf(name, scope));
        return;
      case Kind.Skip: // inside an element dropped by `skipUnknown` or `skip`: drop it all
        this.push(Kind.Skip, undefined, scope);
        return;
      default:
        break;
    }
    if (parent.kind === Kind.Root && this.wrapped)
      throw this.fail('unknown-element', 'nothing may follow the <data> or <config> wrapper', localName(name));
    const position = Math.min(parent.childCount++, PREDICTED_CHILDREN);
    let slot: Member | undefined;
    if (parent.seqTable === parent.table && parent.seqNames[position] === name && parent.seqScopes[position] === scope) {
      slot = parent.seqSlots[position]!;
    } else {
      const local = localName(name);
      const ns = namespaceOf(name, scope);
      slot = ns === undefined ? undefined : parent.table!.byNamespace.get(ns)?.get(local);
      if (slot === undefined) {
        if (parent.kind === Kind.Root && this.isWrapper(local, ns)) {
          this.wrapped = true;
          const f = this.push(Kind.Inner, undefined, scope);
          f.table = this.topTable;
          f.out = this.root.children;
          return;
        }
        if (this.options.skipUnknown === true) {
          this.push(Kind.Skip, undefined, scope);
          return;
        }
        throw this.unknown(name, local, ns);
      }
      this.remember(parent, position, name, scope, slot);
    }
    if (parent.kind === Kind.Root) this.topCount++;
    this.open(parent, slot, scope, tok.attrCount > 0);
  }

  /**
   * Notes how the child at `position` of `parent` was written and what it resolved to, for the next
   * element of this shape at this depth (see `Frame.seqNames`): the start tag's text too, where it
   * holds no attribute but namespace declarations, so the element can be matched whole (`predicted`).
   */
  private remember(parent: Frame, position: number, name: string, scope: Scope | undefined, slot: Member): void {
    if (parent.seqTable !== parent.table) {
      parent.seqTable = parent.table;
      parent.seqNames.length = parent.seqScopes.length = parent.seqSlots.length = parent.seqTags.length = 0;
      parent.seqHits.length = parent.seqPatterns.length = parent.seqEntries.length = 0;
    }
    const tok = this.tok;
    let tag = tok.rawTag();
    for (let i = 0; i < tok.attrCount && tag !== undefined; i++) {
      const attribute = tok.attrNames[i]!;
      if (attribute !== 'xmlns' && !attribute.startsWith('xmlns:')) tag = undefined;
    }
    parent.seqNames[position] = name;
    parent.seqScopes[position] = scope;
    parent.seqSlots[position] = slot;
    parent.seqTags[position] = tag;
    parent.seqHits[position] = 0;
    parent.seqPatterns[position] = undefined;
    parent.seqEntries[position] = undefined;
  }

  /**
   * The fast path for an element under `parent` written exactly as the one remembered at its position
   * (list entries and their children repeat one shape): matched as a whole start tag, or for a leaf as
   * a whole element, without tokenizing it, resolving its name or reading its namespace declarations.
   * Whatever the fast path does not take (another shape, a reference, a fault to report) is left to
   * the general path: false, and nothing read.
   */
  private predicted(parent: Frame): boolean {
    const position = Math.min(parent.childCount, PREDICTED_CHILDREN);
    const tag = parent.seqTags[position];
    if (tag === undefined) return false;
    const name = parent.seqNames[position]!;
    const scope = parent.seqScopes[position];
    // With no attributes the element is in its parent's scope; with namespace declarations, in the
    // scope they made under it (the same declarations written again make the same scope).
    if (tag === name ? scope !== parent.scope : scope?.parent !== parent.scope) return false;
    const slot = parent.seqSlots[position]!;
    // Its slot passed `open` when it was remembered (state data in a config document is a fault there).
    const schema = slot.schema;
    const tok = this.tok;
    const pattern = parent.seqPatterns[position];
    const shape = parent.seqEntries[position];
    if (shape !== undefined) {
      const match = tok.entryMatches(shape.pattern);
      if (match !== null && this.wholeEntry(parent, slot, scope, shape, match)) return true;
    }
    if (schema.kind === 'leaf') {
      const text = tok.leafMatches(tag, name, pattern);
      if (text === undefined || holds(parent, schema)) return false;
      const value = this.textValue(slot, text, scope);
      if (value === INVALID) return false;
      tok.skipMatched();
      parent.childCount++;
      if (slot.mandatory) parent.mandatory++;
      this.place(parent, slot, sharedLeaf(slot, value));
    } else {
      if (schema.kind !== 'list' && schema.kind !== 'container') return false;
      if (!tok.startMatches(tag, pattern)) return false;
      tok.enterMatched(name);
      parent.childCount++;
      this.open(parent, slot, scope, false);
    }
    const hits = ++parent.seqHits[position]!;
    if (hits === REUSE_AFTER || hits === COMPILE_AFTER) {
      parent.seqPatterns[position] = elementPattern(tag, schema.kind === 'leaf' ? name : undefined, hits === COMPILE_AFTER);
      // the entry just opened is the next frame; its seq* still describe the entry before it
      if (schema.kind === 'list')
        parent.seqEntries[position] = this.entryShape(this.frames[this.depth - 1]!, tag, name, hits === COMPILE_AFTER);
    }
    return true;
  }

  /**
   * How the entries of a list have been written, if as leaves only, each matchable whole (see
   * `remember`): from the entry that closed last at the depth of `entry`, the one just opened with
   * start tag `tag`.
   */
  private entryShape(entry: Frame, tag: string, name: string, compile: boolean): EntryShape | undefined {
    const count = entry.shapeCount;
    if (count === 0 || count > PREDICTED_CHILDREN || entry.seqTable !== entry.table) return undefined;
    const leaves: { tag: string; name: string }[] = [];
    const slots: Member[] = [];
    const scopes: (Scope | undefined)[] = [];
    for (let i = 0; i < count; i++) {
      const leafTag = entry.seqTags[i];
      const leafName = entry.seqNames[i]!;
      const slot = entry.seqSlots[i]!;
      const scope = entry.seqScopes[i];
      if (leafTag === undefined || slot.schema.kind !== 'leaf' || slots.includes(slot)) return undefined;
      if (leafTag === leafName ? scope !== entry.scope : scope?.parent !== entry.scope) return undefined;
      leaves.push({ tag: leafTag, name: leafName });
      slots.push(slot);
      scopes.push(scope);
    }
    const pattern = entryPattern(tag, name, leaves, compile);
    return pattern === undefined ? undefined : { pattern, slots, scopes };
  }

  /**
   * Places the list entry of `slot` whose text `match` holds, as the general path would have read it;
   * false, and nothing read, if a leaf's text is not a valid value (the general path then reports it).
   */
  private wholeEntry(parent: Frame, slot: Member, scope: Scope | undefined, shape: EntryShape, match: RegExpExecArray): boolean {
    const { slots, scopes } = shape;
    const values = this.entryValues;
    for (let i = 0; i < slots.length; i++) {
      const value = this.textValue(slots[i]!, match[i + 1]!, scopes[i]);
      if (value === INVALID) return false;
      values[i] = value;
    }
    this.tok.skipMatched();
    parent.childCount++;
    this.open(parent, slot, scope, false);
    const entry = this.frames[this.depth - 1]!;
    for (let i = 0; i < slots.length; i++) {
      const leaf = slots[i]!;
      entry.childCount++;
      if (leaf.mandatory) entry.mandatory++;
      this.place(entry, leaf, sharedLeaf(leaf, values[i]!));
      values[i] = ''; // the decoder must not keep the tree's values alive
    }
    this.endInner(entry);
    this.depth--;
    return true;
  }

  /** Opens the element resolved to `slot` under `parent`; `metadata`: its start tag has attributes besides namespaces. */
  private open(parent: Frame, slot: Member, scope: Scope | undefined, metadata: boolean): void {
    const schema = slot.schema;
    // A resolved element's local name is its schema node's name, and its namespace its module's.
    const local = schema.name;
    if (this.options.skip?.(schema)) {
      this.push(Kind.Skip, undefined, scope);
      return;
    }
    if (!this.allowState && !schema.config) throw this.fail('invalid-value', `state data '${local}' is not allowed here`, local);
    switch (schema.kind) {
      case 'leaf': {
        if (holds(parent, schema)) this.failTwice(schema, scope, local);
        const f = this.push(Kind.Leaf, schema, scope);
        f.slot = slot;
        if (metadata) f.attributes = this.attributes(scope);
        return;
      }
      case 'leaf-list': {
        const group = this.group(parent, slot);
        const f = this.push(Kind.Leaf, schema, scope);
        f.slot = slot;
        f.group = group;
        if (metadata) f.attributes = this.attributes(scope);
        return;
      }
      case 'list': {
        const group = this.group(parent, slot);
        const f = this.push(Kind.Inner, schema, scope);
        const entry: ListEntryNode = { kind: 'entry', schema, children: NOT_YET };
        f.node = entry;
        f.group = group;
        f.slot = slot;
        f.table = childMembers(slot);
        f.out = f.gathering;
        if (metadata) {
          const attributes = this.attributes(scope);
          if (attributes !== undefined) entry.attributes = attributes;
        }
        return;
      }
      case 'container':
      case 'input':
      case 'output':
      case 'notification': {
        if (holds(parent, schema)) this.failTwice(schema, scope, local);
        const f = this.push(Kind.Inner, schema, scope);
        const node: ContainerNode = { kind: 'container', schema, children: NOT_YET };
        f.node = node;
        f.slot = slot;
        f.table = childMembers(slot);
        f.out = f.gathering;
        if (metadata) {
          const attributes = this.attributes(scope);
          if (attributes !== undefined) node.attributes = attributes;
        }
        this.place(parent, slot, node);
        return;
      }
      case 'anydata':
      case 'anyxml': {
        if (holds(parent, schema)) this.failTwice(schema, scope, local);
        const f = this.push(Kind.Any, schema, scope);
        f.slot = slot;
        f.ns = schema.module.namespace;
        if (metadata) f.attributes = this.attributes(scope);
        return;
      }
      default:
        this.push(Kind.Leaf, schema, scope);
        throw this.fail('unknown-element', `'${schema.name}' (${schema.kind}) cannot appear in data`);
    }
  }

  private failTwice(schema: SchemaNode, scope: Scope | undefined, local: string): never {
    this.push(Kind.Leaf, schema, scope);
    throw this.fail('invalid-value', `element '${local}' appears twice`);
  }

  /** Whether a top-level element is RESTCONF's `<data>` or NETCONF's `<config>` around a whole datastore. */
  private isWrapper(local: string, ns: string | undefined): boolean {
    if (this.options.parent !== undefined || this.topCount > 0 || this.wrapped || (local !== 'data' && local !== 'config')) return false;
    return ns === undefined || this.topTable.byNamespace.get(ns)?.get(local) === undefined;
  }

  private unknown(name: string, local: string, ns: string | undefined): DataError {
    if (ns === undefined) return this.fail('unknown-namespace', `element '${name}' has no namespace`, local);
    const module = this.ctx.moduleByNamespace(ns);
    if (module === undefined) return this.fail('unknown-namespace', `no module has namespace '${ns}'`, local);
    return this.fail('unknown-element', `unknown element '${local}' in module '${module.name}'`, `${module.name}:${local}`);
  }

  /** The list or leaf-list node under `parent` that elements of `slot` gather into (made on first sight). */
  private group(parent: Frame, slot: Member): Group {
    const gathered = (parent.gathered ??= new Map());
    let group = gathered.get(slot.schema);
    if (group === undefined) {
      const schema = slot.schema as ListSchema | LeafListSchema;
      const node: ListNode | LeafListNode =
        schema.kind === 'list' ? { kind: 'list', schema, entries: [] } : { kind: 'leaf-list', schema, values: [] };
      const seen = schema.kind === 'list' ? undefined : schema.config ? new Set<string>() : undefined;
      const keys = schema.kind === 'list' && schema.keys.length > 0 ? [] : undefined;
      group = { node, seen, unproven: false, keys };
      gathered.set(slot.schema, group);
      this.place(parent, slot, node);
    }
    return group;
  }

  /** Appends a child to its parent, noting whether the canonical order still holds. */
  private place(parent: Frame, slot: { readonly order: number }, node: DataNode): void {
    if (slot.order < parent.lastOrder) parent.sorted = false;
    parent.lastOrder = slot.order;
    if (parent.out === parent.gathering) parent.gathering[parent.filled++] = node;
    else parent.out.push(node);
  }

  // ---------------------------------------------------------------------------------------------
  // Text and end tags

  private content(): void {
    const f = this.frames[this.depth - 1]!;
    const tok = this.tok;
    if (f.kind === Kind.Skip) return;
    if (f.kind === Kind.Leaf || f.kind === Kind.Any || f.kind === Kind.AnyChild) {
      f.text = f.text === '' ? tok.textValue() : f.text + tok.textValue();
    } else if (!tok.textIsSpace()) {
      throw this.fail('invalid-value', `unexpected text '${tok.textValue().trim().slice(0, 40)}' among elements`);
    }
  }

  private end(): void {
    const f = this.frames[this.depth - 1]!;
    const parent = this.frames[this.depth - 2]!;
    switch (f.kind) {
      case Kind.Leaf:
        this.endLeaf(f, parent);
        break;
      case Kind.Inner:
        this.endInner(f);
        break;
      case Kind.Any: {
        const value = anyValue(f);
        const refused = anydataFault(value);
        if (refused !== undefined) throw this.fail(refused.tag, refused.message);
        const node: AnyNode = { kind: 'any', schema: f.schema as AnyNode['schema'], value };
        if (f.attributes !== undefined) node.attributes = f.attributes;
        if (f.slot!.mandatory) parent.mandatory++;
        this.place(parent, f.slot!, node);
        break;
      }
      case Kind.AnyChild:
        addMember(parent, f.anyName, anyValue(f));
        break;
      case Kind.Root:
      case Kind.Skip:
        break;
    }
    this.depth--;
  }

  private endLeaf(f: Frame, parent: Frame): void {
    const schema = f.schema as LeafSchema | LeafListSchema;
    const value = this.value(f.slot!, f.text, f.scope);
    const group = f.group;
    if (group === undefined) {
      let node: LeafNode;
      if (f.attributes === undefined) node = sharedLeaf(f.slot!, value);
      else node = { kind: 'leaf', schema: schema as LeafSchema, value, attributes: f.attributes };
      if (f.slot!.mandatory) parent.mandatory++;
      this.place(parent, f.slot!, node);
      return;
    }
    const ll = group.node as LeafListNode;
    if (group.seen !== undefined) {
      const text = valueText(value);
      if (group.seen.has(text)) throw this.fail('invalid-value', `value '${text}' appears twice in leaf-list '${schema.name}'`);
      group.seen.add(text);
    }
    if (f.attributes !== undefined) ll.valueAttributes ??= new Array(ll.values.length).fill(undefined);
    ll.values.push(value);
    ll.valueAttributes?.push(f.attributes);
  }

  private endInner(f: Frame): void {
    f.shapeCount = f.childCount;
    this.finishInner(f);
    if (f.out === f.gathering) {
      const gathering = f.gathering;
      const count = f.filled;
      const children = gathering.slice(0, count);
      for (let i = 0; i < count; i++) gathering[i] = undefined as unknown as DataNode; // the frame must not keep the tree alive
      if (!f.sorted) this.sortChildren(f, children);
      f.node!.children = children;
    }
    const table = f.table!;
    if (f.mandatory !== (this.allowState ? table.requiredData : table.requiredConfig)) this.unproven++;
    const entry = f.node;
    if (entry?.kind !== 'entry') return;
    const group = f.group!;
    if (this.unproven !== f.unprovenAtStart) group.unproven = true;
    const list = group.node as ListNode;
    if (group.keys !== undefined) group.keys.push(this.entryKey(entry));
    list.entries.push(entry);
  }

  /**
   * Throws the fault of the first of a list's entries so far whose key an earlier one has, named under
   * the element of frame `depth`. The list's index is left for its first lookup to build (see
   * `firstRepeatedKey`).
   */
  private checkKeys(list: ListNode, keys: readonly string[], depth: number): void {
    const at = firstRepeatedKey(keys, keys.length);
    if (at < 0) return;
    const keyValues = entryKeyValues(list.entries[at]!);
    this.depth = depth; // the fault names the entry under the element it is in
    const path = this.path(undefined, { schema: list.schema, keys: keyValues });
    throw new DataError(
      fault('invalid-value', path, `duplicate entry of list '${list.schema.name}' with key ${keyValues.map(valueText).join(',')}`),
    );
  }

  /** The first duplicate entry among the lists still gathering in open elements, outermost first (they come first in the document). */
  private checkOpenLists(): void {
    const depth = this.depth;
    for (let d = 0; d < depth; d++) {
      const gathered = this.frames[d]!.gathered;
      if (gathered === undefined) continue;
      for (const group of gathered.values()) {
        if (group.keys !== undefined) this.checkKeys(group.node as ListNode, group.keys, d + 1);
      }
    }
  }

  /**
   * Records what was proved about the lists among an inner node's (or the root's) children, which are
   * complete now, and puts the root's children in canonical order if the document did not (an entry's or
   * container's are sorted as they leave the gathering array, in endInner).
   */
  private finishInner(f: Frame): void {
    if (f.gathered !== undefined) {
      for (const group of f.gathered.values()) {
        const list = group.node;
        if (list.kind !== 'list') continue;
        if (group.keys !== undefined) this.checkKeys(list, group.keys, this.frames.indexOf(f) + 1);
        const complete = !group.unproven && listPlan(list.schema, this.mode).plain;
        recordListProof(list, this.mode, complete ? ListProof.Complete : list.schema.keys.length > 0 ? ListProof.Keys : ListProof.None);
      }
    }
    if (!f.sorted && f.out !== f.gathering) this.sortChildren(f, f.out);
  }

  /** Puts an element's children in canonical (schema) order. */
  private sortChildren(f: Frame, children: DataNode[]): void {
    const bySchema = f.table!.bySchema;
    children.sort((a, b) => bySchema.get(a.schema)!.order - bySchema.get(b.schema)!.order);
  }

  /** The key string of a finished entry, whose keys are first in key order once sorted. */
  private entryKey(entry: ListEntryNode): string {
    const keys = entry.schema.keys;
    const children = entry.children;
    const limit = this.options.keyLimit;
    if (keys.length === 1) {
      const child = children[0];
      if (child === undefined || child.schema !== keys[0])
        throw this.fail('missing-element', `list entry lacks its key '${keys[0]!.name}'`);
      const value = (child as LeafNode).value;
      if (limit !== undefined) this.checkKeyLength(entry, keys[0]!, value, limit);
      return valueText(value);
    }
    const values: LeafValue[] = new Array(keys.length);
    for (let k = 0; k < keys.length; k++) {
      const child = children[k];
      if (child === undefined || child.schema !== keys[k])
        throw this.fail('missing-element', `list entry lacks its key '${keys[k]!.name}'`);
      values[k] = (child as LeafNode).value;
      if (limit !== undefined) this.checkKeyLength(entry, keys[k]!, values[k]!, limit);
    }
    return keyString(values);
  }

  /**
   * Refuses a key value over `limit` bytes of the entry closing (the innermost open element), naming
   * the key under its list (not the entry, whose name would quote it whole).
   */
  private checkKeyLength(entry: ListEntryNode, key: LeafSchema, value: LeafValue, limit: number): void {
    const bytes = keyBytesOver(value, limit);
    if (bytes < 0) return;
    this.depth--;
    throw new DataError(fault('invalid-value', this.path(key.name, { schema: entry.schema }), keyTooLongMessage(key.name, bytes, limit)));
  }

  /**
   * The value of a leaf's text, or INVALID. A value that is the text itself (a string, an enum name) is
   * cut from the document: it goes into the tree `detached` (unless `views`), or the tree would keep the
   * whole document alive.
   */
  private textValue(member: Member, text: string, scope: Scope | undefined): LeafValue | typeof INVALID {
    const value = member.codec!.textValue(text, this.ctx, scope === undefined ? noPrefixes : scope.resolvePrefix, member.module.name);
    return value === text && this.copies ? detached(text) : value;
  }

  private value(member: Member, text: string, scope: Scope | undefined): LeafValue {
    const schema = member.schema;
    const value = this.textValue(member, text, scope);
    if (value === INVALID) {
      const resolvePrefix = scope === undefined ? noPrefixes : scope.resolvePrefix;
      const result = member.codec!.text(text, this.ctx, resolvePrefix, member.module.name);
      const shown = text.length > 80 ? `${text.slice(0, 77)}...` : text;
      throw this.fail('invalid-value', `invalid value '${shown}' for '${schema.name}': ${result.ok ? 'refused' : result.message}`);
    }
    return value;
  }

  /** The RFC 7952 attributes of the current start tag (namespace declarations aside). */
  private attributes(scope: Scope | undefined): Attributes | undefined {
    const tok = this.tok;
    let out: Attributes | undefined;
    for (let i = 0; i < tok.attrCount; i++) {
      const name = tok.attrNames[i]!;
      if (name === 'xmlns' || name.startsWith('xmlns:')) continue;
      const colon = name.indexOf(':');
      const extra = this.options.extraAttributes?.has(name) ?? false;
      let written = name;
      if (colon >= 0 && !extra) {
        const ns = scope?.lookup(name.slice(0, colon));
        const module: CompiledModule | undefined =
          ns === undefined ? undefined : (this.ctx.moduleByNamespace(ns) ?? attributeModuleByXmlNamespace(ns, this.ctx));
        if (module === undefined) throw this.failHere('unknown-namespace', `attribute '${name}' is in no known namespace`);
        written = `${module.name}:${name.slice(colon + 1)}`;
      } else if (colon < 0 && !extra) {
        throw this.failHere('unknown-attribute', `attribute '${name}' has no namespace, so no module declares it`);
      }
      const resolvePrefix = scope === undefined ? noPrefixes : scope.resolvePrefix;
      const checked = checkAttribute(written, tok.attrValues[i]!, undefined, this.ctx, this.options, { resolvePrefix });
      if ('tag' in checked) throw this.failHere(checked.tag, checked.message);
      (out ??= {})[checked.name] = typeof checked.value === 'string' ? detached(checked.value) : checked.value;
    }
    return out;
  }

  /** A fault of the element whose start tag is being read (its frame is not pushed yet). */
  private failHere(tag: ErrorTag, message: string): DataError {
    const name = this.tok.name;
    return this.fail(tag, message, name.slice(name.indexOf(':') + 1));
  }

  // ---------------------------------------------------------------------------------------------
  // anydata / anyxml

  /** An element inside anydata: a member, module-qualified where its namespace changes. */
  private anyChild(parent: Frame, scope: Scope | undefined, local: string, ns: string | undefined): void {
    const module = ns === undefined || ns === parent.ns ? undefined : this.ctx.moduleByNamespace(ns);
    const f = this.push(Kind.AnyChild, undefined, scope);
    f.anyName = module ? `${module.name}:${local}` : local;
    f.ns = ns ?? parent.ns;
  }
}

/** The local part of an element name as written. */
function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** The namespace of an element name as written, in a scope (undefined when its prefix is not declared). */
function namespaceOf(name: string, scope: Scope | undefined): string | undefined {
  const colon = name.indexOf(':');
  return colon < 0 ? scope?.defaultNs : scope?.lookup(name.slice(0, colon));
}

/** Whether siblings already hold a node of `schema` (siblings are few: bounded by the schema). */
/** Whether the children placed so far under `parent` hold a node of `schema`. */
function holds(parent: Frame, schema: SchemaNode): boolean {
  const siblings = parent.out;
  const count = childrenSoFar(parent);
  for (let i = 0; i < count; i++) if (siblings[i]!.schema === schema) return true;
  return false;
}

/** How many children `parent.out` holds for the element (see Frame.gathering). */
function childrenSoFar(parent: Frame): number {
  return parent.out === parent.gathering ? parent.filled : parent.out.length;
}

/** The children of an open element so far; of an entry or container closing, those it was given (the gathering array is cleared then). */
function childrenOf(f: Frame): readonly DataNode[] {
  const node = f.node;
  if (node !== undefined && node.children !== NOT_YET) return node.children;
  return f.out.slice(0, childrenSoFar(f));
}

/**
 * anydata/anyxml content as a JSON value, the way RFC 7951 would write it without a schema:
 * elements become members, repeated ones arrays, text-only elements strings (text beside elements
 * is dropped).
 */
function anyValue(f: Frame): unknown {
  return f.anyMembers === undefined ? detached(f.text) : Object.fromEntries(f.anyMembers);
}

function addMember(parent: Frame, member: string, value: unknown): void {
  const members = (parent.anyMembers ??= new Map());
  if (!members.has(member)) members.set(member, value);
  else if (parent.repeated?.has(member)) (members.get(member) as unknown[]).push(value);
  else {
    members.set(member, [members.get(member), value]);
    (parent.repeated ??= new Set()).add(member);
  }
}

/**
 * Decodes an XML document against the schema (options as for JSON). Throws DataError with the
 * instance path of the first fault; malformed text is `malformed-message` with line and column.
 */
export function decodeXml(text: string, ctx: SchemaContext, options: DecodeOptions = {}): Decoded {
  if (text.trim() === '') throw new DataError(fault('malformed-message', '/', 'the document is empty'));
  const tok = new XmlTokenizer(text, MAX_XML_DEPTH);
  try {
    try {
      return new XmlDecoder(ctx, options, tok).decode();
    } catch (e) {
      // Malformed text outranks a fault of content, wherever it is: read on to the end to find out.
      if (e instanceof DataError) while (tok.next() !== XmlToken.Eof);
      throw e;
    }
  } catch (e) {
    if (e instanceof XmlSyntaxError) throw new DataError(fault('malformed-message', '/', e.message));
    throw e;
  }
}

/**
 * A decoder fed a document in pieces as they arrive (a device's reply decoded while the rest of it is
 * still on the wire), each piece cut just after the `>` of an end tag (see XmlTokenizer.extend). It
 * makes the tree decodeXml makes of the whole text. A fault may read differently (positions count from
 * the last cut, and a cut elsewhere is a fault of its own), so a caller that gets one decodes the whole
 * text to report it.
 */
export interface XmlPieceDecoder {
  push(piece: string): void;
  /** The rest of the document; the tree. */
  end(rest: string): Decoded;
}

export function xmlPieceDecoder(ctx: SchemaContext, options: DecodeOptions = {}): XmlPieceDecoder {
  const tok = new XmlTokenizer('', MAX_XML_DEPTH, true);
  const decoder = new XmlDecoder(ctx, options, tok);
  return {
    push(piece) {
      tok.extend(piece, false);
      decoder.read();
    },
    end(rest) {
      tok.extend(rest, true);
      decoder.read();
      return decoder.finish();
    },
  };
}
