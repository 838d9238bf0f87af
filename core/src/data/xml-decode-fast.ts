/**
 * The XML decoder's fast path for repeated shapes, behind one seam: the general decoder (xml-decode.ts)
 * asks `take` before tokenizing each child of an inner element, and tells `remember` how each child it
 * resolved was written. Each depth's frame remembers, by position, how its children were written and
 * what they resolved to (Frame.seq*, xml-decode-frame.ts); an element written exactly the same again is
 * matched whole by the tokenizer (a leaf as `<tag>text</name>`) and placed through the general decoder
 * (`GeneralDecoder`) without a token, frame or lookup. A list entry made only of such leaves is, after
 * 64 alike, matched whole by one pattern that captures its leaves' texts (`wholeEntry`). A 100,000-entry
 * list decodes about twice as fast per element, and whole entries take another 15-30% off.
 *
 * The fast path only ever takes text the general path accepted once in the same shape: whatever it does
 * not take (another shape, a reference, an invalid value, a fault to report) it leaves unread, and the
 * general path reads it and reports what is wrong. So the decoder's answers do not depend on it; switching
 * it off (`DecodeOptions.skip` does) changes only the speed.
 */
import { INVALID } from '../yang/types/codecs';
import { detached } from '../yang/types/detached';
import { sharedLeaf, type Member } from './json-decode';
import type { DataNode, LeafValue } from './tree';
import { holds, type EntryShape, type Frame, type Scope } from './xml-decode-frame';
import type { XmlTokenizer } from './xml-tokenizer';

/**
 * How many leading children of an element `Frame.seq*` remember by position; the one after holds the
 * last child resolved past them (the next entry of a long list, the next value of a long leaf-list).
 */
export const PREDICTED_CHILDREN = 64;

/**
 * Matches of one remembered element after which it gets a compiled matcher (`elementPattern`): its
 * ~20 µs compile pays back after some hundreds of matches; matchers are kept for later documents, so
 * a shape a device sends read after read pays it once. A document whose shapes change more often than
 * this never compiles.
 */
const COMPILE_AFTER = 64;

/** Matches after which an element takes a matcher an earlier document made, when there is one. */
const REUSE_AFTER = 4;

/** What the fast path needs of the general decoder, to place what it matched exactly as that would. */
export interface GeneralDecoder {
  /** Opens the element resolved to `slot` under `parent`, pushing its frame (`metadata`: it has attributes). */
  open(parent: Frame, slot: Member, scope: Scope | undefined, metadata: boolean): void;
  /** Appends a child node to `parent`. */
  place(parent: Frame, slot: Member, node: DataNode): void;
  /** The value of a leaf's text, or INVALID. */
  textValue(member: Member, text: string, scope: Scope | undefined): LeafValue | typeof INVALID;
  /** The frame of the innermost open element. */
  innermost(): Frame;
  /** Closes `entry`, the innermost open element, a list entry whose children are all placed. */
  closeEntry(entry: Frame): void;
}

/** The fast path of one decoding (see the top of this file). */
export class FastPath {
  /** The leaf values of an entry `wholeEntry` reads, before it places them (reused). */
  private readonly entryValues: LeafValue[] = [];

  constructor(
    private readonly decoder: GeneralDecoder,
    private readonly tok: XmlTokenizer,
  ) {}

