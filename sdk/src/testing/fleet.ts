/**
 * The fleet simulator: N NETCONF devices and M CLI (FRR-like) devices in one process, each with its own
 * state on its own port, and the commands that play outages on them (drop, stall, resume, restart). It
 * owns the listeners and the sockets; what a device says is netconfDevice's and cliDevice's.
 *
 * Thousands must be cheap beside the service: one SSH server (one parsed host key) serves every device,
 * each device's listener hands it the sockets that reach its port; the NETCONF devices share one read
 * model; a device's behaviour is built on its first connection and its configuration is rendered from its
 * index when read (fleet-config.ts), so an idle device is a listener and a few fields. More devices than
 * one process's file descriptors allow are rosetta-sim's business (fleet-process.ts), not this file's.
 */
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { Server, utils, type Connection } from 'ssh2';
import { hostKeyFingerprint } from '../ssh-host-key';
import { fleetCliConfig, fleetDeviceXml, FLEET_YANG } from './fleet-config';
import { frrDevice } from './frr-device';
import { netconfDevice, type NetconfDeviceBehaviour } from './netconf-simulator';
import { readModel, type SimulatorModel } from './netconf-model';
import { cliDevice, type CliDeviceBehaviour } from './simulator';

export interface FleetOptions {
  /** NETCONF devices (default 0), ids `nc-00001`... */
  readonly netconf?: number;
  /** CLI devices (default 0), ids `cli-00001`... */
  readonly cli?: number;
  /** The first device's port, the others following (NETCONF first); 0 (default) = any free ports. */
  readonly basePort?: number;
  readonly host?: string;
  /** Every device's credentials (default admin/admin). */
  readonly username?: string;
  readonly password?: string;
  /** About this many JSON lines of configuration per NETCONF device (default 200). */
  readonly configLines?: number;
}

export interface FleetDevice {
  readonly id: string;
  readonly kind: 'netconf' | 'cli';
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password: string;
}

export interface FleetStats {
  readonly devices: number;
  readonly netconf: number;
  readonly cli: number;
  /** Open connections to devices (held ones of stalled devices included). */
  readonly sessions: number;
  readonly dropped: number;
  readonly stalled: number;
  /** Resident memory of the process(es) playing the fleet. */
  readonly rssBytes: number;
  /** CPU time the process(es) playing the fleet have used (user and system), so a benchmark can tell it from the service's. */
  readonly cpuSeconds: number;
}

export interface Fleet {
  readonly devices: readonly FleetDevice[];
  /** The SHA256 fingerprint of the host key every device presents, as install-node's `host-key` pins it. */
  readonly hostKeyFingerprint: string;
  /** Closes the devices' sessions and refuses new ones (connections are reset) until resume or restart. */
  drop(ids?: readonly string[]): Promise<void>;
  /** Keeps connections open but stops answering, new connections too (a hung device, or one that hangs at login). */
  stall(ids?: readonly string[]): Promise<void>;
  /** Ends a drop or a stall: held connections proceed, new ones are served. */
  resume(ids?: readonly string[]): Promise<void>;
  /** Closes sessions and listeners and starts listening again on the same ports (a reboot); state is kept. */
  restart(ids?: readonly string[]): Promise<void>;
  /** A device's running configuration: XML elements for NETCONF, `show running-config` text for CLI. */
  running(id: string): string;
  stats(): FleetStats;
  close(): Promise<void>;
}

/** One device a process plays: its id, kind, index among its kind (1-based, selects its configuration) and port (0 = any). */
export interface FleetDeviceSpec {
  readonly id: string;
  readonly kind: 'netconf' | 'cli';
  readonly index: number;
  readonly port: number;
}

/** What every device of a fleet shares. */
export interface FleetShared {
  readonly host: string;
  readonly username: string;
  readonly password: string;
  readonly configLines: number;
  /** The host key every device presents (PEM or OpenSSH format); default this process's fleetHostKey(). */
  readonly hostKey?: string;
}

export const DEFAULT_CONFIG_LINES = 200;

/** The devices of a fleet: ids by kind and index, ports from basePort on (NETCONF devices first). */
export function fleetSpecs(options: FleetOptions): FleetDeviceSpec[] {
  const netconf = options.netconf ?? 0;
  const cli = options.cli ?? 0;
  const base = options.basePort ?? 0;
  for (const [name, n] of [
    ['netconf', netconf],
    ['cli', cli],
    ['basePort', base],
  ] as const)
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`${name} must be a whole number >= 0, not ${n}`);
  if (base > 0 && base + netconf + cli - 1 > 65535)
    throw new RangeError(`ports ${base}..${base + netconf + cli - 1} do not fit below 65536`);
  const port = (i: number) => (base === 0 ? 0 : base + i);
  const pad = (i: number) => String(i).padStart(5, '0');
  return [
    ...Array.from(
      { length: netconf },
      (_, i): FleetDeviceSpec => ({ id: `nc-${pad(i + 1)}`, kind: 'netconf', index: i + 1, port: port(i) }),
    ),
    ...Array.from(
      { length: cli },
      (_, i): FleetDeviceSpec => ({ id: `cli-${pad(i + 1)}`, kind: 'cli', index: i + 1, port: port(netconf + i) }),
    ),
  ];
}

