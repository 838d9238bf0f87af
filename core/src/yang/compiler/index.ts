/**
 * The YANG compiler's public face: `compileSchema` turns the modules a request names (with their
 * imports and submodules, found through a ModuleRepository) into one SchemaContext, as yanglint
 * would load them. Passes, in order: linkage (modules.ts), features and identities
 * (definitions.ts), data trees of implemented modules with uses expanded (nodes.ts), their
 * rc:yang-data and sx:structure trees (structures.ts), augments, deviations (augment.ts) and
 * augment-structures and the modules the trees reference (references.ts) until nothing more
 * is implemented, then keys/unique/default cases and leafref targets (finalize.ts) and defaults
 * against their types (defaults.ts).
 *
 * Results are cached: compiling the same module files (same content) with the same features and
 * options answers the same SchemaContext object.
 */
import { createHash } from 'node:crypto';
import type { Statement } from '../statement';
import type { ModuleRepository, ModuleSource } from '../repository';
import type { CompiledModule, NotificationSchema, OperationSchema, SchemaContext } from '../schema';
import { DiagnosticSink } from './diagnostics';
import { FeatureTable, createExtensions, createIdentities, linkIdentities, lookupIdentity } from './definitions';
import type { CompileState, ModuleRecord } from './model';
import { ModuleLoader } from './modules';
import { NodeCompiler } from './nodes';
import type { PlaceContext } from './nodes';
import { applyAugments, applyDeviations } from './augment';
import type { PendingTarget } from './augment';
import { finalizeStructure, resolveLeafrefs } from './finalize';
import { checkDefaults } from './defaults';
import { ReferenceScan } from './references';
import { TypeCompiler } from './types';
import { StructureCompiler, structureExtension } from './structures';
import { checkExtensionPlacement } from './placement';

/** What to compile: like yanglint's file arguments, `-F` and `-i`. */
export interface CompileRequest {
  /** Module names (newest revision in the search directories) or paths of .yang files. */
  readonly modules: readonly string[];
  /** `-F module:feat,...`: per module, the features to enable ('*' = all; an empty list = none). */
  readonly features?: ReadonlyMap<string, readonly string[] | '*'>;
  /** `-i`: modules referenced by the implemented ones are implemented too. */
  readonly implementImports?: boolean;
  /**
   * Modules (names or files, as in `modules`) loaded into the context without being implemented:
   * their typedefs, groupings, identities and extensions are there for importers, their data, RPCs,
   * notifications, augments and deviations are not (RFC 7950 §5.6.5). One still becomes implemented
   * when something makes it so (named in `modules`, the target of an augment, a leafref, -i).
   */
  readonly importOnly?: readonly string[];
}

const CACHE_LIMIT = 16;
const cache = new Map<string, SchemaContext>();
const hashes = new WeakMap<ModuleSource, string>();

/**
 * Compiles a module set into a schema context. Never throws for faulty YANG: every fault is in
 * `diagnostics` with file, line, column and module, and the modules without faults still compile.
 */
export function compileSchema(repo: ModuleRepository, request: CompileRequest): SchemaContext {
  let seed: Implementation = new Map();
  let key: string | undefined;
  // Which modules end up implemented is only known once their trees are compiled (leafref paths,
  // -i references, identities of defaults), and implemented modules have all their features. When
  // a module's features were evaluated before it turned out implemented, compile again knowing the
  // set from the start, as libyang recompiles its context. Each pass only grows the set, so this
  // ends; most requests need one pass.
  for (let pass = 0; ; pass++) {
    const state = newState();
    const loader = new ModuleLoader(repo, state);
    const requested: ModuleRecord[] = [];
    for (const spec of request.modules) {
      const r = loader.loadRequested(spec);
      if (r && !requested.includes(r)) requested.push(r);
    }
    for (const spec of request.importOnly ?? []) loader.loadRequested(spec);
    if (pass === 0) {
      key = cacheKey(state, request);
      const hit = cache.get(key);
      if (hit) {
        cache.delete(key);
        cache.set(key, hit);
        return hit;
      }
    }
    const result = compileLoaded(state, requested, request, seed);
    if (result.converged || pass >= MAX_PASSES) {
      cache.set(key!, result.context);
      if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
      return result.context;
    }
    seed = result.implemented;
  }
}

const MAX_PASSES = 8;

