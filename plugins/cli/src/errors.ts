/**
 * The CLI southbound's errors, all the SDK's one fault type, their statuses and tags from its named
 * device faults, so the mount layer takes them as they are. A class is kept where the session code or
 * a caller needs to tell the failure apart (reconnect, reset, what a rollback did):
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
 * - cliRequestError: a device RPC's input is unusable (400).
 * A write the translation units cannot say in commands is the SDK's TranslationError (400 at the node's
 * path), and a wrong install-node `cli` container the SDK's NodeSettingsError (400).
 * No message ever contains the password or the enable secret.
 */
import {
  commandRefused,
  deviceTimedOut,
  deviceUnreachable,
  FaultError,
  noDeviceModels,
  unusableRequest,
  type UndoReport,
} from '@rosetta/sdk';

export type ConnectionFailure = 'unreachable' | 'authentication' | 'host-key' | 'login' | 'closed';

export class CliNoModelsError extends FaultError {
  constructor(message: string) {
    super(...noDeviceModels(message));
    this.name = 'CliNoModelsError';
  }
}

export class CliConnectionError extends FaultError {
  constructor(
    readonly failure: ConnectionFailure,
    message: string,
  ) {
    super(...deviceUnreachable(message));
    this.name = 'CliConnectionError';
  }
}

export class CliDeviceUnusableError extends FaultError {
  constructor(
    readonly command: string,
    readonly deviceMessage: string,
  ) {
    super(...commandRefused(command, deviceMessage, 'southbound_no_connection'));
    this.name = 'CliDeviceUnusableError';
    this.message = `the device is not usable: it answered ${JSON.stringify(command.trim())} with ${JSON.stringify(deviceMessage)} (the session is reset and reconnected)`;
  }
}

export class CliTimeoutError extends FaultError {
  constructor(
    readonly command: string,
    readonly timeoutMs: number,
    readonly partialOutput: string,
  ) {
    super(...deviceTimedOut(`no prompt after ${JSON.stringify(command)} within ${timeoutMs} ms (the session is reset)`));
    this.name = 'CliTimeoutError';
  }
}

/** What the rollback of a failed write did: the SDK's undo report, which the core reads through this plugin's descriptor. */
export type RollbackReport = UndoReport;

export class CliCommandError extends FaultError {
  constructor(
    readonly command: string,
    readonly deviceMessage: string,
    readonly rollback: RollbackReport,
  ) {
    super(...commandRefused(command, deviceMessage));
    this.name = 'CliCommandError';
    this.message = `the device refused ${JSON.stringify(command.trim())}: ${deviceMessage}; ${describeRollback(rollback)}`;
  }
}

/** 400 `invalid-value`: a device RPC's input is unusable. */
export function cliRequestError(message: string): FaultError {
  return new FaultError(...unusableRequest(message));
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
