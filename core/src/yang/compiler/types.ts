/**
 * Types and typedefs (RFC 7950 §7.3, §9): resolves a `type` statement through its typedef chain to
 * the built-in type at the bottom and combines every restriction met on the way (ranges and lengths
 * narrowed, patterns accumulated, enum/bit sets restricted, union members compiled). A typedef is
 * compiled once and a `type` statement once per place it is written, so a grouping used a thousand
 * times costs one type compilation; only leafref types are copied per leaf, since each leaf resolves
 * its own target.
 *
 * Why this file is longer than 400 lines: resolving a typedef chain combines every restriction kind
 * (range, length, pattern, enum, bit, union member, leafref path) in one pass down the chain, each
 * narrowing what the type below allowed.
 */
import type { Statement } from '../statement';
import { findSub, findSubs } from '../statement';
import type {
  BitMember,
  BuiltinTypeName,
  EnumMember,
  Identity,
  LengthRestriction,
  PatternRestriction,
  RangeRestriction,
  RestrictionError,
  Status,
  Typedef,
  YangType,
} from '../schema';
import * as restrictions from '../types/restrictions';
import { evalFeatureExpr, parseFeatureExpr } from './if-feature';
import type { CompileState, DefaultOrigin, Definition, Scope } from './model';
import { opt, resolveQName, splitQName, subArg } from './model';

const BUILTINS = new Set<string>([
  'binary',
  'bits',
  'boolean',
  'decimal64',
  'empty',
  'enumeration',
  'identityref',
  'instance-identifier',
  'int8',
  'int16',
  'int32',
  'int64',
  'leafref',
  'string',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'union',
]);

type MutableType = { -readonly [K in keyof YangType]: YangType[K] };

/** Per-compilation caches of compiled typedefs and type statements. */
export class TypeCompiler {
  private readonly typedefs = new WeakMap<Statement, Typedef>();
  private readonly inProgress = new Set<Statement>();
  private readonly typeCache = new WeakMap<Statement, YangType>();
  /** Where each typedef's default was written (its own `default`, or the one it inherited). */
  private readonly typedefDefaults = new WeakMap<Typedef, DefaultOrigin>();

  constructor(
    private readonly state: CompileState,
    /** Looks up an identity by (possibly prefixed) name as written in a scope. */
    private readonly identity: (qname: string, scope: Scope) => Identity | undefined,
    /** Evaluates an if-feature argument written in a scope (false when unknown, after reporting). */
    private readonly ifFeature: (expr: string, stmt: Statement, scope: Scope) => boolean,
  ) {}

  /** Compiles a `type` statement written in `scope`. Never throws; faults become diagnostics. */
  compile(stmt: Statement, scope: Scope): YangType {
    const cached = this.typeCache.get(stmt);
    if (cached) return cached;
    const type = this.compileUncached(stmt, scope);
    this.typeCache.set(stmt, type);
    return type;
  }

  /** Compiles (once) the typedef `def` and returns it; undefined while it is part of a cycle. */
  typedef(def: Definition): Typedef | undefined {
    const done = this.typedefs.get(def.stmt);
    if (done) return done;
    if (this.inProgress.has(def.stmt)) return undefined;
    this.inProgress.add(def.stmt);
    const record = def.scope.unit.record;
    const typeStmt = findSub(def.stmt, 'type');
    const type = typeStmt ? this.compile(typeStmt, def.scope) : this.fallback('string');
    if (!typeStmt) this.error(`Missing mandatory substatement type of typedef "${def.stmt.arg}".`, def.stmt, def.scope);
    const base = type.typedef;
    const td: Typedef = {
      name: def.stmt.arg ?? '',
      module: record.module as unknown as Typedef['module'],
      type,
      ...opt('default', subArg(def.stmt, 'default') ?? base?.default),
      ...opt('units', subArg(def.stmt, 'units') ?? base?.units),
      status: (subArg(def.stmt, 'status') as Status | undefined) ?? 'current',
      ...opt('description', subArg(def.stmt, 'description')),
    };
    this.inProgress.delete(def.stmt);
    this.typedefs.set(def.stmt, td);
    const ownDefault = findSub(def.stmt, 'default');
    const origin = ownDefault
      ? { value: ownDefault.arg ?? '', position: ownDefault.position, unit: def.scope.unit }
      : base && this.typedefDefaults.get(base);
    if (origin) this.typedefDefaults.set(td, origin);
    return td;
  }

