/**
 * Default values checked against their types (RFC 7950 §7.6.1, §7.7.2, §7.3.4), once the schema
 * is final: leafref targets are resolved, deviations have replaced types, and the modules whose
 * identities defaults name are implemented (see references.ts). Like libyang, a value is checked
 * where it takes effect (a leaf or leaf-list in an implemented tree, so an unused typedef or
 * grouping is not checked) and the fault is reported at the `default` statement that wrote it:
 * the leaf's, a refine's, a deviation's or a typedef's. A grouping used many times reports its
 * faulty default once.
 */
import type { LeafSchema, SchemaContext, SchemaNode, YangType } from '../schema';
import { valueFromText } from '../types/values';
import { attached } from './finalize';
import type { CompileState } from './model';
import type { NodeCompiler } from './nodes';

/** Reports every default value that its node's type refuses, and mandatory leaves with defaults. */
export function checkDefaults(nodes: NodeCompiler, context: SchemaContext, state: CompileState): void {
  const reported = new Set<string>();
  const checked = new Set<SchemaNode>();
  for (const node of nodes.defaultNodes) {
    if (checked.has(node) || (node.kind !== 'leaf' && node.kind !== 'leaf-list') || !attached(node, nodes.structureOfTop)) continue;
    checked.add(node);
    const type = (node as LeafSchema).type;
    for (const origin of nodes.defaultsOf(node)) {
      let message: string | undefined;
      if (node.kind === 'leaf' && node.mandatory && origin !== nodes.types.typedefDefaultOrigin(type, origin.value)) {
        message = 'Invalid mandatory leaf with a default value.';
      } else if (!unresolvedLeafref(type)) {
        const unit = origin.unit;
        // Prefixes in a default are those of the text it is written in; no prefix means that module.
        const resolvePrefix = (prefix: string): string | undefined => (prefix === '' ? unit.record.name : unit.prefixes.get(prefix)?.name);
        const r = valueFromText(type, origin.value, context, resolvePrefix, node.module.name);
        if (!r.ok) message = `Invalid default - value "${origin.value}" does not fit the type (${r.message}).`;
      }
      if (message === undefined) continue;
      const full = `${message} (Schema location "${schemaPath(node)}".)`;
      const key = `${origin.position.file}:${origin.position.line}:${origin.position.column}:${message}`;
      if (reported.has(key)) continue;
      reported.add(key);
      state.sink.error(full, origin.position, origin.unit.record.name);
    }
  }
}

/** A leafref whose target did not resolve has been reported already; its values cannot be checked. */
function unresolvedLeafref(type: YangType): boolean {
  if (type.builtin === 'leafref') return type.leafref?.target === undefined;
  return type.union?.some(unresolvedLeafref) ?? false;
}

/** `/module:top/child/other-module:child`, as libyang names a schema location (no choice/case). */
export function schemaPath(node: SchemaNode): string {
  const steps: string[] = [];
  for (let n: SchemaNode | undefined = node; n; n = n.parent) {
    if (n.kind === 'choice' || n.kind === 'case') continue;
    const parentModule = dataParentModule(n);
    steps.push(parentModule === n.module.name ? n.name : `${n.module.name}:${n.name}`);
  }
  return `/${steps.reverse().join('/')}`;
}

function dataParentModule(node: SchemaNode): string | undefined {
  let p = node.parent;
  while (p && (p.kind === 'choice' || p.kind === 'case')) p = p.parent;
  return p?.module.name;
}
