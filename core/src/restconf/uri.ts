/**
 * RESTCONF resource identifiers against a schema (RFC 8040 §3.5.3, docs/restconf-api.md#instance-identifiers): the part of a URI
 * after `/rests/data` or `/rests/operations` becomes typed steps (schema node, typed key values or
 * leaf-list value) that the data layer uses directly as an edit or read target (`PathStep[]`).
 *
 * - The first segment is `module:name`; later ones are bare in the parent's module and qualified
 *   where the module changes. A bare name that only one child carries is also accepted (as the JSON
 *   decoder does): it cannot pick the wrong node and clients often leave augment prefixes out.
 * - Keys are typed with the key leaf's type; identityref prefixes in keys are module names.
 * - `yang-ext:mount` ends the outer path; the rest is kept raw and parsed later, against the device's
 *   schema, with {@link parseDevicePath}.
 * - Errors: a segment naming no schema node is 404 `invalid-value` naming that segment; a wrong key
 *   count, a key of the wrong type, `=` on a node that takes none, bad encoding are 400 `invalid-value`.
 */
import { keyBytesOver, keyTooLongMessage } from '../data/list';
import { instancePath, instancePathOf } from '../data/path';
import type { PathStep } from '../data/edit';
import type { LeafValue } from '../data/tree';
import { type InstancePath, renderInstancePath } from '../yang/instance-path';
import { valueFromText } from '../yang/types/values';
import type { ListSchema, OperationSchema, SchemaContext, SchemaNode } from '../yang/schema';
import { RestconfError, unknownResource } from './errors';
import { KEY_LIMIT } from './request-limits';
import { badUri, lexPath, MOUNT_SEGMENT, type UriSegment } from './uri-segments';

export { MOUNT_SEGMENT, lexPath, type UriSegment, type LexedPath } from './uri-segments';

/** How URIs are read (from the service configuration). */
export interface UriOptions {
  /** The key delimiter as written in URIs (`"%22"` by default); null disables it. */
  readonly keyDelimiter: string | null;
}

/** Where a `yang-ext:mount` segment split a path. */
export interface MountSplit {
  /** Steps up to (not including) the mount segment, in the local schema. */
  readonly outer: readonly PathStep[];
  /** Instance path of `outer`, for messages. */
  readonly outerPath: string;
  /** The encoded text after `yang-ext:mount/` (empty for the device's root); see {@link parseDevicePath}. */
  readonly devicePath: string;
}

/** A parsed RESTCONF resource identifier. */
export interface ParsedPath {
  /** Steps from the top to the target; empty for the datastore root. With a mount, the outer steps. */
  readonly steps: readonly PathStep[];
  /** RFC 7951 instance path of the steps (`/` for the root), for messages and error-path. */
  readonly path: string;
  /**
   * The steps as the instance path value that hooks hand to plugins; a device path's value starts at
   * the mount point (its `path` text starts with the outer path).
   */
  readonly pathValue: InstancePath;
  /** Schema node of the last step; undefined for the root. */
  readonly target: SchemaNode | undefined;
  /** Set when the path names an RPC (operations) or an action (data). */
  readonly operation?: OperationSchema;
  /** Set when the path crosses `yang-ext:mount`. */
  readonly mount?: MountSplit;
}

/** Which kind of resource a path names, which decides where its first segment is looked up. */
type PathKind = 'data' | 'operations';

/**
 * Parses the encoded text after `/rests/data` (with or without the leading `/`). Throws
 * RestconfError: 404 `invalid-value` for a segment naming no schema node, 400 `invalid-value` for
 * everything else that is wrong.
 */
export function parseDataPath(raw: string, ctx: SchemaContext, options: UriOptions): ParsedPath {
  return resolve(raw, ctx, options, 'data', '');
}

/**
 * Parses the encoded text after `/rests/operations`: `<module>:<rpc>`, or an outer data path up to
 * `yang-ext:mount` followed by a device's `<module>:<rpc>` (returned as `mount`; parse its
 * `devicePath` with `parseDevicePath(..., 'operations')`). An empty path (listing) gives no steps.
 */
export function parseOperationPath(raw: string, ctx: SchemaContext, options: UriOptions): ParsedPath {
  return resolve(raw, ctx, options, 'operations', '');
}

/**
 * Parses the device part of a mounted path (`MountSplit.devicePath`) against the device's schema.
 * `base` is the outer path, prefixed to messages (e.g. `.../node=R1/yang-ext:mount`).
 */
