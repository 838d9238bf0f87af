/**
 * Module-level definitions other than typedefs and groupings: features (with -F semantics and
 * if-feature evaluation), identities (bases, `derived` closure), extension definitions and their
 * uses on statements, and RFC 7952 `md:annotation` definitions.
 */
import type { Statement } from '../statement';
import { findSub, findSubs } from '../statement';
import type { Annotation, ExtensionInstance, Feature, Identity, Status } from '../schema';
import type { FeatureExpr } from './if-feature';
import { evalFeatureExpr, parseFeatureExpr } from './if-feature';
import type { CompileState, ModuleRecord, Scope, SourceUnit } from './model';
import { opt, resolveQName, subArg } from './model';
import type { TypeCompiler } from './types';

type WritableFeature = { -readonly [K in keyof Feature]: Feature[K] };
type WritableIdentity = { -readonly [K in keyof Identity]: Identity[K] } & { derived: Set<Identity> };

const METADATA_MODULE = 'ietf-yang-metadata';

/** Features of every module, enabled per the request and their own if-features. */
export class FeatureTable {
  private readonly stmts = new Map<ModuleRecord, Map<string, { stmt: Statement; unit: SourceUnit }>>();
  private readonly state = new Map<Statement, 'busy' | boolean>();
  private readonly parsed = new Map<string, FeatureExpr | { error: string }>();
  /** What `requested` answered for a module when its first feature was evaluated. */
  private readonly answered = new Map<ModuleRecord, ReadonlySet<string> | '*' | undefined>();

  constructor(
    private readonly compile: CompileState,
    /** Which features of a module the request enables: a set, '*' (all) or undefined (none). */
    private readonly requested: (record: ModuleRecord) => ReadonlySet<string> | '*' | undefined,
  ) {}

  /** Registers the `feature` statements of a module's texts. */
  register(record: ModuleRecord): void {
    const map = new Map<string, { stmt: Statement; unit: SourceUnit }>();
    for (const unit of record.units) {
      for (const f of findSubs(unit.statement, 'feature')) {
        if (map.has(f.arg ?? '')) this.compile.sink.error(`Duplicate identifier "${f.arg}" of feature statement.`, f.position, record.name);
        else map.set(f.arg ?? '', { stmt: f, unit });
      }
    }
    this.stmts.set(record, map);
  }

  /** Whether feature `name` of `record` is enabled; undefined when there is no such feature. */
  enabled(record: ModuleRecord, name: string): boolean | undefined {
    const def = this.stmts.get(record)?.get(name);
    if (!def) return undefined;
    const known = this.state.get(def.stmt);
    if (known === 'busy') return false; // a cycle of if-features; reported where it closes
    if (known !== undefined) return known;
    const req = this.requested(record);
    if (!this.answered.has(record)) this.answered.set(record, req);
    const wanted = req === '*' || req?.has(name) === true;
    this.state.set(def.stmt, 'busy');
    let ok = true;
    for (const i of findSubs(def.stmt, 'if-feature')) ok = this.evaluate(i, def.unit) && ok;
    if (wanted && !ok) {
      this.compile.sink.error(
        `Feature "${name}" cannot be enabled because its "if-feature" is not satisfied.`,
        def.stmt.position,
        record.name,
      );
    }
    const value = wanted && ok;
    this.state.set(def.stmt, value);
    return value;
  }

  /**
   * Whether some module's features were evaluated under a request that has changed since (it was
   * implemented later, so all its features should have been enabled): the trees built are stale.
   */
  stale(): boolean {
    for (const [record, req] of this.answered) if (this.requested(record) !== req) return true;
    return false;
  }

  /** Evaluates one if-feature statement written in `unit`; an unknown feature counts as false. */
  evaluate(stmt: Statement, unit: SourceUnit): boolean {
    const text = stmt.arg ?? '';
    let p = this.parsed.get(text);
    if (!p) {
      const r = parseFeatureExpr(text);
      p = 'expr' in r ? r.expr : r;
      this.parsed.set(text, p);
    }
    if ('error' in p) {
      this.compile.sink.error(p.error, stmt.position, unit.record.name);
      return false;
    }
    return evalFeatureExpr(p, (ref) => {
      const q = resolveQName(ref, unit);
      const v = q ? this.enabled(q.record, q.name) : undefined;
      if (v === undefined) {
        this.compile.sink.error(
          `Invalid value "${text}" of if-feature - unable to find feature "${ref}".`,
          stmt.position,
          unit.record.name,
        );
        return false;
      }
      return v;
    });
  }

  /** Fills `module.features` of a record with the compiled features. */
  publish(record: ModuleRecord): void {
    for (const [name, { stmt }] of this.stmts.get(record) ?? []) {
      const f: WritableFeature = {
        name,
        module: record.module as never,
        enabled: this.enabled(record, name) ?? false,
        ifFeatures: findSubs(stmt, 'if-feature').map((s) => s.arg ?? ''),
        status: status(stmt),
        ...opt('description', subArg(stmt, 'description')),
      };
      record.module.features.set(name, f);
    }
  }
}