  /** Where the default `value` of a type's typedef chain was written, if it came from there. */
  typedefDefaultOrigin(type: YangType, value: string): DefaultOrigin | undefined {
    const td = type.typedef;
    if (!td || td.default !== value) return undefined;
    return this.typedefDefaults.get(td);
  }

  /** Finds the typedef a (possibly prefixed) type name refers to from `scope`. */
  findTypedef(qname: string, scope: Scope): Definition | undefined {
    const { prefix, name } = splitQName(qname);
    if (prefix === undefined || scope.unit.prefixes.get(prefix) === scope.unit.record) return scope.typedef(name);
    const target = resolveQName(qname, scope.unit);
    return target?.record.topTypedefs.get(target.name);
  }

  private compileUncached(stmt: Statement, scope: Scope): YangType {
    const written = stmt.arg ?? '';
    const { prefix, name } = splitQName(written);
    if (prefix === undefined && BUILTINS.has(name))
      return this.restrict(undefined, name as BuiltinTypeName, written, undefined, stmt, scope);
    const def = this.findTypedef(written, scope);
    if (!def) {
      this.error(`Referenced type "${written}" not found.`, stmt, scope);
      return this.fallback('string', written);
    }
    const td = this.typedef(def);
    if (!td) {
      this.error(`Invalid typedef "${written}" - circular chain of types.`, stmt, scope);
      return this.fallback('string', written);
    }
    return this.restrict(td.type, td.type.builtin, written, td, stmt, scope);
  }

  /** Builds the type named `name` from `base` (undefined for a built-in) and `stmt`'s restrictions. */
  private restrict(
    base: YangType | undefined,
    builtin: BuiltinTypeName,
    name: string,
    typedef: Typedef | undefined,
    stmt: Statement,
    scope: Scope,
  ): YangType {
    const t: MutableType = {
      builtin,
      name,
      patterns: base ? base.patterns : [],
      ...opt('typedef', typedef),
    };
    if (base) {
      for (const k of [
        'range',
        'length',
        'fractionDigits',
        'enums',
        'bits',
        'union',
        'leafref',
        'identityBases',
        'requireInstance',
      ] as const) {
        if (base[k] !== undefined) (t as Record<string, unknown>)[k] = base[k];
      }
    }
    const allowed = (what: string, ok: boolean, s: Statement): boolean => {
      if (!ok) this.error(`Invalid type restrictions for ${builtin} type.`, s, scope);
      void what;
      return ok;
    };
    for (const sub of stmt.substatements) {
      if (sub.prefix !== undefined) continue;
      switch (sub.keyword) {
        case 'range': {
          if (!allowed('range', restrictions.isNumericBuiltin(builtin), sub)) break;
          const fd = t.fractionDigits ?? parseFractionDigits(findSub(stmt, 'fraction-digits'));
          const baseIntervals = t.range?.intervals ?? restrictions.builtinRange(builtin, fd) ?? [];
          const r = restrictions.parseRange(sub.arg ?? '', baseIntervals, builtin, fd);
          if ('error' in r) this.error(`Invalid range restriction - ${r.error}.`, sub, scope);
          else t.range = { intervals: r.intervals, source: sub.arg ?? '', ...restrictionError(sub) } satisfies RangeRestriction;
          break;
        }
        case 'length': {
          if (!allowed('length', builtin === 'string' || builtin === 'binary', sub)) break;
          const r = restrictions.parseLength(sub.arg ?? '', t.length?.intervals ?? restrictions.FULL_LENGTH);
          if ('error' in r) this.error(`Invalid length restriction - ${r.error}.`, sub, scope);
          else t.length = { intervals: r.intervals, source: sub.arg ?? '', ...restrictionError(sub) } satisfies LengthRestriction;
          break;
        }
        case 'pattern': {
          if (!allowed('pattern', builtin === 'string', sub)) break;
          const p = compilePattern(sub.arg ?? '');
          if ('error' in p) {
            this.error(`Regular expression "${sub.arg}" is not valid (${p.error}).`, sub, scope);
            break;
          }
          const inverted = subArg(sub, 'modifier') === 'invert-match';
          t.patterns = [
            ...t.patterns,
            { source: sub.arg ?? '', regex: p.regex, inverted, ...restrictionError(sub) } satisfies PatternRestriction,
          ];
          break;
        }
        case 'fraction-digits': {
          if (base || builtin !== 'decimal64') {
            this.error('Invalid fraction-digits substatement for type not directly derived from decimal64 built-in type.', sub, scope);
            break;
          }
          const fd = parseFractionDigits(sub);
          if (fd === undefined) this.error(`Invalid value "${sub.arg}" of "fraction-digits".`, sub, scope);
          else t.fractionDigits = fd;
          break;
        }
        case 'require-instance':
          if (!allowed('require-instance', builtin === 'leafref' || builtin === 'instance-identifier', sub)) break;
          if (builtin === 'leafref' && t.leafref) t.leafref = { ...t.leafref, requireInstance: sub.arg !== 'false' };
          else t.requireInstance = sub.arg !== 'false';
          break;
        default:
          break;
      }
    }
    // Range bounds of decimal64 depend on fraction-digits, which may follow `range` in the text.
    if (builtin === 'decimal64' && !base && t.fractionDigits === undefined)
      this.error('Missing fraction-digits substatement for decimal64 type.', stmt, scope);
    if (builtin === 'enumeration') this.enums(t, base, stmt, scope);
    if (builtin === 'bits') this.bits(t, base, stmt, scope);
    if (builtin === 'union') {
      const members = findSubs(stmt, 'type');
      if (members.length > 0) {
        if (base) this.error('Invalid type substatement for a type derived from union.', members[0]!, scope);
        else t.union = members.map((m) => this.compile(m, scope));
      } else if (!base) this.error('Missing type substatement for union type.', stmt, scope);
    }
    if (builtin === 'leafref') {
      const path = findSub(stmt, 'path');
      if (path) {
        if (base) this.error('Invalid path substatement for a type derived from leafref.', path, scope);
        const ri = subArg(stmt, 'require-instance');
        t.leafref = {
          path: { source: path.arg ?? '', contextModule: scope.unit.record.module as never, position: path.position },
          requireInstance: ri === undefined ? (t.leafref?.requireInstance ?? true) : ri !== 'false',
        };
      } else if (!base) this.error('Missing path substatement for leafref type.', stmt, scope);
    }
    if (builtin === 'identityref') {
      const bases = findSubs(stmt, 'base');
      if (bases.length > 0) {
        const found: Identity[] = [];
        for (const b of bases) {
          const id = this.identity(b.arg ?? '', scope);
          if (!id) this.error(`Unable to find base (${b.arg}) of identityref.`, b, scope);
          else found.push(id);
        }
        t.identityBases = found;
      } else if (!base) this.error('Missing base substatement for identityref type.', stmt, scope);
    }
    if (builtin === 'instance-identifier' && t.requireInstance === undefined) t.requireInstance = true;
    return t;
  }

