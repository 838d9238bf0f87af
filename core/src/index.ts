/**
 * @rosetta/core's public face. Plugins never import this (they import @rosetta/sdk); the SDK imports its
 * types and `parseJsonBody`, and the service's entry points import the rest. Each area adds its own
 * exports here.
 */
export * from './hooks';
export * as plugins from './plugins';
export type { Logger } from './logger';
export type { PluginApi, PluginDefinition, PluginLogger, SettingsProblem, SettingsResult } from './plugins/contract';
export type { JobHandle, JobKind, JobStart, JobStarter } from './jobs';
// the data tree types the hook contexts carry
export type { DataNode, DataRoot } from './data/tree';
export type { DataFault } from './data/errors';
// the one fault type every client-visible error is made of, and the southbound's named faults
export {
  FaultError,
  STATUS_BY_TAG,
  statusOfTag,
  commandRefused,
  deviceTimedOut,
  deviceUnreachable,
  noDeviceModels,
  unusableRequest,
  type ErrorTag,
  type ErrorType,
  type Fault,
  type FaultArgs,
  type FaultInfo,
  type FaultOptions,
} from './fault';
// the one parse of a client's JSON text (a member given twice refused), for plugin routes through the SDK
export { parseJsonBody, JsonBodyError } from './data/json-syntax';
// the instance path value the device hooks carry, its one renderer and the reader of its JSON text
export {
  renderInstancePath,
  parseJsonInstancePath,
  memberName,
  type InstancePathForm,
  type InstancePathResult,
  type PathSyntax,
} from './yang/instance-path';
export * as yang from './yang';
// the one XML tokenizer and the element reader over it, and the one escaping, for NETCONF through the SDK
export { MAX_XML_DEPTH, XmlSyntaxError, XmlToken, XmlTokenizer } from './data/xml-tokenizer';
export { parseXmlElement, child, childrenNamed, standaloneText, innerText, type XmlElement } from './data/xml-element';
export { escapeXmlText, escapeXmlAttribute } from './data/xml-escape';
// a temporary file name unique to this process and call, for a plugin that writes beside its own files as the datastores do
export { temporarySuffix } from './datastore/data-directory';
// random spread of reconnect waits and keepalives, the one policy the core and southbounds share
export { jitter } from './mount/connect-pacing';
