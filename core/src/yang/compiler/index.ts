/**
 * The YANG compiler's public face: `compileSchema` turns the modules a request names (with their
 * imports and submodules, found through a ModuleRepository) into one SchemaContext, as yanglint
 * would load them. Passes, in order: linkage (modules.ts), features and identities
 * (definitions.ts), data trees of implemented modules with uses expanded (nodes.ts), augments and
 * deviations (augment.ts), then keys/unique/default cases and leafref targets (finalize.ts).
 *
 * Results are cached: compiling the same module files (same content) with the same features and
 * options answers the same SchemaContext object.
 */
import { createHash } from 'node:crypto';
import type { Statement } from '../statement';
import type { ModuleRepository, ModuleSource } from '../repository';
import type { CompiledModule, NotificationSchema, OperationSchema, SchemaContext, SchemaNode } from '../schema';
import { DiagnosticSink } from './diagnostics';
import { FeatureTable, createExtensions, createIdentities, linkIdentities, lookupIdentity } from './definitions';
import type { CompileState, ModuleRecord } from './model';
import { ModuleLoader } from './modules';
import { NodeCompiler } from './nodes';
import type { PlaceContext } from './nodes';
import { applyAugments, applyDeviations } from './augment';
import type { PendingTarget } from './augment';
import { finalizeStructure, resolveLeafrefs } from './finalize';
import { TypeCompiler } from './types';

/** What to compile: like yanglint's file arguments, `-F` and `-i`. */
export interface CompileRequest {
  /** Module names (newest revision in the search directories) or paths of .yang files. */
  readonly modules: readonly string[];
  /** `-F module:feat,...`: per module, the features to enable ('*' = all; an empty list = none). */
  readonly features?: ReadonlyMap<string, readonly string[] | '*'>;
  /** `-i`: modules referenced by the implemented ones are implemented too. */
  readonly implementImports?: boolean;
}

const CACHE_LIMIT = 16;
const cache = new Map<string, SchemaContext>();
const hashes = new WeakMap<ModuleSource, string>();

/**
 * Compiles a module set into a schema context. Never throws for faulty YANG: every fault is in
 * `diagnostics` with file, line, column and module, and the modules without faults still compile.
 */
export function compileSchema(repo: ModuleRepository, request: CompileRequest): SchemaContext {
  const state = newState();
  const loader = new ModuleLoader(repo, state);
  const requested: ModuleRecord[] = [];
  for (const spec of request.modules) {
    const r = loader.loadRequested(spec);
    if (r && !requested.includes(r)) requested.push(r);
  }
  const key = cacheKey(state, request);
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const ctx = compileLoaded(state, requested, request);
  cache.set(key, ctx);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  return ctx;
}

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
  const features = request.features ? [...request.features].map(([m, f]) => `${m}:${f === '*' ? '*' : [...f].sort().join(',')}`).sort() : ['<default>'];
  const errors = state.sink.list.map((d) => `${d.position.file}:${d.message}`);
  return JSON.stringify([request.modules, parts, features, request.implementImports === true, errors]);
}

const statementHashes = new WeakMap<Statement, string>();
function textHash(stmt: Statement): string {
  let h = statementHashes.get(stmt);
  if (!h) {
    h = createHash('sha1').update(JSON.stringify(stmt, (k, v) => (k === 'position' ? undefined : v))).digest('hex');
    statementHashes.set(stmt, h);
  }
  return h;
}
void hashes;