  private enums(t: MutableType, base: YangType | undefined, stmt: Statement, scope: Scope): void {
    const subs = findSubs(stmt, 'enum');
    if (subs.length === 0) {
      if (!base) this.error('Missing enum substatement for enumeration type.', stmt, scope);
      return;
    }
    const members: EnumMember[] = [];
    const names = new Set<string>();
    let next = 0;
    let highest: number | undefined;
    for (const e of subs) {
      const name = e.arg ?? '';
      if (names.has(name)) {
        this.error(`Duplicate identifier "${name}" of enum statement.`, e, scope);
        continue;
      }
      names.add(name);
      const valueText = subArg(e, 'value');
      let value: number;
      const inherited = base?.enums?.find((m) => m.name === name);
      if (base && !inherited) {
        this.error(`Invalid enumeration - derived type adds new item "${name}".`, e, scope);
        continue;
      }
      if (valueText !== undefined) {
        value = Number(valueText);
        if (!/^[+-]?[0-9]+$/.test(valueText) || value < -2147483648 || value > 2147483647) {
          this.error(`Invalid value "${valueText}" of "value".`, e, scope);
          continue;
        }
        if (inherited && inherited.value !== value) {
          this.error(
            `Invalid enumeration - value of the item "${name}" has changed from ${inherited.value} to ${value} in the derived type.`,
            e,
            scope,
          );
          continue;
        }
      } else if (inherited) {
        value = inherited.value;
      } else {
        if (highest !== undefined && highest >= 2147483647) {
          this.error(
            `Invalid enumeration - it is not possible to auto-assign enum value for "${name}" since the highest value is already 2147483647.`,
            e,
            scope,
          );
          continue;
        }
        value = next;
      }
      if (!base && members.some((m) => m.value === value)) {
        this.error(
          `Invalid enumeration - value ${value} collide in items "${members.find((m) => m.value === value)!.name}" and "${name}".`,
          e,
          scope,
        );
        continue;
      }
      highest = highest === undefined ? value : Math.max(highest, value);
      next = highest + 1;
      const ifFeatures = findSubs(e, 'if-feature').map((f) => f.arg ?? '');
      // A member whose if-feature is false is not part of the type (libyang disables it).
      if (!ifFeatures.every((f, i) => this.ifFeature(f, findSubs(e, 'if-feature')[i]!, scope))) continue;
      members.push({ name, value, status: (subArg(e, 'status') as Status | undefined) ?? 'current', ifFeatures });
    }
    t.enums = members;
  }

