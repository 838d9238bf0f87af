/**
 * @rosetta/sdk: everything a plugin author imports. Plugins import this package only, never the core's
 * internals; the hook context types come from the core's public types and are re-exported here. Test
 * helpers (transcript harness, simulators, the FRR peer lease) live in `@rosetta/sdk/testing`, so a
 * plugin's runtime loads none of them.
 */
export type {
  CommitContext,
  ContentFilter,
  DatastoreName,
  DeviceConnectContext,
  DeviceEvents,
  ConnectPacing,
  DeviceConnection,
  DeviceDataCodec,
  DeviceDataReader,
  DeviceEdit,
  DeviceInfo,
  DeviceInvokeContext,
  DeviceReadContext,
  DeviceWriteContext,
  DeviceWriteResult,
  JsonObject,
  JsonValue,
  OperationResult,
  ReadContext,
  AuthenticateContext,
  AuthenticateVerdict,
  RosettaHooks,
  RouteRegistrar,
  RpcContext,
  SchemaLoadedContext,
  SchemaScope,
  ServerCreateContext,
  ServerRoutesContext,
  ServingUnit,
  StateReadContext,
  UriParseContext,
  WriteContext,
  PluginApi,
  PluginDefinition,
  Logger,
  PluginLogger,
  JobHandle,
  JobKind,
  JobStart,
  JobStarter,
  SettingsProblem,
  SettingsResult,
  DataNode,
  DataRoot,
  DataFault,
  NodeConnectionStatus,
  SouthboundDescriptor,
  SouthboundDryRun,
  SouthboundNodeStatus,
  WriteRollback,
} from '@rosetta/core';

// The one fault type: every error a plugin raises for a client is a FaultError, its status from the core's
// catalogue; a southbound's device faults are the named ones (unreachable, timed out, a refused command, ...).
export {
  FaultError,
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
} from '@rosetta/core';
// A route reading a client's JSON body parses it with the core's own parse: a member given twice is refused.
export { parseJsonBody, JsonBodyError } from '@rosetta/core';
// A file or folder written aside and renamed into place takes its temporary name from the core's one helper,
// unique per process and call, so concurrent writers of the same target never share one.
export { temporarySuffix } from '@rosetta/core';
// Reconnect waits and keepalives spread at random (first attempts over a window, back-off over its upper
// half) as the core spreads its own, so devices that fail together do not retry together.
export { jitter } from '@rosetta/core';
export { definePlugin, defineSettings, type PluginSpec, type SettingField, type SettingsOf } from './plugin';
export { defineSouthbound, registerSouthbound, undoReportRollback, UNKNOWN_ROLLBACK, type UndoReport } from './southbound';
export {
  NodeSettingsError,
  settingFlag,
  settingInteger,
  settingSecret,
  settingText,
  unknownSettings,
  MAX_SETTING_TEXT,
} from './node-settings';
export {
  HostKeyCheck,
  HostKeyTrust,
  hostKeyFingerprint,
  settingHostKey,
  settingHostKeyVerification,
  HOST_KEY_FINGERPRINT,
  type HostKeyVerification,
} from './ssh-host-key';
export {
  asTranslationUnit,
  defineTranslationUnit,
  isListHandler,
  type ContainerHandler,
  type Handler,
  type HandlerContext,
  type Keys,
  type ListHandler,
  type Registration,
  type TranslationUnit,
  type TranslationUnitSpec,
  type Writer,
  type WriterContext,
} from './translation/unit';
export { readUnits, TranslationError, type ReadOptions } from './translation/read';
export { planWrite, type WritePlan, type WriteStep } from './translation/write';
export type { RequestMemo } from './translation/request-memo';
export {
  parseInstancePath,
  parseSchemaPath,
  formatInstancePath,
  memberSegments,
  toInstancePath,
  type InstanceSegment,
  type SchemaPath,
} from './translation/path';
// the instance path value the core hands to southbounds, and its one renderer and reader (the core owns them)
export {
  renderInstancePath,
  parseJsonInstancePath,
  memberName,
  type InstancePath,
  type InstancePathSegment,
  type InstancePathForm,
  type InstancePathResult,
} from '@rosetta/core';
export { cachingSession, SHOW_COMMAND, type CliSession } from './cli/session';
export {
  CliOutputError,
  cliError,
  field,
  fields,
  lines,
  parseBlocks,
  parseJsonOutput,
  records,
  sections,
  type Block,
  type BlockOptions,
  type Section,
} from './cli/parse';
export { connectSshCli, type SshCliOptions, type SshCliSession } from './cli/ssh-session';
export {
  parseXml,
  child,
  childrenNamed,
  standaloneText,
  innerText,
  escapeText,
  escapeAttr,
  XmlSyntaxError,
  XmlToken,
  XmlTokenizer,
  MAX_XML_DEPTH,
  type XmlElement,
} from './netconf/xml';
export {
  FrameReader,
  FramingError,
  frameMessage,
  EOM_MARKER,
  BASE_1_0,
  BASE_1_1,
  DEFAULT_MAX_MESSAGE,
  type FramingMode,
} from './netconf/framing';
export {
  NETCONF_NS,
  MONITORING_NS,
  YANG_LIBRARY_NS,
  YANG_1_NS,
  NOTIFICATION_NS,
  CAP_CANDIDATE,
  CAP_WRITABLE_RUNNING,
  CAP_NOTIFICATION,
  CAP_INTERLEAVE,
  EMPTY_GET_CONFIG,
  FIRST_REPLY_NUDGE_MS,
  helloMessage,
  parseHello,
  parseRpcErrors,
  renderRpcError,
  replyMessage,
  type Hello,
  type RpcErrorInfo,
} from './netconf/messages';

// Contexts of the write-body and plugin-route hooks, and the compiled-schema types hook data carries.
export type { BodyDecodePolicy, WriteBodyContext, LocalDataAccess, ResolvedDataPath } from '@rosetta/core';
import type { yang } from '@rosetta/core';
/** A compiled schema node: the `schema` of every data node, with its `extensions` and `status`. */
export type SchemaNode = yang.SchemaNode;
/** A compiled schema (local, or one mounted device's). */
export type SchemaContext = yang.SchemaContext;
/** One use of a YANG extension on a definition (defining module, name, prefix as written, argument). */
export type ExtensionInstance = yang.ExtensionInstance;
