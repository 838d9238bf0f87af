/**
 * FRR's `show running-config`, read into the few facts the units serve: interfaces (description,
 * shutdown, IPv4 addresses), static routes per VRF, and BGP instances with their neighbors. FRR has no
 * JSON form of its configuration, so this is the one place that reads configuration text. Lines it does
 * not know (other protocols, route maps, `ip route` forms with labels or tables) are left out, never
 * guessed at.
 */
import { parseBlocks, type Block, type HandlerContext } from '@rosetta/sdk';

/** The command that prints the configuration. */
export const RUNNING_CONFIG = 'show running-config';

/** The name FRR and OpenConfig both give the main routing table. */
export const DEFAULT_VRF = 'default';

export interface InterfaceConfig {
  readonly name: string;
  readonly description?: string;
  readonly shutdown: boolean;
  /** `A.B.C.D/L` as configured, in configuration order. */
  readonly addresses: readonly { ip: string; prefixLength: number }[];
}

/**
 * One `ip route PREFIX NEXT-HOP [tag TAG] [DISTANCE] [nexthop-vrf VRF] [onlink]` line, the next hop a
 * gateway, an interface, both, `Null0`/`blackhole` or `reject` (FRR prints them in this order).
 */
export interface StaticRouteLine {
  readonly prefix: string;
  /**
   * An IPv4 address, `DROP` for Null0 / blackhole or `REJECT` for reject; absent for a route through an
   * interface alone.
   */
  readonly nextHop?: string;
  /** The interface the route goes out of. */
  readonly interface?: string;
  /** The route tag (1..4294967295); absent when the line has none. */
  readonly tag?: number;
  /** Absent when the line gives none (FRR's default, 1). */
  readonly distance?: number;
  /** The VRF the gateway is looked up in, or the interface is in (`nexthop-vrf`); absent: the route's own. */
  readonly nextHopInstance?: string;
  /** `onlink`: the gateway is taken as attached to the interface (FRR prints it only with both). */
  readonly onlink?: true;
}

export interface NeighborConfig {
  readonly address: string;
  /** Absent for `remote-as internal` (and `external`, which the model cannot say). */
  readonly peerAs?: number;
  readonly description?: string;
  readonly shutdown: boolean;
}

export interface BgpConfig {
  readonly as: number;
  readonly routerId?: string;
  readonly neighbors: readonly NeighborConfig[];
}

export interface FrrConfig {
  readonly interfaces: ReadonlyMap<string, InterfaceConfig>;
  /** VRF name (`default` for the main table) -> its static route lines, in configuration order. */
  readonly staticRoutes: ReadonlyMap<string, readonly StaticRouteLine[]>;
  /** VRFs with a `vrf NAME` block. */
  readonly vrfs: ReadonlySet<string>;
  /** VRF name (`default` for `router bgp AS` alone) -> its BGP instance. */
  readonly bgp: ReadonlyMap<string, BgpConfig>;
}

const IPV4 = String.raw`(?:\d{1,3}\.){3}\d{1,3}`;
/** Words of FRR's other `ip route` forms, which an interface name in a route line is not. */
export const ROUTE_KEYWORDS = [
  'reject',
  'tag',
  'label',
  'table',
  'nexthop-vrf',
  'onlink',
  'color',
  'segments',
  'bfd',
  'vrf',
  'Null0',
  'blackhole',
];
// an interface name: a letter first (not the distance), and none of those words
const IFNAME = String.raw`(?!(?:${ROUTE_KEYWORDS.join('|')})\b)[A-Za-z][\w.:/-]*`;
const ROUTE = new RegExp(
  String.raw`^ip route (${IPV4}/\d{1,2}) (?:(Null0|blackhole)|(reject)|(${IPV4})(?: (${IFNAME}))?|(${IFNAME}))(?: tag (\d{1,10}))?(?: (\d{1,3}))?(?: nexthop-vrf (\S+))?(?: (onlink))?$`,
);
const ADDRESS = new RegExp(String.raw`^ip address (${IPV4})/(\d{1,2})$`);
const NEIGHBOR = new RegExp(`^neighbor (${IPV4}) (.*)$`);

/**
 * The device's running configuration, parsed once per request: every reader of a request asks the
 * (cached) session for the same text, and the parse is held in the request's memo.
 */
export async function runningConfig({ session, memo }: Pick<HandlerContext, 'session' | 'memo'>): Promise<FrrConfig> {
  return memo.derive(`parsed ${RUNNING_CONFIG}`, await session.exec(RUNNING_CONFIG), parseRunningConfig);
}

