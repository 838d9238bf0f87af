/**
 * Data trees outside the datastore: RFC 8040 `rc:yang-data`, RFC 8791 `sx:structure` and
 * `sx:augment-structure`. They are top-level extension statements whose substatements are data
 * definitions; this pass compiles them with the node compiler (uses, groupings and typedefs in scope
 * as for any data node, config ignored), checks the rules the RFCs and libyang's extension plugins
 * enforce, and applies augment-structures to their target structures. Leafref paths inside a
 * structure are resolved within that structure by finalize.ts.
 *
 * Rules, with libyang 2.1.30's messages where it has one:
 * - All three are valid only as substatements of module/submodule (checked in placement.ts).
 * - One name per module and extension ("instantiated multiple times"); an sx:structure must not
 *   share its name with a top-level data node.
 * - rc:yang-data must "result in exactly one container data node definition" (a choice whose every
 *   case holds one container counts).
 * - sx:augment-structure needs at least one data-def-stmt or case (RFC 8791 ABNF). Unlike libyang,
 *   `uses` counts: RFC 7950's data-def-stmt includes uses-stmt, and libyang's test misses it only
 *   because its statement mask leaves uses out (ietf-dots-robust-trans is such a module).
 * - The augment-structure path's first node names a structure, the rest a node inside it; a path
 *   naming only the structure has no target node (libyang refuses it the same way).
 * - `refine` and `augment` inside a `uses` work as anywhere else. libyang 2.1.30 finds no target
 *   for them in any uses inside an extension instance, which is why it refuses ietf-voucher-request
 *   (RFC 8995); the model is right (see corpus.test.ts).
 *
 * Order: libyang stores an extension instance's data-def substatements kind by kind (containers,
 * then leaves, leaf-lists, lists, choices, anydata, anyxml, uses, cases), so that is the order its
 * compiled structures and tree diagrams show; we compile in that order too.
 */
import type { Statement } from '../statement';
import type { SchemaNode, StructureSchema } from '../schema';
import { dataChildren } from '../schema';
import { status as statusOf } from './definitions';
import type { CompileState, ModuleRecord, SourceUnit } from './model';
import { innerScope, opt, resolveQName, subArg } from './model';
import type { NodeCompiler, PlaceContext } from './nodes';
import { mustsOf } from './node-properties';

/** The modules that define the three extensions. */
const RESTCONF = 'ietf-restconf';
const STRUCTURE_EXT = 'ietf-yang-structure-ext';

export type StructureExtension = 'yang-data' | 'structure' | 'augment-structure';

/** Data-def substatements in the order libyang stores them, per extension. */
const DATA_ORDER: Record<StructureExtension, readonly string[]> = {
  'yang-data': ['container', 'choice', 'uses'],
  structure: ['container', 'leaf', 'leaf-list', 'list', 'choice', 'anydata', 'anyxml', 'uses'],
  'augment-structure': ['container', 'leaf', 'leaf-list', 'list', 'choice', 'anydata', 'anyxml', 'uses', 'case'],
};

/** Every core substatement each extension accepts (the ABNF in the extensions' own descriptions). */
const ALLOWED: Record<StructureExtension, ReadonlySet<string>> = {
  'yang-data': new Set(DATA_ORDER['yang-data']),
  structure: new Set(['must', 'status', 'description', 'reference', 'typedef', 'grouping', ...DATA_ORDER.structure]),
  'augment-structure': new Set(['status', 'description', 'reference', ...DATA_ORDER['augment-structure']]),
};

/** Which of the three extensions a statement is, through the prefixes of the text it is written in. */
export function structureExtension(stmt: Statement, unit: SourceUnit): StructureExtension | undefined {
  if (stmt.prefix === undefined) return undefined;
  const module = unit.prefixes.get(stmt.prefix)?.name;
  if (module === RESTCONF) return stmt.keyword === 'yang-data' ? 'yang-data' : undefined;
  if (module !== STRUCTURE_EXT) return undefined;
  return stmt.keyword === 'structure' || stmt.keyword === 'augment-structure' ? stmt.keyword : undefined;
}

interface PendingAugment {
  readonly stmt: Statement;
  readonly unit: SourceUnit;
}

/** Compiles the structures of implemented modules and applies their augment-structures. */
export class StructureCompiler {
  private readonly pending: PendingAugment[] = [];

