/**
 * The compiler's working records: one ModuleRecord per loaded module revision, one SourceUnit per
 * module or submodule text, and the lexical Scope used to find typedefs and groupings where they
 * are visible (RFC 7950 §5.5). These are internal; the outside sees only schema.ts types.
 */
import type { Statement, SourcePosition } from '../statement';
import { findSubs } from '../statement';
import type { CompiledModule, SchemaNode, Identity, Feature } from '../schema';
import type { DiagnosticSink } from './diagnostics';

/** Removes `readonly` from an object type so the compiler can fill it in before publishing it. */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** A compiled module while it is being built (maps and arrays stay mutable inside the compiler). */
export interface ModuleBuild
  extends Writable<
    Omit<
      CompiledModule,
      | 'data'
      | 'rpcs'
      | 'notifications'
      | 'augments'
      | 'deviations'
      | 'features'
      | 'identities'
      | 'typedefs'
      | 'extensions'
      | 'annotations'
      | 'prefixes'
      | 'structures'
      | 'structureAugments'
    >
  > {
  data: SchemaNode[];
  structures: CompiledModule['structures'][number][];
  structureAugments: CompiledModule['structureAugments'][number][];
  rpcs: CompiledModule['rpcs'][number][];
  notifications: CompiledModule['notifications'][number][];
  augments: CompiledModule['augments'][number][];
  deviations: Array<{ target: string; position: SourcePosition }>;
  features: Map<string, Feature>;
  identities: Map<string, Identity>;
  typedefs: Map<string, CompiledModule['typedefs'] extends ReadonlyMap<string, infer T> ? T : never>;
  extensions: Map<string, CompiledModule['extensions'] extends ReadonlyMap<string, infer T> ? T : never>;
  annotations: Map<string, CompiledModule['annotations'] extends ReadonlyMap<string, infer T> ? T : never>;
  prefixes: Map<string, string>;
}

/** The text of one module or submodule and the prefixes declared in it. */
export interface SourceUnit {
  readonly statement: Statement;
  readonly file: string;
  /** The module or submodule name. */
  readonly name: string;
  /** The module this text belongs to (a submodule's definitions are its module's). */
  readonly record: ModuleRecord;
  /** Prefix -> module record, as declared in this text (own prefix included). */
  readonly prefixes: Map<string, ModuleRecord>;
  readonly root: Scope;
}

/** A definition together with the scope it was written in. */
export interface Definition {
  readonly stmt: Statement;
  readonly scope: Scope;
}

/** One loaded module revision. */
export interface ModuleRecord {
  readonly name: string;
  readonly revision: string | undefined;
  readonly module: ModuleBuild;
  readonly units: SourceUnit[];
  implemented: boolean;
  /** Top-level typedefs and groupings of the module and all its submodules. */
  readonly topTypedefs: Map<string, Definition>;
  readonly topGroupings: Map<string, Definition>;
  /** Whether the module's data nodes have been compiled (done once it is implemented). */
  dataCompiled: boolean;
}

/**
 * A lexical scope: the typedefs and groupings declared by one statement, chained to the enclosing
 * statement's scope, ending at the module level. Scopes depend only on where text is written, so
 * they are computed once per statement and shared by every use of a grouping.
 */
export class Scope {
  private readonly typedefs: Map<string, Definition> | undefined;
  private readonly groupings: Map<string, Definition> | undefined;

  constructor(
    readonly unit: SourceUnit,
    readonly parent: Scope | undefined,
    owner: Statement | undefined,
  ) {
    if (owner && parent) {
      for (const t of findSubs(owner, 'typedef')) (this.typedefs ??= new Map()).set(t.arg ?? '', { stmt: t, scope: this });
      for (const g of findSubs(owner, 'grouping')) (this.groupings ??= new Map()).set(g.arg ?? '', { stmt: g, scope: this });
    }
  }

  /** Finds an unprefixed typedef visible here (enclosing statements first, then the module). */
  typedef(name: string): Definition | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const d = s.typedefs?.get(name);
      if (d) return d;
    }
    return this.unit.record.topTypedefs.get(name);
  }

  /** Finds an unprefixed grouping visible here. */
  grouping(name: string): Definition | undefined {
    for (let s: Scope | undefined = this; s; s = s.parent) {
      const d = s.groupings?.get(name);
      if (d) return d;
    }
    return this.unit.record.topGroupings.get(name);
  }
}

const scopeCache = new WeakMap<Statement, Scope>();

/** The scope of the statements inside `stmt`, written in the scope `outer`. */
export function innerScope(stmt: Statement, outer: Scope): Scope {
  let s = scopeCache.get(stmt);
  if (s && s.unit === outer.unit) return s;
  const declares = stmt.substatements.some((c) => c.prefix === undefined && (c.keyword === 'typedef' || c.keyword === 'grouping'));
  s = declares ? new Scope(outer.unit, outer, stmt) : outer;
  scopeCache.set(stmt, s);
  return s;
}

/** Splits `pfx:name` into its prefix (undefined when bare) and local name. */
export function splitQName(text: string): { prefix: string | undefined; name: string } {
  const i = text.indexOf(':');
  return i < 0 ? { prefix: undefined, name: text } : { prefix: text.slice(0, i), name: text.slice(i + 1) };
}

/**
 * Resolves a possibly prefixed name written in `unit` to the module it names and the local name;
 * undefined when the prefix is not declared there.
 */
export function resolveQName(text: string, unit: SourceUnit): { record: ModuleRecord; name: string } | undefined {
  const { prefix, name } = splitQName(text);
  if (prefix === undefined) return { record: unit.record, name };
  const record = unit.prefixes.get(prefix);
  return record ? { record, name } : undefined;
}

/** What every compiler pass shares: the diagnostics and the module records. */
export interface CompileState {
  readonly sink: DiagnosticSink;
  /** Records by `name@revision` (revision empty when none). */
  readonly records: Map<string, ModuleRecord>;
  /** Whether a feature is enabled; undefined when the module has no such feature. */
  featureEnabled(record: ModuleRecord, name: string): boolean | undefined;
}

/** The argument of a substatement, if present. */
export function subArg(stmt: Statement, keyword: string): string | undefined {
  for (const s of stmt.substatements) if (s.prefix === undefined && s.keyword === keyword) return s.arg;
  return undefined;
}

/** Where a default value was written: its text, the `default` statement's place, the text's prefixes. */
export interface DefaultOrigin {
  readonly value: string;
  readonly position: SourcePosition;
  readonly unit: SourceUnit;
}

/** Node objects while they are built: every field writable. */
export type NodeBuild = { -readonly [K in keyof SchemaNode]: SchemaNode[K] } & { children: SchemaNode[]; [k: string]: unknown };

/** `{ key: value }` when value is defined, `{}` otherwise (keeps optional properties absent). */
export function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
