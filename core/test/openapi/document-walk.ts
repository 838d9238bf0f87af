/**
 * What the OpenAPI tests read documents with, as a client would: `$ref`s followed, a value made from a
 * schema alone (only what it requires), the methods of a path item.
 */
export type Json = any;

/** A schema with its `$ref` followed (documents here only refer within themselves). */
export function resolve(doc: Json, schema: Json): Json {
  while (schema?.$ref !== undefined) {
    schema = (schema.$ref as string)
      .slice(2)
      .split('/')
      .reduce((at: Json, part: string) => at[part], doc);
  }
  return schema;
}

/** A value of `schema` with only what it requires: what a client reading the document would send. */
export function example(doc: Json, schema: Json): Json {
  schema = resolve(doc, schema);
  if (schema.allOf !== undefined) return example(doc, schema.allOf[0]);
  if (schema.anyOf !== undefined) return example(doc, schema.anyOf[0]);
  if (schema.enum !== undefined) return schema.enum[0];
  switch (schema.type) {
    case 'object': {
      const out: Record<string, Json> = {};
      for (const name of schema.required ?? []) {
        const property = resolve(doc, schema.properties[name]);
        if (!property.readOnly) out[name] = example(doc, property);
      }
      return out;
    }
    case 'array':
      return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => example(doc, schema.items));
    case 'integer':
      return schema.minimum ?? 0;
    case 'boolean':
      return true;
    case 'string':
      if (schema.pattern !== undefined) throw new Error(`no example for the pattern ${schema.pattern}`);
      return 'x'.repeat(Math.max(1, schema.minLength ?? 1));
    default:
      throw new Error(`no example for ${JSON.stringify(schema)}`);
  }
}

/** The methods of a path item (its other members are shared parameters and text). */
export function methodsOf(item: Json): string[] {
  return Object.keys(item)
    .filter((k) => ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'].includes(k))
    .sort();
}

/**
 * A write built from the document alone: the path `template` with each path parameter filled by a value
 * of its schema (or the one `keys` gives it by name), and the body of `method` made from its schema (the
 * target entry's keys set to the values in the path).
 */
export function builtWrite(
  doc: Json,
  template: string,
  method: 'put' | 'patch',
  keys: Record<string, string> = {},
): { path: string; body: Json } {
  const item = doc.paths[template];
  if (item?.[method] === undefined) throw new Error(`the document has no ${method} of ${template}`);
  const body = example(doc, item[method].requestBody.content['application/yang-data+json'].schema);
  const [member] = Object.keys(body);
  let path = template;
  for (const key of (item.parameters ?? []).map((p: Json) => resolve(doc, p)).filter((p: Json) => p.in === 'path')) {
    const value = keys[key.name] ?? example(doc, key.schema);
    path = path.replace(`{${key.name}}`, encodeURIComponent(String(value)));
    const entry = Array.isArray(body[member!]) ? body[member!][0] : undefined;
    if (entry !== undefined && Object.hasOwn(entry, key.name)) entry[key.name] = value;
  }
  return { path, body };
}