  constructor(
    private readonly nodes: NodeCompiler,
    private readonly state: CompileState,
    /** Compiles a module's data (and so its structures) when an augment-structure targets it. */
    private readonly implement: (record: ModuleRecord) => void,
  ) {}

  /** Compiles the structures of one text of an implemented module and queues its augment-structures. */
  compileUnit(unit: SourceUnit): void {
    for (const s of unit.statement.substatements) {
      const kind = structureExtension(s, unit);
      if (kind === undefined) continue;
      if (!this.checkSubstatements(s, kind, unit)) continue;
      if (kind === 'augment-structure') this.pending.push({ stmt: s, unit });
      else this.compileStructure(s, kind, unit);
    }
  }

  /**
   * Applies the queued augment-structures whose targets exist now (an augment-structure may target
   * nodes another one adds, so this repeats until nothing more applies). Returns whether any applied.
   */
  applyPending(): boolean {
    let applied = false;
    for (let progress = true; progress; ) {
      progress = false;
      for (const p of [...this.pending]) {
        const r = this.target(p);
        if (r === 'not yet') continue;
        this.pending.splice(this.pending.indexOf(p), 1);
        if ('error' in r) {
          this.error(r.error, p.stmt, p.unit);
          continue;
        }
        const stmt = { ...p.stmt, substatements: ordered(p.stmt.substatements, 'augment-structure', true) };
        const added = this.nodes.augmentInto(r.target, stmt, p.unit.root, p.unit.record);
        p.unit.record.module.structureAugments.push({
          targetPath: p.stmt.arg ?? '',
          structure: r.structure,
          target: r.target,
          nodes: added,
          statement: p.stmt,
        });
        applied = progress = true;
      }
    }
    return applied;
  }

  /** Reports the augment-structures whose target never appeared. */
  reportUnapplied(): void {
    for (const p of this.pending.splice(0)) this.error(notFound(p), p.stmt, p.unit);
  }

  private compileStructure(stmt: Statement, kind: 'yang-data' | 'structure', unit: SourceUnit): void {
    const record = unit.record;
    const module = record.module;
    const name = stmt.arg ?? '';
    const written = `${stmt.prefix}:${stmt.keyword}`;
    if (module.structures.some((x) => x.extension === kind && x.name === name)) {
      this.error(`Extension ${written} is instantiated multiple times.`, stmt, unit);
      return;
    }
    if (kind === 'structure') {
      const clash = module.data.find((n) => n.name === name);
      if (clash) {
        this.error(`Extension ${written} collides with a ${clash.kind} with the same identifier.`, stmt, unit);
        return;
      }
    }
    const scope = innerScope(stmt, unit.root);
    const status = statusOf(stmt);
    // inOperation: config statements are ignored inside, as RFC 8791 says ("The config-stmt is ignored").
    const ctx: PlaceContext = {
      scope,
      record,
      parent: undefined,
      config: false,
      inOperation: true,
      status,
      ifFeatures: [],
      when: [],
      groupings: [],
    };
    const nodes = this.nodes.children(ordered(stmt.substatements, kind, false), ctx);
    const structure: StructureSchema = {
      extension: kind,
      name,
      module: module as never,
      nodes,
      musts: kind === 'structure' ? mustsOf(stmt, scope) : [],
      status,
      ...opt('description', subArg(stmt, 'description')),
      ...opt('reference', subArg(stmt, 'reference')),
      statement: stmt,
    };
    for (const n of nodes) this.nodes.structureOfTop.set(n, structure);
    module.structures.push(structure);
    if (kind === 'yang-data') this.checkSingleContainer(structure, written, unit);
  }

