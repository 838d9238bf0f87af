/**
 * Subtree filters (RFC 6241 §6) from a RESTCONF read: the target path becomes containment nodes with
 * list keys as content-match nodes, and the `fields` selection (RFC 8040 §4.8.3, as docs/restconf-api.md#fields reads
 * it) becomes selection nodes under the target, so only what was asked crosses the wire.
 */
import { escapeAttr, escapeText, type InstancePath } from '@rosetta/sdk';
import { parseDevicePath, pathText } from './path';
import { XmlBuildError, type Namespaces } from './xml-build';

/** One selected member and what is selected below it (empty: the whole subtree). */
export interface FieldSelection {
  readonly member: string;
  readonly children: FieldSelection[];
}

/** Why a `fields` value cannot be read, with the column. */
export class FieldsSyntaxError extends Error {
  constructor(
    readonly column: number,
    reason: string,
  ) {
    super(`fields: ${reason} at column ${column}`);
    this.name = 'FieldsSyntaxError';
  }
}

const MEMBER = /[A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?/y;
const MAX_FIELDS = 4096;

/**
 * Parses `fields`: `;` separates siblings, `/` descends, `(...)` sub-selects. After `a/b`, fields that
 * follow a `;` are siblings of `b` (`a/b;c` selects a/b and a/c), as docs/restconf-api.md#fields specifies.
 */
export function parseFields(text: string): FieldSelection[] {
  if (text.length === 0) throw new FieldsSyntaxError(1, 'empty selection');
  if (text.length > MAX_FIELDS) throw new FieldsSyntaxError(1, `longer than ${MAX_FIELDS} characters`);
  const root: FieldSelection[] = [];
  // scopes: where `(` opened; within a scope, `level` is where the next sibling goes
  const scopes: Array<{ base: FieldSelection[]; level: FieldSelection[] }> = [{ base: root, level: root }];
  let i = 0;
  let last: FieldSelection | undefined;
  const add = (into: FieldSelection[], member: string) => {
    let node = into.find((n) => n.member === member);
    if (!node) {
      node = { member, children: [] };
      into.push(node);
    }
    return node;
  };
  let expectName = true;
  while (i < text.length) {
    const scope = scopes[scopes.length - 1]!;
    if (expectName) {
      MEMBER.lastIndex = i;
      const m = MEMBER.exec(text);
      if (!m) throw new FieldsSyntaxError(i + 1, `expected a node name, got ${JSON.stringify(text[i])}`);
      last = add(scope.level, m[0]);
      i += m[0].length;
      expectName = false;
      continue;
    }
    const c = text[i]!;
    if (c === '/') {
      scope.level = last!.children;
      expectName = true;
    } else if (c === ';') expectName = true;
    else if (c === '(') {
      scopes.push({ base: last!.children, level: last!.children });
      expectName = true;
    } else if (c === ')') {
      if (scopes.length === 1) throw new FieldsSyntaxError(i + 1, 'unbalanced )');
      scopes.pop();
    } else throw new FieldsSyntaxError(i + 1, `unexpected ${JSON.stringify(c)}`);
    i++;
  }
  if (expectName) throw new FieldsSyntaxError(text.length + 1, 'expected a node name at the end');
  if (scopes.length > 1) throw new FieldsSyntaxError(text.length + 1, 'unbalanced (');
  return root;
}

function moduleOf(member: string, parent: string | undefined, where: string): { module: string; name: string } {
  const colon = member.indexOf(':');
  if (colon >= 0) return { module: member.slice(0, colon), name: member.slice(colon + 1) };
  if (!parent) throw new XmlBuildError(where, `top-level node ${member} must be module-qualified`);
  return { module: parent, name: member };
}

function open(name: string, module: string, parent: string | undefined, ns: Namespaces, where: string): string {
  if (module === parent) return `<${name}`;
  const uri = ns.get(module);
  if (uri === undefined) throw new XmlBuildError(where, `no namespace known for module ${module}`);
  return `<${name} xmlns="${escapeAttr(uri)}"`;
}

function selections(fields: readonly FieldSelection[], parent: string, ns: Namespaces, where: string): string {
  return fields
    .map((f) => {
      const { module, name } = moduleOf(f.member, parent, where);
      const start = open(name, module, parent, ns, `${where}/${f.member}`);
      return f.children.length === 0 ? `${start}/>` : `${start}>${selections(f.children, module, ns, `${where}/${f.member}`)}</${name}>`;
    })
    .join('');
}

/**
 * The subtree filter for a read of `path` (RFC 7951 instance-identifier under the mount point; `/` is the
 * whole tree) with an optional `fields` selection. Returns undefined when nothing needs filtering (the
 * whole tree). Throws XmlBuildError for a bad path or an unknown module, FieldsSyntaxError for bad fields.
 */
export function subtreeFilter(target: InstancePath | string, fields: string | undefined, ns: Namespaces): string | undefined {
  const parsed = parseDevicePath(target);
  const path = pathText(target);
  if (!parsed.ok) throw new XmlBuildError(path, parsed.error);
  const segs = parsed.path;
  const selected = fields === undefined || fields === '' ? [] : parseFields(fields);
  if (segs.length === 0 && selected.length === 0) return undefined;
  if (segs.length === 0) {
    // fields at the root must name module-qualified top-level nodes
    return `<filter type="subtree">${selections(selected, '', ns, '')}</filter>`;
  }
  let inner = '';
  let module: string | undefined;
  const opens: string[] = [];
  const closes: string[] = [];
  for (const [index, seg] of segs.entries()) {
    const { module: mod, name } = moduleOf(seg.member, module, path);
    const start = open(name, mod, module, ns, path);
    const keys = Object.entries(seg.keys ?? {})
      .map(([k, v]) => `<${k}>${escapeText(v)}</${k}>`)
      .join('');
    const isLast = index === segs.length - 1;
    if (isLast) {
      // a leaf-list entry ([.='x']) is a content-match node holding its value
      const body =
        seg.value !== undefined ? escapeText(seg.value) : keys + (selected.length > 0 ? selections(selected, mod, ns, path) : '');
      inner = body === '' ? `${start}/>` : `${start}>${body}</${name}>`;
    } else {
      opens.push(`${start}>${keys}`);
      closes.unshift(`</${name}>`);
    }
    module = mod;
  }
  return `<filter type="subtree">${opens.join('')}${inner}${closes.join('')}</filter>`;
}