/** Parses running-config output (never throws: unknown text yields empty facts). */
export function parseRunningConfig(text: string): FrrConfig {
  const interfaces = new Map<string, InterfaceConfig>();
  const staticRoutes = new Map<string, StaticRouteLine[]>();
  const vrfs = new Set<string>();
  const bgp = new Map<string, BgpConfig>();
  const routesOf = (vrf: string) => staticRoutes.get(vrf) ?? staticRoutes.set(vrf, []).get(vrf)!;
  for (const block of parseBlocks(text)) {
    let m: RegExpExecArray | null;
    if ((m = ROUTE.exec(block.text))) addRoute(routesOf(DEFAULT_VRF), m);
    else if ((m = /^vrf (\S+)$/.exec(block.text))) {
      vrfs.add(m[1]!);
      for (const child of block.children) {
        const r = ROUTE.exec(child.text);
        if (r) addRoute(routesOf(m[1]!), r);
      }
    } else if ((m = /^interface (\S+)(?: vrf \S+)?$/.exec(block.text))) interfaces.set(m[1]!, interfaceOf(m[1]!, block));
    else if ((m = /^router bgp (\d+)(?: vrf (\S+))?$/.exec(block.text))) bgp.set(m[2] ?? DEFAULT_VRF, bgpOf(Number(m[1]), block.children));
  }
  return { interfaces, staticRoutes, vrfs, bgp };
}

function addRoute(routes: StaticRouteLine[], m: RegExpExecArray): void {
  const nextHop = m[2] !== undefined ? 'DROP' : m[3] !== undefined ? 'REJECT' : m[4];
  const iface = m[5] ?? m[6];
  // a discard has no table to be looked up in: FRR prints no such line, and the model cannot say it
  if (m[9] !== undefined && nextHop !== undefined && m[4] === undefined) return;
  // onlink binds a gateway to an interface; FRR prints it with both only (`GATEWAY onlink` names an interface "onlink")
  if (m[10] !== undefined && (m[4] === undefined || m[5] === undefined)) return;
  routes.push({
    prefix: m[1]!,
    ...(nextHop !== undefined ? { nextHop } : {}),
    ...(iface !== undefined ? { interface: iface } : {}),
    ...(m[7] !== undefined ? { tag: Number(m[7]) } : {}),
    ...(m[8] !== undefined ? { distance: Number(m[8]) } : {}),
    ...(m[9] !== undefined ? { nextHopInstance: m[9] } : {}),
    ...(m[10] !== undefined ? { onlink: true as const } : {}),
  });
}

function interfaceOf(name: string, block: Block): InterfaceConfig {
  let description: string | undefined;
  let shutdown = false;
  const addresses: { ip: string; prefixLength: number }[] = [];
  for (const child of block.children) {
    const a = ADDRESS.exec(child.text);
    if (a) addresses.push({ ip: a[1]!, prefixLength: Number(a[2]) });
    else if (child.text.startsWith('description ')) description = child.text.slice('description '.length);
    else if (child.text === 'shutdown') shutdown = true;
  }
  return { name, shutdown, addresses, ...(description !== undefined ? { description } : {}) };
}

function bgpOf(as: number, children: readonly Block[]): BgpConfig {
  let routerId: string | undefined;
  const neighbors = new Map<string, { address: string; peerAs?: number; description?: string; shutdown: boolean }>();
  for (const child of children) {
    const id = new RegExp(`^bgp router-id (${IPV4})$`).exec(child.text);
    if (id) {
      routerId = id[1];
      continue;
    }
    const n = NEIGHBOR.exec(child.text);
    if (!n) continue;
    const address = n[1]!;
    const rest = n[2]!;
    const held = neighbors.get(address);
    const remote = /^remote-as (\d+|internal|external)$/.exec(rest);
    if (remote) {
      // a neighbor starts with remote-as; lines for one not yet started are other features (peer groups)
      neighbors.set(address, { address, shutdown: false, ...(/^\d+$/.test(remote[1]!) ? { peerAs: Number(remote[1]) } : {}) });
    } else if (held && rest.startsWith('description ')) held.description = rest.slice('description '.length);
    else if (held && rest === 'shutdown') held.shutdown = true;
  }
  return { as, neighbors: [...neighbors.values()], ...(routerId !== undefined ? { routerId } : {}) };
}

/** VRF names `show vrf` lists (`vrf red inactive (configured)`, `vrf blue id 5 table 1001 ...`). */
export function parseShowVrf(text: string): string[] {
  return [...text.matchAll(/^vrf (\S+) /gm)].map((m) => m[1]!);
}
