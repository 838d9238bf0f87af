/**
 * The module repository: where YANG modules and submodules are found and read, like yanglint's
 * `-p` search paths. It owns file lookup (`name.yang`, `name@revision.yang`, searched recursively),
 * revision choice (the newest wins when none is asked for) and the parse cache (one parse per file
 * content, keyed by path, modification time and size). It knows nothing about compiling.
 *
 * Constructing one is free: the file names under the search directories are indexed on the first
 * lookup, and a file is read only when a lookup needs it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseYang } from './parser';
import { findSub, findSubs } from './statement';
import type { Statement, YangDiagnostic } from './statement';

/** One parsed module or submodule file, as the repository hands it out. */
export interface ModuleSource {
  /** Absolute path of the file (or the name given to {@link ModuleRepository.addText}). */
  readonly file: string;
  /** The YANG text as read. */
  readonly text: string;
  /** `module` or `submodule`; undefined when the file could not be parsed. */
  readonly kind: 'module' | 'submodule' | undefined;
  /** The module's name from its statement, or from the file name when it did not parse. */
  readonly name: string;
  /** The newest `revision` statement of the module, or undefined when it has none. */
  readonly revision: string | undefined;
  /** A submodule's parent module (`belongs-to`). */
  readonly belongsTo: string | undefined;
  /** The parsed statement tree; undefined when the file has errors (see diagnostics). */
  readonly statement: Statement | undefined;
  readonly diagnostics: readonly YangDiagnostic[];
}

/** A `.yang` file found under a search directory. */
export interface IndexedFile {
  readonly file: string;
  /** The revision the file name carries (`name@2018-02-20.yang`), if any. */
  readonly fileRevision: string | undefined;
}

interface CacheEntry {
  readonly mtimeMs: number;
  readonly size: number;
  readonly source: ModuleSource;
}

const YANG_FILE = /^([A-Za-z_][A-Za-z0-9_.-]*?)(?:@(\d{4}-\d{2}-\d{2}))?\.yang$/;

/** Splits `name@2018-02-20.yang` into its module name and revision; undefined for other files. */
export function parseYangFileName(fileName: string): { name: string; revision: string | undefined } | undefined {
  const m = YANG_FILE.exec(fileName);
  return m ? { name: m[1], revision: m[2] } : undefined;
}

/** Finds, reads and parses YANG modules under a list of search directories. */
export class ModuleRepository {
  private readonly searchDirs: string[];
  private index: Map<string, IndexedFile[]> | undefined;
  private readonly cache = new Map<string, CacheEntry>();
  /** Modules given as text (e.g. downloaded from a device), by name; searched before the directories. */
  private readonly inMemory = new Map<string, ModuleSource[]>();

  /** @param searchDirs directories searched recursively, in priority order (like yanglint `-p`). */
  constructor(searchDirs: readonly string[] = []) {
    this.searchDirs = searchDirs.map((d) => path.resolve(d));
  }

  /** The search directories, absolute, in priority order. */
  get directories(): readonly string[] {
    return this.searchDirs;
  }

  /** Adds a search directory after the existing ones (e.g. the folder of a file given on the command line). */
  addSearchDir(dir: string): void {
    const abs = path.resolve(dir);
    if (this.searchDirs.includes(abs)) return;
    this.searchDirs.push(abs);
    this.index = undefined;
  }

  /** Forgets the file-name index so that files added or removed since are seen; parses stay cached. */
  refresh(): void {
    this.index = undefined;
  }

