/**
 * `fields` (RFC 8040 §4.8.3, docs/restconf-api.md#fields): which descendants of the target a GET returns.
 *
 *   fields-expr = path "(" fields-expr ")" / path ";" fields-expr / path
 *   path        = api-identifier [ "/" path ]
 *
 * `;` separates siblings, `/` descends, `(...)` sub-selects. Once a chain has descended with `/`,
 * the items after `;` are siblings at the depth reached (`a/b;c` selects `a/b` and `a/c`), so naming
 * a field of an upper level again in the same chain (`p1/f1;p2/f2`, p1 and p2 siblings) names
 * nothing there and is 400 `invalid-value`.
 *
 * Parsing (`parseFields`) is schema-free; `resolveFields` checks names against the target's schema
 * (module-qualified where the module changes, as in URIs); `selectFields` cuts the data. Selected
 * list entries always keep their key leaves, so every entry still names itself.
 */
import type { DataNode, ListEntryNode } from '../../data/tree';
import type { SchemaContext, SchemaNode } from '../../yang/schema';
import { badQuery } from '../errors';
import type { ReadTarget } from './target';

/** One item of a fields expression: a path of api-identifiers, optionally with a sub-selection. */
export interface FieldItem {
  readonly path: readonly string[];
  readonly sub?: readonly FieldItem[];
}

/** What is selected under one node: each selected child, wholly (`'all'`) or in part. */
export interface FieldSelection {
  readonly children: Map<SchemaNode, FieldSelection | 'all'>;
}

