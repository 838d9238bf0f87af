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
 * Repeated shapes take a fast path, behind one seam in its own module (xml-decode-fast.ts): before
 * tokenizing a child of an inner element the decoder asks it to `take` the element whole, and it places
 * what it matched through this decoder's own `open`/`place` (`GeneralDecoder`); it never decides
 * anything the general path would decide otherwise. The per-element state both read is in
 * xml-decode-frame.ts.
 *
 * Faults are those of the JSON decoder (see json-decode.ts), plus `unknown-namespace` for an element
 * or attribute whose namespace no module has. Malformed text (including a DOCTYPE, which RESTCONF and
 * NETCONF forbid) is `malformed-message` with line and column. Nesting is capped at 512 levels.
 *
 * Why this file is longer than 400 lines: it is one state machine (XmlDecoder) over one stack of open
 * elements, whose handlers for start tags, text, end tags, list keys and attributes all read and
 * change that stack and the frame reuse it depends on for speed; cut into files, each part would
 * reach into the others' private state. What could stand alone has moved out: the fast path, the
 * frame and scope state, the tokenizer.
 */
import type { CompiledModule, LeafListSchema, LeafSchema, ListSchema, SchemaContext, SchemaNode } from '../yang/schema';
import { attributeModuleByXmlNamespace, checkAttribute } from './attributes';
import { notificationTable, tableFor } from './children';
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
import { FastPath, PREDICTED_CHILDREN, type GeneralDecoder } from './xml-decode-fast';
import {
  addMember,
  anyValue,
  childrenOf,
  Frame,
  type Group,
  holds,
  Kind,
  localName,
  namespaceOf,
  noPrefixes,
  NOT_YET,
  Scope,
} from './xml-decode-frame';
import { MAX_XML_DEPTH, XmlSyntaxError, XmlToken, XmlTokenizer } from './xml-tokenizer';

class XmlDecoder implements GeneralDecoder {
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
  /** The fast path for repeated shapes; used only when `predicting`. */
  private readonly fast: FastPath;

  constructor(
    private readonly ctx: SchemaContext,
    private readonly options: DecodeOptions,
    private readonly tok: XmlTokenizer,
  ) {
    this.allowState = options.allowState ?? true;
    this.mode = this.allowState ? 'data' : 'config';
    this.predicting = options.skip === undefined;
    this.copies = options.views !== true;
    this.topTable = membersOf(
      options.notifications === true && options.parent === undefined ? notificationTable(ctx) : tableFor(options.parent, ctx),
    );
    this.fast = new FastPath(this, tok);
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
        if (f.kind === Kind.Inner && f.seqTable === f.table && this.predicting && this.fast.take(f)) continue;
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
      this.fast.remember(parent, position, name, scope, slot);
    }
    if (parent.kind === Kind.Root) this.topCount++;
    this.open(parent, slot, scope, tok.attrCount > 0);
  }

  /** Opens the element resolved to `slot` under `parent`; `metadata`: its start tag has attributes besides namespaces. */
  open(parent: Frame, slot: Member, scope: Scope | undefined, metadata: boolean): void {
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
  place(parent: Frame, slot: { readonly order: number }, node: DataNode): void {
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

  innermost(): Frame {
    return this.frames[this.depth - 1]!;
  }

  closeEntry(entry: Frame): void {
    this.endInner(entry);
    this.depth--;
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
  textValue(member: Member, text: string, scope: Scope | undefined): LeafValue | typeof INVALID {
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
