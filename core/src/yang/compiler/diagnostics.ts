/**
 * Collects the errors and warnings met while compiling a schema context. Every fault carries the
 * file, line and column of the statement at fault and the module it belongs to, so an operator can
 * find it; compilation keeps going past errors and the failing modules are reported per module.
 */
import type { SourcePosition, YangDiagnostic } from '../statement';

/** Accumulates diagnostics and remembers which modules had errors. */
export class DiagnosticSink {
  readonly list: YangDiagnostic[] = [];
  private readonly failed = new Set<string>();

  /** Records an error against `module` (the module name) at `position`. */
  error(message: string, position: SourcePosition, module: string | undefined): void {
    this.list.push(module === undefined ? { severity: 'error', message, position } : { severity: 'error', message, position, module });
    if (module !== undefined) this.failed.add(module);
  }

  /** Records a warning: something yanglint accepts but an author should know about. */
  warn(message: string, position: SourcePosition, module: string | undefined): void {
    this.list.push(module === undefined ? { severity: 'warning', message, position } : { severity: 'warning', message, position, module });
  }

  /** Keeps diagnostics from an earlier stage (parsing) as they are. */
  add(d: YangDiagnostic): void {
    this.list.push(d);
    if (d.severity === 'error' && d.module !== undefined) this.failed.add(d.module);
  }

  /** Whether any error was reported against the module. */
  hasErrors(module: string): boolean {
    return this.failed.has(module);
  }
}
