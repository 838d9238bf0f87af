/**
 * Where extension statements with a defined meaning may stand, checked on every loaded text (libyang's
 * extension plugins check this while parsing, so an import-only module fails too, even when the
 * statement sits in an unused grouping):
 * - RFC 8528 §3.1: `yangmnt:mount-point` "MAY be present as a substatement of 'container' and 'list'
 *   and MUST NOT be present elsewhere" (ietf-connectionless-oam puts one on an anydata).
 * - RFC 8791: `sx:structure` and `sx:augment-structure` are "only valid as a top-level statement".
 * - RFC 8040: `rc:yang-data` "is ignored unless it appears as a top-level statement" (a warning).
 */
import type { Statement } from '../statement';
import type { CompileState, SourceUnit } from './model';
import { structureExtension } from './structures';

const SCHEMA_MOUNT = 'ietf-yang-schema-mount';

/** Reports misplaced extension statements in one module or submodule text; linear in its size. */
export function checkExtensionPlacement(unit: SourceUnit, state: CompileState): void {
  const module = unit.record.name;
  const stack: Array<{ stmt: Statement; parent: Statement; top: boolean }> = [];
  for (const s of unit.statement.substatements) stack.push({ stmt: s, parent: unit.statement, top: true });
  while (stack.length > 0) {
    const { stmt, parent, top } = stack.pop()!;
    if (stmt.prefix !== undefined) {
      const written = `${stmt.prefix}:${stmt.keyword}`;
      const where = parent.prefix === undefined ? parent.keyword : `${parent.prefix}:${parent.keyword}`;
      const kind = structureExtension(stmt, unit);
      if (kind === 'yang-data' && !top) {
        state.sink.warn(
          `Extension ${written} is ignored since it appears as a non top-level statement in "${where}" statement.`,
          stmt.position,
          module,
        );
      } else if (kind !== undefined && kind !== 'yang-data' && !top) {
        state.sink.error(
          `Extension ${written} must not be used as a non top-level statement in "${where}" statement.`,
          stmt.position,
          module,
        );
      } else if (
        stmt.keyword === 'mount-point' &&
        unit.prefixes.get(stmt.prefix)?.name === SCHEMA_MOUNT &&
        (parent.prefix !== undefined || (parent.keyword !== 'container' && parent.keyword !== 'list'))
      ) {
        state.sink.error(
          `Extension "${written}" is allowed only in a container or list statement (RFC 8528 §3.1), not in "${where}" statement "${parent.arg ?? ''}".`,
          stmt.position,
          module,
        );
      }
    }
    for (const s of stmt.substatements) stack.push({ stmt: s, parent: stmt, top: false });
  }
}
