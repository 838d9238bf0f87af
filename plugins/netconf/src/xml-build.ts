/**
 * The XML of NETCONF requests built from RFC 7951 JSON and instance-identifiers.
 *
 * An edit-config `<config>` (`editConfigXml`): ancestors from each edit's path (key leaves first),
 * `nc:operation` on the target, edits that share ancestors merged into one tree. The target's value is
 * written by the device codec (`DeviceDataCodec.valueXml`: the core's schema-aware encoder for the
 * device schema), so identityref and instance-identifier values carry the prefixes and namespaces the
 * schema gives them; every write through the plugin has the codec. RPC and action input (`rpcXml`,
 * `actionXml`) is written by the codec too (`DeviceDataCodec.inputXml`); only the operation's element
 * and an action's ancestors are built here.
 *
 * Without a schema (`jsonToXml`, and edit-config in the builder's own tests; no request to a device), what
 * XML needs beyond the JSON is each element's namespace, and JSON names every module change
 * (`module:name`), so a map module -> namespace (read from the device's own module texts) is enough:
 * objects become elements, arrays of objects list entries, arrays of scalars leaf-list entries, `[null]`
 * an empty leaf. Strings that may be identityref or instance-identifier values
 * (`iana-if-type:ethernetCsmacd`, `/ietf-interfaces:interfaces/...`) get an `xmlns:<module>` declaration
 * for every known module they name, using the module name as the prefix: correct for those types and
 * harmless for a plain string that merely looks like one.
 */
import {
  escapeAttr,
  escapeText,
  NETCONF_NS,
  YANG_1_NS,
  type DeviceDataCodec,
  type DeviceEdit,
  type InstancePath,
  type InstanceSegment,
  type JsonObject,
  type JsonValue,
} from '@rosetta/sdk';
import { parseDevicePath, pathText, type DeviceSegment } from './path';

/** Module name -> XML namespace. */
export type Namespaces = ReadonlyMap<string, string>;

/** An element being built. Children keep insertion order; `key` identifies list entries among siblings. */
interface Node {
  readonly name: string;
  readonly module: string;
  readonly attrs: Array<[string, string]>;
  readonly children: Node[];
  text?: string;
  /** XML written elsewhere (an edit's value, by the device codec), put out as it is. */
  raw?: string;
  /** For ancestors from paths: a string identifying the entry (keys), so two edits share one element. */
  readonly identity?: string;
}

/** Why a JSON value or path cannot be written as XML. */
export class XmlBuildError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = 'XmlBuildError';
  }
}

const QUALIFIED = /^([A-Za-z_][\w.-]*):([A-Za-z_][\w.-]*)$/;
const LOCAL = /^[A-Za-z_][\w.-]*$/;
const MODULE_REF = /([A-Za-z_][\w.-]*):/g;

function splitMember(member: string, parentModule: string | undefined, where: string): { module: string; name: string } {
  const q = QUALIFIED.exec(member);
  if (q) return { module: q[1]!, name: q[2]! };
  if (!LOCAL.test(member)) throw new XmlBuildError(where, `${JSON.stringify(member)} is not a member name`);
  if (!parentModule) throw new XmlBuildError(where, `top-level member ${JSON.stringify(member)} must be module-qualified`);
  return { module: parentModule, name: member };
}

function scalarText(value: JsonValue, where: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new XmlBuildError(where, `expected a scalar, got ${JSON.stringify(value)?.slice(0, 40)}`);
}

/** Builds the nodes of one JSON member (an element, or several for a list or leaf-list). */
function memberNodes(member: string, value: JsonValue, parentModule: string | undefined, where: string, depth: number): Node[] {
  if (depth > 256) throw new XmlBuildError(where, 'data nests deeper than 256 levels');
  if (member === '@') return []; // RFC 7952 metadata: not sent to the device
  const { module, name } = splitMember(member, parentModule, where);
  const path = `${where}/${member}`;
  const element = (v: JsonValue, at: string): Node => {
    const node: Node = { name, module, attrs: [], children: [] };
    if (v === null) return node;
    if (Array.isArray(v)) {
      if (v.length === 1 && v[0] === null) return node; // empty
      throw new XmlBuildError(at, 'unexpected array');
    }
    if (typeof v === 'object') {
      for (const [m, c] of Object.entries(v)) node.children.push(...memberNodes(m, c, module, at, depth + 1));
      return node;
    }
    node.text = scalarText(v, at);
    return node;
  };
  if (Array.isArray(value)) {
    if (value.length === 1 && value[0] === null) return [element(null, path)];
    return value.map((v, i) => element(v, `${path}[${i}]`));
  }
  return [element(value, path)];
}

