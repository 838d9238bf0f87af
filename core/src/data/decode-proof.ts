/**
 * What a decoder proved about the lists it built, so that validation (validate.ts) does not prove it
 * again. The decoders see every entry as they build it; for a 100,000-entry list, re-walking every
 * entry and re-hashing every key in validation costs as much as decoding did.
 *
 * Two levels of proof, recorded per `ListNode`:
 * - `keys`: every entry has all its key leaves and no two entries share a key (the decoders refuse a
 *   document otherwise, so every keyed list they build has this);
 * - `complete`: besides keys, every entry's subtree is structurally valid for one validation mode
 *   (`config` when decoded with `allowState: false`, `data` otherwise): at every node of it, the
 *   mandatory leaves and anydata are present, and nothing there has anything else validation would
 *   check (see {@link requiredCount}); for `config`, it holds no state data. Whether a node can be
 *   proved is decided per schema node once, and checked per instance, so a list whose entries leave
 *   out the parts of the model with `must`s or choices is still proved. Validation then checks only
 *   the list's own min/max-elements and skips its entries (unless leafrefs are to be checked).
 *
 * A proof describes the list as the decoder left it. It is kept beside the node (a WeakMap, so the
 * tree's shape is untouched) with the entries array and its length, and is ignored once either
 * differs; the list operations in list.ts drop it when they change a list in place. Trees are treated
 * as immutable once built (see tree.ts, edit.ts), so nothing else changes a decoded list's entries.
 */
import type { ListSchema, SchemaNode } from '../yang/schema';
import { dataSchemaChildren } from './children';
import type { ListEntryNode, ListNode } from './tree';

/** The validation mode a proof was made for: `validateTree`'s `type`. */
export type ProofMode = 'config' | 'data';

/** How much a decoder proved about one list. */
export const enum ListProof {
  None = 0,
  Keys = 1,
  Complete = 2,
}

interface Record {
  readonly entries: readonly ListEntryNode[];
  readonly length: number;
  readonly mode: ProofMode;
  readonly level: ListProof;
}

const proofs = new WeakMap<ListNode, Record>();

/** Records what a decoder proved about `list` (as it is now) for validation in `mode`. */
export function recordListProof(list: ListNode, mode: ProofMode, level: ListProof): void {
  if (level !== ListProof.None) proofs.set(list, { entries: list.entries, length: list.entries.length, mode, level });
}

/** What is proved about `list` for validation in `mode` (None when nothing, or when the list changed since). */
export function listProof(list: ListNode, mode: ProofMode): ListProof {
  const r = proofs.get(list);
  if (r === undefined) return ListProof.None;
  const entries = list.entries;
  if (entries !== r.entries || entries.length !== r.length) return ListProof.None;
  if (r.level === ListProof.Complete && r.mode !== mode) return ListProof.Keys;
  return r.level;
}

/** Drops the proof of a list changed in place (list.ts calls it). */
export function forgetListProof(list: ListNode): void {
  proofs.delete(list);
}

/** What validation would check of a list itself, per mode. */
export interface ListPlan {
  /** Whether the list has no `when`, `must` or `unique` (checked per entry or per list by validation). */
  readonly plain: boolean;
  /** Whether its subtree holds leafrefs (checked by validation with `checkLeafrefs` only). */
  readonly leafrefs: boolean;
}

const plans = [new WeakMap<ListSchema, ListPlan>(), new WeakMap<ListSchema, ListPlan>()];

/** The plan of a list schema in a mode, computed once. */
export function listPlan(list: ListSchema, mode: ProofMode): ListPlan {
  const cache = plans[mode === 'config' ? 1 : 0]!;
  let plan = cache.get(list);
  if (plan === undefined) {
    plan = {
      plain: list.when.length === 0 && list.musts.length === 0 && list.unique.length === 0,
      leafrefs: hasLeafrefs(list, mode === 'config', new Set()),
    };
    cache.set(list, plan);
  }
  return plan;
}

function hasLeafrefs(parent: SchemaNode, config: boolean, seen: Set<SchemaNode>): boolean {
  if (seen.has(parent)) return false; // schemas are finite trees; this only guards against a malformed one
  seen.add(parent);
  for (const s of dataSchemaChildren(parent.children)) {
    if (config && !s.config) continue;
    if ((s.kind === 'leaf' || s.kind === 'leaf-list') && s.type.builtin === 'leafref') return true;
    if ((s.kind === 'list' || s.kind === 'container') && hasLeafrefs(s, config, seen)) return true;
  }
  return false;
}

/**
 * What every instance of a parent must hold among these (data) children for a decoder to prove it:
 * the number of mandatory leaves/anydata that apply in the mode, or -1 when validation checks more of
 * these children than a decoder does (when/must, choices, instance-identifiers, min/max-elements or
 * unique of lists and leaf-lists, a non-presence container that requires something), so that no
 * instance of this parent is ever proved. The decoders count the mandatory members they meet against it.
 */
export function requiredCount(children: readonly SchemaNode[], mode: ProofMode): number {
  const config = mode === 'config';
  let n = 0;
  for (const s of children) {
    if (config && !s.config) continue; // cannot be present: the decoder refuses state data in this mode
    const p = s.parent;
    if (p === undefined || p.kind === 'choice' || p.kind === 'case') return -1; // top level, or under a choice
    if (s.when.length > 0 || s.musts.length > 0) return -1;
    switch (s.kind) {
      case 'leaf':
      case 'leaf-list':
        if (s.type.builtin === 'instance-identifier') return -1;
        if (s.kind === 'leaf' && s.mandatory) n++;
        if (s.kind === 'leaf-list' && (s.minElements > 0 || s.maxElements !== Infinity)) return -1;
        break;
      case 'anydata':
      case 'anyxml':
        if (s.mandatory) n++;
        break;
      case 'list':
        if (s.unique.length > 0 || s.minElements > 0 || s.maxElements !== Infinity) return -1;
        break;
      case 'container':
        if (s.presence === undefined && requiresSomething(s, config)) return -1;
        break;
      default:
        return -1;
    }
  }
  // A choice among the parent's children whose cases hold no data node is not among `children`.
  const parent = children[0]?.parent;
  if (parent?.children.some((c) => c.kind === 'choice')) return -1;
  return n;
}

/** Whether an absent non-presence container would still require something. */
function requiresSomething(container: SchemaNode, config: boolean): boolean {
  if (container.children.some((c) => c.kind === 'choice')) return true;
  for (const s of dataSchemaChildren(container.children)) {
    if (config && !s.config) continue;
    if ((s.kind === 'leaf' || s.kind === 'anydata' || s.kind === 'anyxml') && s.mandatory) return true;
    if ((s.kind === 'list' || s.kind === 'leaf-list') && s.minElements > 0) return true;
    if (s.kind === 'container' && s.presence === undefined && requiresSomething(s, config)) return true;
  }
  return false;
}