  /** RFC 8040: yang-data "MUST contain data definition statements that result in exactly one container". */
  private checkSingleContainer(structure: StructureSchema, written: string, unit: SourceUnit): void {
    const top = structure.nodes;
    const at = structure.statement;
    if (top.length === 0) {
      this.error(
        `Extension ${written} is instantiated without any top level data node, but exactly one container data node is expected.`,
        at,
        unit,
      );
    } else if (top.length > 1) {
      this.error(
        `Extension ${written} is instantiated with multiple top level data nodes, but only a single container data node is allowed.`,
        at,
        unit,
      );
    } else if (top[0]!.kind === 'choice') {
      for (const c of top[0]!.children) {
        const inCase = [...dataChildren(c.children)];
        if (inCase.length > 1) {
          this.error(
            `Extension ${written} is instantiated with multiple top level data nodes (inside a single choice's case), but only a single container data node is allowed.`,
            at,
            unit,
          );
          return;
        }
        if (inCase[0] && inCase[0].kind !== 'container') {
          this.error(
            `Extension ${written} is instantiated with ${inCase[0].kind} top level data node (inside a choice), but only a single container data node is allowed.`,
            at,
            unit,
          );
          return;
        }
      }
    } else if (top[0]!.kind !== 'container') {
      this.error(
        `Extension ${written} is instantiated with ${top[0]!.kind} top level data node, but only a single container data node is allowed.`,
        at,
        unit,
      );
    }
  }

  /** Refuses substatements the extension's grammar does not allow; false when the instance is unusable. */
  private checkSubstatements(stmt: Statement, kind: StructureExtension, unit: SourceUnit): boolean {
    const written = `${stmt.prefix}:${stmt.keyword}`;
    if (stmt.arg === undefined || stmt.arg === '') {
      this.error(`Extension ${written} is missing its argument.`, stmt, unit);
      return false;
    }
    for (const s of stmt.substatements) {
      if (s.prefix === undefined && !ALLOWED[kind].has(s.keyword)) {
        this.error(`Invalid keyword "${s.keyword}" as a child of "${written} ${stmt.arg}" extension instance.`, s, unit);
      }
    }
    if (kind === 'augment-structure' && !stmt.substatements.some((s) => s.prefix === undefined && DATA_ORDER[kind].includes(s.keyword))) {
      this.error(`Extension ${written} does not define any data-def-stmt statements.`, stmt, unit);
      return false;
    }
    return true;
  }

  /**
   * The node an augment-structure path names: `'not yet'` while its last steps may still be added
   * by another augment-structure, an error when the path cannot name anything.
   */
  private target(p: PendingAugment): { structure: StructureSchema; target: SchemaNode } | { error: string } | 'not yet' {
    const path = p.stmt.arg ?? '';
    const steps = path.split('/').map((s) => s.trim());
    if (steps[0] !== '' || steps.length < 2 || steps.some((s, i) => i > 0 && s === '')) {
      return { error: `Invalid absolute-schema-nodeid value "${path}" of extension ${p.stmt.prefix}:${p.stmt.keyword}.` };
    }
    const first = resolveQName(steps[1]!, p.unit);
    if (!first) return { error: `Invalid absolute-schema-nodeid value "${path}" - prefix of "${steps[1]}" not defined.` };
    if (!first.record.dataCompiled) this.implement(first.record);
    const structure = first.record.module.structures.find((s) => s.extension === 'structure' && s.name === first.name);
    // The first node names the structure and the rest a node inside it (RFC 8791 augment-structure).
    if (!structure || steps.length < 3) return { error: notFound(p) };
    let children: readonly SchemaNode[] = structure.nodes;
    let node: SchemaNode | undefined;
    for (const step of steps.slice(2)) {
      const q = resolveQName(step, p.unit);
      if (!q) return { error: `Invalid absolute-schema-nodeid value "${path}" - prefix of "${step}" not defined.` };
      node = children.find((c) => c.name === q.name && c.module.name === q.record.name);
      if (!node) return 'not yet';
      children = node.children;
    }
    return { structure, target: node! };
  }

  private error(message: string, stmt: Statement, unit: SourceUnit): void {
    this.state.sink.error(message, stmt.position, unit.record.name);
  }
}

function notFound(p: PendingAugment): string {
  return `Augment extension target node "${p.stmt.arg}" from module "${p.unit.record.name}" was not found.`;
}

/**
 * The substatements in libyang's storage order: data definitions kind by kind; with `keepOthers`,
 * the non-data substatements (status, description, if-feature, extensions) first, as they are.
 */
function ordered(subs: readonly Statement[], kind: StructureExtension, keepOthers: boolean): Statement[] {
  const order = DATA_ORDER[kind];
  const out: Statement[] = keepOthers ? subs.filter((s) => s.prefix !== undefined || !order.includes(s.keyword)) : [];
  for (const k of order) for (const s of subs) if (s.prefix === undefined && s.keyword === k) out.push(s);
  return out;
}
