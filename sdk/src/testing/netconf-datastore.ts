/**
 * The simulator's configuration datastores: trees of namespace-qualified elements, edited with RFC 6241
 * edit-config semantics (merge, replace, create, delete, remove; `nc:operation` inherited downwards),
 * list entries matched by the model's keys, and read through subtree filters (RFC 6241 §6).
 */
import type { SimulatorModel } from './netconf-model';
import { NETCONF_NS } from '../netconf/messages';
import { escapeText, type XmlElement } from '../netconf/xml';

/** A stored element. */
export interface StoredNode {
  readonly name: string;
  readonly ns: string;
  text: string;
  children: StoredNode[];
}

/** An edit failure: becomes an `<rpc-error>` with this tag, path and message. */
export class EditFault extends Error {
  constructor(
    readonly tag: string,
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'EditFault';
  }
}

type Operation = 'merge' | 'replace' | 'create' | 'delete' | 'remove' | 'none';
const OPERATIONS = new Set(['merge', 'replace', 'create', 'delete', 'remove']);

/** Copies a parsed element into storage (attributes dropped, whitespace-only text between children dropped). */
export function store(e: XmlElement): StoredNode {
  return { name: e.name, ns: e.ns, text: e.children.length > 0 ? '' : e.text, children: e.children.map(store) };
}

export function cloneNode(n: StoredNode): StoredNode {
  return { name: n.name, ns: n.ns, text: n.text, children: n.children.map(cloneNode) };
}

function operationOf(e: XmlElement, inherited: Operation, path: string): Operation {
  for (const [attr, value] of Object.entries(e.attrs)) {
    const colon = attr.indexOf(':');
    const local = colon >= 0 ? attr.slice(colon + 1) : attr;
    if (local !== 'operation' || colon < 0 || e.scope.get(attr.slice(0, colon)) !== NETCONF_NS) continue;
    if (!OPERATIONS.has(value)) throw new EditFault('bad-attribute', path, `unknown operation ${JSON.stringify(value)}`);
    return value as Operation;
  }
  return inherited;
}

function keyValues(node: { children: ReadonlyArray<{ name: string; text: string }> }, keys: readonly string[]): string[] {
  return keys.map((k) => node.children.find((c) => c.name === k)?.text.trim() ?? '');
}

function findMatch(siblings: StoredNode[], e: XmlElement, keys: readonly string[] | undefined): number {
  if (!keys) return siblings.findIndex((s) => s.name === e.name && s.ns === e.ns);
  const want = keyValues(e, keys).join('\u0000');
  return siblings.findIndex((s) => s.name === e.name && s.ns === e.ns && keyValues(s, keys).join('\u0000') === want);
}

/**
 * Applies the children of an edit-config `<config>` to `root`'s children. Throws EditFault (the root is
 * then partly edited: callers edit a copy and keep it only on success).
 */
export function applyEdit(
  root: StoredNode,
  elements: readonly XmlElement[],
  model: SimulatorModel,
  defaultOperation: Operation = 'merge',
): void {
  const walk = (parent: StoredNode, children: readonly XmlElement[], at: string, inherited: Operation) => {
    for (const e of children) {
      const path = `${at}/${e.name}`;
      const op = operationOf(e, inherited, path);
      const keys = model.listKeys.get(path);
      const index = findMatch(parent.children, e, keys);
      const where = keys ? `${path}[${keyValues(e, keys).join(',')}]` : path;
      switch (op) {
        case 'create':
          if (index >= 0) throw new EditFault('data-exists', where, 'data already exists');
          parent.children.push(store(e));
          break;
        case 'delete':
          if (index < 0) throw new EditFault('data-missing', where, 'data does not exist');
          parent.children.splice(index, 1);
          break;
        case 'remove':
          if (index >= 0) parent.children.splice(index, 1);
          break;
        case 'replace':
          if (index >= 0) parent.children[index] = store(e);
          else parent.children.push(store(e));
          break;
        case 'merge':
        case 'none': {
          if (e.children.length === 0) {
            if (index >= 0) parent.children[index]!.text = e.text;
            else if (op === 'merge') parent.children.push(store(e));
            break;
          }
          let target = index >= 0 ? parent.children[index] : undefined;
          if (!target) {
            if (op === 'none') {
              walk({ name: e.name, ns: e.ns, text: '', children: [] }, e.children, path, op);
              break;
            }
            target = { name: e.name, ns: e.ns, text: '', children: [] };
            parent.children.push(target);
          }
          walk(target, e.children, path, op);
          break;
        }
      }
    }
  };
  walk(root, elements, '', defaultOperation);
}

/** Whether a filter element only matches content (a leaf with text: RFC 6241 §6.2.5). */
const isContentMatch = (f: XmlElement) => f.children.length === 0 && f.text.trim() !== '';

/** The parts of `nodes` a subtree filter selects (RFC 6241 §6); an empty filter selects nothing. */
export function filterNodes(nodes: readonly StoredNode[], filters: readonly XmlElement[]): StoredNode[] {
  const out: StoredNode[] = [];
  for (const n of nodes) {
    const fs = filters.filter((f) => f.name === n.name && (f.ns === '' || f.ns === n.ns));
    let picked: StoredNode | undefined;
    for (const f of fs) {
      if (f.children.length === 0) {
        picked = isContentMatch(f) ? (n.text.trim() === f.text.trim() ? cloneNode(n) : picked) : cloneNode(n);
        continue;
      }
      const matches = f.children.filter(isContentMatch);
      const ok = matches.every((m) => n.children.some((c) => c.name === m.name && c.text.trim() === m.text.trim()));
      if (!ok) continue;
      const selections = f.children.filter((c) => !isContentMatch(c));
      const kids =
        selections.length === 0
          ? n.children.map(cloneNode)
          : [...n.children.filter((c) => matches.some((m) => m.name === c.name)).map(cloneNode), ...filterNodes(n.children, selections)];
      picked = { name: n.name, ns: n.ns, text: '', children: kids };
    }
    if (picked) out.push(picked);
  }
  return out;
}

/** Renders stored nodes as XML, declaring the namespace where it changes. */
export function renderNodes(nodes: readonly StoredNode[], parentNs = ''): string {
  return nodes
    .map((n) => {
      const xmlns = n.ns !== parentNs ? ` xmlns="${escapeText(n.ns)}"` : '';
      if (n.children.length === 0 && n.text === '') return `<${n.name}${xmlns}/>`;
      return `<${n.name}${xmlns}>${escapeText(n.text)}${renderNodes(n.children, n.ns)}</${n.name}>`;
    })
    .join('');
}
