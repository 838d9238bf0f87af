/**
 * A `jsonb-filter` as PostgreSQL's own SQL/JSON path, for a Config datastore kept in a database to run
 * it over a large list's rows (datastore/list-rows.ts: each entry a jsonb document) instead of entry by
 * entry in the instance: `$ ? (predicate)`, which `doc @? path` tests (over the GIN index where the
 * predicate's form allows, such as an equality).
 *
 * The filter language is PostgreSQL's predicate syntax already; what changes is the paths: `{@/a/b}`
 * becomes `@."a"."b"`, each name resolved against the list's schema to the member its row holds. A
 * filter the rows cannot answer exactly translates to undefined and runs in the instance: an absolute
 * path (`{$/...}`: the datastore, not the entry), a bare name that children of two modules share, a
 * name no child of that node has, a step below a leaf, a `starts with` whose prefix is not a string.
 */
import { childTable } from '../../data/children';
import { type Datastore, documentName } from '../../datastore';
import type { ListNode } from '../../data/tree';
import type { ListSchema, SchemaNode } from '../../yang/schema';
import type { JsonbFilter, JsonbOperand, JsonbPath, JsonbPredicate } from './jsonb-filter-parse';

/** Thrown inside the translation when a part has no exact SQL/JSON path form. */
class Untranslatable extends Error {}

function childNamed(parent: SchemaNode, name: string): SchemaNode {
  const table = childTable(parent);
  const colon = name.indexOf(':');
  if (colon >= 0) {
    const slot = table.byQualified.get(name);
    if (slot === undefined) throw new Untranslatable();
    return slot.schema as SchemaNode;
  }
  let found: SchemaNode | undefined;
  for (const child of table.bySchema.keys()) {
    if (child.name !== name) continue;
    if (found !== undefined) throw new Untranslatable(); // two modules' children share the name
    found = child;
  }
  if (found === undefined) throw new Untranslatable();
  return found;
}

function pathText(path: JsonbPath, list: ListSchema): string {
  if (path.absolute) throw new Untranslatable();
  let at: SchemaNode = list;
  let out = '@';
  for (const name of path.names) {
    if (at.kind !== 'list' && at.kind !== 'container') throw new Untranslatable();
    at = childNamed(at, name);
    out += `.${JSON.stringify(documentName(at))}`;
  }
  return out;
}

function operandText(operand: JsonbOperand, list: ListSchema): string {
  if (operand.kind === 'path') return pathText(operand, list);
  if (typeof operand.value === 'string') return JSON.stringify(operand.value);
  return operand.value === null ? 'null' : typeof operand.value === 'number' ? operand.text : String(operand.value);
}

function predicateText(p: JsonbPredicate, list: ListSchema): string {
  switch (p.kind) {
    case 'and':
      return `(${predicateText(p.left, list)} && ${predicateText(p.right, list)})`;
    case 'or':
      return `(${predicateText(p.left, list)} || ${predicateText(p.right, list)})`;
    case 'not':
      return `!(${predicateText(p.operand, list)})`;
    case 'is-unknown':
      return `((${predicateText(p.operand, list)}) is unknown)`;
    case 'exists':
      return `exists(${pathText(p.path, list)})`;
    case 'compare':
      return `(${operandText(p.left, list)} ${p.op} ${operandText(p.right, list)})`;
    case 'like-regex': {
      const flags = p.flags === '' ? '' : ` flag ${JSON.stringify(p.flags)}`;
      return `(${operandText(p.left, list)} like_regex ${JSON.stringify(p.pattern)}${flags})`;
    }
    case 'starts-with':
      if (p.prefix.kind !== 'literal' || typeof p.prefix.value !== 'string') throw new Untranslatable();
      return `(${operandText(p.left, list)} starts with ${JSON.stringify(p.prefix.value)})`;
  }
}

/** `filter` as a SQL/JSON path over the row documents of `list`'s entries, or undefined when it has no exact one. */
export function filterAsJsonPath(filter: JsonbFilter, list: ListSchema): string | undefined {
  try {
    return `$ ? (${predicateText(filter.predicate, list)})`;
  } catch (error) {
    if (error instanceof Untranslatable) return undefined;
    throw error;
  }
}

/** A string or number literal: a value an equality usually finds in few entries (a boolean or null matches many). */
function selective(o: JsonbOperand): boolean {
  return o.kind === 'literal' && (typeof o.value === 'string' || typeof o.value === 'number');
}

/**
 * Whether PostgreSQL's GIN index (jsonb_path_ops) can narrow the rows for `p`: an equality of a path
 * and a string or number, or a conjunction holding one, or a disjunction of two. Other filters scan every row,
 * which PostgreSQL does two to three times slower than the instance walks its own tree (docs/restconf-api.md#jsonb-filter):
 * those stay in the instance, and the database every instance shares is spent where it is fast.
 */
export function indexable(p: JsonbPredicate): boolean {
  switch (p.kind) {
    case 'compare':
      return p.op === '==' && ((p.left.kind === 'path' && selective(p.right)) || (p.right.kind === 'path' && selective(p.left)));
    case 'and':
      return indexable(p.left) || indexable(p.right);
    case 'or':
      return indexable(p.left) && indexable(p.right);
    default:
      return false;
  }
}

/**
 * `list` with the entries for which `filter` holds, selected by `store` in its database; undefined
 * when the filter cannot use the database's index (`indexable`; `always` asks regardless), has no
 * SQL/JSON path form, or the store cannot answer for exactly this list.
 */
export async function filterInDatabase(
  store: Datastore,
  list: ListNode,
  filter: JsonbFilter,
  always = false,
): Promise<ListNode | undefined> {
  if (store.selectEntries === undefined || !(always || indexable(filter.predicate))) return undefined;
  const path = filterAsJsonPath(filter, list.schema);
  if (path === undefined) return undefined;
  const selected = await store.selectEntries(list, path);
  if (selected === undefined) return undefined;
  const { index: _dropped, ...rest } = list;
  return { ...rest, entries: list.entries.filter((e) => selected.has(e)) };
}