  private bits(t: MutableType, base: YangType | undefined, stmt: Statement, scope: Scope): void {
    const subs = findSubs(stmt, 'bit');
    if (subs.length === 0) {
      if (!base) this.error('Missing bit substatement for bits type.', stmt, scope);
      return;
    }
    const members: BitMember[] = [];
    const names = new Set<string>();
    let next = 0;
    for (const b of subs) {
      const name = b.arg ?? '';
      if (names.has(name)) {
        this.error(`Duplicate identifier "${name}" of bit statement.`, b, scope);
        continue;
      }
      names.add(name);
      const inherited = base?.bits?.find((m) => m.name === name);
      if (base && !inherited) {
        this.error(`Invalid bits - derived type adds new item "${name}".`, b, scope);
        continue;
      }
      const posText = subArg(b, 'position');
      let position: number;
      if (posText !== undefined) {
        position = Number(posText);
        if (!/^\+?[0-9]+$/.test(posText) || position > 4294967295) {
          this.error(`Invalid value "${posText}" of "position".`, b, scope);
          continue;
        }
        if (inherited && inherited.position !== position) {
          this.error(
            `Invalid bits - position of the item "${name}" has changed from ${inherited.position} to ${position} in the derived type.`,
            b,
            scope,
          );
          continue;
        }
      } else position = inherited ? inherited.position : next;
      if (!base && members.some((m) => m.position === position)) {
        this.error(`Invalid bits - position ${position} collide in items.`, b, scope);
        continue;
      }
      next = Math.max(next, position + 1);
      const ifs = findSubs(b, 'if-feature');
      if (!ifs.every((f) => this.ifFeature(f.arg ?? '', f, scope))) continue;
      members.push({
        name,
        position,
        status: (subArg(b, 'status') as Status | undefined) ?? 'current',
        ifFeatures: ifs.map((f) => f.arg ?? ''),
      });
    }
    members.sort((a, b) => a.position - b.position);
    t.bits = members;
  }

  private fallback(builtin: BuiltinTypeName, name: string = builtin): YangType {
    return { builtin, name, patterns: [] };
  }

  private error(message: string, stmt: Statement, scope: Scope): void {
    this.state.sink.error(message, stmt.position, scope.unit.record.name);
  }
}

/**
 * A copy of `type` whose leafref parts can take a target of their own. Types without a leafref are
 * returned as they are (shared between every leaf that uses them).
 */
export function instantiateLeafrefs(type: YangType): YangType {
  if (type.leafref) return { ...type, leafref: { ...type.leafref } };
  if (type.union?.some(hasLeafref)) return { ...type, union: type.union.map(instantiateLeafrefs) };
  return type;
}

/** Whether a type is or contains (through union members) a leafref. */
function hasLeafref(type: YangType): boolean {
  return type.leafref !== undefined || (type.union?.some(hasLeafref) ?? false);
}

function parseFractionDigits(stmt: Statement | undefined): number | undefined {
  if (!stmt || !/^[0-9]+$/.test(stmt.arg ?? '')) return undefined;
  const n = Number(stmt.arg);
  return n >= 1 && n <= 18 ? n : undefined;
}

function restrictionError(stmt: Statement): RestrictionError {
  const errorMessage = subArg(stmt, 'error-message');
  const errorAppTag = subArg(stmt, 'error-app-tag');
  return { ...opt('errorMessage', errorMessage), ...opt('errorAppTag', errorAppTag) };
}

const patternCache = new Map<string, { regex: RegExp } | { error: string }>();

/** Translates an XSD pattern with the restrictions module's translator (cached per source text). */
function compilePattern(source: string): { regex: RegExp } | { error: string } {
  let r = patternCache.get(source);
  if (!r) {
    const translate = (restrictions as { translatePattern?: (xsd: string) => { regex: RegExp } | { error: string } }).translatePattern;
    if (translate) r = translate(source);
    else {
      try {
        r = { regex: new RegExp(`^(?:${source})$`, 'u') };
      } catch (e) {
        r = { error: (e as Error).message };
      }
    }
    patternCache.set(source, r);
  }
  return r;
}

export { evalFeatureExpr, parseFeatureExpr };
