/**
 * Linkage (RFC 7950 §5.1, §7.1.5, §7.1.6): finds the modules a request names, then their imports
 * and included submodules through the ModuleRepository, and builds one ModuleRecord per module
 * revision with the prefixes each text declares. Revision choice is the repository's (the newest
 * unless `revision-date` pins one), as yanglint does.
 */
import * as path from 'node:path';
import type { Statement } from '../statement';
import { findSub, findSubs } from '../statement';
import type { ModuleRepository, ModuleSource } from '../repository';
import type { CompileState, Definition, ModuleBuild, ModuleRecord, SourceUnit } from './model';
import { Scope, opt, subArg } from './model';

/** Loads modules and their dependencies into `state.records`. */
export class ModuleLoader {
  constructor(
    private readonly repo: ModuleRepository,
    private readonly state: CompileState,
  ) {}

  /**
   * Loads a module named in the request: a file path (anything ending in `.yang` or holding a path
   * separator) or a module name looked up in the search directories.
   */
  loadRequested(spec: string): ModuleRecord | undefined {
    const asFile = spec.endsWith('.yang') || spec.includes('/') || spec.includes(path.sep);
    let source: ModuleSource | undefined;
    if (asFile) {
      source = this.repo.load(spec);
      // yanglint searches the folder of a file it is given, after the -p directories.
      this.repo.addSearchDir(path.dirname(path.resolve(spec)));
    } else {
      source = this.repo.find(spec);
      if (!source) {
        this.state.sink.error(`Data model "${spec}" not found in local searchdirs.`, { file: spec, line: 0, column: 0 }, spec);
        return undefined;
      }
    }
    if (!source.statement) {
      for (const d of source.diagnostics) this.state.sink.add(d.module ? d : { ...d, module: source.name });
      if (source.diagnostics.length === 0)
        this.state.sink.error('The file could not be parsed.', { file: source.file, line: 0, column: 0 }, source.name);
      return undefined;
    }
    if (source.kind === 'submodule') {
      this.state.sink.error(
        'Input data contains submodule which cannot be parsed directly without its main module.',
        source.statement.position,
        source.name,
      );
      return undefined;
    }
    return this.record(source);
  }

  /** The record of a parsed module source, created (with its imports and includes) on first use. */
  record(source: ModuleSource): ModuleRecord {
    const stmt = source.statement!;
    const name = stmt.arg ?? source.name;
    const revision = newestRevision(stmt);
    const key = `${name}@${revision ?? ''}`;
    const existing = this.state.records.get(key);
    if (existing) return existing;
    const module: ModuleBuild = {
      name,
      revision,
      namespace: subArg(stmt, 'namespace') ?? '',
      prefix: subArg(stmt, 'prefix') ?? '',
      yangVersion: subArg(stmt, 'yang-version') === '1.1' ? '1.1' : '1',
      ...opt('organization', subArg(stmt, 'organization')),
      ...opt('contact', subArg(stmt, 'contact')),
      ...opt('description', subArg(stmt, 'description')),
      file: source.file,
      statement: stmt,
      submodules: [],
      implemented: false,
      prefixes: new Map(),
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
    const record: ModuleRecord = {
      name,
      revision,
      module,
      units: [],
      implemented: false,
      topTypedefs: new Map(),
      topGroupings: new Map(),
      dataCompiled: false,
    };
    this.state.records.set(key, record);
    const main = this.unit(record, stmt, source.file, module.prefix);
    module.imports = this.imports(main, stmt);
    this.includes(record, stmt, source.file, new Set([name]));
    for (const u of record.units) {
      for (const [p, r] of u.prefixes) if (!module.prefixes.has(p)) module.prefixes.set(p, r.name);
    }
    return record;
  }

