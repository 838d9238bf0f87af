/**
 * What the NETCONF southbound tells the core about its devices (the SDK's `defineSouthbound`): they are
 * installed with install-node's `netconf` container and live in topology `topology-netconf`, their
 * settings and status leaves are module netconf-node-topology's (yang/topology), their models are the
 * modules each device hands over, and a write is previewed by `rosetta-netconf:dry-run-edit-config`.
 * A refused write is undone by the device itself: the candidate is discarded, or the device rolls back on
 * error; a device with neither keeps the edits before the failing one.
 */
import { CAP_CANDIDATE, defineSouthbound, type JsonObject, type WriteRollback } from '@rosetta/sdk';
import { CAP_ROLLBACK_ON_ERROR, DRY_RUN_EDIT } from './operations';

/** The module whose leaves hold a NETCONF node's settings and status. */
const MODULE = 'netconf-node-topology';

/** What a device that refused an edit holds, by the capabilities it advertised. */
function deviceRollback(capabilities: readonly string[]): WriteRollback {
  if (capabilities.some((c) => c.startsWith(CAP_CANDIDATE))) return { status: 'complete', detail: 'the candidate was discarded' };
  if (capabilities.some((c) => c.startsWith(CAP_ROLLBACK_ON_ERROR)))
    return { status: 'complete', detail: 'the device rolled the edit back (rollback-on-error)' };
  return {
    status: 'fail',
    detail: 'the device has neither :candidate nor :rollback-on-error, so running may keep the edits before the failing one',
  };
}

export const NETCONF_SOUTHBOUND = defineSouthbound({
  protocol: 'netconf',
  installContainer: 'netconf',
  topology: 'topology-netconf',
  settingsModule: MODULE,
  models: 'device',
  dryRun: { operation: DRY_RUN_EDIT, input: 'edits', output: 'rpcs' },
  renderStatus(node) {
    const entry: JsonObject = {
      [`${MODULE}:connection-status`]: node.status,
      [`${MODULE}:connected-message`]: node.message,
    };
    const hostKey = node.connection?.hostKey;
    if (hostKey !== undefined) entry[`${MODULE}:host-key-fingerprint`] = hostKey;
    const caps = [...new Set(node.connection?.capabilities ?? [])];
    if (caps.length > 0) entry[`${MODULE}:available-capabilities`] = { 'available-capability': caps.map((c) => ({ capability: c })) };
    const unavailable = new Map<string, string>();
    for (const u of node.connection?.unavailableSchemas ?? []) unavailable.set(`${u.name}${u.revision ? `@${u.revision}` : ''}`, u.reason);
    for (const f of node.failedModules) unavailable.set(f.module, `does not compile: ${f.reason}`);
    if (unavailable.size > 0) {
      entry[`${MODULE}:unavailable-capabilities`] = {
        'unavailable-capability': [...unavailable].map(([capability, reason]) => ({ capability, 'failure-reason': reason })),
      };
    }
    return entry;
  },
  rollbackOf: (_failure, connection) => deviceRollback(connection.capabilities ?? []),
});
