/**
 * `apply-tags=true` on plain PATCH (docs/restconf-api.md#apply-tags): a node tagged `"@": {"operation": "..."}` (or
 * `template-tags:operation`, or the XML attribute of that name) is edited by that operation, and the
 * tag holds for its whole subtree; untagged nodes merge. A tagged body becomes a list of ordinary
 * edits, outermost first: the tagged node with its differently-tagged descendants cut out, then each
 * of those descendants as its own edit, so the datastore applies them all or nothing. Deletes go
 * before the rest: they name what is stored, which the body's writes may have removed meanwhile (a
 * node of one case of a choice deletes the other cases' nodes), and a write never re-creates what a
 * delete of the same body names (the deleted node is cut out of its ancestors' values).
 *
 * Operations: merge, replace, create (409 when present), delete (404 when absent), update (merge that
 * requires the node to exist: 404 `data-missing` otherwise).
 */
import type { Edit, EditOperation, PathStep } from '../data/edit';
import { DataError, fault } from '../data/errors';
import { entryKeyValues, instancePath } from '../data/path';
import type { DataNode, DataRoot } from '../data/tree';
import { caseConflictMessage } from '../data/validate';
import { enclosingCases, type ChoiceSchema } from '../yang/schema';
import { findTarget } from './target';

type TagOperation = 'merge' | 'replace' | 'create' | 'delete' | 'update';
const OPERATIONS: ReadonlySet<string> = new Set(['merge', 'replace', 'create', 'delete', 'update']);
const TAG_NAMES = ['operation', 'template-tags:operation'] as const;

/** Removes the tag from a node (copy), returning the node and the tag. */
function takeTag(node: DataNode, steps: readonly PathStep[]): { node: DataNode; tag: TagOperation | undefined } {
  const attrs = node.attributes;
  if (attrs === undefined) return { node, tag: undefined };
  let tag: TagOperation | undefined;
  const rest = { ...attrs };
  for (const name of TAG_NAMES) {
    if (!(name in rest)) continue;
    const v = rest[name];
    delete rest[name];
    if (typeof v !== 'string' || !OPERATIONS.has(v)) {
      throw new DataError(
        fault(
          'bad-attribute',
          instancePath(steps),
          `apply-tags operation must be one of ${[...OPERATIONS].join(', ')}, not ${JSON.stringify(v)}`,
        ),
      );
    }
    tag = v as TagOperation;
  }
  const copy = { ...node };
  if (Object.keys(rest).length === 0) delete copy.attributes;
  else copy.attributes = rest;
  return { node: copy, tag };
}

interface Tagged {
  readonly node: DataNode;
  readonly steps: readonly PathStep[];
}

class TagSplitter {
  readonly edits: Edit[] = [];
  readonly mustExist: PathStep[][] = [];

  visit(raw: DataNode, steps: readonly PathStep[], inherited: TagOperation): void {
    const { node, tag } = takeTag(raw, steps);
    const op = tag ?? inherited;
    if (op === 'delete') {
      this.edits.push({ operation: 'delete', target: steps });
      return;
    }
    const tagged: Tagged[] = [];
    const value = this.strip(node, steps, tagged);
    if (op === 'update') this.mustExist.push([...steps]);
    const operation: EditOperation = op === 'update' ? 'merge' : op;
    this.edits.push({ operation, target: steps, value });
    for (const t of tagged) this.visit(t.node, t.steps, op);
  }

  /** A copy of `node` without the descendants that carry a tag (collected into `tagged`). */
  private strip(node: DataNode, steps: readonly PathStep[], tagged: Tagged[]): DataNode {
    switch (node.kind) {
      case 'container':
      case 'entry': {
        const children: DataNode[] = [];
        for (const c of node.children) {
          const childSteps = c.kind === 'list' || c.kind === 'entry' ? steps : [...steps, { schema: c.schema }];
          const kept = this.stripChild(c, childSteps, tagged);
          if (kept !== undefined) children.push(kept);
        }
        return { ...node, children };
      }
      case 'list': {
        const entries = [];
        for (const e of node.entries) {
          const entrySteps = [
            ...steps.slice(0, steps.length - (steps.at(-1)?.schema === node.schema ? 1 : 0)),
            { schema: node.schema, keys: entryKeyValues(e) },
          ];
          if (hasTag(e)) tagged.push({ node: e, steps: entrySteps });
          else entries.push(this.strip(e, entrySteps, tagged) as typeof e);
        }
        return { ...node, entries, index: undefined } as DataNode;
      }
      case 'leaf-list':
        if (node.valueAttributes?.some((a) => a !== undefined && TAG_NAMES.some((n) => n in a))) {
          throw new DataError(fault('bad-attribute', instancePath(steps), 'apply-tags: tag the whole leaf-list, not single values'));
        }
        return node;
      default:
        return node;
    }
  }

