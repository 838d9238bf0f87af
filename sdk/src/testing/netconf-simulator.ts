/**
 * A NETCONF device simulator for tests: an ssh2 server on loopback offering the `netconf` subsystem,
 * speaking base:1.0 and base:1.1 from a small YANG model given as text. It holds running and candidate
 * datastores in memory and answers hello, get, get-config (subtree filters), edit-config, lock, unlock,
 * commit, discard-changes, close-session, get-schema and netconf-state/schemas (the model and any extra modules),
 * create-subscription (then `notify` sends the model's notifications: netconf-notifications.ts), the
 * model's RPCs and YANG 1.1 `<action>`s (netconfd supports neither actions nor, hence, these tests). A
 * `misbehave` mode makes it a bad device: no hello, malformed XML replies, a broken chunk header, or
 * yuma123 netconfd's stall after the hello.
 * Many simulators can run in one process; they share the CLI simulator's host key. A device's behaviour
 * (netconfDevice) stands apart from its listener, so a fleet (fleet.ts) serves thousands from one SSH server.
 * Over 400 lines because every operation of a session reads and swaps the same datastores and locks, which
 * live in netconfDevice's closure.
 */
import type { AddressInfo } from 'node:net';
import { Server, type Connection, type ServerChannel } from 'ssh2';
import { simulatorHostKey } from './simulator';
import { applyEdit, cloneNode, EditFault, filterNodes, renderNodes, store, type StoredNode } from './netconf-datastore';
import { BASE_1_0, BASE_1_1, EOM_MARKER, FrameReader, frameMessage, type FramingMode } from '../netconf/framing';
import {
  CAP_CANDIDATE,
  CAP_INTERLEAVE,
  CAP_NOTIFICATION,
  helloMessage,
  MONITORING_NS,
  NETCONF_NS,
  parseHello,
  renderRpcError,
  replyMessage,
  YANG_1_NS,
  type RpcErrorInfo,
} from '../netconf/messages';
import { readModel, type SimulatorModel } from './netconf-model';
import { NotificationSubscribers } from './netconf-notifications';
import { child, escapeText, parseXml, type XmlElement } from '../netconf/xml';

/** What an RPC or action handler sees. */
export interface OperationCall {
  /** The rpc or action element (its children are the input). */
  readonly input: XmlElement;
  /** Keys of each list entry on the way to an action, outermost first (`[{name: 'eth0'}]`). */
  readonly keys: ReadonlyArray<Readonly<Record<string, string>>>;
  /** The running configuration. */
  readonly running: StoredNode;
}

/** An RPC/action handler: returns the output members as XML in the model's namespace, or undefined for `<ok/>`. Throw EditFault for an rpc-error. */
export type OperationHandler = (call: OperationCall) => string | undefined;

export interface NetconfDeviceDefinition {
  /** The device's one YANG module, as text. */
  readonly yang: string;
  /** Credentials; absent means any are accepted. */
  readonly username?: string;
  readonly password?: string;
  /**
   * Initial running (and candidate) configuration: XML elements of the model (no `<config>` wrapper). A
   * function is called whenever the untouched configuration is read, and must write it as the simulator
   * renders stored nodes (no whitespace between elements, `xmlns` where the namespace changes).
   */
  readonly config?: string | (() => string);
  /** Handlers by rpc name (`reboot`) or action path (`/interfaces/interface/reset`). */
  readonly operations?: Readonly<Record<string, OperationHandler>>;
  /** Offer `:candidate` (default true); without it `:writable-running`. */
  readonly candidate?: boolean;
  /** Offer base:1.1 (default true); without it only base:1.0 end-of-message framing. */
  readonly base11?: boolean;
  /**
   * A bad device: never says hello, answers malformed XML, frames a reply with a broken chunk, or
   * (`hello-stall`, yuma123 netconfd's quirk made certain) reads the client's hello only together with
   * the bytes after it and leaves those unparsed until more bytes arrive.
   */
  readonly misbehave?: 'no-hello' | 'malformed-xml' | 'broken-chunk' | 'hello-stall';
  /**
   * Further YANG modules the device lists in `netconf-state/schemas` and serves with get-schema beside its
   * model (a module set of a realistic size for schema downloads); the data model stays `yang` alone.
   */
  readonly extraModules?: readonly string[];
  /**
   * Delay before every reply (ms), to test timeouts and requests in flight; a function is asked per request,
   * with the operation's element (a get-schema's identifier, say) to slow one request of a kind.
   */
  readonly replyDelayMs?: number | ((operation: string, request: XmlElement) => number);
  /**
   * Replies written `bytes` at a time, one write every `everyMs` ms, as a device streams a long reply
   * (netconfd sends 136 KB over ~3 ms): a client then surely receives it over several turns of its event loop.
   */
  readonly paceReplies?: { readonly bytes: number; readonly everyMs: number };
}

