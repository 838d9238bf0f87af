/**
 * The shared schemas of an OpenAPI document: one component per container, list entry and operation
 * input or output, named after its place in the schema tree, so that every path whose body holds that
 * node points at it (`$ref`) instead of repeating it. Groupings are already expanded in the compiled
 * schema, so a component is one node, whichever grouping it came from.
 *
 * A node's object holds its data children by their RFC 7951 member names (module-qualified where the
 * child's module differs from its parent's), choice and case flattened (their nodes are optional
 * properties side by side; which one may appear together is said in no JSON Schema the tools read).
 * Mandatory nodes outside any case and list keys are `required` (operational ones only within
 * operational data). Operational children (`config
 * false`) are `readOnly`: OpenAPI's word for "in responses, never in requests".
 */
import { dataSchemaChildren } from '../data/children';
import { dataParent, enclosingCases, type ListSchema, type SchemaNode } from '../yang/schema';
import { type JsonSchema, valueSchema } from './leaf-schema';

/** A node whose data is a JSON object of its own: a component. */
type ObjectNode = SchemaNode & { kind: 'container' | 'list' | 'input' | 'output' };

/** Component names OpenAPI allows. */
const NAME_CHAR = /[^A-Za-z0-9._-]/g;

export class Components {
  readonly schemas: Record<string, JsonSchema> = {};
  private readonly names = new Map<SchemaNode, string>();
  /** Names of the components that are not a node's, by the name asked for. */
  private readonly extras = new Map<string, string>();

  /** Path parameters (list keys) by component name: shared by every path below their entry. */
  readonly parameters: Record<string, JsonSchema> = {};

  /** A `$ref` to the component of a container, a list's entry, or an operation's input or output. */
  ref(node: ObjectNode): JsonSchema {
    return { $ref: `#/components/schemas/${this.nameOf(node)}` };
  }

  /** A `$ref` to a path parameter, registered under `name` (unique per node) the first time. */
  parameterRef(name: string, parameter: () => JsonSchema): JsonSchema {
    if (!Object.hasOwn(this.parameters, name)) this.parameters[name] = parameter();
    return { $ref: `#/components/parameters/${name}` };
  }

  /** A `$ref` to a schema component that is not a node's (a body around one), made the first time. */
  schemaRef(wanted: string, schema: () => JsonSchema): JsonSchema {
    let name = this.extras.get(wanted);
    if (name === undefined) {
      // A node's component may already hold the name (a child container named `body`): count on.
      name = wanted;
      for (let i = 2; Object.hasOwn(this.schemas, name); i++) name = `${wanted}.${i}`;
      this.extras.set(wanted, name);
      this.schemas[name] = schema();
    }
    return { $ref: `#/components/schemas/${name}` };
  }

  /** The component name of a node, its schema made the first time. */
  nameOf(node: ObjectNode): string {
    let name = this.names.get(node);
    if (name === undefined) {
      name = this.uniqueName(node);
      this.names.set(node, name);
      this.schemas[name] = {}; // reserved before the walk below, which may name other nodes first
      this.schemas[name] = this.objectOf(node);
    }
    return name;
  }

  /** The value of a member holding `node` in its parent's object (or at the top of a body). */
  memberSchema(node: SchemaNode): JsonSchema | undefined {
    let schema: JsonSchema;
    switch (node.kind) {
      case 'leaf':
        schema = valueSchema(node);
        break;
      case 'leaf-list':
        schema = countOf({ type: 'array', items: valueSchema(node) }, node.minElements, node.maxElements);
        break;
      case 'container':
        schema = this.ref(node);
        break;
      case 'list':
        schema = countOf({ type: 'array', items: this.ref(node) }, node.minElements, node.maxElements);
        break;
      case 'anydata':
        schema = { type: 'object', description: node.description ?? 'anydata' };
        break;
      case 'anyxml':
        schema = { description: node.description ?? 'anyxml' };
        break;
      default:
        return undefined;
    }
    return node.config ? schema : { allOf: [schema], readOnly: true };
  }

  /** The object schema of one container, list entry, input or output. */
  private objectOf(node: ObjectNode): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const child of dataSchemaChildren(node.children)) {
      const member = child.module === node.module ? child.name : `${child.module.name}:${child.name}`;
      const schema = this.memberSchema(child);
      if (schema === undefined) continue;
      properties[member] = schema;
      // Operational data under configuration may be absent from a response (nothing reported it yet).
      if (isRequired(child) && (child.config || !node.config)) required.push(member);
    }
    const schema: JsonSchema = { type: 'object', properties };
    if (required.length > 0) schema['required'] = required;
    if (node.description !== undefined) schema['description'] = node.description.trim();
    return schema;
  }

  /** `module.name` segments from the top, deduplicated: a readable and stable component name. */
  private uniqueName(node: SchemaNode): string {
    const parts: string[] = [];
    for (let n: SchemaNode | undefined = node; n !== undefined; n = n.parent) {
      if (n.kind === 'choice' || n.kind === 'case') continue;
      const parent = dataParent(n);
      parts.unshift(parent === undefined || parent.module !== n.module ? `${n.module.name}.${n.name}` : n.name);
    }
    const base = parts.join('.').replace(NAME_CHAR, '_');
    let name = base;
    for (let i = 2; Object.hasOwn(this.schemas, name); i++) name = `${base}.${i}`;
    return name;
  }
}

/** Mandatory nodes outside any case, and list keys, must be present. */
function isRequired(node: SchemaNode): boolean {
  if (node.kind === 'leaf' && node.isKey) return true;
  const mandatory =
    ((node.kind === 'leaf' || node.kind === 'anydata' || node.kind === 'anyxml') && node.mandatory) ||
    ((node.kind === 'list' || node.kind === 'leaf-list') && (node as ListSchema).minElements > 0);
  return mandatory && enclosingCases(node).length === 0;
}

function countOf(schema: JsonSchema, min: number, max: number): JsonSchema {
  if (min > 0) schema['minItems'] = min;
  if (max !== Infinity) schema['maxItems'] = max;
  return schema;
}
