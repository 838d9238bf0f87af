/**
 * RFC 7952 attributes (metadata annotations) on data nodes: which names a document may use, how their
 * values are checked, and how their names are written back. An attribute must be declared by an
 * `md:annotation` of a module in the schema context; its value must pass the annotation's type.
 *
 * In the tree an attribute is always named `module:annotation`. Documents may leave the module out
 * when it is the module of the node carrying the attribute (docs/restconf-api.md#attributes-in-json), and writers do so.
 *
 * One attribute is known without an `md:annotation`: `ietf-netconf-with-defaults:default`, the mark
 * with-defaults=report-all-tagged puts on default values (RFC 8040 §4.8.9). RFC 6243 defines it as an
 * XML attribute, so the published ietf-netconf-with-defaults declares no annotation; it is known in
 * every context holding that module. In JSON it is named like a declared one; in XML it lives in RFC
 * 6243 §6's namespace `urn:ietf:params:xml:ns:netconf:default:1.0` (prefix `wd`), not the module's
 * (RFC 8040 §4.8.9), and is read in either.
 */
import type { Annotation, CompiledModule, SchemaContext, YangType } from '../yang/schema';
import { holdsNonXmlCharacter, nonXmlCharacterMessage } from '../yang/types/characters';
import type { ErrorTag } from './errors';
import { leafFromJson, leafFromText } from './leaf-values';
import type { Attributes, LeafValue } from './tree';

/** Options shared by the decoders about attributes. */
export interface AttributeOptions {
  /** Whether attributes may appear at all (default true). */
  readonly allowAttributes?: boolean;
  /**
   * Attribute names accepted without an `md:annotation` (as written, e.g. `operation` or
   * `template-tags:operation` for RESTCONF `apply-tags`); their values are kept as given.
   */
  readonly extraAttributes?: ReadonlySet<string>;
}

export type AttributeFault = { readonly tag: ErrorTag; readonly message: string };

/** A JSON scalar for a typed value (bigints become strings, as RFC 7951 writes 64-bit numbers). */
export function jsonScalar(value: LeafValue): string | number | boolean | null {
  return typeof value === 'bigint' ? value.toString() : value;
}

/** Annotations known without a declaration, by module and name: RFC 6243's `default` (see above). */
const UNDECLARED: ReadonlyMap<string, ReadonlyMap<string, YangType>> = new Map([
  ['ietf-netconf-with-defaults', new Map([['default', { builtin: 'boolean' as const, name: 'boolean', patterns: [] }]])],
]);

/** RFC 6243 §6: the XML namespace of the with-defaults `default` attribute. */
export const WITH_DEFAULTS_XML_NAMESPACE = 'urn:ietf:params:xml:ns:netconf:default:1.0';

/** Modules whose attributes XML writes in a namespace of their own rather than the module's, with its usual prefix. */
const XML_ATTRIBUTE_NAMESPACES: ReadonlyMap<string, { readonly namespace: string; readonly prefix: string }> = new Map([
  ['ietf-netconf-with-defaults', { namespace: WITH_DEFAULTS_XML_NAMESPACE, prefix: 'wd' }],
]);

/** The XML namespace (and preferred prefix) of the attributes of `module`, when it is not the module's own. */
export function xmlAttributeNamespace(module: string): { readonly namespace: string; readonly prefix: string } | undefined {
  return XML_ATTRIBUTE_NAMESPACES.get(module);
}

/** The module whose attributes XML writes in namespace `ns` (see xmlAttributeNamespace), if the context has it. */
export function attributeModuleByXmlNamespace(ns: string, ctx: SchemaContext): CompiledModule | undefined {
  for (const [module, written] of XML_ATTRIBUTE_NAMESPACES) if (written.namespace === ns) return ctx.modules.get(module);
  return undefined;
}

const undeclared = new WeakMap<CompiledModule, Map<string, Annotation>>();