/**
 * How each implemented module came to be implemented, by `name@revision`. 'full': named in the
 * request, target of an augment/deviation, of a leafref path or (-i) of a when/must; its features
 * are all enabled unless -F says otherwise (yanglint's rule). 'identity': only because a default
 * names one of its identities; libyang implements such a module without enabling its features.
 */
type Implementation = Map<string, 'full' | 'identity'>;

/** Forgets every cached schema context (tests, or after the search directories changed). */
export function clearSchemaCache(): void {
  cache.clear();
}

function newState(): CompileState {
  const sink = new DiagnosticSink();
  const records = new Map<string, ModuleRecord>();
  return { sink, records, featureEnabled: () => undefined };
}

/** The set of module texts loaded (file + content hash) plus the options: equal keys, equal schemas. */
function cacheKey(state: CompileState, request: CompileRequest): string {
  const parts: string[] = [];
  for (const r of state.records.values()) {
    for (const u of r.units) parts.push(`${u.file}#${textHash(u.statement)}`);
  }
  parts.sort();
  const features = request.features
    ? [...request.features].map(([m, f]) => `${m}:${f === '*' ? '*' : [...f].sort().join(',')}`).sort()
    : ['<default>'];
  const errors = state.sink.list.map((d) => `${d.position.file}:${d.message}`);
  return JSON.stringify([request.modules, request.importOnly ?? [], parts, features, request.implementImports === true, errors]);
}

const statementHashes = new WeakMap<Statement, string>();
function textHash(stmt: Statement): string {
  let h = statementHashes.get(stmt);
  if (!h) {
    h = createHash('sha1')
      .update(JSON.stringify(stmt, (k, v) => (k === 'position' ? undefined : v)))
      .digest('hex');
    statementHashes.set(stmt, h);
  }
  return h;
}
void hashes;

function recordKey(r: ModuleRecord): string {
  return `${r.name}@${r.revision ?? ''}`;
}

function compileLoaded(
  state: CompileState,
  requested: ModuleRecord[],
  request: CompileRequest,
  seed: Implementation,
): {
  context: SchemaContext;
  implemented: Implementation;
  converged: boolean;
} {
  const records = [...state.records.values()];
  const loadIndex = new Map(records.map((r, i) => [r, i]));
  const featureSets = new Map<string, ReadonlySet<string> | '*'>();
  for (const [m, f] of request.features ?? []) featureSets.set(m, f === '*' ? '*' : new Set(f));
  // What is known to be implemented before anything compiles: the request, what its augments and
  // deviations target, and what an earlier pass found. Features are fixed from that.
  const how = new Map<ModuleRecord, 'full' | 'identity'>();
  for (const r of implementedClosure(requested)) how.set(r, 'full');
  for (const r of records) {
    const s = seed.get(recordKey(r));
    if (s && how.get(r) !== 'full') how.set(r, s);
  }
  for (const r of how.keys()) r.implemented = true;
  const features = new FeatureTable(state, (record) => {
    const explicit = featureSets.get(record.name);
    if (explicit !== undefined) return explicit;
    return how.get(record) === 'full' ? '*' : undefined;
  });
  (state as { featureEnabled: CompileState['featureEnabled'] }).featureEnabled = (r, n) => features.enabled(r, n);
  for (const r of records) for (const u of r.units) checkExtensionPlacement(u, state);
  for (const r of records) features.register(r);
  for (const r of records) createIdentities(r, state);
  linkIdentities(records, state);
  const types = new TypeCompiler(
    state,
    (qname, scope) => lookupIdentity(qname, scope.unit),
    (_expr, stmt, scope) => features.evaluate(stmt, scope.unit),
  );
  for (const r of records) createExtensions(r, types, state);
  const nodes = new NodeCompiler(state, types, features);

  const augments: PendingTarget[] = [];
  const deviations: PendingTarget[] = [];
  const structures = new StructureCompiler(nodes, state, (r) => implement(r));
  const implement = (record: ModuleRecord, reason: 'full' | 'identity' = 'full'): void => {
    if (reason === 'full' || !how.has(record)) how.set(record, reason);
    if (record.dataCompiled) return;
    record.dataCompiled = true;
    record.implemented = true;
    record.module.implemented = true;
    for (const unit of record.units) {
      const ctx: PlaceContext = {
        scope: unit.root,
        record,
        parent: undefined,
        config: true,
        inOperation: false,
        status: 'current',
        ifFeatures: [],
        when: [],
        groupings: [],
      };
      for (const n of nodes.children(unit.statement.substatements, ctx)) {
        nodes.topUnit.set(n, unit);
        if (n.kind === 'rpc') record.module.rpcs.push(n as OperationSchema);
        else if (n.kind === 'notification') record.module.notifications.push(n as NotificationSchema);
        else record.module.data.push(n);
      }
      for (const s of unit.statement.substatements) {
        if (s.prefix !== undefined) continue;
        if (s.keyword === 'augment') augments.push({ stmt: s, unit });
        else if (s.keyword === 'deviation') deviations.push({ stmt: s, unit });
      }
    }
    for (const unit of record.units) structures.compileUnit(unit);
  };
  for (const r of records) if (r.implemented) implement(r, how.get(r));
  // Augments and deviations may implement further modules, whose own augments then apply.
  const references = new ReferenceScan(nodes, state, implement, request.implementImports === true, (r) => how.get(r));
  for (let round = 0; round < 1000; round++) {
    applyAugments(augments, nodes, state, implement, (r) => loadIndex.get(r) ?? records.length);
    applyDeviations(deviations, nodes, state, implement);
    const structuresAugmented = structures.applyPending();
    references.scan();
    if (augments.length === 0 && deviations.length === 0 && !structuresAugmented) break;
  }
  structures.reportUnapplied();
  finalizeStructure(nodes, state);
  for (const r of records) {
    features.publish(r);
    for (const [name, def] of r.topTypedefs) {
      const td = types.typedef(def);
      if (td) r.module.typedefs.set(name, td);
    }
  }
  const context = buildContext(records, state);
  resolveLeafrefs(nodes, context, state);
  checkDefaults(nodes, context, state);
  const implemented: Implementation = new Map([...how].map(([r, h]) => [recordKey(r), h]));
  // Modules implemented along the way are fine unless features were evaluated before that (their
  // if-features decided what exists); then compile again knowing the set from the start.
  const converged = !features.stale();
  return { context, implemented, converged };
}

