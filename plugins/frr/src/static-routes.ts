/**
 * Static routes of a network instance (`protocol=STATIC,static`): each `static[prefix]` with its
 * `next-hops/next-hop[index]` is a set of FRR lines `ip route PREFIX NEXT-HOP [tag TAG] [DISTANCE]
 * [nexthop-vrf VRF]` (the gateway, DROP or REJECT is `config/next-hop`, the interface
 * `interface-ref/config/interface`, the VRF the gateway or interface is in `config/nh-network-instance`,
 * FRR's `onlink` the augmented `config/rosetta-frr-extensions:onlink`),
 * at the top level for the default instance and inside `vrf NAME` ... `exit-vrf` for a VRF. The route's
 * `config/set-tag` goes on each of its lines (FRR tags lines; OpenConfig tags the route), and reads back
 * when all its lines carry the same tag; when they carry different ones (FRR keeps one per distance, so
 * only lines of different distances can), each next hop reads with its line's tag as the augmented
 * `config/rosetta-frr-extensions:tag`, which a write puts on that line. The route's writer owns its next hops and compares lines, not
 * indexes: FRR keeps no index, so a next hop read back is indexed by its value, and a client's own indexes
 * cost no commands when the lines are the same.
 */
import type { Handler, HandlerContext, JsonObject, Keys } from '@rosetta/sdk';
import { child, cliWord, isObject, num, PROTOCOLS, protocolKind, text } from './model';
import { DEFAULT_VRF, ROUTE_KEYWORDS, runningConfig, type StaticRouteLine } from './running-config';

export const STATIC_ROUTES = `${PROTOCOLS}/static-routes/static`;

/** A next hop's `onlink` and own tag (rosetta-frr-extensions augments OpenConfig's next-hop config and state with them). */
const ONLINK = 'rosetta-frr-extensions:onlink';
const HOP_TAG = 'rosetta-frr-extensions:tag';

/** Whether a route's lines carry different tags (or some carry none): its next hops then read with their own. */
function tagsDiffer(lines: readonly StaticRouteLine[]): boolean {
  return lines.some((l) => l.tag !== lines[0]!.tag);
}

async function routesOf(ctx: HandlerContext, vrf: string): Promise<readonly StaticRouteLine[]> {
  return (await runningConfig(ctx)).staticRoutes.get(vrf) ?? [];
}

/**
 * The lines of one prefix in a VRF, in configuration order. A VRF's lines are grouped by prefix once per
 * request (the next-hop readers run once per route: filtering every line for each would make reading
 * 10,000 routes quadratic).
 */
async function routeLinesOf(ctx: HandlerContext, vrf: string, prefix: string | undefined): Promise<readonly StaticRouteLine[]> {
  const byPrefix = ctx.memo.derive(`static routes of VRF ${vrf} by prefix`, await routesOf(ctx, vrf), byPrefixOf);
  return (prefix !== undefined ? byPrefix.get(prefix) : undefined) ?? [];
}

function byPrefixOf(lines: readonly StaticRouteLine[]): ReadonlyMap<string, readonly StaticRouteLine[]> {
  const grouped = new Map<string, StaticRouteLine[]>();
  for (const line of lines) {
    const held = grouped.get(line.prefix);
    if (held) held.push(line);
    else grouped.set(line.prefix, [line]);
  }
  return grouped;
}

/** Whether the protocol entry on the path is this unit's static routing. */
function isStatic(keys: readonly Keys[]): boolean {
  return protocolKind(keys[1]?.['identifier']) === 'STATIC';
}

/** A route's own leaves: its prefix, and the tag when every line of it carries the same one. */
async function routeConfig(ctx: HandlerContext, vrf: string, prefix: string): Promise<JsonObject> {
  const tags = new Set((await routeLinesOf(ctx, vrf, prefix)).map((l) => l.tag));
  const [tag] = tags;
  return tags.size === 1 && tag !== undefined ? { prefix, 'set-tag': tag } : { prefix };
}

/** What a next hop goes to: its gateway, its interface, or `GATEWAY+INTERFACE`; then `%VRF` when that is in another VRF. */
function nextHopValue(line: StaticRouteLine): string {
  const via =
    line.interface === undefined ? line.nextHop! : line.nextHop === undefined ? line.interface : `${line.nextHop}+${line.interface}`;
  return line.nextHopInstance === undefined ? via : `${via}%${line.nextHopInstance}`;
}

/** The index a next hop reads back with: its value, plus `@distance` when the same value repeats. */
export function nextHopIndexes(lines: readonly StaticRouteLine[]): Array<{ index: string; line: StaticRouteLine }> {
  const seen = new Set<string>();
  return lines.map((line) => {
    const value = nextHopValue(line);
    const index = seen.has(value) ? `${value}@${line.distance ?? 1}` : value;
    seen.add(value);
    return { index, line };
  });
}

/**
 * A next hop entry as read: `config` or `state` (`as`) with its interface reference beside it; with its
 * line's tag when `ownTag` (the route's lines carry different tags).
 */