/** Serializes nodes; a namespace is declared where it changes, and prefixes for module names in values. */
function serialize(nodes: readonly Node[], ns: Namespaces, parentModule: string | undefined, out: string[]): void {
  for (const n of nodes) {
    if (n.raw !== undefined) {
      out.push(n.raw);
      continue;
    }
    out.push('<', n.name);
    if (n.module !== parentModule) {
      const uri = ns.get(n.module);
      if (uri === undefined) throw new XmlBuildError(`/${n.module}:${n.name}`, `no namespace known for module ${n.module}`);
      out.push(' xmlns="', escapeAttr(uri), '"');
    }
    for (const [k, v] of n.attrs) out.push(' ', k, '="', escapeAttr(v), '"');
    if (n.text?.includes(':')) {
      const declared = new Set<string>();
      for (const m of n.text.matchAll(MODULE_REF)) {
        const mod = m[1]!;
        const uri = ns.get(mod);
        if (uri !== undefined && !declared.has(mod) && mod !== 'xmlns') {
          declared.add(mod);
          out.push(' xmlns:', mod, '="', escapeAttr(uri), '"');
        }
      }
    }
    if (n.children.length === 0 && (n.text === undefined || n.text === '')) {
      out.push('/>');
      continue;
    }
    out.push('>');
    if (n.text !== undefined) out.push(escapeText(n.text));
    serialize(n.children, ns, n.module, out);
    out.push('</', n.name, '>');
  }
}

/** RFC 7951 top-level members (`{"module:top": ...}`) as XML elements. Throws XmlBuildError. */
export function jsonToXml(document: Readonly<Record<string, JsonValue>>, ns: Namespaces): string {
  const nodes: Node[] = [];
  for (const [m, v] of Object.entries(document)) nodes.push(...memberNodes(m, v, undefined, '', 0));
  const out: string[] = [];
  serialize(nodes, ns, undefined, out);
  return out.join('');
}

/** An edit-config operation (RFC 6241 §7.2). */
export type EditOperation = DeviceEdit['operation'];

/**
 * An edit as edit-config is built from it: a DeviceEdit as the core hands it (its path a value), or one
 * of the dry-run operation's JSON input, where a client wrote the path as RFC 7951 text (read here with
 * the core's reader, as any path the plugin is given as text).
 */
export type ConfigEdit = Omit<DeviceEdit, 'path'> & { readonly path: InstancePath | string };

function parsePath(given: InstancePath | string): DeviceSegment[] {
  const r = parseDevicePath(given);
  if (!r.ok) throw new XmlBuildError(pathText(given), r.error);
  if (r.path.length === 0) throw new XmlBuildError(pathText(given), 'an edit needs a target below the root');
  return r.path;
}

/** Finds or adds the ancestor element for a path segment, so edits under one parent share it. */
function ancestor(siblings: Node[], seg: InstanceSegment, module: string | undefined, path: string): Node {
  const { module: mod, name } = splitMember(seg.member, module, path);
  const identity = seg.keys ? JSON.stringify(seg.keys) : '';
  let node = siblings.find((s) => s.name === name && s.module === mod && s.identity === identity && s.attrs.length === 0);
  if (!node) {
    node = { name, module: mod, attrs: [], children: [], identity };
    for (const [k, v] of Object.entries(seg.keys ?? {})) node.children.push({ name: k, module: mod, attrs: [], children: [], text: v });
    siblings.push(node);
  }
  return node;
}

/**
 * The `<config>` element of an edit-config carrying every edit: ancestors built from each path (list
 * keys as their first children), the target with `nc:operation`. With the device's `codec` (what every
 * write through the plugin has), a value is written by the core's schema-aware encoder for the device
 * schema; without it (the builder's own tests), by the schema-less writer above. Throws XmlBuildError
 * for a bad path, a value whose member does not match the target, or a missing value where the
 * operation needs one; DataError from the codec for a value that does not fit the schema.
 */