export function fleetShared(options: FleetOptions): FleetShared {
  return {
    host: options.host ?? '127.0.0.1',
    username: options.username ?? 'admin',
    password: options.password ?? 'admin',
    configLines: options.configLines ?? DEFAULT_CONFIG_LINES,
  };
}

/** Starts a fleet in this process; resolves once every device listens. For tens to a few thousand devices. */
export function startFleet(options: FleetOptions = {}): Promise<Fleet> {
  return startFleetDevices(fleetSpecs(options), fleetShared(options));
}

let fleetModel: SimulatorModel | undefined;

let fleetKey: string | undefined;

/**
 * The Ed25519 host key a fleet's devices present unless given one, generated once per process. Not the
 * single simulators' RSA key: an RSA signature costs the simulator about twice the CPU of a whole Ed25519
 * handshake, and a fleet coming back at once does thousands of handshakes beside the service measured.
 */
export function fleetHostKey(): string {
  // ssh2 strips leading zero bytes from the public half, so about one key in 256 does not parse back
  // (mscdex/ssh2#1390, #1513): draw again until the key is one every device and client can read
  while (fleetKey === undefined) {
    const candidate = utils.generateKeyPairSync('ed25519').private;
    if (!(utils.parseKey(candidate) instanceof Error)) fleetKey = candidate;
  }
  return fleetKey;
}

/** This process's CPU time so far, in seconds. */
export function cpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

export function hostKeyFingerprintOf(pem: string): string {
  const key = utils.parseKey(pem);
  if (key instanceof Error) throw key;
  return hostKeyFingerprint(key.getPublicSSH());
}

// ssh2 pings each client every 15 s by default and ends a connection that misses three: a stalled device
// must keep its connections however long it stalls, and sshd does not ping either (ClientAliveInterval 0)
const NO_KEEPALIVE_MS = 2 ** 31 - 1;

type DeviceState = 'up' | 'dropped' | 'stalled';

/** A device as the fleet runs it: its listener, its sockets, its outage state and (once connected) its behaviour. */
class PlayedDevice {
  listener: NetServer | undefined;
  readonly sockets = new Set<Socket>();
  /** Connections accepted while stalled, handed to the SSH server on resume. */
  readonly held = new Set<Socket>();
  state: DeviceState = 'up';
  port: number;
  private netconf: NetconfDeviceBehaviour | undefined;
  private cli: CliDeviceBehaviour | undefined;

  constructor(
    readonly spec: FleetDeviceSpec,
    private readonly shared: FleetShared,
  ) {
    this.port = spec.port;
  }

  accept(client: Connection): void {
    if (this.spec.kind === 'netconf') this.netconfBehaviour().accept(client);
    else this.cliBehaviour().accept(client);
  }

  running(): string {
    return this.spec.kind === 'netconf' ? this.netconfBehaviour().runningXml() : this.cliBehaviour().view.runningConfig();
  }

  private netconfBehaviour(): NetconfDeviceBehaviour {
    const { index } = this.spec;
    const { username, password, configLines } = this.shared;
    fleetModel ??= readModel(FLEET_YANG);
    this.netconf ??= netconfDevice({ yang: FLEET_YANG, username, password, config: () => fleetDeviceXml(index, configLines) }, fleetModel);
    return this.netconf;
  }

  private cliBehaviour(): CliDeviceBehaviour {
    const { username, password } = this.shared;
    this.cli ??= cliDevice(frrDevice({ hostname: this.spec.id, username, password, config: fleetCliConfig(this.spec.index) }));
    return this.cli;
  }
}