  private unit(record: ModuleRecord, stmt: Statement, file: string, ownPrefix: string): SourceUnit {
    const prefixes = new Map<string, ModuleRecord>([[ownPrefix, record]]);
    const unit: SourceUnit = { statement: stmt, file, name: stmt.arg ?? '', record, prefixes, root: undefined as unknown as Scope };
    (unit as { root: Scope }).root = new Scope(unit, undefined, undefined);
    record.units.push(unit);
    for (const t of findSubs(stmt, 'typedef')) addDefinition(record.topTypedefs, t, unit, this.state, 'typedef');
    for (const g of findSubs(stmt, 'grouping')) addDefinition(record.topGroupings, g, unit, this.state, 'grouping');
    return unit;
  }

  /** Resolves the imports of one text into its unit's prefix map. */
  private imports(unit: SourceUnit, stmt: Statement): Array<{ module: string; prefix: string; revision?: string }> {
    const out: Array<{ module: string; prefix: string; revision?: string }> = [];
    const seen = new Map<string, string>();
    for (const imp of findSubs(stmt, 'import')) {
      const name = imp.arg ?? '';
      const prefix = subArg(imp, 'prefix') ?? '';
      const revision = subArg(imp, 'revision-date');
      const where = unit.record.name;
      if (seen.has(name)) {
        this.state.sink.warn(`Single revision of the module "${name}" imported twice.`, imp.position, where);
      }
      seen.set(name, prefix);
      if (unit.prefixes.has(prefix)) {
        this.state.sink.error(`Prefix "${prefix}" already used as module prefix.`, imp.position, where);
        continue;
      }
      const source = this.repo.find(name, revision);
      if (source?.kind !== 'module') {
        this.state.sink.error(
          `Importing "${name}" module into "${where}" failed: data model "${name}"${revision ? `@${revision}` : ''} not found in local searchdirs.`,
          imp.position,
          where,
        );
        continue;
      }
      const record = this.record(source);
      unit.prefixes.set(prefix, record);
      out.push({ module: name, prefix, ...opt('revision', revision) });
    }
    return out;
  }

  /** Loads the submodules a text includes (and those they include), as units of `record`. */
  private includes(record: ModuleRecord, stmt: Statement, file: string, seen: Set<string>): void {
    for (const inc of findSubs(stmt, 'include')) {
      const name = inc.arg ?? '';
      if (seen.has(name)) continue;
      seen.add(name);
      const revision = subArg(inc, 'revision-date');
      const source = this.repo.find(name, revision);
      if (source?.kind !== 'submodule' || !source.statement) {
        this.state.sink.error(
          `Including "${name}" submodule into "${record.name}" failed: not found in local searchdirs.`,
          inc.position,
          record.name,
        );
        continue;
      }
      const sub = source.statement;
      const belongs = findSub(sub, 'belongs-to');
      if (belongs?.arg !== record.name) {
        this.state.sink.error(
          `Included "${name}" submodule from "${record.name}" belongs-to a different module "${belongs?.arg}".`,
          inc.position,
          record.name,
        );
        continue;
      }
      const unit = this.unit(record, sub, source.file, subArg(belongs, 'prefix') ?? record.module.prefix);
      this.imports(unit, sub);
      (record.module.submodules as Array<ModuleBuild['submodules'][number]>).push({
        name,
        ...opt('revision', newestRevision(sub)),
        file: source.file,
        statement: sub,
      });
      this.includes(record, sub, source.file, seen);
    }
    void file;
  }
}

function addDefinition(map: Map<string, Definition>, stmt: Statement, unit: SourceUnit, state: CompileState, what: string): void {
  const name = stmt.arg ?? '';
  if (map.has(name)) {
    state.sink.error(`Duplicate identifier "${name}" of ${what} statement.`, stmt.position, unit.record.name);
    return;
  }
  map.set(name, { stmt, scope: unit.root });
}

/** The newest `revision` of a module text (revisions may be listed in any order). */
function newestRevision(stmt: Statement): string | undefined {
  let best: string | undefined;
  for (const r of findSubs(stmt, 'revision')) if (r.arg && (!best || r.arg > best)) best = r.arg;
  return best;
}
