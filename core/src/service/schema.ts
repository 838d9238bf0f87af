/**
 * The local schema of a running service: the service's own modules (core/yang), every module in the
 * `--yang`/`yangDirs` folders (implemented: their top-level data is served from the local datastores),
 * and the YANG folders of loaded plugins that are not translation units. Imports resolve among all of
 * these, the service's own folder first.
 *
 * A module of an extra folder that the service already has (or that an earlier folder has) is taken
 * once when it is the same module: same name and revision, and compiled schemas that agree.
 * Descriptions, contact, references, organization, comments and layout do not count, so the published
 * text of a standard module sits beside the service's own copy (users keep standard modules in their
 * model folders). Only a real difference is an error, naming both files and the first differing node
 * (module-equivalence.ts says what counts). The texts are compared only when they differ, so a folder
 * of identical copies costs nothing beyond reading them.
 *
 * The service's own modules are the published texts. Those it only imports ({@link IMPORT_ONLY}) are
 * loaded without being implemented: ietf-yang-library lists them as import-only modules and their
 * RPCs and data are not served. A folder may hold another revision of one of those (a module only
 * imported may be there in several revisions, RFC 7950 §5.6.5); another revision of a module the
 * service implements is an error, as one revision of a module is implemented.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compileSchema } from '../yang/compiler';
import { moduleDifference } from '../yang/module-equivalence';
import { ModuleRepository, type ModuleSource } from '../yang/repository';
import type { SchemaContext } from '../yang/schema';
import { formatDiagnostic } from '../yang/statement';

/** The folder of the service's own modules (core/yang), from the compiled file's place. */
export const OWN_YANG_DIR = path.resolve(__dirname, '../../../yang');

/**
 * The service's own modules that it ships only for their definitions: type libraries its modules
 * import, ietf-netconf (which ietf-netconf-with-defaults imports; the service serves no NETCONF
 * operations) and ietf-netconf-with-defaults, whose augments of ietf-netconf's operations would
 * implement ietf-netconf. The with-defaults `default` attribute is known to the data layer without a
 * declaration (data/attributes.ts).
 */
export const IMPORT_ONLY: ReadonlySet<string> = new Set([
  'ietf-inet-types',
  'ietf-yang-types',
  'ietf-netconf',
  'ietf-netconf-with-defaults',
]);

/** A start-up fault in the YANG modules: which file(s) and why. */
export class SchemaAssemblyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaAssemblyError';
  }
}

/** The .yang files under a folder, recursively, in a stable order. */
function yangFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch (e) {
      throw new SchemaAssemblyError(`cannot read YANG folder ${d}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.yang') && (e.isFile() || e.isSymbolicLink())) out.push(full);
    }
  };
  walk(dir);
  return out;
}

/** What was compiled, for the start-up report and yang-library. */
export interface AssembledSchema {
  readonly schema: SchemaContext;
  /** Files of modules implemented from extra folders. */
  readonly extraModules: readonly string[];
}

/**
 * Compiles the service's modules plus those of `extraDirs`. Throws SchemaAssemblyError naming the
 * files and faults when a module does not compile or collides with one of the service's own.
 */
export function assembleSchema(extraDirs: readonly string[], ownDir = OWN_YANG_DIR): AssembledSchema {
  const repo = new ModuleRepository([ownDir, ...extraDirs]);
  const own = new Map<string, ModuleSource>();
  const requested: string[] = [];
  const importOnly: string[] = [];
  for (const file of yangFiles(ownDir)) {
    const src = repo.load(file);
    if (src.kind !== 'module') continue;
    own.set(src.name, src);
    (IMPORT_ONLY.has(src.name) ? importOnly : requested).push(file);
  }
  const extra: string[] = [];
  const seen = new Map<string, ModuleSource>();
  for (const dir of extraDirs) {
    for (const file of yangFiles(dir)) {
      const src = repo.load(file);
      if (src.kind === 'submodule') continue;
      if (src.kind === undefined) {
        const first = src.diagnostics[0];
        throw new SchemaAssemblyError(first ? formatDiagnostic(first) : `${file}: not a YANG module`);
      }
      const mine = own.get(src.name);
      if (mine !== undefined && (mine.revision === src.revision || !IMPORT_ONLY.has(src.name))) {
        if (mine.revision !== src.revision) {
          throw new SchemaAssemblyError(
            `${file}: module '${src.name}' is one of the service's own modules (${mine.file}); this file has revision ${src.revision ?? '(none)'} where the service has ${mine.revision ?? '(none)'}`,
          );
        }
        const difference = differenceBetween(mine, src);
        if (difference === undefined) continue;
        throw new SchemaAssemblyError(
          `${file}: module '${src.name}' revision ${src.revision ?? '(none)'} is one of the service's own modules (${mine.file}) but defines it differently: ${difference}`,
        );
      }
      const key = `${src.name}@${src.revision ?? ''}`;
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        const difference = differenceBetween(earlier, src);
        if (difference === undefined) continue;
        throw new SchemaAssemblyError(`${file}: module ${key} is also in ${earlier.file} and defines it differently: ${difference}`);
      }
      seen.set(key, src);
      extra.push(file);
    }
  }
  const schema = compileSchema(repo, { modules: [...requested, ...extra], importOnly });
  const errors = schema.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) {
    throw new SchemaAssemblyError(
      `YANG modules do not compile:\n${errors.slice(0, 20).map(formatDiagnostic).join('\n')}${errors.length > 20 ? `\n... and ${errors.length - 20} more` : ''}`,
    );
  }
  return { schema, extraModules: extra };
}

/** How two texts of one module revision differ (`path: what`), or undefined when they are the same module. */
function differenceBetween(a: ModuleSource, b: ModuleSource): string | undefined {
  if (a.text === b.text) return undefined;
  const found = moduleDifference(a.statement!, b.statement!);
  return found && `${found.path}: ${found.what}`;
}