/** Starts the given devices in this process (a worker of rosetta-sim plays its share this way). */
export async function startFleetDevices(specs: readonly FleetDeviceSpec[], shared: FleetShared): Promise<Fleet> {
  const played = new Map<string, PlayedDevice>();
  for (const spec of specs) {
    if (played.has(spec.id)) throw new RangeError(`device ${spec.id} is named twice`);
    played.set(spec.id, new PlayedDevice(spec, shared));
  }
  const deviceOf = new WeakMap<Socket, PlayedDevice>();
  const ssh = new Server({ hostKeys: [shared.hostKey ?? fleetHostKey()], keepaliveInterval: NO_KEEPALIVE_MS }, (client) => {
    // ssh2 names a connection's socket only privately; the socket is how the connection's device is known
    const socket = (client as unknown as { _sock?: Socket })._sock;
    const device = socket && deviceOf.get(socket);
    if (device) device.accept(client);
    else client.end();
  });

  const serve = (device: PlayedDevice, socket: Socket): void => {
    deviceOf.set(socket, device);
    ssh.injectSocket(socket);
  };

  const onConnection = (device: PlayedDevice) => (socket: Socket) => {
    socket.on('error', () => undefined); // a reset by the client is no failure of the fleet
    // the SSH server writes its handshake in several small pieces: with Nagle each login would wait on the
    // client's delayed ACK, and a fleet would play devices far slower to log in than real ones
    socket.setNoDelay(true);
    if (device.state === 'dropped') {
      socket.resetAndDestroy();
      return;
    }
    device.sockets.add(socket);
    socket.once('close', () => {
      device.sockets.delete(socket);
      device.held.delete(socket);
    });
    if (device.state === 'stalled') device.held.add(socket);
    else serve(device, socket);
  };

  /** Listens on the device's port; a restart retries a while, since the port it just closed can still be held. */
  const listen = async (device: PlayedDevice, restarting = false): Promise<void> => {
    const listener = createServer(onConnection(device));
    for (let attempt = 1; ; attempt++) {
      try {
        await new Promise<void>((resolve, reject) => {
          listener.once('error', reject);
          listener.listen({ port: device.port, host: shared.host, backlog: 64 }, () => {
            listener.off('error', reject);
            resolve();
          });
        });
        break;
      } catch (e) {
        if (!restarting || (e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 20)
          throw new Error(`device ${device.spec.id} cannot listen on ${shared.host}:${device.port}: ${(e as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
    // a restart listens on the port first given, also when the system picked it
    const address = listener.address();
    if (address !== null && typeof address === 'object') device.port = address.port;
    device.listener = listener;
  };

  const closeListener = (device: PlayedDevice): Promise<void> => {
    const listener = device.listener;
    device.listener = undefined;
    return listener ? new Promise((resolve) => listener.close(() => resolve())) : Promise.resolve();
  };

  const cut = (device: PlayedDevice): void => {
    for (const socket of device.sockets) socket.destroy();
    device.sockets.clear();
    device.held.clear();
  };

  /** The devices named (all when ids is absent); unknown ids are refused before anything changes. */
  const select = (ids: readonly string[] | undefined): PlayedDevice[] => {
    if (ids === undefined) return [...played.values()];
    const unknown = ids.filter((id) => !played.has(id));
    if (unknown.length > 0) throw new RangeError(`no such device: ${unknown.slice(0, 10).join(', ')}${unknown.length > 10 ? ', ...' : ''}`);
    return ids.map((id) => played.get(id)!);
  };

  /** Runs `action` over many devices a batch at a time, so thousands of listens do not all wait at once. */
  const inBatches = async (devices: readonly PlayedDevice[], action: (d: PlayedDevice) => Promise<void>): Promise<void> => {
    for (let at = 0; at < devices.length; at += 256) await Promise.all(devices.slice(at, at + 256).map(action));
  };

  try {
    await inBatches([...played.values()], (d) => listen(d));
  } catch (e) {
    await Promise.all([...played.values()].map(closeListener));
    throw e;
  }

  const devices: FleetDevice[] = [...played.values()].map((d) => ({
    id: d.spec.id,
    kind: d.spec.kind,
    host: shared.host,
    port: d.port,
    username: shared.username,
    password: shared.password,
  }));

  return {
    devices,
    hostKeyFingerprint: hostKeyFingerprintOf(shared.hostKey ?? fleetHostKey()),
    async drop(ids) {
      for (const d of select(ids)) {
        d.state = 'dropped';
        cut(d);
      }
    },
    async stall(ids) {
      for (const d of select(ids)) {
        d.state = 'stalled';
        for (const socket of d.sockets) socket.pause();
      }
    },
    async resume(ids) {
      for (const d of select(ids)) {
        const wasStalled = d.state === 'stalled';
        d.state = 'up';
        if (!wasStalled) continue;
        const held = [...d.held];
        d.held.clear();
        for (const socket of d.sockets) if (!held.includes(socket)) socket.resume();
        for (const socket of held) serve(d, socket);
      }
    },
    async restart(ids) {
      const chosen = select(ids);
      for (const d of chosen) {
        d.state = 'up';
        cut(d);
      }
      await inBatches(chosen, async (d) => {
        await closeListener(d);
        await listen(d, true);
      });
    },
    running(id) {
      return select([id])[0]!.running();
    },
    stats() {
      let sessions = 0;
      let dropped = 0;
      let stalled = 0;
      for (const d of played.values()) {
        sessions += d.sockets.size;
        if (d.state === 'dropped') dropped++;
        if (d.state === 'stalled') stalled++;
      }
      return {
        devices: played.size,
        netconf: specs.filter((s) => s.kind === 'netconf').length,
        cli: specs.filter((s) => s.kind === 'cli').length,
        sessions,
        dropped,
        stalled,
        rssBytes: process.memoryUsage.rss(),
        cpuSeconds: cpuSeconds(),
      };
    },
    async close() {
      for (const d of played.values()) {
        d.state = 'dropped';
        cut(d);
      }
      await Promise.all([...played.values()].map(closeListener));
    },
  };
}
