/**
 * The schema of a mounted device, compiled once per distinct module set and shared by every device with
 * that set:
 * - a CLI device's schema is the YANG folders of the translation units serving it, compiled together
 *   (keyed by the units' plugin@version and folders);
 * - a NETCONF device's schema is the modules it handed over (`schemaSources`), compiled from text (keyed
 *   by the modules' names, revisions and content). A module that does not compile is left out with the
 *   reason (it becomes an unavailable capability) and the rest is compiled without it; a module that
 *   imports a left-out one is left out in turn.
 *
 * Each compile (a cache miss) is a `schema-compile` job of the service's board, one item per module and
 * a module left out a failed item, so a client reads under `rosetta-jobs:jobs` which node's schema was
 * compiled, how big it was, and when; the job's end line gives the module count and the time it took.
 * The compile is synchronous: the job is never seen running, only before it starts and after it ends.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ServingUnit } from '../hooks';
import type { JobStarter } from '../jobs';
import { compileSchema } from '../yang/compiler';
import { ModuleRepository, type ModuleSource } from '../yang/repository';
import type { SchemaContext } from '../yang/schema';
import { formatDiagnostic, type YangDiagnostic } from '../yang/statement';

/** A device schema and the modules that could not be part of it. */
export interface DeviceSchema {
  readonly schema: SchemaContext;
  /** Modules left out: `name@revision` (or name) and why. */
  readonly failed: ReadonlyArray<{ readonly module: string; readonly reason: string }>;
}

/** A module handed over by a device (NETCONF get-schema). */
export interface SchemaSourceText {
  readonly name: string;
  readonly revision?: string;
  readonly text: string;
}

const CACHE_LIMIT = 64;

/** Compiled device schemas by module-set key; least recently used dropped past the limit. */
export class DeviceSchemaCache {
  private readonly cache = new Map<string, DeviceSchema>();
  private readonly lastForUnits = new WeakMap<
    readonly ServingUnit[],
    { protocolDirs: readonly string[]; importDirs: readonly string[]; schema: DeviceSchema }
  >();

  /** `jobs`: where each compile is reported (none in tests that build a cache alone). */
  constructor(private readonly jobs?: JobStarter) {}

  /**
   * The schema of the modules in the units' YANG folders plus `protocolDirs` (the southbound's own
   * modules: its device RPCs). `importDirs` resolve imports (the core's own folder). Only the modules
   * directly in a folder join: a southbound keeps the modules that belong to the local schema alone (its
   * topology module: install settings and node status) in a subfolder, which the local schema reads
   * (service/schema.ts walks plugin folders recursively) and a device schema does not.
   */
  forUnits(units: readonly ServingUnit[], protocolDirs: readonly string[], importDirs: readonly string[], nodeId?: string): DeviceSchema {
    // every request to a CLI device asks: the same unit set (one array per generation) and folders
    // answer without building the key again
    const last = this.lastForUnits.get(units);
    if (last !== undefined && last.protocolDirs === protocolDirs && last.importDirs === importDirs) return last.schema;
    const schema = this.forUnitFolders(units, protocolDirs, importDirs, nodeId);
    this.lastForUnits.set(units, { protocolDirs, importDirs, schema });
    return schema;
  }

  private forUnitFolders(
    units: readonly ServingUnit[],
    protocolDirs: readonly string[],
    importDirs: readonly string[],
    nodeId: string | undefined,
  ): DeviceSchema {
    const dirs = [...new Set([...units.flatMap((u) => (u.yangDir ? [u.yangDir] : [])), ...protocolDirs])].sort();
    const key = `units\0${units
      .map((u) => `${u.plugin}@${u.version}`)
      .sort()
      .join(',')}\0${dirs.join('\0')}`;
    return this.remember(key, nodeId, () => {
      const files = dirs.flatMap(yangFilesIn);
      return { modules: files.length, compile: () => compileUnits(dirs, files, importDirs) };
    });
  }

  /** The schema of a device's own modules; `nodeId` names the node whose connect or request compiles it. */
  forSources(sources: readonly SchemaSourceText[], importDirs: readonly string[], nodeId?: string): DeviceSchema {
    const hash = createHash('sha256');
    for (const s of [...sources].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      hash.update(`${s.name}@${s.revision ?? ''}\0${s.text}\0`);
    }
    return this.remember(`sources\0${hash.digest('hex')}`, nodeId, () => ({
      modules: sources.length,
      compile: () => compileSources(sources, importDirs),
    }));
  }

  get size(): number {
    return this.cache.size;
  }

