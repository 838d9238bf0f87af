/**
 * A small hand-built schema context for the value codec tests: two modules with an identity tree,
 * a container with a keyed list and a leaf-list (for instance-identifiers), and a builder for
 * resolved YangTypes with restrictions, as the compiler would hand them over.
 */
import type {
  BuiltinTypeName,
  CompiledModule,
  Identity,
  LeafListSchema,
  LeafSchema,
  PatternRestriction,
  SchemaContext,
  SchemaNode,
  YangType,
} from '../../src/yang/schema';
import { builtinRange, FULL_LENGTH, parseLength, parseRange, translatePattern } from '../../src/yang/types';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A YangType with the given restrictions, built the way the compiler narrows a chain. */
export function makeType(
  builtin: BuiltinTypeName,
  opts: {
    range?: string;
    length?: string;
    patterns?: Array<string | { source: string; inverted?: boolean; errorMessage?: string; errorAppTag?: string }>;
    fractionDigits?: number;
    enums?: string[];
    bits?: Array<[string, number]>;
    union?: YangType[];
    bases?: Identity[];
    rangeError?: { errorMessage?: string; errorAppTag?: string };
    target?: LeafSchema;
    name?: string;
  } = {},
): YangType {
  const type: Mutable<YangType> = { builtin, name: opts.name ?? builtin, patterns: [] };
  if (opts.fractionDigits !== undefined) type.fractionDigits = opts.fractionDigits;
  if (opts.range !== undefined) {
    const r = parseRange(opts.range, builtinRange(builtin, opts.fractionDigits)!, builtin, opts.fractionDigits);
    if ('error' in r) throw new Error(r.error);
    type.range = { intervals: r.intervals, source: opts.range, ...opts.rangeError };
  }
  if (opts.length !== undefined) {
    const r = parseLength(opts.length, FULL_LENGTH);
    if ('error' in r) throw new Error(r.error);
    type.length = { intervals: r.intervals, source: opts.length };
  }
  type.patterns = (opts.patterns ?? []).map((p): PatternRestriction => {
    const spec = typeof p === 'string' ? { source: p } : p;
    const r = translatePattern(spec.source);
    if ('error' in r) throw new Error(r.error);
    const { inverted, ...rest } = spec;
    return { ...rest, regex: r.regex, inverted: inverted ?? false };
  });
  if (opts.enums) type.enums = opts.enums.map((name, value) => ({ name, value, status: 'current', ifFeatures: [] }));
  if (opts.bits) type.bits = opts.bits.map(([name, position]) => ({ name, position, status: 'current', ifFeatures: [] }));
  if (opts.union) type.union = opts.union;
  if (opts.bases) type.identityBases = opts.bases;
  if (builtin === 'leafref') {
    type.leafref = {
      path: { source: '../target', contextModule: undefined as unknown as CompiledModule, position: { file: 't', line: 1, column: 1 } },
      requireInstance: true,
      ...(opts.target ? { target: opts.target } : {}),
    };
  }
  return type;
}

function makeModule(name: string, prefix: string): Mutable<CompiledModule> {
  return {
    name,
    prefix,
    revision: undefined,
    namespace: `urn:test:${name}`,
    yangVersion: '1.1',
    file: `${name}.yang`,
    statement: undefined as never,
    submodules: [],
    implemented: true,
    prefixes: new Map([[prefix, name]]),
    imports: [],
    features: new Map(),
    identities: new Map(),
    typedefs: new Map(),
    extensions: new Map(),
    annotations: new Map(),
    data: [],
    rpcs: [],
    notifications: [],
    augments: [],
    deviations: [],
    structures: [],
    structureAugments: [],
  };
}

function addIdentity(module: Mutable<CompiledModule>, name: string, bases: Identity[]): Identity {
  const identity: Identity = { name, module, bases, derived: new Set(), ifFeatures: [], status: 'current' };
  (module.identities as Map<string, Identity>).set(name, identity);
  // Fill `derived` of every ancestor, as the compiler does once the context is compiled.
  const stack = [...bases];
  while (stack.length > 0) {
    const b = stack.pop()!;
    (b.derived as Set<Identity>).add(identity);
    stack.push(...b.bases);
  }
  return identity;
}

function node<T extends SchemaNode>(fields: Partial<T> & Pick<T, 'kind' | 'name' | 'module'>): T {
  return {
    parent: undefined,
    children: [],
    config: true,
    status: 'current',
    ifFeatures: [],
    when: [],
    musts: [],
    extensions: [],
    position: { file: 't', line: 1, column: 1 },
    ...fields,
  } as unknown as T;
}

/**
 * Modules `base-mod` (identities `transport`, `tcp`, `udp`), `ext-mod` (`quic` derived from `udp`) and
 * the import-only `imp-mod` (`legacy` derived from `transport`).
 */
export function makeContext() {
  const baseMod = makeModule('base-mod', 'b');
  const extMod = makeModule('ext-mod', 'x');
  const transport = addIdentity(baseMod, 'transport', []);
  const tcp = addIdentity(baseMod, 'tcp', [transport]);
  const udp = addIdentity(baseMod, 'udp', [transport]);
  const quic = addIdentity(extMod, 'quic', [udp]);
  const unrelated = addIdentity(extMod, 'colour', []);
  const importOnly = makeModule('imp-mod', 'i');
  importOnly.implemented = false;
  addIdentity(importOnly, 'legacy', [transport]);

  const ifName = node<LeafSchema>({
    kind: 'leaf',
    name: 'name',
    module: baseMod,
    type: makeType('string', { length: '1..16' }),
    mandatory: false,
    isKey: true,
  });
  const ifUnit = node<LeafSchema>({ kind: 'leaf', name: 'unit', module: baseMod, type: makeType('uint16'), mandatory: false, isKey: true });
  const mtu = node<LeafSchema>({
    kind: 'leaf',
    name: 'mtu',
    module: baseMod,
    type: makeType('uint16', { range: '68..9000' }),
    mandatory: false,
    isKey: false,
  });
  const extLeaf = node<LeafSchema>({
    kind: 'leaf',
    name: 'speed',
    module: extMod,
    type: makeType('uint32'),
    mandatory: false,
    isKey: false,
  });
  const iface = node({
    kind: 'list',
    name: 'interface',
    module: baseMod,
    children: [ifName, ifUnit, mtu, extLeaf],
    keys: [ifName, ifUnit],
    unique: [],
    minElements: 0,
    maxElements: Infinity,
    orderedBy: 'system',
  });
  const tags = node<LeafListSchema>({
    kind: 'leaf-list',
    name: 'tag',
    module: baseMod,
    type: makeType('uint8'),
    defaults: [],
    minElements: 0,
    maxElements: Infinity,
    orderedBy: 'user',
  });
  const top = node({ kind: 'container', name: 'top', module: baseMod, children: [iface, tags] });
  baseMod.data = [top];

  const modules = new Map<string, CompiledModule>([
    [baseMod.name, baseMod],
    [extMod.name, extMod],
    [importOnly.name, importOnly],
  ]);
  const ctx: SchemaContext = {
    modules,
    data: [top],
    rpcs: [],
    notifications: [],
    diagnostics: [],
    moduleByNamespace: (ns) => [...modules.values()].find((m) => m.namespace === ns),
  };
  return { ctx, baseMod, extMod, identities: { transport, tcp, udp, quic, unrelated }, nodes: { top, iface, mtu, tags } };
}