  /**
   * Notes how the child at `position` of `parent` was written and what it resolved to, for the next
   * element of this shape at this depth (see `Frame.seqNames`): the start tag's text too, where it
   * holds no attribute but namespace declarations, so the element can be matched whole (`predicted`).
   */
  remember(parent: Frame, position: number, name: string, scope: Scope | undefined, slot: Member): void {
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
  take(parent: Frame): boolean {
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
      const value = this.decoder.textValue(slot, text, scope);
      if (value === INVALID) return false;
      tok.skipMatched();
      parent.childCount++;
      if (slot.mandatory) parent.mandatory++;
      this.decoder.place(parent, slot, sharedLeaf(slot, value));
    } else {
      if (schema.kind !== 'list' && schema.kind !== 'container') return false;
      if (!tok.startMatches(tag, pattern)) return false;
      tok.enterMatched(name);
      parent.childCount++;
      this.decoder.open(parent, slot, scope, false);
    }
    const hits = ++parent.seqHits[position]!;
    if (hits === REUSE_AFTER || hits === COMPILE_AFTER) {
      parent.seqPatterns[position] = elementPattern(tag, schema.kind === 'leaf' ? name : undefined, hits === COMPILE_AFTER);
      // the entry just opened is the next frame; its seq* still describe the entry before it
      if (schema.kind === 'list')
        parent.seqEntries[position] = this.entryShape(this.decoder.innermost(), tag, name, hits === COMPILE_AFTER);
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
      const value = this.decoder.textValue(slots[i]!, match[i + 1]!, scopes[i]);
      if (value === INVALID) return false;
      values[i] = value;
    }
    this.tok.skipMatched();
    parent.childCount++;
    this.decoder.open(parent, slot, scope, false);
    const entry = this.decoder.innermost();
    for (let i = 0; i < slots.length; i++) {
      const leaf = slots[i]!;
      entry.childCount++;
      if (leaf.mandatory) entry.mandatory++;
      this.decoder.place(entry, leaf, sharedLeaf(leaf, values[i]!));
      values[i] = ''; // the decoder must not keep the tree's values alive
    }
    this.decoder.closeEntry(entry);
    return true;
  }
}

/**
 * The matcher of a predicted element (see `XmlTokenizer.startMatches`): `<tag>`, or with `name` the
 * whole `<tag>text</name>` of `leafMatches`. One call into the regular expression engine instead of
 * a character loop, ~8x faster on a 60-character tag (a namespace declaration) and ~2x on a short
 * leaf; but compiling one costs ~20 µs, so callers make one only for a shape matched many times
 * (`compile`). Matchers are kept across documents: a device answers the same shapes read after read,
 * so a later document finds them made (without `compile`, only a kept one is returned).
 */
export function elementPattern(tag: string, name: string | undefined, compile: boolean): RegExp | undefined {
  const key = name === undefined ? tag : `${tag}\u0000${name}`;
  return keptPattern(key, compile, () => (name === undefined ? `<${literal(tag)}>` : `<${literal(tag)}>${LEAF_TEXT}</${literal(name)}>`));
}

/**
 * The matcher of a whole predicted list entry (see `XmlTokenizer.entryMatches`): `<tag>`, then each
 * leaf of `leaves` as `<tag>text</name>` with its text captured, white space allowed between
 * elements, then `</name>`. Kept and compiled as `elementPattern`'s.
 */
export function entryPattern(
  tag: string,
  name: string,
  leaves: readonly { readonly tag: string; readonly name: string }[],
  compile: boolean,
): RegExp | undefined {
  let key = `${tag}\u0001${name}`;
  for (const leaf of leaves) key += `\u0001${leaf.tag}\u0000${leaf.name}`;
  return keptPattern(key, compile, () => {
    let source = `<${literal(tag)}>`;
    for (const leaf of leaves) source += `${SPACE}<${literal(leaf.tag)}>(${LEAF_TEXT})</${literal(leaf.name)}>`;
    return `${source}${SPACE}</${literal(name)}>`;
  });
}

/** A leaf's text that decodes to itself: no markup, no reference, no CR (which would be normalized). */
const LEAF_TEXT = '[^<&\\r]*';
const SPACE = '[ \\t\\n\\r]*';

const literal = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function keptPattern(key: string, compile: boolean, source: () => string): RegExp | undefined {
  let pattern = patterns.get(key);
  if (pattern === undefined && compile) {
    pattern = new RegExp(source(), 'y');
    // bounded: documents of ever new shapes start the cache afresh rather than grow it
    if (patterns.size >= MAX_PATTERNS) patterns.clear();
    patterns.set(detached(key), pattern); // the key is cut from a document this cache outlives
  }
  return pattern;
}

/** Compiled element matchers by tag (and leaf name); sticky, so sharing them is safe in synchronous decoding. */
const patterns = new Map<string, RegExp>();
const MAX_PATTERNS = 4096;