function compileLoaded(state: CompileState, requested: ModuleRecord[], request: CompileRequest): SchemaContext {
  const records = [...state.records.values()];
  const named = new Set(requested);
  const featureSets = new Map<string, ReadonlySet<string> | '*'>();
  for (const [m, f] of request.features ?? []) featureSets.set(m, f === '*' ? '*' : new Set(f));
  // Which modules are implemented is known from the texts before anything compiles, so features
  // (all enabled in implemented modules unless -F says otherwise, as yanglint does) are fixed first.
  for (const r of implementedClosure(requested)) r.implemented = true;
  const features = new FeatureTable(state, (record) => {
    const explicit = featureSets.get(record.name);
    if (explicit !== undefined) return explicit;
    return record.implemented ? '*' : undefined;
  });
  (state as { featureEnabled: CompileState['featureEnabled'] }).featureEnabled = (r, n) => features.enabled(r, n);
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
  const implement = (record: ModuleRecord): void => {
    if (record.dataCompiled) return;
    record.dataCompiled = true;
    record.implemented = true;
    record.module.implemented = true;
    for (const unit of record.units) {
      const ctx: PlaceContext = {
        scope: unit.root, record, parent: undefined, config: true, inOperation: false, status: 'current',
        ifFeatures: [], when: [], groupings: [],
      };
      for (const n of nodes.children(unit.statement.substatements, ctx)) {
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
  };
  for (const r of records) if (r.implemented) implement(r);
  // Augments and deviations may implement further modules, whose own augments then apply.
  let leafrefsSeen = 0;
  for (let round = 0; round < 1000; round++) {
    applyAugments(augments, nodes, state, implement);
    applyDeviations(deviations, nodes, state, implement);
    const before = [...state.records.values()].filter((r) => r.dataCompiled).length;
    // A leafref's target module must be implemented for the path to resolve (libyang does so).
    for (; leafrefsSeen < nodes.leafrefNodes.length; leafrefsSeen++) implementPathTargets(nodes.leafrefNodes[leafrefsSeen]!, state, implement);
    const after = [...state.records.values()].filter((r) => r.dataCompiled).length;
    if (after === before && augments.length === 0 && deviations.length === 0) break;
  }
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
  return context;
}

/**
 * The modules implemented by the request: those named, the targets of their augments and
 * deviations (libyang implements them). yanglint's -i (LY_CTX_REF_IMPLEMENTED) does not implement
 * every import either (`yanglint -i -l` lists most imports as import-only); it matters to libyang
 * for identityref defaults in import-only modules, which this compiler accepts in both modes.
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
        if (s.prefix !== undefined || (s.keyword !== 'augment' && s.keyword !== 'deviation')) continue;
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

function implementPathTargets(node: SchemaNode, state: CompileState, implement: (r: ModuleRecord) => void): void {
  const visit = (t: { leafref?: { path: { source: string; contextModule: CompiledModule } }; union?: readonly unknown[] }): void => {
    if (t.leafref) {
      const module = t.leafref.path.contextModule;
      for (const m of t.leafref.path.source.matchAll(PREFIX_IN_PATH)) {
        const name = module.prefixes.get(m[1]!);
        if (name === undefined) continue;
        const record = recordOf(name, module, state);
        if (record) implement(record);
      }
    }
    for (const u of t.union ?? []) visit(u as never);
  };
  visit((node as unknown as { type: never }).type);
}

/** The record a module imports under a name (its import's revision), else the newest by that name. */
function recordOf(name: string, from: CompiledModule, state: CompileState): ModuleRecord | undefined {
  let best: ModuleRecord | undefined;
  for (const r of state.records.values()) {
    if (r.name !== name) continue;
    if (r.module === from) return r;
    const pinned = from.imports.find((i) => i.module === name)?.revision;
    if (pinned !== undefined && r.revision === pinned) return r;
    if (!best || (r.revision ?? '') > (best.revision ?? '')) best = r;
  }
  return best;
}

function buildContext(records: ModuleRecord[], state: CompileState): SchemaContext {
  const modules = new Map<string, CompiledModule>();
  const byNamespace = new Map<string, CompiledModule>();
  for (const r of records) {
    const prev = modules.get(r.name);
    // One entry per name: the implemented revision, else the newest.
    if (!prev || (!prev.implemented && (r.implemented || (r.revision ?? '') > (prev.revision ?? '')))) modules.set(r.name, r.module as unknown as CompiledModule);
  }
  for (const m of modules.values()) byNamespace.set(m.namespace, m);
  const implemented = records.filter((r) => r.implemented).map((r) => r.module);
  return {
    modules,
    data: implemented.flatMap((m) => m.data),
    rpcs: implemented.flatMap((m) => m.rpcs as OperationSchema[]),
    notifications: implemented.flatMap((m) => m.notifications as NotificationSchema[]),
    moduleByNamespace: (ns) => byNamespace.get(ns),
    diagnostics: state.sink.list,
  };
}
