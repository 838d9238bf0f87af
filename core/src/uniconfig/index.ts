/**
 * The uniconfig layer's public face (docs/devices.md#uniconfig): per device, the intended configuration (Config) and
 * the actual one (Operational) under `topology=uniconfig/node=<id>/configuration`, transactions named
 * by the UNICONFIGTXID cookie, commit with rollback across devices, diff, dry run, sync and snapshots.
 * It sits above restconf/ and mount/: it serves RESTCONF requests with restconf's handlers and reaches
 * devices through the mount layer.
 */
export { Uniconfig, type UniconfigOptions } from './uniconfig';
export { UniconfigEngine, unknownNode } from './engine';
export { NodeStore, UNICONFIG_TOPOLOGY, TOPOLOGY_MODULE, type NodeUpdate } from './node-store';
export { TransactionRegistry, Transaction, COOKIE_NAME, transactionCookie, invalidTransaction, type NodeView } from './transactions';
export { configurationBase, configurationPath, type ConfigurationPath } from './data-route';
export { diffReport } from './diff-report';
export { pushConfiguration, dryRunConfiguration, readConfiguration } from './device-io';
export { changeEdits } from './device-edits';
export { SnapshotStore } from './snapshots';
