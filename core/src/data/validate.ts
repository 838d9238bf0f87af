/**
 * Validation of a whole data tree against its schema (RFC 7950 §8): what a datastore checks before a
 * commit and what `rosetta yang validate` reports. Leaf values are type-checked by the decoders and
 * are not checked again here. Checked, in one walk of the tree:
 * - state data present in a configuration (`type: 'config'`);
 * - `when` false for data that is present; `must` false (with the model's error-message/app-tag);
 * - mandatory leaves, anydata and choices; min-/max-elements; keys present and unique; `unique`;
 * - data from two cases of one choice;
 * - leafref (with `checkLeafrefs`) and instance-identifier require-instance.
 *
 * Cost is linear in the tree: XPath is parsed once per expression, list keys are indexed, reference
 * targets are gathered in one walk, and schema nodes without requirements are never visited when absent.
 * A list the decoders built carries what they proved of it (decode-proof.ts): its keys are not hashed
 * again, and where its entries were proved structurally valid for this mode and nothing else in them
 * needs checking, they are not walked at all (a freshly decoded 100,000-entry list costs ~nothing here).
 *
 * Why this file is longer than 400 lines: validation is one walk of the tree that makes every check on the
 * way (a walk per concern would multiply the cost of validating a 100,000-entry list); the Validator class
 * is that walk, and the helpers below it are its per-schema caches.
 */
import {
  type CaseSchema,
  type ChoiceSchema,
  type ContainerSchema,
  type LeafListSchema,
  type LeafSchema,
  type ListSchema,
  type MustConstraint,
  type SchemaContext,
  type SchemaNode,
  type SchemaXPath,
  enclosingCases,
} from '../yang/schema';
import { XNode, XPathSession, evaluateCondition, valueString } from '../yang/xpath';
import { type DataFault, type ErrorTag, fault } from './errors';
import { instancePath, segmentOf, type PathSegment, entryKeyValues } from './path';
import { keyString } from './list';
import { ListProof, listPlan, listProof } from './decode-proof';
import type { ContainerNode, DataNode, DataRoot, LeafValue, ListEntryNode, ListNode } from './tree';
import { checkWhens, standIn } from './validate-when';
import { ReferenceChecker } from './validate-refs';

/** What to check. */
export interface ValidateOptions {
  /** 'config': a configuration datastore (state nodes are errors, only config nodes are required); 'data': everything. */
  readonly type: 'config' | 'data';
  /** Check leafref require-instance (RESTCONF `checkForReferences`). */
  readonly checkLeafrefs?: boolean;
  /** Stop after this many faults (default 100). */
  readonly maxErrors?: number;
}

/** What a fault says of nodes `first` and `second`, of two cases of `choice`, side by side. */
export function caseConflictMessage(first: SchemaNode | undefined, second: SchemaNode, choice: ChoiceSchema): string {
  const caseOf = (n: SchemaNode) => enclosingCases(n).find((c) => c.parent === choice)?.name ?? '?';
  return `node "${first?.name ?? '?'}" of case "${first ? caseOf(first) : '?'}" and node "${second.name}" of case "${caseOf(second)}" of choice "${choice.name}" cannot coexist`;
}

/**
 * Validates a data tree. Returns the faults found (empty when the tree is valid), each with the
 * instance path of the node at fault.
 */
export function validateTree(root: DataRoot, ctx: SchemaContext, options: ValidateOptions): DataFault[] {
  const v = new Validator(root, ctx, options);
  try {
    v.validateInner(XNode.root(root), undefined);
  } catch (e) {
    if (e !== FULL) throw e;
  }
  return v.faults;
}

/**
 * Validates the `input` of an RPC or action (every constraint of its subtree, as validateTree does
 * for a datastore). `accessible` is the tree that absolute XPath paths in its `must`/`when` read (the
 * Config datastore); the input is placed directly under its root. Fault paths start at the input node
 * (`/module:input/...`).
 */
