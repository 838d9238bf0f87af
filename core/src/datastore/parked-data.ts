/**
 * Parked data: what the Config datastore holds for modules the local schema lacks (a plugin disabled,
 * failing to load, or off across a restart). Dropping it would delete intended configuration for good
 * (a CLI node's host and credentials, a plugin's own settings) because a plugin was off for a while, so
 * it is kept aside instead, unserved and unvalidated, and put back when the module returns.
 *
 * Each parked item is a stored edit in the journal's own format (edit-record.ts), values exactly as
 * stored (secrets sealed), with its anchor: how many steps of its target the schema knew when it was
 * parked (the node it hangs from). Decoding reports such edits instead of dropping them: members of an
 * absent module inside known data become one merge into the node holding them; an edit whose target
 * runs through an absent module is kept as it is. Items stay in the order they were stored, so putting
 * them back replays them as they were written.
 *
 * An item goes with the data it hangs from: a delete, remove or replace of its anchor or anything above
 * it supersedes it (`supersede`), and an item whose anchor is gone when its module returns is dropped
 * (`takeReturning`), so a node deleted while its plugin was off does not come back with its settings.
 * An item that no longer decodes when its module returns (the module changed incompatibly) stays parked.
 */
import type { Edit, PathStep } from '../data/edit';
import { entryKeyValues, valueText } from '../data/path';
import type { DataNode, DataRoot } from '../data/tree';
import type { SchemaContext } from '../yang/schema';
import { decodeEditRecord, type ParkedEdit, type ReadContext, stepJson } from './edit-record';

/** What `takeReturning` found among the items whose modules are back. */
export interface Returning {
  /** The decoded edits to apply, in stored order, each with the item it came from. */
  readonly edits: readonly { readonly edit: Edit; readonly item: ParkedEdit }[];
  /** Items dropped because the data they hang from is gone. */
  readonly gone: readonly ParkedEdit[];
  /** Items that do not decode against the schema: kept parked. */
  readonly misfits: readonly ParkedEdit[];
}

const SUPERSEDING = new Set(['delete', 'remove', 'replace']);

/** The stored form of each step of a parked edit's target. */
function targetSteps(item: ParkedEdit): string[] {
  const t = item.edit.t;
  return Array.isArray(t) ? t.map((step) => JSON.stringify(step)) : [];
}

/** Whether the node `steps` name (list entries by their keys) exists in `root`. */
function exists(root: DataRoot, steps: readonly PathStep[]): boolean {
  let children: readonly DataNode[] = root.children;
  for (const step of steps) {
    let found = children.find((c) => c.schema === step.schema);
    if (found?.kind === 'list') {
      const keys = (step.keys ?? []).map(valueText);
      found = found.entries.find((e) => entryKeyValues(e).every((v, i) => valueText(v) === keys[i]));
    }
    if (found === undefined) return false;
    children = found.kind === 'container' || found.kind === 'entry' ? found.children : [];
  }
  return true;
}

/** The one edit `item` holds, or undefined when decoding it dropped or parked anything. */
function decodeCleanly(item: ParkedEdit, read: ReadContext): Edit | undefined {
  let clean = true;
  const unclean = () => {
    clean = false;
  };
  const decoded = decodeEditRecord(JSON.stringify({ e: [item.edit] }), { ...read, log: unclean, park: unclean });
  return clean && decoded.length === 1 ? decoded[0] : undefined;
}

/** "module (count), ..." for log lines: names and counts, never values. */
export function byModule(items: readonly ParkedEdit[]): string {
  const counts = new Map<string, number>();
  for (const item of items) for (const m of item.modules) counts.set(m, (counts.get(m) ?? 0) + 1);
  return [...counts].map(([m, n]) => `${m} (${n})`).join(', ');
}

/** The parked items of one Config datastore, in stored order. */
export class ParkedData {
  private items: ParkedEdit[];

  constructor(items: readonly ParkedEdit[] = []) {
    this.items = [...items];
  }

  get size(): number {
    return this.items.length;
  }

  all(): readonly ParkedEdit[] {
    return this.items;
  }

  add(item: ParkedEdit): void {
    this.items.push(item);
  }

  /**
   * Drops the items (among the first `before`) that `edit` supersedes: a delete, remove or replace of
   * their anchor or of a node above it. Returns those dropped.
   */
  supersede(edit: Pick<Edit, 'operation' | 'target'>, before = this.items.length): ParkedEdit[] {
    if (!SUPERSEDING.has(edit.operation) || this.items.length === 0) return [];
    const target = edit.target.map(stepJson);
    const dropped: ParkedEdit[] = [];
    this.items = this.items.filter((item, i) => {
      if (i >= before) return true;
      const steps = targetSteps(item);
      const within = target.length <= item.anchor && target.every((s, n) => steps[n] === s);
      if (within) dropped.push(item);
      return !within;
    });
    return dropped;
  }

  /**
   * Takes out the items whose modules are all in `ctx` again: decoded (with `read`, which opens sealed
   * secrets as recovery does) when their anchor still exists in `root`, dropped when it does not. An
   * item that does not decode cleanly (something dropped, or still parked) stays, as a misfit.
   */
  takeReturning(ctx: SchemaContext, read: (where: string) => ReadContext, root: DataRoot): Returning {
    const edits: { edit: Edit; item: ParkedEdit }[] = [];
    const gone: ParkedEdit[] = [];
    const misfits: ParkedEdit[] = [];
    this.items = this.items.filter((item) => {
      if (!item.modules.every((m) => ctx.modules.has(m))) return true;
      // Values as stored first, so sealed secrets come back byte for byte; opened (as recovery
      // reads them) only when a sealed value does not fit its leaf's type as it is.
      const base = read(`parked data of ${item.modules.join(', ')}`);
      const { prepare, ...asStored } = base;
      const decoded = decodeCleanly(item, asStored) ?? (prepare === undefined ? undefined : decodeCleanly(item, base));
      if (decoded === undefined) {
        misfits.push(item);
        return true;
      }
      const edit = decoded;
      if (!exists(root, edit.target.slice(0, item.anchor))) gone.push(item);
      else edits.push({ edit, item });
      return false;
    });
    return { edits, gone, misfits };
  }
}