  /**
   * Reads and parses one file. Parsed once per content: a second call answers the cached result
   * unless the file's modification time or size changed. Never throws: an unreadable file comes
   * back with an error diagnostic.
   */
  load(file: string): ModuleSource {
    const abs = path.resolve(file);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(abs);
    } catch (e) {
      return unreadable(abs, (e as Error).message);
    }
    const cached = this.cache.get(abs);
    if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.source;
    let text: string;
    try {
      text = fs.readFileSync(abs, 'utf8');
    } catch (e) {
      return unreadable(abs, (e as Error).message);
    }
    const source = describe(abs, text);
    this.cache.set(abs, { mtimeMs: stat.mtimeMs, size: stat.size, source });
    return source;
  }

  /**
   * Registers a module given as text (a NETCONF device's get-schema answer, a test fixture) under
   * a file name used in diagnostics. It is found by {@link find} before any file of the same name.
   */
  addText(file: string, text: string): ModuleSource {
    const source = describe(file, text);
    const list = this.inMemory.get(source.name) ?? [];
    list.push(source);
    this.inMemory.set(source.name, list);
    return source;
  }

  /**
   * Finds a module or submodule by name. With a revision, the file whose newest revision is that one;
   * without, the newest revision found (from the file name, or from the module's own `revision`
   * statements when the file name has none). Files that do not parse or whose statement names
   * another module are passed over. Undefined when nothing matches.
   */
  find(name: string, revision?: string): ModuleSource | undefined {
    let best: ModuleSource | undefined;
    const consider = (source: ModuleSource): void => {
      if (!source.statement || source.name !== name) return;
      if (revision !== undefined) {
        if (!best && hasRevision(source, revision)) best = source;
        return;
      }
      if (!best || (source.revision ?? '') > (best.revision ?? '')) best = source;
    };
    for (const source of this.inMemory.get(name) ?? []) consider(source);
    const files = this.filesNamed(name);
    if (revision !== undefined) {
      // A file named for the revision is the cheap, certain match; look inside others only if needed.
      for (const f of files) if (f.fileRevision === revision) consider(this.load(f.file));
      for (const f of files) if (f.fileRevision === undefined) consider(this.load(f.file));
      return best;
    }
    for (const f of files) consider(this.load(f.file));
    return best;
  }

  /** The files whose names say they hold module `name` (any revision), in search order. */
  filesNamed(name: string): readonly IndexedFile[] {
    return this.buildIndex().get(name) ?? [];
  }

  /** Every module name found in the search directories' file names, sorted. */
  moduleNames(): string[] {
    return [...this.buildIndex().keys()].sort();
  }

  private buildIndex(): Map<string, IndexedFile[]> {
    if (this.index) return this.index;
    const index = new Map<string, IndexedFile[]>();
    const visited = new Set<string>();
    for (const dir of this.searchDirs) walk(dir, index, visited);
    this.index = index;
    return index;
  }
}

/** Indexes the `.yang` files under `dir`, recursively, following symbolic links once. */
function walk(dir: string, index: Map<string, IndexedFile[]>, visited: Set<string>): void {
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    let real: string;
    try {
      real = fs.realpathSync(current);
    } catch {
      continue;
    }
    if (visited.has(real)) continue;
    visited.add(real);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        try {
          const st = fs.statSync(full);
          isDir = st.isDirectory();
          isFile = st.isFile();
        } catch {
          continue;
        }
      }
      if (isDir) subdirs.push(full);
      else if (isFile) {
        const parsed = parseYangFileName(entry.name);
        if (!parsed) continue;
        const list = index.get(parsed.name) ?? [];
        list.push({ file: full, fileRevision: parsed.revision });
        index.set(parsed.name, list);
      }
    }
    // Depth-first in name order: push in reverse so the first name is walked first.
    for (let i = subdirs.length - 1; i >= 0; i--) pending.push(subdirs[i]);
  }
}

/** A module is at a revision when that is its newest `revision` statement (as an import's revision-date means). */
function hasRevision(source: ModuleSource, revision: string): boolean {
  return source.statement !== undefined && source.revision === revision;
}

/** Parses a file's text and reads its identity: kind, name, newest revision, parent module. */
function describe(file: string, text: string): ModuleSource {
  const { statement, diagnostics } = parseYang(text, file);
  const fromFileName = parseYangFileName(path.basename(file));
  if (!statement) {
    return {
      file,
      text,
      kind: undefined,
      name: fromFileName?.name ?? path.basename(file),
      revision: fromFileName?.revision,
      belongsTo: undefined,
      statement: undefined,
      diagnostics,
    };
  }
  let revision: string | undefined;
  for (const r of findSubs(statement, 'revision'))
    if (r.arg !== undefined && (revision === undefined || r.arg > revision)) revision = r.arg;
  const kind = statement.keyword === 'submodule' ? 'submodule' : 'module';
  const belongsTo = kind === 'submodule' ? findSub(statement, 'belongs-to')?.arg : undefined;
  return { file, text, kind, name: statement.arg ?? '', revision, belongsTo, statement, diagnostics };
}

function unreadable(file: string, reason: string): ModuleSource {
  const fromFileName = parseYangFileName(path.basename(file));
  return {
    file,
    text: '',
    kind: undefined,
    name: fromFileName?.name ?? path.basename(file),
    revision: fromFileName?.revision,
    belongsTo: undefined,
    statement: undefined,
    diagnostics: [{ severity: 'error', message: `cannot read ${file}: ${reason}`, position: { file, line: 1, column: 1 } }],
  };
}
