/**
 * The paths of an OpenAPI document: one path per container, list and list entry under `/rests/data`
 * (or a mounted node's roots), written as RFC 8040 §3.5.3 writes them (the first node and any node of
 * another module than its parent qualified `module:name`, a list entry `name={key1},{key2}` with each
 * key a path parameter), each with the methods its schema allows (GET everywhere; PUT, POST, PATCH and
 * DELETE only on configuration), and one path per RPC under `/rests/operations` (or the node's) and per action under
 * its container or entry. Bodies are RFC 7951 JSON whose one top member is the module-qualified target.
 */
import { dataParent, dataChildren, type ContainerSchema, type ListSchema, type OperationSchema, type SchemaNode } from '../yang/schema';
import type { Components } from './components';
import { typeSchema, type JsonSchema } from './leaf-schema';
import { dataContent, queryParameters } from './shared';

const ERROR_REF = { $ref: '#/components/responses/Error' };
/** Where the local datastore's data and operations are served. */
export const LOCAL_ROOTS: PathRoots = { data: '/rests/data', operations: '/rests/operations' };

/** The path prefixes a document's data and operation paths start with. */
export interface PathRoots {
  readonly data: string;
  readonly operations: string;
}

/**
 * What a path serves: configuration (writable), operational data or a list's every entry (read only),
 * an action under data, or an RPC (under the operations root). A node's document keeps its paths
 * without roots and prefixes them per place by this (node-document.ts).
 */
export type PathKind = 'config' | 'state' | 'action' | 'rpc';

/** A resource's place: its path template and the path parameters the template names. */
interface Place {
  readonly path: string;
  readonly parameters: readonly JsonSchema[];
  /** Parameter names used so far on this path (each must be unique). */
  readonly names: ReadonlySet<string>;
}

export class PathWriter {
  readonly paths: Record<string, JsonSchema> = {};
  /** What each path serves, by path. */
  readonly kinds = new Map<string, PathKind>();

  constructor(
    private readonly components: Components,
    private readonly roots: PathRoots = LOCAL_ROOTS,
    /** Query parameters the place refuses, left out of its methods (a mount point's). */
    private readonly refusedQuery: ReadonlySet<string> = new Set(),
  ) {}

  /** Paths of a top-level data node and everything below it. */
  addData(node: SchemaNode): void {
    this.walk(node, { path: this.roots.data, parameters: [], names: new Set() });
  }

  /** The path of an RPC. */
  addRpc(rpc: OperationSchema): void {
    this.add(`${this.roots.operations}/${rpc.module.name}:${rpc.name}`, { post: this.operation(rpc) }, 'rpc');
  }

  private add(path: string, item: JsonSchema, kind: PathKind): void {
    this.paths[path] = item;
    this.kinds.set(path, kind);
  }

  private walk(node: SchemaNode, parent: Place): void {
    if (node.kind === 'choice' || node.kind === 'case') {
      for (const c of node.children) this.walk(c, parent);
      return;
    }
    if (node.kind === 'action') {
      this.add(`${parent.path}/${segment(node)}`, withPathParameters({ post: this.operation(node) }, parent.parameters), 'action');
      return;
    }
    if (node.kind === 'container') {
      const place = { ...parent, path: `${parent.path}/${segment(node)}` };
      this.add(place.path, this.resource(node, place, false), node.config ? 'config' : 'state');
      for (const c of dataChildren(node.children)) this.walk(c, place);
    } else if (node.kind === 'list') {
      const listPath = `${parent.path}/${segment(node)}`;
      this.add(listPath, withPathParameters({ get: this.read(node, 'list') }, parent.parameters), node.config ? 'config' : 'state');
      if (node.keys.length === 0) return; // a keyless (state) list has no entry paths
      const place = this.entryPlace(node, parent);
      this.add(place.path, this.resource(node, place, node.orderedBy === 'user'), node.config ? 'config' : 'state');
      for (const c of dataChildren(node.children)) this.walk(c, place);
    }
  }

  /** The path of one entry of `list`: its keys become path parameters. */
  private entryPlace(list: ListSchema, parent: Place): Place {
    const names = new Set(parent.names);
    const parameters = [...parent.parameters];
    const templates: string[] = [];
    for (const key of list.keys) {
      let name = names.has(key.name) ? `${list.name}-${key.name}` : key.name;
      for (let i = 2; names.has(name); i++) name = `${list.name}-${key.name}-${i}`;
      names.add(name);
      templates.push(`{${name}}`);
      parameters.push(
        this.components.parameterRef(`key.${this.components.nameOf(list)}.${name}`, () => ({
          name,
          in: 'path',
          required: true,
          description: `key ${key.name} of ${list.module.name}:${list.name} (percent-encoded)`,
          schema: typeSchema(key.type),
        })),
      );
    }
    return { path: `${parent.path}/${segment(list)}=${templates.join(',')}`, parameters, names };
  }