export function validateOperationInput(
  input: ContainerNode,
  accessible: DataRoot,
  ctx: SchemaContext,
  options: ValidateOptions,
): DataFault[] {
  const v = new Validator(accessible, ctx, options);
  try {
    v.validateInner(new XNode(input, XNode.root(accessible), accessible.children.length, 0), input.schema);
  } catch (e) {
    if (e !== FULL) throw e;
  }
  return v.faults;
}

const FULL = Symbol('enough faults');

class Validator {
  readonly faults: DataFault[] = [];
  private readonly session = new XPathSession();
  private readonly refs: ReferenceChecker;
  private readonly max: number;
  private readonly config: boolean;
  /**
   * Per-level scratch for validateInner (its when cache and set of present children), reused rather
   * than allocated per node: on a 100,000-entry list those two allocations per entry were much of
   * the validation's cost. A level's scratch is only used while that level's call runs.
   */
  private readonly whenCaches: Map<SchemaXPath, boolean | string>[] = [];
  private readonly presentSets: Set<SchemaNode>[] = [];
  private depth = 0;

  constructor(
    root: DataRoot,
    private readonly ctx: SchemaContext,
    private readonly options: ValidateOptions,
  ) {
    this.refs = new ReferenceChecker(root, ctx, this.session);
    this.max = options.maxErrors ?? 100;
    this.config = options.type === 'config';
  }

  private report(tag: ErrorTag, at: XNode | string, message: string, appTag?: string): void {
    this.faults.push(fault(tag, typeof at === 'string' ? at : pathOf(at), message, appTag));
    if (this.faults.length >= this.max) throw FULL;
  }

  /**
   * Validates the children of a root, container or list entry. `schema` is the node's schema
   * (undefined for the root).
   */
  validateInner(node: XNode, schema: ContainerSchema | ListSchema | SchemaNode | undefined): void {
    const level = this.depth++;
    try {
      this.validateInnerAt(level, node, schema);
    } finally {
      this.depth--;
    }
  }

  private validateInnerAt(level: number, node: XNode, schema: ContainerSchema | ListSchema | SchemaNode | undefined): void {
    const d = node.data as DataRoot | ContainerNode | ListEntryNode;
    const whenCache = (this.whenCaches[level] ??= new Map());
    whenCache.clear();
    const expected = schema === undefined ? this.ctx.data : schema.children;
    let present: Set<SchemaNode> | undefined;
    if (needsMissingCheck(expected, this.config)) {
      present = this.presentSets[level] ??= new Set();
      present.clear();
    }
    let activeCase: Map<ChoiceSchema, CaseSchema> | undefined;
    for (let i = 0; i < d.children.length; i++) {
      const child = d.children[i]!;
      const cs = child.schema;
      // An empty non-presence container means nothing (RFC 7950 §7.5.1): treat it as absent.
      if (child.kind === 'container' && child.children.length === 0 && cs.kind === 'container' && cs.presence === undefined) continue;
      present?.add(cs);
      if (this.config && !cs.config) {
        const x = firstCursor(node, child, i);
        this.report('invalid-value', x ?? node, `state data node "${cs.name}" is not allowed in configuration data`);
        continue;
      }
      if (cs.parent && (cs.parent.kind === 'case' || cs.parent.kind === 'choice')) {
        if (!this.checkCases(cs, node, child, i, (activeCase ??= new Map()), whenCache)) continue;
      }
      this.validateChild(node, child, i, whenCache);
    }
    if (present) this.checkMissing(expected, present, node, true, whenCache);
  }

