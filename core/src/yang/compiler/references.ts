/**
 * Which further modules the compiled trees make implemented, as libyang 2.1 decides it:
 *
 * - the modules named by prefixes in a leafref `path` (always: the target must exist as data);
 * - with `-i` (LY_CTX_REF_IMPLEMENTED), the modules named by prefixed node names in `when` and
 *   `must` expressions (not by prefixes inside string literals: `'ianaift:ethernetCsmacd'` leaves
 *   iana-if-type import-only, as `yanglint -i -l` shows);
 * - the module defining an identity that a `default` names.
 *
 * The last rule is where Rosetta departs from libyang on purpose. Without -i, libyang refuses such
 * a default ("identity found in non-implemented module"), which fails 51 corpus modules (most of
 * OpenConfig) in its default mode although RFC 7950 only asks that the identity be derived from
 * the type's bases (§9.10). Refusing them helps nobody; accepting the identity while its module
 * stays import-only would give the server a default value it refuses as input (identity values
 * must come from implemented modules, see types/codecs.ts). So Rosetta implements the defining
 * module in both modes, exactly what libyang does under -i, and says so in a warning when -i was
 * not asked for. Such a module's features stay disabled, as libyang leaves them.
 *
 * Scanning is incremental: each call looks only at nodes created since the previous one.
 */
import type { SchemaNode, YangType } from '../schema';
import type { CompileState, ModuleRecord, SourceUnit } from './model';
import type { NodeCompiler } from './nodes';

/** A prefixed name outside a string literal; `::` (axes) is not a prefix separator. */
const PREFIXED_NAME = /(?<![\w.:-])([A-Za-z_][\w.-]*):(?!:)[A-Za-z_*]/g;
const STRING_LITERAL = /'[^']*'|"[^"]*"/g;

/** Finds modules to implement in what the node compiler has produced so far. */
export class ReferenceScan {
  private leafrefsSeen = 0;
  private xpathsSeen = 0;
  private defaultsSeen = 0;

  constructor(
    private readonly nodes: NodeCompiler,
    private readonly state: CompileState,
    private readonly implement: (record: ModuleRecord, reason?: 'full' | 'identity') => void,
    private readonly implementImports: boolean,
    /** Why a module is implemented so far, if it is. */
    private readonly implementedHow: (record: ModuleRecord) => 'full' | 'identity' | undefined,
  ) {}

  /** Implements what the nodes created since the last call reference. */
  scan(): void {
    const { nodes } = this;
    for (; this.leafrefsSeen < nodes.leafrefNodes.length; this.leafrefsSeen++) this.leafrefTargets(nodes.leafrefNodes[this.leafrefsSeen]!);
    if (this.implementImports) {
      for (; this.xpathsSeen < nodes.xpathNodes.length; this.xpathsSeen++) this.xpathTargets(nodes.xpathNodes[this.xpathsSeen]!);
    }
    for (; this.defaultsSeen < nodes.defaultNodes.length; this.defaultsSeen++)
      this.defaultIdentities(nodes.defaultNodes[this.defaultsSeen]!);
  }

  private leafrefTargets(node: SchemaNode): void {
    const visit = (t: YangType, depth: number): void => {
      if (t.leafref)
        this.implementPrefixes(t.leafref.path.source, t.leafref.path.contextModule.name, t.leafref.path.contextModule.revision);
      if (depth < 32) for (const u of t.union ?? []) visit(u, depth + 1);
    };
    const type = (node as { type?: YangType }).type;
    if (type) visit(type, 0);
  }

  private xpathTargets(node: SchemaNode): void {
    for (const w of node.when) this.implementPrefixes(w.source.replace(STRING_LITERAL, ''), w.contextModule.name, w.contextModule.revision);
    for (const m of node.musts)
      this.implementPrefixes(m.xpath.source.replace(STRING_LITERAL, ''), m.xpath.contextModule.name, m.xpath.contextModule.revision);
  }

  /** Implements every module whose prefix (as declared in module `from`) appears in `text`. */
  private implementPrefixes(text: string, from: string, revision: string | undefined): void {
    const record = this.state.records.get(`${from}@${revision ?? ''}`);
    if (!record) return;
    for (const m of text.matchAll(PREFIXED_NAME)) {
      const target = prefixRecord(record, m[1]!);
      if (target && !target.dataCompiled) this.implement(target);
    }
  }

  private defaultIdentities(node: SchemaNode): void {
    const type = (node as { type?: YangType }).type;
    if (!type || !mentionsIdentityref(type, 0)) return;
    for (const origin of this.nodes.defaultsOf(node)) {
      const text = origin.value.trim();
      const colon = text.indexOf(':');
      const record = colon < 0 ? origin.unit.record : origin.unit.prefixes.get(text.slice(0, colon));
      const name = colon < 0 ? text : text.slice(colon + 1);
      if (!record?.module.identities.has(name) || this.implementedHow(record) === 'full') continue;
      // A later pass knows the module is implemented from the start; the warning still applies.
      if (!this.implementImports) {
        this.state.sink.warn(
          `Default "${text}" names an identity of import-only module "${record.name}", which is therefore implemented (libyang refuses this without -i).`,
          origin.position,
          origin.unit.record.name,
        );
      }
      if (!record.dataCompiled) this.implement(record, 'identity');
    }
  }
}

/** The module a prefix names in any text of `record` (its own prefix included). */
function prefixRecord(record: ModuleRecord, prefix: string): ModuleRecord | undefined {
  for (const unit of record.units as SourceUnit[]) {
    const r = unit.prefixes.get(prefix);
    if (r) return r;
  }
  return undefined;
}

function mentionsIdentityref(type: YangType, depth: number): boolean {
  if (type.builtin === 'identityref') return true;
  return depth < 32 && (type.union?.some((u) => mentionsIdentityref(u, depth + 1)) ?? false);
}