export function parseDevicePath(
  devicePath: string,
  deviceCtx: SchemaContext,
  options: UriOptions,
  kind: PathKind = 'data',
  base = '',
): ParsedPath {
  return resolve(devicePath, deviceCtx, options, kind, base);
}

function resolve(raw: string, ctx: SchemaContext, options: UriOptions, kind: PathKind, base: string): ParsedPath {
  const lexed = lexPath(raw, options.keyDelimiter);
  const segments = lexed.segments;
  const local = lexed.mountRest === undefined ? segments : segments.slice(0, -1);
  const steps: PathStep[] = [];
  let operation: OperationSchema | undefined;
  if (kind === 'operations' && lexed.mountRest === undefined) {
    operation = resolveRpc(local, ctx, base);
    if (operation !== undefined) steps.push({ schema: operation });
  } else {
    operation = new StepResolver(ctx, base, steps).run(local);
  }
  // the value is built for the text anyway: kept, it costs the hooks nothing
  const pathValue = instancePathOf(steps);
  const path = renderInstancePath(pathValue, { kind: 'json', base });
  const parsed: ParsedPath = { steps, path, pathValue, target: steps.at(-1)?.schema, ...(operation ? { operation } : {}) };
  if (lexed.mountRest === undefined) return parsed;
  if (operation !== undefined) throw unknownResource(`'${MOUNT_SEGMENT}' cannot follow the operation '${operation.name}'`, MOUNT_SEGMENT);
  return { ...parsed, mount: { outer: steps, outerPath: path, devicePath: lexed.mountRest } };
}

/** The RPC named by an operations path (`module:rpc`, one segment); undefined for an empty path. */
function resolveRpc(segments: readonly UriSegment[], ctx: SchemaContext, base: string): OperationSchema | undefined {
  const first = segments[0];
  if (first === undefined) return undefined;
  if (first.module === undefined) throw badUri(`operation '${first.raw}' must be written <module>:<rpc>`);
  if (first.keys !== undefined) throw badUri(`operation '${first.raw}' takes no key values`);
  const rpc = ctx.rpcs.find((r) => r.name === first.name && r.module.name === first.module);
  if (rpc === undefined) {
    const why = ctx.modules.has(first.module)
      ? `module '${first.module}' has no rpc '${first.name}'`
      : `no module '${first.module}' is loaded`;
    throw unknownResource(`${base}/${first.raw} names no operation: ${why}`, first.raw);
  }
  const extra = segments[1];
  if (extra !== undefined) throw unknownResource(`'${extra.raw}' names nothing under the operation '${first.raw}'`, extra.raw);
  return rpc;
}

/** Walks segments down the schema, appending steps; returns the action when the path names one. */
class StepResolver {
  constructor(
    private readonly ctx: SchemaContext,
    private readonly base: string,
    private readonly steps: PathStep[],
  ) {}