  /**
   * Choice exclusivity and the `when` of enclosing choices/cases for a child. Returns false when
   * the child was reported and should not be checked further.
   */
  private checkCases(
    cs: SchemaNode,
    node: XNode,
    child: DataNode,
    slot: number,
    active: Map<ChoiceSchema, CaseSchema>,
    whenCache: Map<SchemaXPath, boolean | string>,
  ): boolean {
    for (const c of enclosingCases(cs)) {
      const choice = c.parent as ChoiceSchema;
      const seen = active.get(choice);
      if (seen === undefined) {
        active.set(choice, c);
        for (const s of [choice, c]) {
          if (!s.when.length) continue;
          const w = checkWhens(s, undefined, node, this.ctx, this.session, whenCache);
          if (!w.ok) {
            this.reportWhen(w, firstCursor(node, child, slot) ?? node, `${s.kind} "${s.name}"`);
            return false;
          }
        }
      } else if (seen !== c) {
        // Which node holds the other case is looked up only here: a valid tree never needs it.
        const first = (node.data as DataRoot | ContainerNode | ListEntryNode).children.find((n) => enclosingCases(n.schema).includes(seen));
        this.report('invalid-value', firstCursor(node, child, slot) ?? node, caseConflictMessage(first?.schema, cs, choice));
        return false;
      }
    }
    return true;
  }

  private reportWhen(w: Exclude<ReturnType<typeof checkWhens>, { ok: true }>, at: XNode, what: string): void {
    if ('error' in w) this.report('operation-failed', at, `cannot evaluate when of ${what}: ${w.error}`);
    else this.report('unknown-element', at, `when condition "${w.xpath.source}" of ${what} is false, so the node must not exist`);
  }

  /** One child data node (a whole list or leaf-list at once) of an inner node. */
  private validateChild(parent: XNode, child: DataNode, slot: number, whenCache: Map<SchemaXPath, boolean | string>): void {
    switch (child.kind) {
      case 'list': {
        this.checkListCounts(parent, child, slot);
        // What the decoder proved while building the list need not be proved again (decode-proof.ts).
        const proof = listProof(child, this.options.type);
        if (proof === ListProof.Complete && !(this.options.checkLeafrefs && listPlan(child.schema, this.options.type).leafrefs)) return;
        child.entries.forEach((entry, j) => {
          const x = new XNode(entry, parent, slot, j);
          if (!this.checkInstance(child.schema, x, parent, whenCache)) return;
          this.validateInner(x, child.schema);
        });
        if (child.schema.keys.length && proof === ListProof.None) this.checkKeys(parent, child, slot);
        if (child.schema.unique.length) this.checkUnique(parent, child, slot);
        return;
      }
      case 'leaf-list': {
        const s = child.schema;
        const count = child.values.length;
        if (count < s.minElements)
          this.report(
            'operation-failed',
            new XNode(child, parent, slot, 0),
            `leaf-list "${s.name}" has ${count} values, fewer than min-elements ${s.minElements}`,
            'too-few-elements',
          );
        if (count > s.maxElements)
          this.report(
            'operation-failed',
            new XNode(child, parent, slot, s.maxElements),
            `leaf-list "${s.name}" has ${count} values, more than max-elements ${s.maxElements}`,
            'too-many-elements',
          );
        for (let j = 0; j < count; j++) {
          const x = new XNode(child, parent, slot, j);
          if (!this.checkInstance(s, x, parent, whenCache)) continue;
          this.checkReferences(s, child.values[j]!, x);
        }
        return;
      }
      case 'leaf': {
        // Most leaves have nothing to check here (values were checked by the decoders): no cursor.
        const s = child.schema;
        const b = s.type.builtin;
        if (!s.when.length && !s.musts.length && b !== 'instance-identifier' && (b !== 'leafref' || !this.options.checkLeafrefs)) return;
        const x = new XNode(child, parent, slot, 0);
        if (!this.checkInstance(child.schema, x, parent, whenCache)) return;
        this.checkReferences(child.schema, child.value, x);
        return;
      }
      case 'container': {
        const x = new XNode(child, parent, slot, 0);
        if (!this.checkInstance(child.schema, x, parent, whenCache)) return;
        this.validateInner(x, child.schema);
        return;
      }
      case 'any': {
        const x = new XNode(child, parent, slot, 0);
        this.checkInstance(child.schema, x, parent, whenCache);
        return;
      }
      case 'entry':
        return; // entries sit inside list nodes, never directly among children
    }
  }

