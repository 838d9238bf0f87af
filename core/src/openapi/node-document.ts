/**
 * The OpenAPI document of one installed node, from its device schema: the node's paths under each place
 * its data is served (its mount point, and the uniconfig copy of its configuration when it has one),
 * made by the one generator (document.ts) with its paths written from the device schema's top and
 * prefixed per place (a mount point's methods leave out the query parameters it refuses). What is
 * generated (the paths' text and the components) is cached per device schema, module selection and
 * refused parameters, so the nodes sharing a schema (every node of one device type, every
 * NETCONF device with the same modules) share it and a node's document only joins the prefixed paths.
 */
import type { SchemaContext } from '../yang/schema';
import { accessKey, documentInfo, documentParts, securityOf, type ServiceAccess } from './document';
import type { PathKind } from './paths';
import { SelectionCache } from './selection-cache';

/** A place where a node's data is served. */
export interface NodePlace {
  /** What its data paths start with (`.../yang-ext:mount`, or the uniconfig configuration). */
  readonly data: string;
  /** What its RPCs' paths start with; absent where none is invoked. */
  readonly operations?: string;
  /** The place holds configuration only: no operational data, no action. */
  readonly configOnly: boolean;
  /** Query parameters the place refuses, left out of its methods. */
  readonly refusedQuery?: ReadonlySet<string>;
}

/** The generated core of a node's document: each path's text without its prefix, and the components. */
interface NodeCore {
  readonly paths: ReadonlyArray<{ readonly path: string; readonly kind: PathKind; readonly text: string }>;
  readonly components: string;
  readonly size: number;
}

const cores = new SelectionCache<NodeCore>((core) => core.size);
const NONE: ReadonlySet<string> = new Set();

/** The core for `schema`, generated the first time this schema and selection are asked for. */
function coreOf(
  schema: SchemaContext,
  modules: readonly string[] | undefined,
  access: ServiceAccess,
  refused: ReadonlySet<string>,
): NodeCore {
  const variant = `${accessKey(access)}:${[...refused].sort().join(',')}`;
  return cores.get(schema, modules, variant, () => {
    const parts = documentParts(schema, modules, { data: '', operations: '' }, access, refused);
    const paths = Object.entries(parts.paths).map(([path, item]) => ({ path, kind: parts.kinds.get(path)!, text: JSON.stringify(item) }));
    const components = JSON.stringify(parts.components);
    return { paths, components, size: paths.reduce((n, p) => n + p.path.length + p.text.length, components.length) };
  });
}

/**
 * The node's document as JSON text: the paths of `schema`'s (selected) modules at each of `places`
 * (`access`: whether the service asks for credentials, which the document then declares).
 */
export function nodeOpenApiText(
  title: string,
  schema: SchemaContext,
  modules: readonly string[] | undefined,
  places: readonly NodePlace[],
  access: ServiceAccess = {},
): string {
  const members: string[] = [];
  let components = '{}';
  for (const place of places) {
    // Places differ only in the query parameters of their methods: the components are the same.
    const core = coreOf(schema, modules, access, place.refusedQuery ?? NONE);
    components = core.components;
    for (const { path, kind, text } of core.paths) {
      let prefix: string | undefined = place.data;
      if (kind === 'rpc') prefix = place.operations;
      else if (place.configOnly && kind !== 'config') prefix = undefined;
      if (prefix !== undefined) members.push(`${JSON.stringify(prefix + path)}:${text}`);
    }
  }
  const head = JSON.stringify({ openapi: '3.0.3', info: documentInfo(title, schema, modules), ...securityOf(access) }).slice(0, -1);
  return `${head},"paths":{${members.join(',')}},"components":${components}}`;
}
