/**
 * The NETCONF operations a mount point needs, over one session: reads (get-config on candidate when the
 * device has `:candidate`, else running; get for state), writes (edit-config on candidate + commit inside
 * lock/unlock with discard-changes on failure, or on running when there is no candidate; never
 * `<validate>` before `<commit>`: netconfd then commits nothing), the dry run of a write (the very RPCs
 * it would send, built by the same function), RPCs, YANG 1.1 actions, and create-subscription. XML in, RFC 7951 JSON out through the core's codec for the device's schema.
 */
import {
  CAP_CANDIDATE,
  CAP_WRITABLE_RUNNING,
  FaultError,
  NOTIFICATION_NS,
  unusableRequest,
  standaloneText,
  type ContentFilter,
  type DeviceDataCodec,
  type DeviceEdit,
  type InstancePath,
  type JsonObject,
  type JsonValue,
} from '@rosetta/sdk';
import { NetconfRpcError, NetconfSessionError } from './errors';
import { subtreeFilter } from './filter';
import type { DataRead } from './data-stream';
import type { RpcReply } from './session';
import { actionXml, editConfigXml, rpcXml, type ConfigEdit, type Namespaces } from './xml-build';

/** The part of a session the operations use (a NetconfSession; fakes in unit tests). */
export interface OperationSession {
  rpc(body: string): Promise<RpcReply>;
  /** What `read` makes of a get/get-config's `<data>` (NetconfSession.rpcData). */
  rpcData<T>(body: string, read: DataRead<T>): Promise<T>;
  has(capability: string): boolean;
}

export const CAP_ROLLBACK_ON_ERROR = 'urn:ietf:params:netconf:capability:rollback-on-error:1.0';

/** The datastore holding intended configuration: candidate when offered, else running. */
export function configSource(session: Pick<OperationSession, 'has'>): 'candidate' | 'running' {
  return session.has(CAP_CANDIDATE) ? 'candidate' : 'running';
}