  /** `when` and `must` of one instance. Returns false when its `when` is false (the node should not be there). */
  private checkInstance(schema: SchemaNode, x: XNode, parent: XNode, whenCache: Map<SchemaXPath, boolean | string>): boolean {
    if (schema.when.length) {
      const w = checkWhens(schema, x, parent, this.ctx, this.session, whenCache);
      if (!w.ok) {
        this.reportWhen(w, x, `"${schema.name}"`);
        return false;
      }
    }
    for (const must of schema.musts) this.checkMust(must, x);
    return true;
  }

  private checkMust(must: MustConstraint, x: XNode): void {
    const r = evaluateCondition(must.xpath, x, this.ctx, this.session);
    if ('error' in r) {
      this.report('operation-failed', x, `cannot evaluate must: ${r.error}`);
    } else if (!r.value) {
      this.report(
        'operation-failed',
        x,
        must.errorMessage ?? `must condition "${must.xpath.source}" is not satisfied`,
        must.errorAppTag ?? 'must-violation',
      );
    }
  }

  private checkReferences(schema: LeafSchema | LeafListSchema, value: LeafValue, x: XNode): void {
    const b = schema.type.builtin;
    if (b === 'leafref' && this.options.checkLeafrefs) {
      const problem = this.refs.checkLeafref(schema, value, x);
      if (problem) this.report('data-missing', x, problem, 'instance-required');
    } else if (b === 'instance-identifier') {
      const problem = this.refs.checkInstanceIdentifier(schema, value);
      if (problem) this.report('data-missing', x, problem, 'instance-required');
    }
  }

  private checkListCounts(parent: XNode, list: ListNode, slot: number): void {
    const s = list.schema;
    const count = list.entries.length;
    if (count < s.minElements) {
      this.report(
        'operation-failed',
        pathOf(parent, { schema: s }),
        `list "${s.name}" has ${count} entries, fewer than min-elements ${s.minElements}`,
        'too-few-elements',
      );
    }
    if (count > s.maxElements) {
      this.report(
        'operation-failed',
        new XNode(list.entries[s.maxElements]!, parent, slot, s.maxElements),
        `list "${s.name}" has ${count} entries, more than max-elements ${s.maxElements}`,
        'too-many-elements',
      );
    }
  }

  /** Every entry has all its keys, and no two entries have the same keys. */
  private checkKeys(parent: XNode, list: ListNode, slot: number): void {
    const seen = new Set<string>();
    const keys = list.schema.keys;
    list.entries.forEach((entry, j) => {
      // Fast path: a well-formed entry starts with its single key leaf.
      const first = entry.children[0];
      let key: string;
      if (keys.length === 1 && first !== undefined && first.schema === keys[0] && first.kind === 'leaf') {
        key = valueString(first.value);
      } else {
        const values = entryKeyValues(entry);
        const missing = keys.filter((_, k) => values[k] === undefined);
        if (missing.length) {
          this.report('missing-element', new XNode(entry, parent, slot, j), `list entry lacks key leaf "${missing[0]!.name}"`);
          return;
        }
        key = keyString(values);
      }
      if (seen.has(key)) this.report('invalid-value', new XNode(entry, parent, slot, j), `duplicate entry of list "${list.schema.name}"`);
      else seen.add(key);
    });
  }

