/**
 * The fault type every client-visible error is made of, its status catalogue and the southbound's named
 * faults. The lowest core folder: it imports nothing.
 */
export { FaultError, typeOfFault, type ErrorType, type Fault, type FaultInfo, type FaultOptions } from './fault';
export { NO_CONNECTION, STATUS_BY_TAG, statusOfTag, type ErrorTag } from './status';
export { Elsewhere } from './elsewhere';
export {
  commandRefused,
  deviceTimedOut,
  deviceUnreachable,
  noDeviceModels,
  refusedCommand,
  unusableRequest,
  type FaultArgs,
} from './device';