/** The annotation `local` of `module`: its own declaration, else one known without one. */
function annotationIn(module: CompiledModule | undefined, local: string): Annotation | undefined {
  if (module === undefined) return undefined;
  const declared = module.annotations.get(local);
  if (declared !== undefined) return declared;
  const type = UNDECLARED.get(module.name)?.get(local);
  if (type === undefined) return undefined;
  let known = undeclared.get(module);
  if (known === undefined) undeclared.set(module, (known = new Map()));
  let annotation = known.get(local);
  if (annotation === undefined) known.set(local, (annotation = { name: local, module, type }));
  return annotation;
}

/**
 * Resolves an attribute name as written (`module:name` or bare `name`, the bare form meaning the
 * owner node's module) to its stored name and declaration. Undefined when nothing declares it.
 */
function resolve(name: string, owner: CompiledModule | undefined, ctx: SchemaContext) {
  const colon = name.indexOf(':');
  const module = colon >= 0 ? ctx.modules.get(name.slice(0, colon)) : owner;
  const local = colon >= 0 ? name.slice(colon + 1) : name;
  const annotation = annotationIn(module, local);
  return annotation === undefined ? undefined : { stored: `${annotation.module.name}:${local}`, annotation };
}

/**
 * Checks one attribute given as JSON (`raw` value) or as XML text (`text` given, with the prefixes in
 * scope): declared, and valued by its type. Returns the stored name and value, or a fault.
 */
export function checkAttribute(
  name: string,
  raw: unknown,
  owner: CompiledModule | undefined,
  ctx: SchemaContext,
  options: AttributeOptions,
  text?: { readonly resolvePrefix: (prefix: string) => string | undefined },
): { name: string; value: string | number | boolean | null } | AttributeFault {
  if (options.allowAttributes === false) return { tag: 'unknown-attribute', message: `attribute '${name}' is not allowed here` };
  if (options.extraAttributes?.has(name)) {
    if (typeof raw === 'string' && holdsNonXmlCharacter(raw))
      return { tag: 'bad-attribute', message: `invalid value for attribute '${name}': ${nonXmlCharacterMessage(raw)}` };
    if (raw === null || typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean') return { name, value: raw };
    return { tag: 'bad-attribute', message: `attribute '${name}' must have a scalar value` };
  }
  const found = resolve(name, owner, ctx);
  if (found === undefined) return { tag: 'unknown-attribute', message: `attribute '${name}' is not declared by any module` };
  const result = text
    ? leafFromText(found.annotation.type, String(raw), ctx, text.resolvePrefix, found.annotation.module)
    : leafFromJson(found.annotation.type, raw, ctx, found.annotation.module);
  if (!result.ok) return { tag: 'bad-attribute', message: `invalid value for attribute '${name}': ${result.message}` };
  return { name: found.stored, value: jsonScalar(result.value) };
}

/** Checks a JSON `@` object; returns the attributes as stored, or a fault. */
export function checkAttributes(
  raw: unknown,
  owner: CompiledModule | undefined,
  ctx: SchemaContext,
  options: AttributeOptions,
): { attributes: Attributes } | AttributeFault {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { tag: 'bad-attribute', message: 'attributes ("@") must be a JSON object' };
  }
  const attributes: Attributes = {};
  for (const name in raw) {
    const checked = checkAttribute(name, (raw as Record<string, unknown>)[name], owner, ctx, options);
    if ('tag' in checked) return checked;
    attributes[checked.name] = checked.value;
  }
  return { attributes };
}

/** The declaration of a stored attribute name (`module:name`), if a module of the context has one. */
export function annotationOf(stored: string, ctx: SchemaContext): Annotation | undefined {
  const colon = stored.indexOf(':');
  return colon < 0 ? undefined : annotationIn(ctx.modules.get(stored.slice(0, colon)), stored.slice(colon + 1));
}

/** The name an attribute is written with under a node of module `owner`: bare when it is that module's. */
export function writtenAttributeName(stored: string, owner: string): string {
  const colon = stored.indexOf(':');
  return colon >= 0 && stored.slice(0, colon) === owner ? stored.slice(colon + 1) : stored;
}
