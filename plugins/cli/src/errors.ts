/**
 * The CLI southbound's errors, each with the RESTCONF status and error-tag the mount layer should answer
 * with (`status`, `tag`), so it need not parse messages:
 * - CliNoModelsError: no translation unit serves the device (unknown device-type, a version no unit
 *   covers), for a write or a dry-run (404 `data-missing`). The node stays installed and connected; its
 *   mount point has no translated models, so reads there answer an empty tree.
 * - CliConnectionError: the device cannot be reached, refused the login, or the session broke (502,
 *   `southbound_no_connection` in docs/restconf-api.md#errors).
 * - CliDeviceUnusableError: the session works but the device says it cannot serve commands (FRR's vtysh
 *   without its daemons), by the serving units' unusable patterns (502, `southbound_no_connection`): its
 *   output is not the device's data, and a write would not be applied.
 * - CliTimeoutError: the device did not finish a command within `command-timeout` (504).
 * - CliCommandError: the device printed an error for a command of a write; names the command, the
 *   device's message and what the rollback sent (502: the device refused it; the request itself was valid).
 * - CliRequestError: a device RPC's input is unusable (400).
 * - CliUntranslatableError: a translation unit cannot say the requested data in the device's commands
 *   (a value its syntax has no form for): 400 `invalid-value` at the node's path, before anything is sent.
 * A wrong install-node `cli` container is the SDK's NodeSettingsError (400).
 * No message ever contains the password or the enable secret.
 */
import type { UndoReport } from '@rosetta/sdk';

export type ConnectionFailure = 'unreachable' | 'authentication' | 'host-key' | 'login' | 'closed';

export class CliNoModelsError extends Error {
  readonly status = 404;
  readonly tag = 'data-missing';
  constructor(message: string) {
    super(message);
    this.name = 'CliNoModelsError';
  }
}

export class CliConnectionError extends Error {
  readonly status = 502;
  readonly tag = 'southbound_no_connection';
  constructor(
    readonly failure: ConnectionFailure,
    message: string,
  ) {
    super(message);
    this.name = 'CliConnectionError';
  }
}

export class CliDeviceUnusableError extends Error {
  readonly status = 502;
  readonly tag = 'southbound_no_connection';
  constructor(
    readonly command: string,
    readonly deviceMessage: string,
  ) {
    super(
      `the device is not usable: it answered ${JSON.stringify(command.trim())} with ${JSON.stringify(deviceMessage)} (the session is reset and reconnected)`,
    );
    this.name = 'CliDeviceUnusableError';
  }
}

export class CliTimeoutError extends Error {
  readonly status = 504;
  readonly tag = 'operation-failed';
  constructor(
    readonly command: string,
    readonly timeoutMs: number,
    readonly partialOutput: string,
  ) {
    super(`no prompt after ${JSON.stringify(command)} within ${timeoutMs} ms (the session is reset)`);
    this.name = 'CliTimeoutError';
  }
}

/** What the rollback of a failed write did: the SDK's undo report, which the core reads through this plugin's descriptor. */
export type RollbackReport = UndoReport;

export class CliCommandError extends Error {
  readonly status = 502;
  readonly tag = 'operation-failed';
  constructor(
    readonly command: string,
    readonly deviceMessage: string,
    readonly rollback: RollbackReport,
  ) {
    super(`the device refused ${JSON.stringify(command.trim())}: ${deviceMessage}; ${describeRollback(rollback)}`);
    this.name = 'CliCommandError';
  }
}

export class CliRequestError extends Error {
  readonly status = 400;
  readonly tag = 'invalid-value';
  constructor(message: string) {
    super(message);
    this.name = 'CliRequestError';
  }
}

export class CliUntranslatableError extends Error {
  readonly status = 400;
  readonly tag = 'invalid-value';
  /** The fault at its path, in the shape the mount layer reads (see core's mount/errors.ts). */
  readonly faults: ReadonlyArray<{ readonly tag: string; readonly path: string; readonly message: string }>;
  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`);
    this.name = 'CliUntranslatableError';
    this.faults = [{ tag: this.tag, path, message: reason }];
  }
}

function describeRollback(r: RollbackReport): string {
  const parts = [r.sent.length === 0 ? 'nothing to roll back' : `rolled back with ${r.sent.length} command(s)`];
  if (r.failed.length > 0)
    parts.push(
      `${r.failed.length} undo command(s) failed (${r.failed.map((f) => `${JSON.stringify(f.command.trim())}: ${f.message}`).join('; ')})`,
    );
  if (r.incomplete) parts.push(`rollback incomplete: ${r.incomplete}`);
  return parts.join(', ');
}