function nextHopJson(index: string, line: StaticRouteLine, as: 'config' | 'state', ownTag: boolean): JsonObject {
  const hop: JsonObject = {
    index,
    [as]: {
      index,
      ...(line.nextHop !== undefined ? { 'next-hop': line.nextHop } : {}),
      ...(line.distance !== undefined ? { metric: line.distance } : {}),
      ...(line.nextHopInstance !== undefined ? { 'nh-network-instance': line.nextHopInstance } : {}),
      ...(line.onlink ? { [ONLINK]: true } : {}),
      ...(ownTag && line.tag !== undefined ? { [HOP_TAG]: line.tag } : {}),
    },
  };
  if (line.interface !== undefined) hop['interface-ref'] = { [as]: { interface: line.interface } };
  return hop;
}

// ---- writers -------------------------------------------------------------------------------------

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The next hops that discard traffic, as FRR writes them: silently (DROP) or with an ICMP unreachable (REJECT). */
const DISCARDS: ReadonlyMap<string, string> = new Map([
  ['DROP', 'Null0'],
  ['REJECT', 'reject'],
]);

/** Refuses a prefix the device would store differently (host bits set), so what is written reads back. */
function canonicalPrefix(prefix: string): string {
  const m = /^([\d.]+)\/(\d{1,2})$/.exec(prefix);
  const octets = m ? IPV4.exec(m[1]!) : null;
  const length = m ? Number(m[2]) : NaN;
  if (!m || !octets || length > 32 || octets.slice(1).some((o) => Number(o) > 255))
    throw new Error(`${JSON.stringify(prefix)} is not an IPv4 prefix`);
  const value = octets.slice(1).reduce((acc, o) => acc * 256 + Number(o), 0);
  const hostBits = 2 ** (32 - length);
  if (value % hostBits !== 0) {
    const network = value - (value % hostBits);
    const dotted = [24, 16, 8, 0].map((s) => Math.floor(network / 2 ** s) % 256).join('.');
    throw new Error(`prefix ${prefix} has host bits set; the device would store ${dotted}/${length}`);
  }
  return prefix;
}

/** A route tag member (1..4294967295), undefined when absent; `what` names it, with its value, in the refusal. */
function tagOf(config: JsonObject, member: string, what: (value: string) => string): number | undefined {
  const given = config[member];
  if (given === undefined) return undefined;
  const tag = num(config, member);
  if (tag === undefined || tag < 1 || tag > 4294967295) throw new Error(`${what(JSON.stringify(given))} is outside 1..4294967295`);
  return tag;
}

/**
 * The `ip route` line bodies (without `ip route`/`no ip route`) a static entry of instance `vrf` stands
 * for.
 */
export function routeLines(staticEntry: JsonObject, key: Keys, vrf: string): string[] {
  const entryConfig = child(staticEntry, 'config');
  const prefix = canonicalPrefix(key['prefix'] ?? text(entryConfig, 'prefix') ?? '');
  const tag = tagOf(entryConfig, 'set-tag', (v) => `set-tag ${v} of ${prefix}`);
  const tagged = tag === undefined ? '' : ` tag ${tag}`;
  const hops = child(staticEntry, 'next-hops')['next-hop'];
  const out = new Set<string>();
  const tagByDistance = new Map<number, { tag: string; hop: string }>();
  for (const hop of Array.isArray(hops) ? hops.filter(isObject) : []) {
    const config = child(hop, 'config');
    const nh = text(config, 'next-hop');
    const iface = text(child(child(hop, 'interface-ref'), 'config'), 'interface');
    const which = JSON.stringify(hop['index']);
    if (nh === undefined && iface === undefined)
      throw new Error(`next hop ${which} of ${prefix} needs config/next-hop, interface-ref/config/interface or both`);
    const discard = nh === undefined ? undefined : DISCARDS.get(nh);
    const target = nh === undefined ? undefined : (discard ?? cliWord(nh, 'next-hop'));
    if (target !== undefined && discard === undefined && !IPV4.test(target))
      throw new Error(`next-hop ${JSON.stringify(nh)} is neither an IPv4 address nor DROP or REJECT`);
    if (discard !== undefined && iface !== undefined)
      throw new Error(`next hop ${which} of ${prefix}: ${nh} goes out of no interface (interface ${JSON.stringify(iface)} given)`);
    if (iface !== undefined && ROUTE_KEYWORDS.includes(iface))
      throw new Error(`interface ${JSON.stringify(iface)} of ${prefix} is a word of FRR's route syntax, not an interface`);
    const via = [target, iface === undefined ? undefined : cliWord(iface, 'interface')].filter((w) => w !== undefined).join(' ');
    const metric = num(config, 'metric');
    if (metric !== undefined && (metric < 1 || metric > 255)) throw new Error(`metric ${metric} of ${prefix} via ${via} is outside 1..255`);
    const lookup = text(config, 'nh-network-instance');
    if (lookup !== undefined && discard !== undefined)
      throw new Error(
        `next hop ${which} of ${prefix}: ${nh} is looked up in no network instance; nh-network-instance needs a gateway address or an interface`,
      );
    // the route's own instance is where a gateway is looked up anyway: written, it would not read back
    if (lookup === vrf)
      throw new Error(
        `next hop ${which} of ${prefix}: nh-network-instance ${JSON.stringify(lookup)} is the route's own network instance; leave it out`,
      );
    const ownTag = tagOf(config, HOP_TAG, (v) => `next hop ${which} of ${prefix}: tag ${v}`);
    const lineTag = ownTag === undefined ? tagged : ` tag ${ownTag}`;
    // FRR keeps one tag per route and distance (a later line's tag is given to every line of its distance)
    const distance = metric ?? 1;
    const tagOfDistance = tagByDistance.get(distance);
    if (tagOfDistance !== undefined && tagOfDistance.tag !== lineTag) {
      throw new Error(
        `next hops ${tagOfDistance.hop} and ${which} of ${prefix} have metric ${distance} and different tags; FRR keeps one tag per route and metric (give them one tag, or different metrics)`,
      );
    }
    tagByDistance.set(distance, { tag: lineTag, hop: which });
    const onlink = config[ONLINK];
    if (onlink !== undefined && typeof onlink !== 'boolean')
      throw new Error(`next hop ${which} of ${prefix}: onlink must be true or false, not ${JSON.stringify(onlink)}`);
    // FRR takes `GATEWAY onlink` for a next hop through an interface named "onlink"
    if (onlink === true && (target === undefined || discard !== undefined || iface === undefined))
      throw new Error(
        `next hop ${which} of ${prefix}: onlink binds a gateway address to an interface; give config/next-hop (an address) and interface-ref/config/interface`,
      );
    // FRR's order: tag, distance (1, its default, is never shown: writing it would not read back), nexthop-vrf, onlink
    out.add(
      `${prefix} ${via}${lineTag}${metric !== undefined && metric !== 1 ? ` ${metric}` : ''}${lookup !== undefined ? ` nexthop-vrf ${cliWord(lookup, 'nh-network-instance')}` : ''}${onlink === true ? ' onlink' : ''}`,
    );
  }
  return [...out];
}

