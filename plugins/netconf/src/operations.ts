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
 * Reads under the mount point. `config` is get-config of the intended datastore (candidate when offered,
 * else running); `nonconfig` is get, with the config nodes dropped by the codec. `all` sends both at once
 * and merges them: configuration from get-config (so `all` and `config` agree on what is intended, even
 * while candidate differs from running), state from get (its copy of running configuration is dropped).
 * Returns the top-level document holding the target (`{"module:top": ...}`), `{}` when there is nothing.
 */
export async function readData(session: OperationSession, request: ReadRequest, ns: Namespaces, codec: DeviceDataCodec): Promise<JsonObject> {
  const filter = subtreeFilter(request.path, request.fields, ns) ?? '';
  const read = async (content: 'config' | 'nonconfig'): Promise<JsonObject> => {
    const body = content === 'config' ? `<get-config><source><${configSource(session)}/></source>${filter}</get-config>` : `<get>${filter}</get>`;
    const reply = await session.rpc(body);
    const data = child(reply.root, 'data');
    if (!data || data.children.length === 0) return {};
    return codec.fromXml(standaloneText(reply.text, data), { content });
  };
  if (request.content !== 'all') return read(request.content);
  const [config, state] = await Promise.all([read('config'), read('nonconfig')]);
  return mergeContent(config, state);
}

/**
 * Merges a config-only and a state-only document of the same tree (RFC 7951 JSON). Objects merge member
 * by member; list entries match when the scalar members both hold agree: a state-only entry carries only
 * its keys and state leaves, so the members it shares with a config entry are exactly the keys.
 */
export function mergeContent(config: JsonValue, state: JsonValue): JsonObject {
  return mergeValue(config, state) as JsonObject;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function mergeValue(a: JsonValue, b: JsonValue): JsonValue {
  if (isObject(a) && isObject(b)) {
    const out: JsonObject = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = k in a ? mergeValue(a[k]!, v) : v;
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b) && (a.some(isObject) || b.some(isObject))) {
    // the key names: scalar members a state entry shares with a config entry (one hash lookup per entry)
    const keys = sharedScalars(a.find(isObject), b.find(isObject));
    if (keys.length === 0) return [...a, ...b];
    const out: JsonValue[] = [...a];
    const index = new Map<string, number>();
    out.forEach((e, i) => { if (isObject(e)) index.set(signature(e, keys), i); });
    for (const entry of b) {
      const at = isObject(entry) ? index.get(signature(entry, keys)) : undefined;
      if (at !== undefined) out[at] = mergeValue(out[at]!, entry);
      else out.push(entry);
    }
    return out;
  }
  return b;
}

const scalar = (v: JsonValue | undefined) => v !== undefined && v !== null && typeof v !== 'object';

function sharedScalars(a: JsonObject | undefined, b: JsonObject | undefined): string[] {
  if (a === undefined || b === undefined) return [];
  return Object.keys(b).filter((k) => scalar(b[k]) && scalar(a[k]));
}

function signature(entry: JsonObject, keys: readonly string[]): string {
  return JSON.stringify(keys.map((k) => entry[k] ?? null));
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
  // lock and edit-config go out together (a session's requests are handled in order, so the edit runs
  // under the lock, or is refused with the lock when another session holds it): one round trip less
  const locked = call(session, `<lock><target><${target}/></target></lock>`);
  const edited = call(session, edit);
  try {
    try {
      await locked;
    } catch (e) {
      await edited.then(() => session.rpc('<discard-changes/>'), () => undefined).catch(() => undefined);
      throw e;
    }
    await edited;
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
  // not awaited: the change is committed; the unlock precedes any later request on this session anyway
  void call(session, `<unlock><target><${target}/></target></unlock>`).catch(() => undefined);
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