  /** RFC 7950 §7.8.3: entries whose unique leaves all exist (or have defaults) differ in at least one. */
  private checkUnique(parent: XNode, list: ListNode, slot: number): void {
    for (const spec of list.schema.unique) {
      const seen = new Map<string, number>();
      list.entries.forEach((entry, j) => {
        let key = '';
        for (const { path, leaf } of spec) {
          const v = uniqueValue(entry, path, leaf);
          if (v === undefined) return;
          key += `${v.length}:${v}`;
        }
        const first = seen.get(key);
        if (first === undefined) {
          seen.set(key, j);
          return;
        }
        const names = spec.map((u) => u.path.join('/')).join(' ');
        const firstPath = pathOf(new XNode(list.entries[first]!, parent, slot, first));
        this.report(
          'operation-failed',
          new XNode(entry, parent, slot, j),
          `unique constraint "${names}" violated: same values as ${firstPath}`,
          'data-not-unique',
        );
      });
    }
  }

  /**
   * Required nodes that are absent: mandatory leaves/anydata/choices, lists and leaf-lists with
   * min-elements, and those below absent non-presence containers. `required` is false inside a case
   * that has no data (its mandatory nodes apply only once the case is chosen).
   */
  private checkMissing(
    children: readonly SchemaNode[],
    present: ReadonlySet<SchemaNode>,
    parent: XNode,
    required: boolean,
    whenCache: Map<SchemaXPath, boolean | string>,
  ): void {
    for (const s of requiredChildren(children, this.config)) {
      if (s.kind === 'choice') {
        const chosen = s.children.find((c) => caseHasData(c, present));
        if (chosen) this.checkMissing(chosen.children, present, parent, required, whenCache);
        else if (s.mandatory && required && this.whenAllows(s, parent, whenCache)) {
          this.report('data-missing', pathOf(parent), `mandatory choice "${s.name}" has no data`, 'missing-choice');
        }
        continue;
      }
      if (s.kind === 'case' || present.has(s)) continue;
      if (!required) continue;
      switch (s.kind) {
        case 'leaf':
        case 'anydata':
        case 'anyxml':
          if (s.mandatory && this.whenAllows(s, parent, whenCache)) {
            this.report('missing-element', pathOf(parent, { schema: s }), `mandatory ${s.kind} "${s.name}" is missing`);
          }
          break;
        case 'list':
        case 'leaf-list':
          if (s.minElements > 0 && this.whenAllows(s, parent, whenCache)) {
            this.report(
              'operation-failed',
              pathOf(parent, { schema: s }),
              `${s.kind} "${s.name}" has no ${s.kind === 'list' ? 'entries' : 'values'}, fewer than min-elements ${s.minElements}`,
              'too-few-elements',
            );
          }
          break;
        case 'container':
          if (s.presence === undefined) {
            const empty: ContainerNode = { kind: 'container', schema: s, children: [] };
            const x = new XNode(empty, parent, -1, 0);
            if (this.whenAllows(s, parent, whenCache)) this.validateInner(x, s);
          }
          break;
        default:
          break;
      }
    }
  }

  /** Whether the `when` conditions of an absent node allow it (a false `when` lifts its requirements). */
  private whenAllows(s: SchemaNode, parent: XNode, whenCache: Map<SchemaXPath, boolean | string>): boolean {
    if (!s.when.length) return true;
    const w = checkWhens(s, standIn(s, parent), parent, this.ctx, this.session, whenCache);
    return w.ok;
  }
}

/** The cursor of the first instance a child data node contributes (undefined for an empty list). */
function firstCursor(parent: XNode, child: DataNode, slot: number): XNode | undefined {
  if (child.kind === 'list') return child.entries.length ? new XNode(child.entries[0]!, parent, slot, 0) : undefined;
  if (child.kind === 'entry') return undefined;
  return new XNode(child, parent, slot, 0);
}

