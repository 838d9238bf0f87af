/**
 * What the CLI southbound tells the core about its devices (the SDK's `defineSouthbound`): they are
 * installed with install-node's `cli` container and live in topology `cli`, their settings and status
 * leaves are module cli-topology's (yang/topology), their models are the translation units serving their
 * device-type and version, and a write is previewed by `cli-unit-generic:dry-run`. A refused write is
 * undone step by step by this plugin (operations.ts): its CliCommandError carries the undo report.
 */
import { defineSouthbound, undoReportRollback, UNKNOWN_ROLLBACK } from '@rosetta/sdk';
import { CliCommandError } from './errors';
import { DRY_RUN } from './operations';

/** The module whose leaves hold a CLI node's settings and status. */
const MODULE = 'cli-topology';

export const CLI_SOUTHBOUND = defineSouthbound({
  protocol: 'cli',
  installContainer: 'cli',
  topology: 'cli',
  settingsModule: MODULE,
  models: 'translation-units',
  dryRun: { operation: DRY_RUN, input: 'documents', output: 'commands' },
  renderStatus(node) {
    const hostKey = node.connection?.hostKey;
    return {
      [`${MODULE}:connection-status`]: node.status,
      [`${MODULE}:connected-message`]: node.message,
      ...(hostKey !== undefined ? { [`${MODULE}:host-key-fingerprint`]: hostKey } : {}),
    };
  },
  rollbackOf: (failure) => (failure instanceof CliCommandError ? undoReportRollback(failure.rollback) : UNKNOWN_ROLLBACK),
});