  run(segments: readonly UriSegment[]): OperationSchema | undefined {
    let parent: SchemaNode | undefined;
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i]!;
      const node = this.lookup(parent, seg);
      const last = i === segments.length - 1;
      switch (node.kind) {
        case 'container':
          if (seg.keys !== undefined) throw this.noKeys(seg, 'container');
          this.steps.push({ schema: node });
          break;
        case 'list':
          this.steps.push(this.listStep(node, seg, last));
          break;
        case 'leaf-list':
          if (seg.keys !== undefined && seg.keys.length !== 1)
            throw this.invalid(seg, `leaf-list '${node.name}' names one value, ${seg.keys.length} given`);
          this.steps.push(seg.keys === undefined ? { schema: node } : { schema: node, value: this.typed(node, seg.keys[0]!, seg) });
          break;
        case 'leaf':
        case 'anydata':
        case 'anyxml':
          if (seg.keys !== undefined) throw this.noKeys(seg, node.kind);
          this.steps.push({ schema: node });
          break;
        case 'action':
          if (seg.keys !== undefined) throw this.noKeys(seg, 'action');
          this.steps.push({ schema: node });
          if (!last) throw unknownResource(`'${segments[i + 1]!.raw}' names nothing under the action '${node.name}'`, segments[i + 1]!.raw);
          return node;
        default:
          // rpc, notification, input/output: not data resources.
          throw unknownResource(`${this.here()}/${seg.raw} is a ${node.kind}, not a data resource`, seg.raw);
      }
      parent = node;
    }
    return undefined;
  }

  private here(): string {
    const p = instancePath(this.steps, this.base);
    return p === '/' ? '' : p;
  }

  /** The child a segment names under `parent` (the top level when undefined), or 404. */
  private lookup(parent: SchemaNode | undefined, seg: UriSegment): SchemaNode {
    if (parent === undefined && seg.module === undefined) {
      throw badUri(`the first path segment '${seg.raw}' must be written <module>:<name>`);
    }
    if (parent !== undefined && !hasChildren(parent)) {
      throw unknownResource(`'${seg.raw}' names nothing: ${this.here()} is a ${parent.kind} and has no children`, seg.raw);
    }
    if (seg.module !== undefined && !this.ctx.modules.has(seg.module)) {
      throw unknownResource(`'${seg.raw}' names no schema node: no module '${seg.module}' is loaded`, seg.raw);
    }
    const children = parent === undefined ? this.ctx.data : parent.children;
    const module = seg.module ?? parent!.module.name;
    const found = findChild(children, module, seg.name) ?? (seg.module === undefined ? uniqueBare(children, seg.name) : undefined);
    if (found === undefined) {
      const where = parent === undefined ? 'at the top level' : `under ${this.here()}`;
      throw unknownResource(`'${seg.raw}' names no schema node ${where}`, seg.raw);
    }
    return found;
  }

  private listStep(list: ListSchema, seg: UriSegment, last: boolean): PathStep {
    if (seg.keys === undefined) {
      if (last) return { schema: list };
      throw this.invalid(
        seg,
        `list '${list.name}' needs its key values (${list.keys.map((k) => k.name).join(',') || 'none: it is keyless'}) to be descended into`,
      );
    }
    if (list.keys.length === 0) throw this.invalid(seg, `list '${list.name}' has no keys, so its entries cannot be named`);
    if (seg.keys.length !== list.keys.length) {
      throw this.invalid(
        seg,
        `list '${list.name}' has ${list.keys.length} key(s) (${list.keys.map((k) => k.name).join(',')}), ${seg.keys.length} value(s) given`,
      );
    }
    const keys = seg.keys.map((text, n) => this.typed(list.keys[n]!, text, seg, list));
    // A key no body may create names nothing (request-limits.ts): refused as a body's would be.
    for (let n = 0; n < keys.length; n++) {
      const bytes = keyBytesOver(keys[n]!, KEY_LIMIT);
      if (bytes >= 0) throw this.invalid(seg, keyTooLongMessage(list.keys[n]!.name, bytes, KEY_LIMIT));
    }
    return { schema: list, keys };
  }

  /** A key or leaf-list value in its type; identityref prefixes are module names. */
  private typed(
    leaf: Extract<SchemaNode, { kind: 'leaf' | 'leaf-list' }>,
    text: string,
    seg: UriSegment,
    owner: SchemaNode = leaf,
  ): LeafValue {
    const modules = this.ctx.modules;
    const result = valueFromText(leaf.type, text, this.ctx, (prefix) => (modules.has(prefix) ? prefix : undefined), leaf.module.name);
    if (result.ok) return result.value;
    throw RestconfError.of('invalid-value', `bad value '${text}' for '${leaf.name}' in '${seg.raw}': ${result.message}`, {
      type: 'protocol',
      path: instancePath([...this.steps, { schema: owner }], this.base),
      ...(result.appTag !== undefined ? { appTag: result.appTag } : {}),
    });
  }

  private noKeys(seg: UriSegment, kind: string): RestconfError {
    return this.invalid(seg, `'${seg.name}' is a ${kind} and takes no key values`);
  }

  private invalid(seg: UriSegment, message: string): RestconfError {
    const here = this.here();
    return RestconfError.of('invalid-value', message, {
      type: 'protocol',
      path: here === '' ? '/' : here,
      info: { 'bad-element': seg.raw },
    });
  }
}

function hasChildren(node: SchemaNode): boolean {
  return node.kind === 'container' || node.kind === 'list';
}

/** The data child (or action) `module:name`, looking through choice and case. */
function findChild(children: readonly SchemaNode[], module: string, name: string): SchemaNode | undefined {
  for (const c of children) {
    if (c.kind === 'choice' || c.kind === 'case') {
      const found = findChild(c.children, module, name);
      if (found !== undefined) return found;
    } else if (c.name === name && c.module.name === module) {
      return c;
    }
  }
  return undefined;
}

/** The only child named `name` in any module, or undefined when none or several carry it. */
function uniqueBare(children: readonly SchemaNode[], name: string): SchemaNode | undefined {
  let found: SchemaNode | undefined;
  let count = 0;
  const visit = (list: readonly SchemaNode[]): void => {
    for (const c of list) {
      if (c.kind === 'choice' || c.kind === 'case') visit(c.children);
      else if (c.name === name) {
        found = c;
        count++;
      }
    }
  };
  visit(children);
  return count === 1 ? found : undefined;
}
