/**
 * XPath 1.0 for YANG: the parser (with the AST cached on each `SchemaXPath`), schema-level leafref
 * path resolution for the compiler, and data-level evaluation of `when`, `must` and leafref paths
 * over the data tree for validation.
 */
export type { Axis, BinaryOp, Expr, NameTest, NodeTest, Step, TypeTest } from './ast';
export { formatExpr } from './ast';
export { parseXPath, compileXPath, describeSyntaxError, type XPathSyntaxError } from './parser';
export { resolveSchemaPath, schemaParent, schemaPathOf, leafrefOf, type SchemaPlace } from './schema-path';
export { XNode, compareOrder, normalizeSet, stringValue, valueString } from './nodes';
export {
  evaluateXPath,
  evaluateCondition,
  evaluate,
  toBoolean,
  toNumber,
  toStringValue,
  XPathSession,
  type XValue,
  type EvalEnv,
  type Focus,
} from './evaluate';
export { resolveInstanceIdentifier } from './evaluate';
export { FUNCTION_NAMES } from './functions';
