/**
 * The mount layer's public face (docs/architecture.md#core-folders, docs/devices.md): installed devices, their topologies and status,
 * and reads, writes and operations under `yang-ext:mount`. restconf/ calls it; it calls the datastores,
 * the data layer and the southbound plugins through hooks, and knows nothing about HTTP.
 */
export { BulkNodes, type BulkOptions } from './bulk';
export { MountManager, type ConnectionStatus, type MountedDevice, type MountedNode, type MountOptions } from './manager';
export {
  readDevice,
  writeDevice,
  invokeDevice,
  deviceRoot,
  noModelsReason,
  type DeviceReadRequest,
  type DeviceWriteRequest,
  type DeviceWriteOutcome,
} from './device-data';
export { MountError, deviceFault, nodeMissing, type MountErrorEntry } from './errors';
export { timedCall, type DeviceCallObserver, type DeviceOperation } from './device-calls';
export { deviceCodec, findOperation } from './codec';
export { DeviceSchemaCache, type DeviceSchema, type SchemaSourceText } from './device-schema';
export { SecretBox } from '../datastore/secrets';
export { UNIFIED, type SouthboundKind } from './topology';
export { Southbounds, southboundsOf } from './southbounds';