/** Creates the identities of a module (bases are linked by {@link linkIdentities}). */
export function createIdentities(record: ModuleRecord, compile: CompileState): void {
  for (const unit of record.units) {
    for (const s of findSubs(unit.statement, 'identity')) {
      const name = s.arg ?? '';
      if (record.module.identities.has(name)) {
        compile.sink.error(`Duplicate identifier "${name}" of identity statement.`, s.position, record.name);
        continue;
      }
      const id: WritableIdentity = {
        name,
        module: record.module as never,
        bases: [],
        derived: new Set(),
        ifFeatures: findSubs(s, 'if-feature').map((f) => f.arg ?? ''),
        status: status(s),
        ...opt('description', subArg(s, 'description')),
      };
      record.module.identities.set(name, id);
      identityStmt.set(id, { stmt: s, unit });
    }
  }
}

const identityStmt = new WeakMap<Identity, { stmt: Statement; unit: SourceUnit }>();

/** Finds an identity by its name as written in `unit`. */
export function lookupIdentity(qname: string, unit: SourceUnit): Identity | undefined {
  const q = resolveQName(qname, unit);
  return q?.record.module.identities.get(q.name);
}

/** Resolves every identity's bases and fills the `derived` closure of all identities given. */
export function linkIdentities(records: Iterable<ModuleRecord>, compile: CompileState): void {
  const all: WritableIdentity[] = [];
  for (const record of records) {
    for (const id of record.module.identities.values()) {
      const w = id as WritableIdentity;
      all.push(w);
      const { stmt, unit } = identityStmt.get(id)!;
      const bases: Identity[] = [];
      for (const b of findSubs(stmt, 'base')) {
        const base = lookupIdentity(b.arg ?? '', unit);
        if (!base) {
          compile.sink.error(`Unable to find base (${b.arg}) of identity "${id.name}".`, b.position, record.name);
          continue;
        }
        bases.push(base);
        // RFC 7950 §7.21.2, within one module only.
        const rank = (s: Status): number => (s === 'current' ? 0 : s === 'deprecated' ? 1 : 2);
        if (base.module === id.module && rank(id.status) < rank(base.status)) {
          compile.sink.error(
            `A "${id.status}" definition identity "${id.name}" is not allowed to reference "${base.status}" definition identity "${base.name}".`,
            b.position,
            record.name,
          );
        }
      }
      w.bases = bases;
    }
  }
  // Walk each identity's ancestors once; the visited set stops base cycles from looping.
  for (const id of all) {
    const seen = new Set<Identity>();
    const stack = [...id.bases];
    while (stack.length > 0) {
      const b = stack.pop()!;
      if (seen.has(b)) continue;
      seen.add(b);
      if (b === id) {
        const { stmt, unit } = identityStmt.get(id)!;
        compile.sink.error(`Identity "${id.name}" is indirectly derived from itself.`, stmt.position, unit.record.name);
        continue;
      }
      (b as WritableIdentity).derived.add(id);
      stack.push(...b.bases);
    }
  }
}

/** Registers `extension` definitions and `md:annotation` definitions of a module. */
export function createExtensions(record: ModuleRecord, types: TypeCompiler, compile: CompileState): void {
  for (const unit of record.units) {
    for (const s of findSubs(unit.statement, 'extension')) {
      const arg = findSub(s, 'argument');
      record.module.extensions.set(s.arg ?? '', { name: s.arg ?? '', module: record.module as never, ...opt('argument', arg?.arg) });
    }
    for (const s of unit.statement.substatements) {
      if (s.prefix === undefined || s.keyword !== 'annotation') continue;
      if (unit.prefixes.get(s.prefix)?.name !== METADATA_MODULE) continue;
      const typeStmt = findSub(s, 'type');
      if (!typeStmt) {
        compile.sink.error(`Missing mandatory substatement type of annotation "${s.arg}".`, s.position, record.name);
        continue;
      }
      const a: Annotation = { name: s.arg ?? '', module: record.module as never, type: types.compile(typeStmt, unit.root) };
      record.module.annotations.set(a.name, a);
    }
  }
}

/** The extension instances among a statement's substatements, with their defining module resolved. */
export function extensionInstances(stmt: Statement, scope: Scope, compile: CompileState): ExtensionInstance[] {
  let out: ExtensionInstance[] | undefined;
  for (const s of stmt.substatements) {
    if (s.prefix === undefined) continue;
    const record = scope.unit.prefixes.get(s.prefix);
    if (!record) {
      compile.sink.error(
        `Invalid prefix "${s.prefix}" of extension instance "${s.prefix}:${s.keyword}".`,
        s.position,
        scope.unit.record.name,
      );
      continue;
    }
    (out ??= []).push({
      module: record.name,
      name: s.keyword,
      prefix: s.prefix,
      arg: s.arg,
      position: s.position,
      substatements: s.substatements,
    });
  }
  return out ?? NO_EXTENSIONS;
}

const NO_EXTENSIONS: ExtensionInstance[] = [];

/** The `status` of a statement ("current" when absent). */
export function status(stmt: Statement): Status {
  return (subArg(stmt, 'status') as Status | undefined) ?? 'current';
}