/**
 * The modules implemented by the request before any tree is compiled: those named, and the modules
 * of every node in the paths of their augments and deviations (libyang implements them). What the
 * compiled trees reference is added by references.ts.
 */
function implementedClosure(requested: readonly ModuleRecord[]): Set<ModuleRecord> {
  const out = new Set<ModuleRecord>();
  const queue = [...requested];
  while (queue.length > 0) {
    const r = queue.pop()!;
    if (out.has(r)) continue;
    out.add(r);
    for (const unit of r.units) {
      for (const s of unit.statement.substatements) {
        const targets =
          s.prefix === undefined
            ? s.keyword === 'augment' || s.keyword === 'deviation'
            : structureExtension(s, unit) === 'augment-structure';
        if (!targets) continue;
        for (const m of (s.arg ?? '').matchAll(PREFIX_IN_PATH)) {
          const target = unit.prefixes.get(m[1]!);
          if (target) queue.push(target);
        }
      }
    }
  }
  return out;
}

const PREFIX_IN_PATH = /([A-Za-z_][A-Za-z0-9_.-]*):[A-Za-z_]/g;

function buildContext(records: ModuleRecord[], state: CompileState): SchemaContext {
  const modules = new Map<string, CompiledModule>();
  const byNamespace = new Map<string, CompiledModule>();
  for (const r of records) {
    const prev = modules.get(r.name);
    // One entry per name: the implemented revision, else the newest.
    if (!prev || (!prev.implemented && (r.implemented || (r.revision ?? '') > (prev.revision ?? ''))))
      modules.set(r.name, r.module as unknown as CompiledModule);
  }
  for (const m of modules.values()) byNamespace.set(m.namespace, m);
  const implemented = records.filter((r) => r.implemented).map((r) => r.module);
  return {
    modules,
    moduleRevisions: records.map((r) => r.module as unknown as CompiledModule),
    data: implemented.flatMap((m) => m.data),
    rpcs: implemented.flatMap((m) => m.rpcs as OperationSchema[]),
    notifications: implemented.flatMap((m) => m.notifications as NotificationSchema[]),
    moduleByNamespace: (ns) => byNamespace.get(ns),
    diagnostics: state.sink.list,
  };
}
