/**
 * require-instance checks (RFC 7950 §9.9.3, §9.13.2): a leafref value must exist at its path, an
 * instance-identifier must name an existing node. A leafref whose path is absolute and has no
 * predicates selects every instance of its target leaf, so it is checked against a set of all the
 * target's values gathered in one walk of the tree; other paths are evaluated (list key predicates
 * go through the evaluator's key index).
 */
import type { LeafListSchema, LeafSchema, SchemaContext, SchemaNode, YangType } from '../yang/schema';
import {
  XNode,
  type XPathSession,
  compileXPath,
  evaluateXPath,
  leafrefOf,
  resolveInstanceIdentifier,
  resolveSchemaPath,
  stringValue,
  valueString,
} from '../yang/xpath';
import type { DataNode, DataRoot, LeafValue } from './tree';

type Leafref = NonNullable<YangType['leafref']>;

/** What one run of validation shares for reference checks. */
export class ReferenceChecker {
  /** Target schema node -> every value it has in the tree (filled on first need, one walk). */
  private targetValues: Map<SchemaNode, Set<string>> | undefined;
  private readonly targetCache = new Map<Leafref, SchemaNode | null>();

  constructor(
    private readonly root: DataRoot,
    private readonly ctx: SchemaContext,
    private readonly session: XPathSession,
  ) {}

  /**
   * Checks one leafref value; returns a reason when the value has no instance (or the path could not
   * be evaluated), undefined when it is fine.
   */
  checkLeafref(schema: LeafSchema | LeafListSchema, value: LeafValue, at: XNode): string | undefined {
    const ref = leafrefOf(schema.type);
    if (!ref?.requireInstance || schema.type.builtin === 'union') return undefined;
    const text = valueString(value);
    const target = this.simpleTarget(ref, schema);
    if (target) {
      return this.valuesOf(target).has(text) ? undefined : `leafref value "${text}" has no instance at ${ref.path.source}`;
    }
    const r = evaluateXPath(ref.path, at, this.ctx, this.session);
    if ('error' in r) return r.error;
    if (!Array.isArray(r.value)) return `leafref path "${ref.path.source}" does not select nodes`;
    return r.value.some((n) => stringValue(n) === text) ? undefined : `leafref value "${text}" has no instance at ${ref.path.source}`;
  }

  /** Checks one instance-identifier value (require-instance true by default). */
  checkInstanceIdentifier(schema: LeafSchema | LeafListSchema, value: LeafValue): string | undefined {
    if (schema.type.builtin !== 'instance-identifier' || schema.type.requireInstance === false) return undefined;
    const text = valueString(value);
    const r = resolveInstanceIdentifier(text, XNode.root(this.root), { ctx: this.ctx, session: this.session });
    if ('error' in r) return r.error;
    return r.nodes.length ? undefined : `instance-identifier "${text}" names no existing node`;
  }

  /** The target of an absolute path without predicates or deref(), else undefined. */
  private simpleTarget(ref: Leafref, schema: SchemaNode): SchemaNode | undefined {
    let cached = this.targetCache.get(ref);
    if (cached === undefined) {
      cached = null;
      const c = compileXPath(ref.path);
      if (
        'expr' in c &&
        c.expr.kind === 'path' &&
        c.expr.start === 'root' &&
        c.expr.steps.every((s) => s.predicates.length === 0 && s.axis === 'child')
      ) {
        const resolved =
          ref.target ??
          (() => {
            const r = resolveSchemaPath(ref.path, schema, this.ctx);
            return 'node' in r ? r.node : undefined;
          })();
        if (resolved) cached = resolved;
      }
      this.targetCache.set(ref, cached);
    }
    return cached ?? undefined;
  }

  private valuesOf(target: SchemaNode): Set<string> {
    if (!this.targetValues) this.targetValues = this.collectTargets();
    return this.targetValues.get(target) ?? new Set();
  }

  /** One walk of the tree gathering the values of every leaf and leaf-list. */
  private collectTargets(): Map<SchemaNode, Set<string>> {
    const out = new Map<SchemaNode, Set<string>>();
    const add = (schema: SchemaNode, v: LeafValue) => {
      let set = out.get(schema);
      if (!set) out.set(schema, (set = new Set()));
      set.add(valueString(v));
    };
    const stack: DataNode[][] = [this.root.children];
    while (stack.length) {
      for (const n of stack.pop()!) {
        switch (n.kind) {
          case 'leaf':
            add(n.schema, n.value);
            break;
          case 'leaf-list':
            for (const v of n.values) add(n.schema, v);
            break;
          case 'list':
            for (const e of n.entries) stack.push(e.children);
            break;
          case 'container':
          case 'entry':
            stack.push(n.children);
            break;
          default:
            break;
        }
      }
    }
    return out;
  }
}