export interface SimulatedNetconfDevice {
  readonly host: string;
  readonly port: number;
  readonly model: SimulatorModel;
  /** The running configuration, rendered as XML elements. */
  runningXml(): string;
  /** Operation names received, across sessions, in order (`get-config`, `edit-config`, `commit`, ...). */
  readonly operationLog: readonly string[];
  /** Sessions open now. */
  readonly sessions: number;
  /** Ends every session (as a device reboot would) without closing the server. */
  dropSessions(): void;
  /** Sends a notification (`event`: one element of the model, with its xmlns) to the subscribed sessions; answers how many. */
  notify(event: string, eventTime?: Date): number;
  /** Sessions subscribed to notifications now. */
  readonly subscribed: number;
  close(): Promise<void>;
}

const MONITORING_CAP = `${MONITORING_NS}?module=ietf-netconf-monitoring&revision=2010-10-04`;
const WRITABLE_RUNNING = 'urn:ietf:params:netconf:capability:writable-running:1.0';

/**
 * One simulated NETCONF device's behaviour and state, apart from any listener: hand it each SSH connection
 * that reaches it. startNetconfSimulator gives it a server of its own; a fleet shares one SSH server, one
 * host key and one read model among thousands of these.
 */
export interface NetconfDeviceBehaviour {
  readonly model: SimulatorModel;
  /** The running configuration, rendered as XML elements. */
  runningXml(): string;
  /** Operation names received, across sessions, in order (`get-config`, `edit-config`, `commit`, ...). */
  readonly operationLog: readonly string[];
  /** Serves an accepted SSH connection: password authentication, then the `netconf` subsystem. */
  accept(client: Connection): void;
  /** The sessions that sent create-subscription. */
  readonly subscribers: NotificationSubscribers;
}

/**
 * A device's behaviour from its definition; `model` is the definition's YANG already read, so many devices
 * share one. A `config` given as a function is rendered only when a session needs it, and the running tree
 * is kept only once something edits it, so an idle device of a fleet holds no configuration of its own.
 */