export function editConfigXml(edits: readonly ConfigEdit[], ns: Namespaces, codec?: DeviceDataCodec): string {
  const roots: Node[] = [];
  for (const edit of edits) {
    const segs = parsePath(edit.path);
    const where = pathText(edit.path);
    let siblings = roots;
    let module: string | undefined;
    for (const seg of segs.slice(0, -1)) {
      const a = ancestor(siblings, seg, module, where);
      module = a.module;
      siblings = a.children;
    }
    const last = segs[segs.length - 1]!;
    const { module: mod, name } = splitMember(last.member, module, where);
    const operation: [string, string] = ['xmlns:nc', NETCONF_NS];
    const opAttr: [string, string] = ['nc:operation', edit.operation];
    let targets: Node[];
    if (edit.operation === 'delete' || edit.operation === 'remove') {
      // a leaf-list entry is named by its value: <tag nc:operation="delete">value</tag>
      const node: Node = { name, module: mod, attrs: [], children: [], ...(last.value !== undefined ? { text: last.value } : {}) };
      for (const [k, v] of Object.entries(last.keys ?? {})) node.children.push({ name: k, module: mod, attrs: [], children: [], text: v });
      targets = [node];
    } else {
      const entries = Object.entries(edit.value ?? {});
      if (entries.length !== 1) throw new XmlBuildError(where, `a ${edit.operation} needs a value with exactly one member, the target`);
      const [member, value] = entries[0]!;
      const named = splitMember(member, module, where);
      if (named.name !== name || named.module !== mod)
        throw new XmlBuildError(where, `the value's member ${member} is not the target ${last.member}`);
      // a list entry target may come as a one-entry array (RESTCONF bodies) or as the entry object
      const one = Array.isArray(value) && last.keys && value.length === 1 && value[0] !== null ? value[0]! : value;
      if (codec !== undefined) {
        const entry = last.keys && !Array.isArray(one) ? [one] : one;
        const attributes = ` xmlns:nc="${escapeAttr(NETCONF_NS)}" nc:operation="${escapeAttr(edit.operation)}"`;
        const raw = codec.valueXml(where, { [`${mod}:${name}`]: entry }, { attributes });
        siblings.push({ name, module: mod, attrs: [], children: [], raw });
        continue;
      }
      targets = memberNodes(`${mod}:${name}`, one, undefined, where, 0).map((t) => orderKeysFirst(t, last.keys));
    }
    for (const t of targets) {
      t.attrs.push(operation, opAttr);
      siblings.push(t);
    }
  }
  const out: string[] = [];
  serialize(roots, ns, undefined, out);
  return `<config xmlns="${NETCONF_NS}">${out.join('')}</config>`;
}

/** Puts a list entry's key leaves first, in key order (RFC 7950 §7.8.5), adding any the value omits. */
function orderKeysFirst(node: Node, keys: Readonly<Record<string, string>> | undefined): Node {
  if (!keys) return node;
  const rest = node.children.filter((c) => !(c.name in keys && c.module === node.module));
  const keyNodes = Object.entries(keys).map(
    ([k, v]) =>
      node.children.find((c) => c.name === k && c.module === node.module) ?? {
        name: k,
        module: node.module,
        attrs: [],
        children: [],
        text: v,
      },
  );
  node.children.splice(0, node.children.length, ...keyNodes, ...rest);
  return node;
}

/**
 * An RPC's element: `<rpc-name xmlns="...">` around its input members, written by the device codec
 * (`DeviceDataCodec.inputXml`) from RFC 7951 input (bare names in the rpc's module). `operation` is
 * `module:rpc`.
 */
export function rpcXml(operation: string, input: JsonObject, ns: Namespaces, codec: DeviceDataCodec): string {
  const { module, name } = splitMember(operation, undefined, operation);
  const node: Node = { name, module, attrs: [], children: [] };
  const raw = codec.inputXml(operation, input);
  if (raw !== '') node.children.push({ name, module, attrs: [], children: [], raw });
  const out: string[] = [];
  serialize([node], ns, undefined, out);
  return out.join('');
}

/**
 * A YANG 1.1 action request (RFC 7950 §7.15.2): `<action xmlns="urn:ietf:params:xml:ns:yang:1">` around
 * the action's ancestors (list keys first) and the action element holding the input members, written
 * by the device codec (`DeviceDataCodec.inputXml`). `action` is the action node's instance-identifier.
 */
export function actionXml(action: InstancePath | string, input: JsonObject, ns: Namespaces, codec: DeviceDataCodec): string {
  const segs = parsePath(action);
  const path = pathText(action);
  if (segs.length < 2) throw new XmlBuildError(path, 'an action is defined inside a container or list, not at the top level');
  const roots: Node[] = [];
  let siblings = roots;
  let module: string | undefined;
  for (const seg of segs.slice(0, -1)) {
    const a = ancestor(siblings, seg, module, path);
    module = a.module;
    siblings = a.children;
  }
  const last = segs[segs.length - 1]!;
  if (last.keys) throw new XmlBuildError(path, 'an action node takes no keys');
  const { module: mod, name } = splitMember(last.member, module, path);
  const node: Node = { name, module: mod, attrs: [], children: [] };
  const raw = codec.inputXml(path, input);
  if (raw !== '') node.children.push({ name, module: mod, attrs: [], children: [], raw });
  siblings.push(node);
  const out: string[] = [];
  serialize(roots, ns, undefined, out);
  return `<action xmlns="${YANG_1_NS}">${out.join('')}</action>`;
}

/** Reads `namespace "..."` from a module's text (submodules have none). */
export function namespaceOf(yangText: string): string | undefined {
  const m = /^\s*namespace\s+(?:"([^"]*)"|'([^']*)'|([^\s;]+))\s*;/m.exec(yangText.slice(0, 20000));
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
}