  /** The methods of a container or list entry. */
  private resource(node: ContainerSchema | ListSchema, place: Place, ordered: boolean): JsonSchema {
    const item: JsonSchema = withPathParameters({ get: this.read(node, 'entry') }, place.parameters);
    if (!node.config) return item;
    const body = { required: true, content: dataContent(this.body(node, 'entry')) };
    const updated = { description: 'updated' };
    item['put'] = {
      summary: `create or replace ${qualified(node)}`,
      parameters: queryParameters('PUT', ordered, this.refusedQuery),
      requestBody: body,
      responses: { '201': { description: 'created' }, '204': updated, default: ERROR_REF },
    };
    item['patch'] = {
      summary: `merge into ${qualified(node)}`,
      parameters: queryParameters('PATCH', false, this.refusedQuery),
      requestBody: body,
      responses: { '200': updated, '204': updated, default: ERROR_REF },
    };
    item['delete'] = {
      summary: `delete ${qualified(node)}`,
      parameters: queryParameters('DELETE', false, this.refusedQuery),
      responses: { '204': { description: 'deleted' }, default: ERROR_REF },
    };
    const post = this.childBody(node);
    if (post !== undefined) {
      item['post'] = {
        summary: `create a child of ${qualified(node)}`,
        parameters: queryParameters('POST', false, this.refusedQuery),
        requestBody: { required: true, content: dataContent(post) },
        responses: { '201': { description: 'created' }, default: ERROR_REF },
      };
    }
    return item;
  }

  private read(node: ContainerSchema | ListSchema, shape: 'list' | 'entry'): JsonSchema {
    return {
      summary: `read ${qualified(node)}${shape === 'list' && node.kind === 'list' ? ' (every entry)' : ''}`,
      parameters: queryParameters('GET', false, this.refusedQuery),
      responses: { '200': { description: 'the data', content: dataContent(this.body(node, shape)) }, default: ERROR_REF },
    };
  }

  /** A body whose one member is the node: a container's object, or an array of one entry or of all. */
  private body(node: ContainerSchema | ListSchema, shape: 'list' | 'entry'): JsonSchema {
    return this.components.schemaRef(`${this.components.nameOf(node)}.${shape === 'list' ? 'list' : 'body'}`, () => {
      const ref = this.components.ref(node);
      const value =
        node.kind === 'container'
          ? ref
          : shape === 'entry'
            ? { type: 'array', items: ref, minItems: 1, maxItems: 1 }
            : { type: 'array', items: ref };
      return { type: 'object', required: [qualified(node)], properties: { [qualified(node)]: value } };
    });
  }

  /**
   * POST's body: exactly one of the node's configuration children, module-qualified. Each points at
   * the child's member in the node's component, so a leaf's schema is written once.
   */
  private childBody(node: ContainerSchema | ListSchema): JsonSchema | undefined {
    const name = this.components.nameOf(node);
    const members = (this.components.schemas[name]!['properties'] ?? {}) as Record<string, JsonSchema>;
    const properties: Record<string, JsonSchema> = {};
    for (const child of dataChildren(node.children)) {
      if (!child.config || (node.kind === 'list' && child.kind === 'leaf' && child.isKey)) continue;
      const member = child.module === node.module ? child.name : qualified(child);
      if (!Object.hasOwn(members, member)) continue;
      properties[qualified(child)] = { $ref: `#/components/schemas/${name}/properties/${pointerToken(member)}` };
    }
    if (Object.keys(properties).length === 0) return undefined;
    return this.components.schemaRef(`${name}.child`, () => ({ type: 'object', properties, minProperties: 1, maxProperties: 1 }));
  }

  /** POST of an RPC or action: its input as the body, its output as the answer. */
  private operation(op: OperationSchema): JsonSchema {
    const out: JsonSchema = { summary: `invoke ${qualified(op)}` };
    if (op.description !== undefined) out['description'] = op.description.trim();
    if (op.input.children.length > 0) {
      out['requestBody'] = { required: true, content: dataContent(this.io(op, 'input')) };
    }
    out['responses'] =
      op.output.children.length > 0
        ? { '200': { description: 'the output', content: dataContent(this.io(op, 'output')) }, default: ERROR_REF }
        : { '204': { description: 'done' }, default: ERROR_REF };
    return out;
  }

  private io(op: OperationSchema, which: 'input' | 'output'): JsonSchema {
    const member = `${op.module.name}:${which}`;
    return this.components.schemaRef(`${this.components.nameOf(op[which])}.body`, () => ({
      type: 'object',
      required: [member],
      properties: { [member]: this.components.ref(op[which]) },
    }));
  }
}

/** The path item with its path parameters, which every method of it shares. */
function withPathParameters(item: JsonSchema, parameters: readonly JsonSchema[]): JsonSchema {
  return parameters.length === 0 ? item : { parameters, ...item };
}

/** A node's name in a URI: module-qualified at the top and where its module differs from its parent's. */
function segment(node: SchemaNode): string {
  const parent = dataParent(node);
  return parent === undefined || parent.module !== node.module ? qualified(node) : node.name;
}

/** A member name as one token of a JSON pointer (RFC 6901) in a URI fragment. */
function pointerToken(member: string): string {
  return encodeURIComponent(member.replace(/~/g, '~0').replace(/\//g, '~1')).replace(/%3A/g, ':');
}

function qualified(node: SchemaNode): string {
  return `${node.module.name}:${node.name}`;
}