  private stripChild(c: DataNode, steps: readonly PathStep[], tagged: Tagged[]): DataNode | undefined {
    if (c.kind === 'list') {
      const listSteps = [...steps, { schema: c.schema }];
      if (hasTag(c)) {
        tagged.push({ node: c, steps: listSteps });
        return undefined;
      }
      const stripped = this.strip(c, listSteps, tagged) as Extract<DataNode, { kind: 'list' }>;
      return stripped.entries.length > 0 ? stripped : undefined;
    }
    if (hasTag(c)) {
      tagged.push({ node: c, steps });
      return undefined;
    }
    return this.strip(c, steps, tagged);
  }
}

function hasTag(node: DataNode): boolean {
  return node.attributes !== undefined && TAG_NAMES.some((n) => n in node.attributes!);
}

function taggedDelete(node: DataNode): boolean {
  return node.attributes !== undefined && TAG_NAMES.some((n) => node.attributes![n] === 'delete');
}

/**
 * A body is one write, so nodes of two cases of one choice in it are refused, as in an untagged body,
 * although they become separate edits (the later edit would delete the earlier one's nodes). A node
 * tagged delete writes nothing and conflicts with nothing.
 */
function refuseTwoCases(node: DataNode, steps: readonly PathStep[]): void {
  if (taggedDelete(node)) return;
  if (node.kind === 'container' || node.kind === 'entry') {
    refuseTwoCasesAmong(node.children, steps);
  } else if (node.kind === 'list') {
    const parent = steps.at(-1)?.schema === node.schema ? steps.slice(0, -1) : steps;
    for (const e of node.entries) refuseTwoCases(e, [...parent, { schema: node.schema, keys: entryKeyValues(e) }]);
  }
}

function refuseTwoCasesAmong(children: readonly DataNode[], steps: readonly PathStep[]): void {
  const chosen = new Map<ChoiceSchema, DataNode>();
  for (const child of children) {
    if (taggedDelete(child)) continue;
    const childSteps = [...steps, { schema: child.schema }];
    for (const c of enclosingCases(child.schema)) {
      const choice = c.parent as ChoiceSchema;
      const first = chosen.get(choice);
      if (first === undefined) chosen.set(choice, child);
      else if (!enclosingCases(first.schema).includes(c)) {
        throw new DataError(fault('invalid-value', instancePath(childSteps), caseConflictMessage(first.schema, child.schema, choice)));
      }
    }
    refuseTwoCases(child, childSteps);
  }
}

/**
 * The edits for a tagged PATCH body `value` at `steps`, and a check of `update` targets to run on the
 * real base tree before the edits are kept.
 */
export function tagEdits(
  steps: readonly PathStep[],
  value: DataNode | DataRoot,
): { edits: Edit[]; precheck: (previous: DataRoot) => void } {
  if (value.kind === 'root') refuseTwoCasesAmong(value.children, []);
  else refuseTwoCases(value, steps);
  const splitter = new TagSplitter();
  if (value.kind === 'root') {
    for (const c of value.children) splitter.visit(c, c.kind === 'list' ? [{ schema: c.schema }] : [{ schema: c.schema }], 'merge');
  } else if (value.kind === 'list' && steps.at(-1)?.keys !== undefined && value.entries.length === 1) {
    splitter.visit(value.entries[0]!, steps, 'merge');
  } else {
    splitter.visit(value, steps, 'merge');
  }
  const mustExist = splitter.mustExist;
  return {
    edits: [...splitter.edits.filter((e) => e.operation === 'delete'), ...splitter.edits.filter((e) => e.operation !== 'delete')],
    precheck: (previous) => {
      for (const s of mustExist) {
        if (findTarget(previous, s) === undefined)
          throw new DataError(fault('data-missing', instancePath(s), 'apply-tags update: no data to update'));
      }
    },
  };
}