/** The RFC 7951 instance path of a cursor, optionally followed by one more segment. */
export function pathOf(x: XNode, extra?: PathSegment): string {
  const segments: PathSegment[] = [];
  for (let n: XNode | undefined = x; n?.parent; n = n.parent) {
    const d = n.data;
    if (d.kind === 'root') break;
    if (d.kind === 'leaf-list') segments.push({ schema: d.schema, value: d.values[n.sub] ?? null });
    else if (d.kind === 'entry') {
      const keys = entryKeyValues(d);
      // An entry lacking a key is named by its list alone rather than by a made-up key value.
      segments.push(keys.includes(undefined as unknown as LeafValue) ? { schema: d.schema } : { schema: d.schema, keys });
    } else segments.push(segmentOf(d));
  }
  segments.reverse();
  if (extra) segments.push(extra);
  return instancePath(segments);
}

function uniqueValue(entry: ListEntryNode, path: readonly string[], leaf: LeafSchema): string | undefined {
  let children: DataNode[] = entry.children;
  for (let i = 0; i < path.length; i++) {
    const name = path[i]!;
    const last = i === path.length - 1;
    const found = children.find((c) => c.schema.name === name && (c.kind === 'container' || (last && c.kind === 'leaf')));
    if (!found) return leaf.default;
    if (found.kind === 'leaf') return valueString(found.value);
    if (found.kind !== 'container') return undefined;
    children = found.children;
  }
  return undefined;
}

function caseHasData(c: CaseSchema, present: ReadonlySet<SchemaNode>): boolean {
  for (const s of c.children) {
    if (s.kind === 'choice') {
      if (s.children.some((cc) => caseHasData(cc, present))) return true;
    } else if (s.kind === 'case') {
      if (caseHasData(s, present)) return true;
    } else if (present.has(s)) return true;
  }
  return false;
}

// Which schema nodes can be "missing": computed once per schema node and mode.
const requirementCache = [new WeakMap<SchemaNode, boolean>(), new WeakMap<SchemaNode, boolean>()];

/**
 * Whether an absent node can cause a fault: it is mandatory, has min-elements, or is a choice or
 * non-presence container with such a node below it (through choices and non-presence containers only).
 */
function hasRequirements(s: SchemaNode, config: boolean): boolean {
  const cache = requirementCache[config ? 1 : 0]!;
  const cached = cache.get(s);
  if (cached !== undefined) return cached;
  cache.set(s, false); // guards against a cyclic schema
  let r = false;
  if (!config || s.config) {
    switch (s.kind) {
      case 'leaf':
      case 'anydata':
      case 'anyxml':
        r = s.mandatory;
        break;
      case 'list':
      case 'leaf-list':
        r = s.minElements > 0;
        break;
      case 'choice':
        r = s.mandatory || s.children.some((c) => hasRequirements(c, config));
        break;
      case 'case':
        r = s.children.some((c) => hasRequirements(c, config));
        break;
      case 'container':
        r = s.presence === undefined && s.children.some((c) => hasRequirements(c, config));
        break;
      default:
        r = false;
    }
  }
  cache.set(s, r);
  return r;
}

const requiredCache = [new WeakMap<readonly SchemaNode[], SchemaNode[]>(), new WeakMap<readonly SchemaNode[], SchemaNode[]>()];

/**
 * The children that can be missing in a mode (they apply in it and have requirements): what
 * checkMissing looks at, filtered once per schema node rather than for every instance.
 */
function requiredChildren(children: readonly SchemaNode[], config: boolean): readonly SchemaNode[] {
  const cache = requiredCache[config ? 1 : 0]!;
  let r = cache.get(children);
  if (r === undefined) {
    r = children.filter((s) => (!config || s.config) && hasRequirements(s, config));
    cache.set(children, r);
  }
  return r;
}

const missingCheckCache = [new WeakMap<readonly SchemaNode[], boolean>(), new WeakMap<readonly SchemaNode[], boolean>()];

/** Whether any of these schema children can be missing (so absent children need a look at all). */
function needsMissingCheck(children: readonly SchemaNode[], config: boolean): boolean {
  const cache = missingCheckCache[config ? 1 : 0]!;
  let r = cache.get(children);
  if (r === undefined) {
    r = children.some((c) => hasRequirements(c, config));
    cache.set(children, r);
  }
  return r;
}