/** Route lines in the configuration context of a network instance. */
export function inInstance(vrf: string, lines: readonly string[]): string[] {
  if (lines.length === 0) return [];
  return vrf === DEFAULT_VRF ? [...lines] : [`vrf ${cliWord(vrf, 'network instance name')}`, ...lines.map((l) => ` ${l}`), 'exit-vrf'];
}

const add = (body: string) => `ip route ${body}`;
const remove = (body: string) => `no ip route ${body}`;

export const staticRoutePaths: Record<string, Handler> = {
  [STATIC_ROUTES]: {
    keys: ['prefix'],
    async list(ctx) {
      const { keys } = ctx;
      if (!isStatic(keys)) return [];
      return [...new Set((await routesOf(ctx, keys[0]!['name']!)).map((r) => r.prefix))].map((prefix) => ({ prefix }));
    },
    async readConfig(ctx) {
      const { keys, key } = ctx;
      return { prefix: key['prefix']!, config: await routeConfig(ctx, keys[0]!['name']!, key['prefix']!) };
    },
    async readState(ctx) {
      const { keys, key } = ctx;
      return { prefix: key['prefix']!, state: await routeConfig(ctx, keys[0]!['name']!, key['prefix']!) };
    },
    write: {
      create: (after, { keys, key }) => inInstance(keys[0]!['name']!, routeLines(after, key, keys[0]!['name']!).map(add)),
      update(before, after, { keys, key }) {
        const vrf = keys[0]!['name']!;
        const was = routeLines(before, key, vrf);
        const now = routeLines(after, key, vrf);
        return inInstance(vrf, [...was.filter((l) => !now.includes(l)).map(remove), ...now.filter((l) => !was.includes(l)).map(add)]);
      },
      delete: (before, { keys, key }) => inInstance(keys[0]!['name']!, routeLines(before, key, keys[0]!['name']!).map(remove)),
    },
  },

  [`${STATIC_ROUTES}/next-hops/next-hop`]: {
    keys: ['index'],
    async list(ctx) {
      const { keys } = ctx;
      const lines = await routeLinesOf(ctx, keys[0]!['name']!, keys[2]!['prefix']);
      return nextHopIndexes(lines).map(({ index }) => ({ index }));
    },
    async readConfig(ctx) {
      const { keys, key } = ctx;
      const lines = await routeLinesOf(ctx, keys[0]!['name']!, keys[2]!['prefix']);
      const found = nextHopIndexes(lines).find((h) => h.index === key['index']);
      return found ? nextHopJson(found.index, found.line, 'config', tagsDiffer(lines)) : undefined;
    },
    // static routes have no state of their own in FRR's configuration model: the applied line is the state
    async readState(ctx) {
      const { keys, key } = ctx;
      const lines = await routeLinesOf(ctx, keys[0]!['name']!, keys[2]!['prefix']);
      const found = nextHopIndexes(lines).find((h) => h.index === key['index']);
      return found ? nextHopJson(found.index, found.line, 'state', tagsDiffer(lines)) : undefined;
    },
  },
};