  /** The cached schema of `key`, else the one `plan` compiles (reported as a job). */
  private remember(key: string, nodeId: string | undefined, plan: () => { modules: number; compile: () => DeviceSchema }): DeviceSchema {
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const built = this.compile(nodeId, plan());
    this.cache.set(key, built);
    if (this.cache.size > CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    return built;
  }

  private compile(nodeId: string | undefined, { modules, compile }: { modules: number; compile: () => DeviceSchema }): DeviceSchema {
    const job = this.jobs?.start({
      kind: 'schema-compile',
      total: modules,
      doing: 'compiling',
      done: 'compiled',
      items: 'module(s)',
      ...(nodeId !== undefined ? { nodeId } : {}),
    });
    if (job === undefined) return compile();
    let built: DeviceSchema;
    try {
      built = compile();
    } catch (e) {
      job.finish(e instanceof Error ? e.message : String(e));
      throw e;
    }
    // a unit folder's error may name an imported module outside the count: the items stop at the total
    const failed = built.failed.slice(0, modules);
    for (const f of failed) job.item(`${f.module}: ${f.reason}`);
    for (let i = failed.length; i < modules; i++) job.item();
    job.finish();
    return built;
  }
}

function yangFilesIn(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.yang'))
      .sort()
      .map((f) => path.join(dir, f));
  } catch {
    return [];
  }
}

/** Compiles the modules among `files` (the units' folders' YANG files, submodules included). */
function compileUnits(dirs: readonly string[], files: readonly string[], importDirs: readonly string[]): DeviceSchema {
  const repo = new ModuleRepository([...dirs, ...importDirs]);
  const modules = files.filter((f) => repo.load(f).kind === 'module');
  const schema = compileSchema(repo, { modules });
  const failed = groupErrors(schema.diagnostics, (d) => d.module ?? path.basename(d.position.file));
  return { schema, failed: [...failed].map(([module, reason]) => ({ module, reason })) };
}

/** Errors of a compile, by the module they belong to (first few messages joined). */
function groupErrors(diagnostics: readonly YangDiagnostic[], moduleOf: (d: YangDiagnostic) => string): Map<string, string> {
  const out = new Map<string, string[]>();
  for (const d of diagnostics) {
    if (d.severity !== 'error') continue;
    const m = moduleOf(d);
    const list = out.get(m) ?? [];
    if (list.length < 3) list.push(formatDiagnostic(d));
    out.set(m, list);
  }
  return new Map([...out].map(([m, l]) => [m, l.join('; ')]));
}

/**
 * A repository in which the device's own modules win over the import folders' modules of the same name:
 * a device that implements ietf-yang-library@2016-06-21 must get that revision, not the service's newer
 * one, whatever revision is newest. Imports that ask for another revision still find it in the folders.
 */
class DeviceRepository extends ModuleRepository {
  private readonly own = new Map<string, ModuleSource>();

  override addText(file: string, text: string): ModuleSource {
    const source = super.addText(file, text);
    if (source.statement !== undefined) this.own.set(source.name, source);
    return source;
  }

  override find(name: string, revision?: string): ModuleSource | undefined {
    const own = this.own.get(name);
    if (own !== undefined && (revision === undefined || own.revision === revision)) return own;
    return super.find(name, revision);
  }
}

function compileSources(sources: readonly SchemaSourceText[], importDirs: readonly string[]): DeviceSchema {
  const failed = new Map<string, string>();
  const fileOf = (s: SchemaSourceText) => `${s.name}${s.revision ? `@${s.revision}` : ''}.yang`;
  const label = (s: SchemaSourceText) => `${s.name}${s.revision ? `@${s.revision}` : ''}`;
  // Each round drops the modules with errors; importers of a dropped module fail on the next round
  // (the import no longer resolves), so this ends after at most one round per module.
  for (let round = 0; round <= sources.length; round++) {
    const kept = sources.filter((s) => !failed.has(s.name));
    const repo = new DeviceRepository(importDirs);
    const byFile = new Map<string, SchemaSourceText>();
    const requested: string[] = [];
    for (const s of kept) {
      const source = repo.addText(fileOf(s), s.text);
      byFile.set(fileOf(s), s);
      if (source.kind === undefined) {
        failed.set(
          s.name,
          source.diagnostics
            .filter((d) => d.severity === 'error')
            .slice(0, 3)
            .map(formatDiagnostic)
            .join('; ') || 'does not parse',
        );
      } else if (source.kind === 'module') {
        requested.push(source.name);
      }
    }
    const schema = compileSchema(repo, { modules: requested.filter((n) => !failed.has(n)) });
    const moduleOf = (d: YangDiagnostic): string =>
      byFile.get(path.basename(d.position.file))?.name ?? d.module ?? path.basename(d.position.file);
    const errors = groupErrors(schema.diagnostics, moduleOf);
    const fresh = [...errors].filter(([m]) => !failed.has(m));
    if (fresh.length === 0) {
      const labels = new Map(sources.map((s) => [s.name, label(s)]));
      return { schema, failed: [...failed].map(([m, reason]) => ({ module: labels.get(m) ?? m, reason })) };
    }
    for (const [m, reason] of fresh) failed.set(m, reason);
  }
  // Unreachable in practice (every round drops at least one module); compile nothing rather than loop.
  const empty = compileSchema(new ModuleRepository([]), { modules: [] });
  return { schema: empty, failed: [...failed].map(([module, reason]) => ({ module, reason })) };
}