export function netconfDevice(def: NetconfDeviceDefinition, model: SimulatorModel = readModel(def.yang)): NetconfDeviceBehaviour {
  const initialXml = (): string => (typeof def.config === 'function' ? def.config() : (def.config ?? ''));
  /** The modules the device lists and serves with get-schema. */
  const served: readonly SimulatorModel[] = [model, ...(def.extraModules ?? []).map(readModel)];
  const parse = (xml: string): StoredNode => ({
    name: 'config',
    ns: NETCONF_NS,
    text: '',
    children: xml ? store(parseXml(`<config xmlns="${NETCONF_NS}">${xml}</config>`)).children : [],
  });
  // undefined while the device still holds its initial configuration (a lazy one is not kept)
  let runningTree: StoredNode | undefined = typeof def.config === 'function' ? undefined : parse(initialXml());
  // undefined while the candidate equals running
  let candidateTree: StoredNode | undefined;
  const running = (): StoredNode => (runningTree ??= parse(initialXml()));
  const candidate = (): StoredNode => candidateTree ?? running();
  const useCandidate = def.candidate ?? true;
  const locks = new Map<string, number>(); // datastore -> session id
  const operationLog: string[] = [];
  const subscribers = new NotificationSubscribers();
  let nextSession = 1;
  const capabilities = [
    BASE_1_0,
    ...((def.base11 ?? true) ? [BASE_1_1] : []),
    useCandidate ? CAP_CANDIDATE : WRITABLE_RUNNING,
    CAP_NOTIFICATION,
    CAP_INTERLEAVE,
    MONITORING_CAP,
    `${model.namespace}?module=${model.name}${model.revision ? `&revision=${model.revision}` : ''}`,
  ];

  const serve = (stream: ServerChannel): void => {
    const sessionId = nextSession++;
    const reader = new FrameReader(16 * 1024 * 1024);
    let framing: FramingMode = 'eom';
    let helloDone = false;
    // paced replies go out one after another, never interleaved
    let paced = Promise.resolve();
    const send = (message: string) => {
      if (def.misbehave === 'broken-chunk' && helloDone) {
        stream.write(`\n#12x\n${message}\n##\n`);
        return;
      }
      const pace = def.paceReplies;
      if (pace === undefined) {
        stream.write(frameMessage(message, framing));
        return;
      }
      // bytes, not characters: a piece may end inside a UTF-8 sequence, as a TCP read may
      const framed = Buffer.from(frameMessage(message, framing));
      paced = paced.then(async () => {
        for (let at = 0; at < framed.length; at += pace.bytes) {
          if (at > 0) await new Promise((resolve) => setTimeout(resolve, pace.everyMs));
          stream.write(framed.subarray(at, at + pace.bytes));
        }
      });
    };
    if (def.misbehave !== 'no-hello') stream.write(frameMessage(helloMessage(capabilities, sessionId), 'eom'));
    const release = () => {
      for (const [ds, holder] of locks) if (holder === sessionId) locks.delete(ds);
    };
    stream.on('close', release);
    let unsubscribe: (() => void) | undefined;
    stream.on('close', () => unsubscribe?.());

    const error = (e: RpcErrorInfo) => renderRpcError(e);
    const fault = (tag: string, message: string, path?: string, type: RpcErrorInfo['type'] = 'application'): string =>
      error({ type, tag, severity: 'error', message, ...(path ? { path } : {}) });
    const datastore = (el: XmlElement | undefined): 'running' | 'candidate' | undefined => {
      const name = el?.children[0]?.name;
      return name === 'running' || (name === 'candidate' && useCandidate) ? name : undefined;
    };

    const handle = (rpc: XmlElement): string => {
      const op = rpc.children[0];
      if (!op) return fault('missing-element', 'rpc without an operation', undefined, 'rpc');
      operationLog.push(op.name);
      if (def.misbehave === 'malformed-xml') return '<data><unclosed></data>';
      switch (op.name) {
        case 'get':
        case 'get-config': {
          const source = op.name === 'get' ? 'running' : datastore(child(op, 'source'));
          if (!source) return fault('invalid-value', 'unknown or unsupported source', undefined, 'protocol');
          const filter = child(op, 'filter');
          if (op.name === 'get' && filter && child(filter, 'netconf-state', MONITORING_NS)) {
            const listed = served.map(
              (m) =>
                `<schema><identifier>${m.name}</identifier><version>${m.revision ?? ''}</version><format xmlns:ncm="${MONITORING_NS}">ncm:yang</format><namespace>${escapeText(m.namespace)}</namespace><location>NETCONF</location></schema>`,
            );
            return `<data><netconf-state xmlns="${MONITORING_NS}"><schemas>${listed.join('')}</schemas></netconf-state></data>`;
          }
          // an untouched lazy configuration is answered as rendered, without keeping its tree
          if (!filter && runningTree === undefined && candidateTree === undefined) return `<data>${initialXml()}</data>`;
          const tree = source === 'running' ? running() : candidate();
          const nodes = filter ? filterNodes(tree.children, filter.children) : tree.children;
          return `<data>${renderNodes(nodes, NETCONF_NS)}</data>`;
        }
        case 'edit-config': {
          const target = datastore(child(op, 'target'));
          if (!target) return fault('invalid-value', 'unknown or unsupported target', undefined, 'protocol');
          const holder = locks.get(target);
          if (holder !== undefined && holder !== sessionId)
            return fault('in-use', `${target} is locked by session ${holder}`, undefined, 'protocol');
          const config = child(op, 'config');
          if (!config) return fault('missing-element', 'edit-config without <config>', undefined, 'protocol');
          const defaultOp = child(op, 'default-operation')?.text.trim() ?? 'merge';
          const copy = cloneNode(target === 'running' ? running() : candidate());
          try {
            applyEdit(copy, config.children, model, defaultOp === 'none' ? 'none' : defaultOp === 'replace' ? 'replace' : 'merge');
          } catch (e) {
            if (e instanceof EditFault) return fault(e.tag, e.message, e.path);
            throw e;
          }
          if (target === 'running') {
            candidateTree ??= running(); // the candidate keeps what running held
            runningTree = copy;
          } else candidateTree = copy;
          return '<ok/>';
        }
        case 'lock':
        case 'unlock': {
          const target = datastore(child(op, 'target'));
          if (!target) return fault('invalid-value', 'unknown target', undefined, 'protocol');
          const holder = locks.get(target);
          if (op.name === 'lock') {
            if (holder !== undefined)
              return error({
                type: 'protocol',
                tag: 'lock-denied',
                severity: 'error',
                message: 'lock is already held',
                info: { 'session-id': String(holder) },
              });
            locks.set(target, sessionId);
          } else {
            if (holder !== sessionId) return fault('operation-failed', 'lock not held by this session', undefined, 'protocol');
            locks.delete(target);
          }
          return '<ok/>';
        }
        case 'commit':
          if (!useCandidate) return fault('operation-not-supported', 'no candidate', undefined, 'protocol');
          runningTree = candidate();
          candidateTree = undefined;
          return '<ok/>';
        case 'discard-changes':
          candidateTree = undefined;
          return '<ok/>';
        case 'close-session':
          return '<ok/>';
        case 'create-subscription':
          if (unsubscribe !== undefined) return fault('operation-failed', 'the session is subscribed already', undefined, 'protocol');
          unsubscribe = subscribers.subscribe(send);
          return '<ok/>';
        case 'get-schema': {
          const id = child(op, 'identifier')?.text.trim();
          const found = served.find((m) => m.name === id);
          if (found === undefined) return fault('invalid-value', 'no matches found', undefined, 'protocol');
          return `<data xmlns="${MONITORING_NS}">${escapeText(found.text)}</data>`;
        }
        case 'action':
          if (op.ns !== YANG_1_NS) break;
          return action(op);
        default:
          if (op.ns === model.namespace && model.rpcs.has(op.name)) {
            const handler = def.operations?.[op.name];
            if (!handler) return fault('operation-not-supported', `rpc ${op.name} has no handler`, undefined, 'protocol');
            return callHandler(handler, { input: op, keys: [], running: running() });
          }
      }
      return fault('operation-not-supported', `unknown operation ${op.name}`, undefined, 'protocol');
    };

    const callHandler = (handler: OperationHandler, call: OperationCall): string => {
      try {
        const out = handler(call);
        return out === undefined ? '<ok/>' : out;
      } catch (e) {
        if (e instanceof EditFault) return fault(e.tag, e.message, e.path);
        return fault('operation-failed', e instanceof Error ? e.message : String(e));
      }
    };

    /** Walks `<action>`'s single path down to the action element, checking each list entry exists. */
    const action = (wrapper: XmlElement): string => {
      let el: XmlElement | undefined = wrapper.children[0];
      let at = '';
      const keys: Array<Record<string, string>> = [];
      let data: StoredNode | undefined = running();
      while (el) {
        at += `/${el.name}`;
        if (model.actions.has(at)) {
          const handler = def.operations?.[at];
          if (!handler) return fault('operation-not-supported', `action ${at} has no handler`, undefined, 'protocol');
          return callHandler(handler, { input: el, keys, running: running() });
        }
        const listKeys = model.listKeys.get(at);
        const current: XmlElement = el;
        if (listKeys) {
          const k = Object.fromEntries(listKeys.map((name) => [name, child(current, name)?.text.trim() ?? '']));
          keys.push(k);
          data = data?.children.find(
            (c) => c.name === current.name && listKeys.every((name) => c.children.find((x) => x.name === name)?.text.trim() === k[name]),
          );
          if (!data) return fault('data-missing', 'the list entry of the action does not exist', `${at}[${Object.values(k).join(',')}]`);
        } else data = data?.children.find((c) => c.name === current.name);
        el = current.children.find((c) => !(listKeys ?? []).includes(c.name));
      }
      return fault('unknown-element', `no action at ${at}`, at, 'protocol');
    };

    // hello-stall: hold the client's bytes until the hello and what follows it are in hand, read the hello,
    // and leave the rest until more bytes arrive (netconfd's stall, made certain instead of timing-bound)
    let helloAndAfter: Buffer | undefined = def.misbehave === 'hello-stall' ? Buffer.alloc(0) : undefined;
    let stalled: Buffer | undefined;
    stream.on('data', (data: Buffer) => {
      if (stalled !== undefined) {
        const held = stalled;
        stalled = undefined;
        consume(Buffer.concat([held, data]));
      } else if (helloAndAfter !== undefined) {
        helloAndAfter = Buffer.concat([helloAndAfter, data]);
        const end = helloAndAfter.indexOf(EOM_MARKER);
        if (end < 0 || end + EOM_MARKER.length === helloAndAfter.length) return; // the hello alone: read later
        consume(helloAndAfter.subarray(0, end + EOM_MARKER.length));
        stalled = helloAndAfter.subarray(end + EOM_MARKER.length);
        helloAndAfter = undefined;
      } else consume(data);
    });
    const consume = (data: Buffer) => {
      try {
        reader.push(data, (message) => {
          const msg = parseXml(message);
          if (!helloDone) {
            const hello = parseHello(message);
            helloDone = true;
            if ((def.base11 ?? true) && hello.capabilities.includes(BASE_1_1)) {
              reader.useChunked();
              framing = 'chunked';
            }
            return;
          }
          if (msg.name !== 'rpc' || msg.ns !== NETCONF_NS) return;
          const body = handle(msg);
          const reply = replyMessage(msg.attrs, body);
          const opName = msg.children[0]?.name ?? 'rpc';
          const delay = typeof def.replyDelayMs === 'function' ? def.replyDelayMs(opName, msg.children[0] ?? msg) : (def.replyDelayMs ?? 0);
          const close = opName === 'close-session';
          const deliver = () => {
            send(reply);
            if (close) {
              release();
              stream.end();
            }
          };
          if (delay > 0) setTimeout(deliver, delay);
          else deliver();
        });
      } catch {
        stream.end(); // malformed framing or XML from the client: RFC 6242 says close the session
      }
    };
  };

  const accept = (client: Connection): void => {
    // ssh2's server writes its handshake and each reply in small pieces: with Nagle, a login and many
    // replies would wait on the client's delayed ACK (ssh2's server connection has setNoDelay; its type
    // declarations omit it)
    (client as unknown as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
    client.on('error', () => undefined); // a client that vanishes mid-handshake is its own business
    client.on('authentication', (ctx) => {
      if (ctx.method !== 'password') {
        ctx.reject(['password']);
        return;
      }
      if ((def.username === undefined || ctx.username === def.username) && (def.password === undefined || ctx.password === def.password))
        ctx.accept();
      else ctx.reject(['password']);
    });
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('subsystem', (acceptSub, reject, info) => {
          if (info.name !== 'netconf') {
            reject();
            return;
          }
          serve(acceptSub());
        });
      });
    });
  };

  return {
    model,
    runningXml: () => (runningTree === undefined ? initialXml() : renderNodes(runningTree.children, NETCONF_NS)),
    operationLog,
    accept,
    subscribers,
  };
}

/** Starts a simulated NETCONF device on 127.0.0.1 (a free port unless given); resolves once it listens. */
export async function startNetconfSimulator(
  def: NetconfDeviceDefinition,
  options: { port?: number; host?: string } = {},
): Promise<SimulatedNetconfDevice> {
  const device = netconfDevice(def);
  const clients = new Set<Connection>();
  const server = new Server({ hostKeys: [simulatorHostKey()] }, (client) => {
    clients.add(client);
    client.on('close', () => clients.delete(client));
    client.on('error', () => clients.delete(client));
    device.accept(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    host: options.host ?? '127.0.0.1',
    port: address.port,
    model: device.model,
    runningXml: device.runningXml,
    operationLog: device.operationLog,
    get sessions() {
      return clients.size;
    },
    dropSessions() {
      for (const c of clients) c.end();
    },
    notify: (event, eventTime) => device.subscribers.emit(event, eventTime),
    get subscribed() {
      return device.subscribers.count;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of clients) c.end();
        server.close(() => resolve());
      }),
  };
}
