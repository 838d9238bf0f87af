/**
 * @rosetta/sdk/testing: what a plugin's tests and this repository's test and bench suites use, kept out of
 * the main entry so a plugin's runtime never loads it. It holds the transcript harness (a unit run against
 * recorded device output), the CLI and NETCONF device simulators and a fleet of both (the library side of
 * rosetta-sim), the raw NETCONF client tests observe a device with, and the shared real-FRR peer lease, which resolves this repository's own test/peers
 * scripts and so is CI machinery, not something a plugin ships with.
 */
export {
  parseSessionLog,
  transcriptSession,
  TranscriptMissError,
  unitHarness,
  type Transcript,
  type UnitHarness,
} from './harness';
export {
  cliDevice,
  simulatorHostKey,
  simulatorHostKeyFingerprint,
  startSimulator,
  type CliDeviceBehaviour,
  type DeviceDefinition,
  type DeviceView,
  type SimulatedDevice,
  type SimulatorOptions,
} from './simulator';
export { FRR_MODES, FRR_SINGLE_VALUE, type ConfigLine, type ModeRule } from './running-config';
export { frrDevice, type FrrDeviceOptions } from './frr-device';
export {
  acquireFrrPeer,
  frrPeerLogin,
  frrPeerUnavailable,
  type FrrDaemon,
  type FrrPeerLease,
  type FrrPeerLogin,
  type FrrPeerOptions,
} from './frr-peer';
export {
  netconfDevice,
  startNetconfSimulator,
  type NetconfDeviceBehaviour,
  type NetconfDeviceDefinition,
  type OperationCall,
  type OperationHandler,
  type SimulatedNetconfDevice,
} from './netconf-simulator';
export {
  startFleet,
  type Fleet,
  type FleetDevice,
  type FleetOptions,
  type FleetStats,
} from './fleet';
export {
  fleetCliConfig,
  fleetDeviceJson,
  fleetDeviceXml,
  fleetInterfaceCount,
  FLEET_MODULE,
  FLEET_NAMESPACE,
  FLEET_YANG,
} from './fleet-config';
export { openRawNetconf, type RawNetconfOptions, type RawNetconfSession } from './netconf-client';
export { EditFault, type StoredNode } from './netconf-datastore';
export { readModel, ModelSyntaxError, type SimulatorModel } from './netconf-model';
export { pathValue } from './path-value';
export { cpuStopwatch } from './cpu-time';
