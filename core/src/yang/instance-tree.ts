/**
 * The shape of the data tree: instances of schema nodes. Every node points at its schema node; values are
 * already typed (see `LeafValue`). Nodes carry no parent pointer so that a stored tree can share unchanged
 * subtrees between versions (copy-on-write: an edit copies the path from the root to what changed and
 * reuses the rest). Code that needs ancestors (XPath, validation, error paths) walks down from the root
 * and keeps the ancestor chain itself.
 *
 * The shapes are declared here, beside the schema they instantiate, because yang/ reads them too: the
 * value codecs produce `LeafValue`s and XPath evaluates over these nodes. data/ builds, decodes,
 * validates and stores trees of them (data/tree.ts re-exports these types for it and the layers above),
 * and yang/ never imports data/.
 */
import type {
  AnySchema,
  ContainerSchema,
  LeafListSchema,
  LeafSchema,
  ListSchema,
  NotificationSchema,
  OperationIOSchema,
  OperationSchema,
} from './schema';

/**
 * A leaf's value in canonical form, by built-in type:
 * - int8..int32, uint8..uint32: number; int64, uint64: bigint
 * - decimal64: string in canonical form (`1.5`, `-0.25`, `3.0`)
 * - boolean: boolean; empty: null
 * - string, binary (base64 text), enumeration (the name), bits (names in position order, space-separated): string
 * - identityref: `module:identity` (always module-qualified)
 * - instance-identifier: the RFC 7951 JSON form (module-qualified path)
 * - union: the value of the member type that matched; leafref: the value of the target's type
 */
export type LeafValue = string | number | bigint | boolean | null;

/**
 * RFC 7952 annotations on a node: `module:name` -> value. Values are JSON scalars as the annotation's
 * type encodes them in RFC 7951.
 */
export type Attributes = Record<string, string | number | boolean | null>;

interface NodeBase {
  attributes?: Attributes;
}

/** A container, or the input/output of an operation, or a notification: a node that holds children. */
export interface ContainerNode extends NodeBase {
  readonly kind: 'container';
  readonly schema: ContainerSchema | OperationIOSchema | NotificationSchema | OperationSchema;
  children: DataNode[];
}

/** One entry of a list. */
export interface ListEntryNode extends NodeBase {
  readonly kind: 'entry';
  readonly schema: ListSchema;
  children: DataNode[];
}

/**
 * All entries of one list under one parent. `attributes` are those of the list as a whole
 * (`"x": {"@": {...}, "#": [...]}` in JSON); each entry has its own.
 */
export interface ListNode extends NodeBase {
  readonly kind: 'list';
  readonly schema: ListSchema;
  entries: ListEntryNode[];
  /**
   * Key string -> entry, built on first lookup by the list operations in `list.ts` and dropped when
   * `entries` is replaced. Never read it directly.
   */
  index?: Map<string, ListEntryNode>;
}

export interface LeafNode extends NodeBase {
  readonly kind: 'leaf';
  readonly schema: LeafSchema;
  value: LeafValue;
}

/** All values of one leaf-list under one parent, with per-value attributes where any were given. */
export interface LeafListNode extends NodeBase {
  readonly kind: 'leaf-list';
  readonly schema: LeafListSchema;
  values: LeafValue[];
  /** Same length as `values` when present; undefined where a value has no attributes. */
  valueAttributes?: (Attributes | undefined)[];
}

/** anydata/anyxml: the content is kept as the JSON value it arrived as (XML is converted to it). */
export interface AnyNode extends NodeBase {
  readonly kind: 'any';
  readonly schema: AnySchema;
  value: unknown;
}

export type DataNode = ContainerNode | ListNode | ListEntryNode | LeafNode | LeafListNode | AnyNode;

/** The children-holding nodes (where a path can descend). */
export type InnerNode = ContainerNode | ListEntryNode | DataRoot;

/** The top of a datastore or document: the top-level nodes of every module. */
export interface DataRoot {
  readonly kind: 'root';
  children: DataNode[];
}