/** Deepest `(` nesting accepted; far beyond any schema, and it keeps the parser's recursion bounded. */
const MAX_NESTING = 64;
const API_IDENTIFIER = /^(?:[A-Za-z_][A-Za-z0-9_.-]*:)?[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Parses the value of `fields` into items; syntax errors are 400 naming `fields` and the offset. */
export function parseFields(value: string): FieldItem[] {
  const parser = new FieldsParser(value);
  const items = parser.expr(0);
  if (parser.at < value.length) throw parser.fail(`unexpected '${value[parser.at]}'`);
  return items;
}

class FieldsParser {
  at = 0;
  constructor(private readonly text: string) {}

  fail(message: string): ReturnType<typeof badQuery> {
    return badQuery('fields', `${message} at offset ${this.at} of '${this.text}'`);
  }

  expr(nesting: number): FieldItem[] {
    if (nesting > MAX_NESTING) throw this.fail(`more than ${MAX_NESTING} nested parentheses`);
    const items: FieldItem[] = [];
    for (;;) {
      const path = this.path();
      if (this.text[this.at] === '(') {
        this.at++;
        const sub = this.expr(nesting + 1);
        if (this.text[this.at] !== ')') throw this.fail("missing ')'");
        this.at++;
        items.push({ path, sub });
      } else {
        items.push({ path });
      }
      if (this.text[this.at] !== ';') return items;
      this.at++;
    }
  }

  private path(): string[] {
    const path: string[] = [];
    for (;;) {
      const start = this.at;
      while (this.at < this.text.length && !'/;()'.includes(this.text[this.at]!)) this.at++;
      const id = this.text.slice(start, this.at);
      if (!API_IDENTIFIER.test(id)) {
        this.at = start;
        throw this.fail(id === '' ? 'a field name is missing' : `'${id}' is not a [module:]name`);
      }
      path.push(id);
      if (this.text[this.at] !== '/') return path;
      this.at++;
    }
  }
}

/** The schema children a fields name can name under `parent` (the top level when undefined). */
function findField(parent: SchemaNode | undefined, id: string, ctx: SchemaContext): SchemaNode | undefined {
  const colon = id.indexOf(':');
  const module = colon >= 0 ? id.slice(0, colon) : parent?.module.name;
  const name = colon >= 0 ? id.slice(colon + 1) : id;
  if (module === undefined) return undefined; // top-level names must be qualified
  const candidates = parent === undefined ? ctx.data : parent.kind === 'container' || parent.kind === 'list' ? parent.children : [];
  let bare: SchemaNode | undefined;
  let bareCount = 0;
  const visit = (list: readonly SchemaNode[]): SchemaNode | undefined => {
    for (const c of list) {
      if (c.kind === 'choice' || c.kind === 'case') {
        const found = visit(c.children);
        if (found) return found;
      } else if (c.name === name && c.kind !== 'action' && c.kind !== 'notification') {
        if (c.module.name === module) return c;
        bare = c;
        bareCount++;
      }
    }
    return undefined;
  };
  // Like URIs, a bare name that only one child carries also names an augmented child.
  return visit(candidates) ?? (colon < 0 && bareCount === 1 ? bare : undefined);
}

/**
 * Checks a parsed fields expression against the target's schema (undefined: the datastore root)
 * and builds the selection. Unknown names are 400 `invalid-value` naming `fields`.
 */
export function resolveFields(items: readonly FieldItem[], target: SchemaNode | undefined, ctx: SchemaContext): FieldSelection {
  if (target !== undefined && target.kind !== 'container' && target.kind !== 'list') {
    throw badQuery('fields', `the target '${target.name}' is a ${target.kind}; fields selects children of a container or list`);
  }
  const top: FieldSelection = { children: new Map() };
  resolveItems(items, target, top, ctx, []);
  return top;
}

function resolveItems(
  items: readonly FieldItem[],
  parent: SchemaNode | undefined,
  selection: FieldSelection,
  ctx: SchemaContext,
  trail: string[],
): void {
  let levelSchema = parent;
  let levelSelection = selection;
  let levelTrail = trail;
  for (const item of items) {
    let schema = levelSchema;
    let sel = levelSelection;
    let where = levelTrail;
    for (let i = 0; i < item.path.length; i++) {
      const id = item.path[i]!;
      const node = findField(schema, id, ctx);
      if (node === undefined) {
        const at = where.length === 0 ? 'the target' : `'${where.join('/')}'`;
        throw badQuery('fields', `'${id}' is not a child of ${at} (after '/', fields after ';' are siblings at that depth)`);
      }
      const last = i === item.path.length - 1;
      if (last) {
        // The chain continues at the level where this item's last node sits.
        levelSchema = schema;
        levelSelection = sel;
        levelTrail = where;
      }
      const existing = sel.children.get(node);
      if (last && item.sub === undefined) {
        sel.children.set(node, 'all');
        break;
      }
      // Already wholly selected: a narrower selection adds nothing, but its names are still checked
      // (into a selection nobody keeps) and the chain still moves down.
      const next: FieldSelection = existing === 'all' || existing === undefined ? { children: new Map() } : existing;
      if (existing !== 'all') sel.children.set(node, next);
      if (last) {
        if (node.kind !== 'container' && node.kind !== 'list')
          throw badQuery('fields', `'${id}' is a ${node.kind} and has no fields to sub-select`);
        resolveItems(item.sub!, node, next, ctx, [...where, id]);
      } else {
        if (node.kind !== 'container' && node.kind !== 'list') throw badQuery('fields', `'${id}' is a ${node.kind}; nothing is below it`);
        schema = node;
        sel = next;
        where = [...where, id];
      }
    }
  }
}

/** The data `selection` keeps of `target` (the target itself is always kept). */
export function selectFields<T extends ReadTarget>(target: T, selection: FieldSelection): T {
  switch (target.kind) {
    case 'root':
    case 'container':
    case 'entry':
      return { ...target, children: selectChildren(target.children, selection, target.kind === 'entry' ? target : undefined) };
    case 'list': {
      const { index: _dropped, ...rest } = target;
      return { ...rest, entries: target.entries.map((e) => selectFields(e, selection)) } as T;
    }
    default:
      return target;
  }
}

function selectChildren(children: readonly DataNode[], selection: FieldSelection, entry: ListEntryNode | undefined): DataNode[] {
  const out: DataNode[] = [];
  for (const c of children) {
    const sel = selection.children.get(c.schema);
    if (sel === undefined) {
      if (entry?.schema.keys.includes(c.schema as never)) out.push(c);
      continue;
    }
    if (sel === 'all') {
      out.push(c);
      continue;
    }
    const cut = selectFields(c, sel);
    // A container reached only on the way to a field the data lacks is left out.
    if (cut.kind === 'container' && cut.children.length === 0) continue;
    if (cut.kind === 'list' && cut.entries.length === 0) continue;
    out.push(cut);
  }
  return out;
}
