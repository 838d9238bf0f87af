/**
 * The NETCONF operations a mount point needs, over one session: reads (get-config on candidate when the
 * device has `:candidate`, else running; get for state), writes (edit-config on candidate + commit inside
 * lock/unlock with discard-changes on failure, or on running when there is no candidate; never
 * `<validate>` before `<commit>`: netconfd then commits nothing), RPCs, YANG 1.1 actions, and
 * create-subscription. XML in, RFC 7951 JSON out through the core's codec for the device's schema.
 */
import {
  CAP_CANDIDATE, CAP_WRITABLE_RUNNING, child, NOTIFICATION_NS, standaloneText,
  type ContentFilter, type DeviceDataCodec, type DeviceEdit, type JsonObject, type JsonValue,
} from '@rosetta/sdk';
import { NetconfRpcError, NetconfSessionError } from './errors';
import { subtreeFilter } from './filter';
import type { RpcReply } from './session';
import { actionXml, editConfigXml, rpcXml, type Namespaces } from './xml-build';

/** The part of a session the operations use (a NetconfSession; fakes in unit tests). */
export interface OperationSession {
  rpc(body: string): Promise<RpcReply>;
  has(capability: string): boolean;
}

const CAP_ROLLBACK_ON_ERROR = 'urn:ietf:params:netconf:capability:rollback-on-error:1.0';

/** The datastore holding intended configuration: candidate when offered, else running. */
export function configSource(session: OperationSession): 'candidate' | 'running' {
  return session.has(CAP_CANDIDATE) ? 'candidate' : 'running';
}

export interface ReadRequest {
  readonly path: string;
  readonly content: ContentFilter;
  readonly fields?: string;
}

/**
 * Reads under the mount point. `config` is get-config of the intended datastore; `nonconfig` and `all` are
 * get (which returns running config and state; the codec drops config nodes for `nonconfig`). Returns the
 * top-level document holding the target (`{"module:top": ...}`), `{}` when the device has nothing there.
 */
export async function readData(session: OperationSession, request: ReadRequest, ns: Namespaces, codec: DeviceDataCodec): Promise<JsonObject> {
  const filter = subtreeFilter(request.path, request.fields, ns) ?? '';
  const body = request.content === 'config'
    ? `<get-config><source><${configSource(session)}/></source>${filter}</get-config>`
    : `<get>${filter}</get>`;
  const reply = await session.rpc(body);
  const data = child(reply.root, 'data');
  if (!data || data.children.length === 0) return {};
  return codec.fromXml(standaloneText(reply.text, data), { content: request.content });
}

/** Sends an RPC and ignores its `<ok/>`; errors propagate. */
async function call(session: OperationSession, body: string): Promise<RpcReply> {
  return session.rpc(body);
}

/**
 * Applies edits as one edit-config. On candidate: lock, edit-config, commit, unlock; on any failure,
 * discard-changes and unlock, then the device's error is thrown. On running (`:writable-running`): lock,
 * edit-config (rollback-on-error when offered), unlock. Returns the XML sent, for logs.
 */
export async function writeEdits(session: OperationSession, edits: readonly DeviceEdit[], ns: Namespaces): Promise<string[]> {
  if (edits.length === 0) return [];
  const config = editConfigXml(edits, ns);
  const target = configSource(session);
  if (target === 'running' && !session.has(CAP_WRITABLE_RUNNING)) {
    throw new NetconfRpcError('edit-config', [{ type: 'protocol', tag: 'operation-not-supported', severity: 'error', message: 'the device offers neither :candidate nor :writable-running' }]);
  }
  const errorOption = session.has(CAP_ROLLBACK_ON_ERROR) ? '<error-option>rollback-on-error</error-option>' : '';
  const edit = `<edit-config><target><${target}/></target>${errorOption}${config}</edit-config>`;
  const sent = [`lock ${target}`, edit];
  await call(session, `<lock><target><${target}/></target></lock>`);
  try {
    await call(session, edit);
    if (target === 'candidate') {
      sent.push('commit');
      await call(session, '<commit/>');
    }
  } catch (e) {
    if (target === 'candidate' && !(e instanceof NetconfSessionError)) {
      await call(session, '<discard-changes/>').catch(() => undefined);
    }
    await call(session, `<unlock><target><${target}/></target></unlock>`).catch(() => undefined);
    throw e;
  }
  await call(session, `<unlock><target><${target}/></target></unlock>`).catch(() => undefined);
  sent.push(`unlock ${target}`);
  return sent;
}

/**
 * Edits equivalent to a before/after pair when the core gives no edits: each top-level member that
 * changed is replaced whole, each that disappeared is removed.
 */
export function editsFromDocuments(before: JsonObject, after: JsonObject): DeviceEdit[] {
  const edits: DeviceEdit[] = [];
  for (const [member, value] of Object.entries(after)) {
    if (JSON.stringify(before[member]) !== JSON.stringify(value)) edits.push({ operation: 'replace', path: `/${member}`, value: { [member]: value } });
  }
  for (const member of Object.keys(before)) if (!(member in after)) edits.push({ operation: 'remove', path: `/${member}` });
  return edits;
}

/** The input members, unwrapping a `{"module:input": {...}}` body. */
function inputMembers(input: JsonObject): JsonObject {
  const keys = Object.keys(input);
  if (keys.length === 1 && /(^|:)input$/.test(keys[0]!)) {
    const inner = input[keys[0]!] as JsonValue;
    if (inner && typeof inner === 'object' && !Array.isArray(inner)) return inner;
  }
  return input;
}

/**
 * Invokes an RPC (`module:rpc`) or a YANG 1.1 action (its instance-identifier, starting with `/`).
 * Resolves with the output members, or null when the reply is `<ok/>`.
 */
export async function invokeOperation(session: OperationSession, operation: string, input: JsonObject, ns: Namespaces, codec: DeviceDataCodec): Promise<JsonObject | null> {
  const members = inputMembers(input);
  const body = operation.startsWith('/') ? actionXml(operation, members, ns) : rpcXml(operation, members, ns);
  const reply = await session.rpc(body);
  const content = reply.root.children.filter((c) => c.name !== 'rpc-error');
  if (content.length === 0 || (content.length === 1 && content[0]!.name === 'ok')) return null;
  return codec.fromXml(standaloneText(reply.text, reply.root), { operation });
}

/** Opens an RFC 5277 subscription to a stream (default `NETCONF`). */
export async function createSubscription(session: OperationSession, stream = 'NETCONF'): Promise<void> {
  await session.rpc(`<create-subscription xmlns="${NOTIFICATION_NS}"><stream>${stream.replace(/[<&>]/g, '')}</stream></create-subscription>`);
}
