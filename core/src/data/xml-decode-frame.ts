/**
 * The state the XML decoder (xml-decode.ts) keeps per open element, shared with its fast path
 * (xml-decode-fast.ts): the namespace scope chain, the reusable frame of each depth (with what the fast
 * path remembers of how its children were written), the gathering of list and leaf-list siblings, and
 * the small helpers both read frames with.
 */
import type { SchemaContext, SchemaNode } from '../yang/schema';
import { detached } from '../yang/types/detached';
import type { Member, Members } from './json-decode';
import type { Attributes, ContainerNode, DataNode, LeafListNode, ListEntryNode, ListNode } from './tree';
import type { XmlTokenizer } from './xml-tokenizer';

/** Namespace declarations in scope: a chain, one link per element that declares any. */
export class Scope {
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

export const noPrefixes = (): undefined => undefined;

/** What an open element is, and so what its content and end mean. */
export const enum Kind {
  Root,
  Inner,
  Leaf,
  Any,
  AnyChild,
  Skip,
}

/** One open element. Frames are reused by depth: the walk allocates only what the tree keeps. */
export class Frame {
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
export interface EntryShape {
  readonly pattern: RegExp;
  readonly slots: readonly Member[];
  readonly scopes: readonly (Scope | undefined)[];
}

/** The children of an entry or container until it closes (`endInner` sets them): one array for all, none allocated per node. */
export const NOT_YET = Object.freeze([]) as unknown as DataNode[];

/** A list or leaf-list being gathered under one parent, with what detects duplicates. */
export interface Group {
  readonly node: ListNode | LeafListNode;
  readonly seen: Set<string> | undefined;
  /** A list entry lacks something its proof needs (see decode-proof.ts). */
  unproven: boolean;
  /** A keyed list: the key strings of its entries so far, indexed once the list is complete (see `index`). */
  readonly keys: string[] | undefined;
}

/** The local part of an element name as written. */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** The namespace of an element name as written, in a scope (undefined when its prefix is not declared). */
export function namespaceOf(name: string, scope: Scope | undefined): string | undefined {
  const colon = name.indexOf(':');
  return colon < 0 ? scope?.defaultNs : scope?.lookup(name.slice(0, colon));
}

/** Whether the children placed so far under `parent` hold a node of `schema`. */
export function holds(parent: Frame, schema: SchemaNode): boolean {
  const siblings = parent.out;
  const count = childrenSoFar(parent);
  for (let i = 0; i < count; i++) if (siblings[i]!.schema === schema) return true;
  return false;
}

/** How many children `parent.out` holds for the element (see Frame.gathering). */
export function childrenSoFar(parent: Frame): number {
  return parent.out === parent.gathering ? parent.filled : parent.out.length;
}

/** The children of an open element so far; of an entry or container closing, those it was given (the gathering array is cleared then). */
export function childrenOf(f: Frame): readonly DataNode[] {
  const node = f.node;
  if (node !== undefined && node.children !== NOT_YET) return node.children;
  return f.out.slice(0, childrenSoFar(f));
}

/**
 * anydata/anyxml content as a JSON value, the way RFC 7951 would write it without a schema:
 * elements become members, repeated ones arrays, text-only elements strings (text beside elements
 * is dropped).
 */
export function anyValue(f: Frame): unknown {
  return f.anyMembers === undefined ? detached(f.text) : Object.fromEntries(f.anyMembers);
}

export function addMember(parent: Frame, member: string, value: unknown): void {
  const members = (parent.anyMembers ??= new Map());
  if (!members.has(member)) members.set(member, value);
  else if (parent.repeated?.has(member)) (members.get(member) as unknown[]).push(value);
  else {
    members.set(member, [members.get(member), value]);
    (parent.repeated ??= new Set()).add(member);
  }
}