export interface ReadRequest {
  readonly path: InstancePath | string;
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
export async function readData(
  session: OperationSession,
  request: ReadRequest,
  ns: Namespaces,
  codec: DeviceDataCodec,
): Promise<JsonObject> {
  const filter = subtreeFilter(request.path, request.fields, ns) ?? '';
  const read = async (content: 'config' | 'nonconfig'): Promise<JsonObject> => {
    const body =
      content === 'config' ? `<get-config><source><${configSource(session)}/></source>${filter}</get-config>` : `<get>${filter}</get>`;
    // a long reply is decoded as it arrives (data-stream.ts)
    return session.rpcData(body, {
      whole: (data) => (data === undefined ? {} : codec.fromXml(data, { content })),
      pieces: () => codec.dataReader({ content }),
    });
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
    out.forEach((e, i) => {
      if (isObject(e)) index.set(signature(e, keys), i);
    });
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
 * The RPCs a write of `edits` sends, in order, exactly as they go on the wire (without the `<rpc>`
 * envelope): on candidate lock, edit-config, commit, unlock; on running (`:writable-running`) lock,
 * edit-config (rollback-on-error when offered), unlock. A dry run shows these; {@link writeEdits} sends
 * them. Empty for no edits. Throws XmlBuildError for an edit that cannot be written as XML, and
 * NetconfRpcError when the device offers no writable datastore.
 */
export function editRpcs(
  session: Pick<OperationSession, 'has'>,
  edits: readonly ConfigEdit[],
  ns: Namespaces,
  codec?: DeviceDataCodec,
): string[] {
  if (edits.length === 0) return [];
  const config = editConfigXml(edits, ns, codec);
  const target = configSource(session);
  if (target === 'running' && !session.has(CAP_WRITABLE_RUNNING)) {
    throw new NetconfRpcError('edit-config', [
      {
        type: 'protocol',
        tag: 'operation-not-supported',
        severity: 'error',
        message: 'the device offers neither :candidate nor :writable-running',
      },
    ]);
  }
  const errorOption = session.has(CAP_ROLLBACK_ON_ERROR) ? '<error-option>rollback-on-error</error-option>' : '';
  const rpcs = [
    `<lock><target><${target}/></target></lock>`,
    `<edit-config><target><${target}/></target>${errorOption}${config}</edit-config>`,
  ];
  if (target === 'candidate') rpcs.push('<commit/>');
  rpcs.push(`<unlock><target><${target}/></target></unlock>`);
  return rpcs;
}

/**
 * Applies edits as one edit-config: the RPCs of {@link editRpcs}, pipelined where the order on the
 * session keeps them safe (lock with edit-config; commit with unlock). On any failure on candidate the
 * edit is discarded (discard-changes) and the lock released, then the device's error is thrown; on
 * running, unlock and throw. With `probe`, a get-config of its target goes out between the lock and
 * the edit-config and the outcome holds what it found (decoded). With `readBack`, get-configs of its
 * paths go out right behind the write, still under the lock (on candidate with the commit, on running
 * with the edit-config), and the outcome's `after` holds what they found once the write succeeded: the
 * caller needs no round trip of its own to learn what the device now holds. Returns the RPCs of the
 * write (the whole sequence once it succeeded; the probe and the read-back are not part of it).
 */
export async function writeEdits(
  session: OperationSession,
  edits: readonly ConfigEdit[],
  ns: Namespaces,
  probe?: TargetProbe,
  codec?: DeviceDataCodec,
  readBack?: ReadBack,
): Promise<WriteOutcome> {
  const rpcs = editRpcs(session, edits, ns, codec);
  if (rpcs.length === 0) return { rpcs };
  const [lock, edit] = rpcs as [string, string];
  const unlock = rpcs[rpcs.length - 1]!;
  const candidate = rpcs.length === 4;
  // lock and edit-config go out together (a session's requests are handled in order, so the edit runs
  // under the lock, or is refused with the lock when another session holds it): one round trip less.
  // The probe goes between them: under the lock, so no other session's change lands between what it
  // sees and the edit; what it finds matters only once the write succeeded (a failed probe leaves it unknown)
  const locked = call(session, lock);
  const probed =
    probe === undefined
      ? undefined
      : session
          .rpcData(
            `<get-config><source><${configSource(session)}/></source>${subtreeFilter(probe.path, undefined, ns) ?? ''}</get-config>`,
            {
              whole: (data) => (data === undefined ? {} : probe.decode(data)),
            },
          )
          .catch(() => undefined); // unknown, as when the probe fails: the write itself succeeded
  const edited = call(session, edit);
  // on running the edit-config is the change itself: a read right behind it sees its result
  const readAfterEdit = candidate ? undefined : readTargets(session, ns, readBack);
  try {
    await locked;
  } catch (e) {
    await edited
      .then(
        () => session.rpc('<discard-changes/>'),
        () => undefined,
      )
      .catch(() => undefined);
    throw e;
  }
  try {
    await edited;
  } catch (e) {
    if (candidate && !(e instanceof NetconfSessionError)) await call(session, '<discard-changes/>').catch(() => undefined);
    await call(session, unlock).catch(() => undefined);
    throw e;
  }
  if (!candidate) {
    // not awaited: the change is made; the unlock precedes any later request on this session anyway
    void call(session, unlock).catch(() => undefined);
    return outcome(rpcs, await probed, await readAfterEdit);
  }
  // commit and unlock go out together: the device releases the lock right after committing, so the
  // next request on this session does not queue behind an unlock sent one round trip later
  // the read-back goes between them: after the commit (candidate then equals running) and under the lock
  const committed = call(session, rpcs[2]!);
  const readAfterCommit = readTargets(session, ns, readBack);
  const unlocked = call(session, unlock).catch(() => undefined);
  try {
    await committed;
  } catch (e) {
    // the unlock is already queued behind the refused commit: drop the edit, then make sure it is released
    if (!(e instanceof NetconfSessionError)) await call(session, '<discard-changes/>').catch(() => undefined);
    await unlocked;
    throw e;
  }
  return outcome(rpcs, await probed, await readAfterCommit);
}

/** Configuration to read right behind a write: top-level paths (an empty one is the whole configuration), and how to decode what is read. */
export interface ReadBack {
  readonly paths: readonly (InstancePath | string)[];
  readonly decode: (data: string) => JsonObject;
}

/**
 * Sends a get-config of the intended datastore per path now (in the same write to the session as the
 * requests just before it) and resolves with what they found merged from the top; undefined when
 * there is nothing to read or any read failed (the caller then reads on its own).
 */
function readTargets(
  session: OperationSession,
  ns: Namespaces,
  readBack: ReadBack | undefined,
): Promise<JsonObject | undefined> | undefined {
  if (readBack === undefined || readBack.paths.length === 0) return undefined;
  const source = configSource(session);
  let reads: Promise<JsonObject>[];
  try {
    reads = readBack.paths.map((path) =>
      session.rpcData(`<get-config><source><${source}/></source>${subtreeFilter(path, undefined, ns) ?? ''}</get-config>`, {
        whole: (data) => (data === undefined ? {} : readBack.decode(data)),
      }),
    );
  } catch {
    return undefined; // a path with no filter: the caller reads on its own
  }
  return Promise.all(reads).then(
    (found) => Object.assign({}, ...found) as JsonObject,
    () => undefined,
  );
}

/** A target to read just before a write: its instance-identifier, and how to decode the data read. */
export interface TargetProbe {
  readonly path: InstancePath | string;
  readonly decode: (data: string) => JsonObject;
}

/** What a write sent, what its probed target held before it, and what its read-back found after it. */
export interface WriteOutcome {
  readonly rpcs: string[];
  readonly before?: JsonObject;
  readonly after?: JsonObject;
}

function outcome(rpcs: string[], before: JsonObject | undefined, after?: JsonObject): WriteOutcome {
  return { rpcs, ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) };
}

/** The plugin's own dry-run operation (device.invoke): never sent to the device. */
export const DRY_RUN_EDIT = 'rosetta-netconf:dry-run-edit-config';

const EDIT_OPERATIONS: ReadonlySet<string> = new Set(['create', 'merge', 'replace', 'delete', 'remove']);

/** Why a dry-run input cannot be used (400 `invalid-value`). */
export class DryRunInputError extends FaultError {
  constructor(message: string) {
    super(...unusableRequest(`${DRY_RUN_EDIT}: ${message}`));
    this.name = 'DryRunInputError';
  }
}

/** The `edits` member of a dry-run input, checked to be edits (paths as text, read when the XML is built). */
function editsOf(input: JsonObject): ConfigEdit[] {
  const given = input['edits'];
  if (!Array.isArray(given)) throw new DryRunInputError('input edits must be an array of {operation, path, value?}');
  return given.map((e, i) => {
    if (!isObject(e)) throw new DryRunInputError(`edits[${i}] is not an object`);
    const { operation, path, value } = e;
    if (typeof operation !== 'string' || !EDIT_OPERATIONS.has(operation))
      throw new DryRunInputError(`edits[${i}].operation must be one of ${[...EDIT_OPERATIONS].join(', ')}`);
    if (typeof path !== 'string') throw new DryRunInputError(`edits[${i}].path must be a string`);
    if (value !== undefined && !isObject(value)) throw new DryRunInputError(`edits[${i}].value must be an object`);
    return { operation: operation as DeviceEdit['operation'], path, ...(value !== undefined ? { value } : {}) };
  });
}

/**
 * `rosetta-netconf:dry-run-edit-config`: input `edits` (DeviceEdit[] as JSON), output `rpcs`: what a
 * write of those edits would send ({@link editRpcs}), sending nothing. What the device offers decides
 * the datastore, so the session's capabilities are read, not used.
 */
export function dryRunEdit(session: Pick<OperationSession, 'has'>, input: JsonObject, ns: Namespaces, codec?: DeviceDataCodec): JsonObject {
  return { rpcs: editRpcs(session, editsOf(input), ns, codec) };
}

/**
 * Edits equivalent to a before/after pair when the core gives no edits: each top-level member that
 * changed is replaced whole, each that disappeared is removed.
 */
export function editsFromDocuments(before: JsonObject, after: JsonObject): ConfigEdit[] {
  const edits: ConfigEdit[] = [];
  for (const [member, value] of Object.entries(after)) {
    if (JSON.stringify(before[member]) !== JSON.stringify(value))
      edits.push({ operation: 'replace', path: `/${member}`, value: { [member]: value } });
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
 * Invokes an RPC (`module:rpc`) or a YANG 1.1 action (its instance-identifier, starting with `/`; the
 * core also hands its path as `action`). Resolves with the output members, or null when the reply is `<ok/>`.
 */
export async function invokeOperation(
  session: OperationSession,
  operation: string,
  input: JsonObject,
  ns: Namespaces,
  codec: DeviceDataCodec,
  action?: InstancePath,
): Promise<JsonObject | null> {
  const members = inputMembers(input);
  const body =
    action !== undefined || operation.startsWith('/')
      ? actionXml(action ?? operation, members, ns, codec)
      : rpcXml(operation, members, ns, codec);
  const reply = await session.rpc(body);
  const content = reply.root.children.filter((c) => c.name !== 'rpc-error');
  if (content.length === 0 || (content.length === 1 && content[0]!.name === 'ok')) return null;
  return codec.fromXml(standaloneText(reply.text, reply.root), { operation });
}

/** Opens an RFC 5277 subscription to a stream (default `NETCONF`). */
export async function createSubscription(session: OperationSession, stream = 'NETCONF'): Promise<void> {
  await session.rpc(
    `<create-subscription xmlns="${NOTIFICATION_NS}"><stream>${stream.replace(/[<&>]/g, '')}</stream></create-subscription>`,
  );
}
