/**
 * BGP of a network instance (`protocol=BGP,default`): `bgp/global/config` (as, router-id) is FRR's
 * `router bgp AS [vrf NAME]` with `bgp router-id`; each `bgp/neighbors/neighbor` is `neighbor X remote-as
 * AS|internal`, `neighbor X description`, `neighbor X shutdown` inside that block. Configuration comes from
 * the running config; state from `show bgp vrf all summary json` and `show bgp vrf all neighbors json`.
 * A neighbor's commands need its instance's AS, which its writer finds in the whole document.
 */
import {
  renderInstancePath,
  type Handler,
  type HandlerContext,
  type InstancePath,
  type JsonObject,
  type Keys,
  type WriterContext,
} from '@rosetta/sdk';
import { child, cliText, cliWord, flag, isObject, num, PROTOCOLS, protocolIn, protocolKind, text } from './model';
import { DEFAULT_VRF, runningConfig, type BgpConfig, type NeighborConfig } from './running-config';
import { parsedJson } from './show-json';

export const BGP = `${PROTOCOLS}/bgp`;
const SUMMARY = 'show bgp vrf all summary json';
const NEIGHBORS = 'show bgp vrf all neighbors json';

function isBgp(keys: readonly Keys[]): boolean {
  return protocolKind(keys[1]?.['identifier']) === 'BGP';
}

async function instance(ctx: HandlerContext): Promise<BgpConfig | undefined> {
  if (!isBgp(ctx.keys)) return undefined;
  return (await runningConfig(ctx)).bgp.get(ctx.keys[0]!['name']!);
}

/** A JSON object from a show command, or {} (no BGP running prints nothing or `{}`). */
async function showJson({ session, memo }: HandlerContext, command: string): Promise<JsonObject> {
  const out = await session.exec(command);
  if (out.trim() === '') return {};
  const parsed = parsedJson(memo, command, out);
  return isObject(parsed) ? parsed : {};
}

/** FRR's FSM state names (`Active`, `Idle (Admin)`, `OpenSent`) -> the model's enumeration. */
const SESSION_STATES: Record<string, string> = {
  idle: 'IDLE',
  connect: 'CONNECT',
  active: 'ACTIVE',
  opensent: 'OPENSENT',
  openconfirm: 'OPENCONFIRM',
  established: 'ESTABLISHED',
};

function neighborJson(n: NeighborConfig): JsonObject {
  const out: JsonObject = { 'neighbor-address': n.address, enabled: !n.shutdown };
  if (n.peerAs !== undefined) out['peer-as'] = n.peerAs;
  if (n.description !== undefined) out['description'] = n.description;
  return out;
}

// ---- writers -------------------------------------------------------------------------------------

/** `router bgp AS` or `router bgp AS vrf NAME`. */
export function routerBgp(as: number, vrf: string): string {
  return vrf === DEFAULT_VRF ? `router bgp ${as}` : `router bgp ${as} vrf ${cliWord(vrf, 'network instance name')}`;
}

/** The AS of the BGP instance on the path, from a whole document. */
function asIn(doc: JsonObject, keys: readonly Keys[]): number | undefined {
  return num(child(child(child(protocolIn(doc, keys), 'bgp'), 'global'), 'config'), 'as');
}

/** The AS, or an error naming the node written (its path's text written only then). */
function requireAs(as: number | undefined, where: InstancePath): number {
  if (as === undefined) throw new Error(`${renderInstancePath(where)}: the BGP instance needs global/config/as`);
  if (!Number.isInteger(as) || as < 1 || as > 4294967295)
    throw new Error(`${renderInstancePath(where)}: as ${as} is outside 1..4294967295`);
  return as;
}

interface Neighbor {
  peerAs?: number;
  description?: string;
  enabled: boolean;
}

function neighborOf(entry: JsonObject): Neighbor {
  const config = child(entry, 'config');
  const peerAs = num(config, 'peer-as');
  const description = text(config, 'description');
  return {
    enabled: flag(config, 'enabled', true),
    ...(peerAs !== undefined ? { peerAs } : {}),
    ...(description !== undefined ? { description } : {}),
  };
}

/** Lines inside `router bgp` taking neighbor `address` from `was` (undefined: absent) to `now`. */
function neighborLines(address: string, was: Neighbor | undefined, now: Neighbor): string[] {
  const n = ` neighbor ${cliWord(address, 'neighbor-address')}`;
  const out: string[] = [];
  // remote-as first: FRR refuses any other neighbor command before it
  if (!was || was.peerAs !== now.peerAs) out.push(`${n} remote-as ${now.peerAs ?? 'internal'}`);
  if (now.description !== undefined && now.description !== was?.description)
    out.push(`${n} description ${cliText(now.description, 'description')}`);
  if (now.description === undefined && was?.description !== undefined) out.push(`${n.replace('neighbor', 'no neighbor')} description`);
  if ((was?.enabled ?? true) !== now.enabled) out.push(now.enabled ? `${n.replace('neighbor', 'no neighbor')} shutdown` : `${n} shutdown`);
  return out;
}

function inRouter(as: number, vrf: string, body: readonly string[]): string[] {
  return body.length === 0 ? [] : [routerBgp(as, vrf), ...body, 'exit'];
}

function neighborAddress(ctx: WriterContext, entry: JsonObject): string {
  const named = text(child(entry, 'config'), 'neighbor-address');
  const key = ctx.key['neighbor-address']!;
  if (named !== undefined && named !== key) throw new Error(`config/neighbor-address ${named} differs from the key ${key}`);
  return key;
}

export const bgpPaths: Record<string, Handler> = {
  [`${BGP}/global`]: {
    async readConfig(ctx) {
      const bgp = await instance(ctx);
      if (!bgp) return undefined;
      return { config: { as: bgp.as, ...(bgp.routerId !== undefined ? { 'router-id': bgp.routerId } : {}) } };
    },
    async readState(ctx) {
      const { keys } = ctx;
      if (!isBgp(keys)) return undefined;
      const vrf = keys[0]!['name']!;
      const summary = child(child(await showJson(ctx, SUMMARY), vrf), 'ipv4Unicast');
      // an instance without neighbors has an empty summary; its own view still names AS and router id
      const facts =
        num(summary, 'as') !== undefined
          ? { as: num(summary, 'as'), id: text(summary, 'routerId') }
          : await (async () => {
              const own = await showJson(ctx, `show bgp vrf ${vrf} json`);
              return { as: num(own, 'localAS'), id: text(own, 'routerId') };
            })();
      if (facts.as === undefined) return undefined;
      return { state: { as: facts.as, ...(facts.id !== undefined && facts.id !== '0.0.0.0' ? { 'router-id': facts.id } : {}) } };
    },
    write: {
      create(after, { keys, path }) {
        const config = child(after, 'config');
        const as = requireAs(num(config, 'as'), path);
        const id = text(config, 'router-id');
        return [routerBgp(as, keys[0]!['name']!), ...(id !== undefined ? [` bgp router-id ${cliWord(id, 'router-id')}`] : []), 'exit'];
      },
      update(before, after, { keys, path }) {
        const was = child(before, 'config');
        const now = child(after, 'config');
        const as = requireAs(num(now, 'as'), path);
        if (num(was, 'as') !== as)
          throw new Error(
            `${renderInstancePath(path)}: the AS of a BGP instance cannot change (${num(was, 'as')} -> ${as}); delete the protocol and create it again`,
          );
        const [oldId, newId] = [text(was, 'router-id'), text(now, 'router-id')];
        if (oldId === newId) return [];
        return inRouter(as, keys[0]!['name']!, [
          newId !== undefined ? ` bgp router-id ${cliWord(newId, 'router-id')}` : ' no bgp router-id',
        ]);
      },
      delete(before, { keys, path }) {
        return [`no ${routerBgp(requireAs(num(child(before, 'config'), 'as'), path), keys[0]!['name']!)}`];
      },
    },
  },

  [`${BGP}/neighbors/neighbor`]: {
    keys: ['neighbor-address'],
    async list(ctx) {
      const { keys, content } = ctx;
      const names = new Set((await instance(ctx))?.neighbors.map((n) => n.address) ?? []);
      if (content !== 'config' && isBgp(keys)) {
        for (const name of Object.keys(child(await showJson(ctx, NEIGHBORS), keys[0]!['name']!)))
          if (/^[\d.]+$/.test(name)) names.add(name);
      }
      return [...names].map((a) => ({ 'neighbor-address': a }));
    },
    async readConfig(ctx) {
      const { key } = ctx;
      const n = (await instance(ctx))?.neighbors.find((x) => x.address === key['neighbor-address']);
      return n ? { 'neighbor-address': n.address, config: neighborJson(n) } : undefined;
    },
    async readState(ctx) {
      const { keys, key } = ctx;
      if (!isBgp(keys)) return undefined;
      const address = key['neighbor-address']!;
      const facts = child(child(await showJson(ctx, NEIGHBORS), keys[0]!['name']!), address);
      if (Object.keys(facts).length === 0) return undefined;
      const state: JsonObject = { 'neighbor-address': address, enabled: facts['adminShutDown'] !== true };
      const remote = num(facts, 'remoteAs');
      // an internal neighbor reports remoteAs 0 until it connects: its AS is the local one
      const peerAs = remote ? remote : facts['nbrInternalLink'] === true ? num(facts, 'localAs') : undefined;
      if (peerAs) state['peer-as'] = peerAs;
      if (typeof facts['nbrDesc'] === 'string') state['description'] = facts['nbrDesc'];
      const fsm = typeof facts['bgpState'] === 'string' ? SESSION_STATES[facts['bgpState'].toLowerCase()] : undefined;
      if (fsm) state['session-state'] = fsm;
      return { 'neighbor-address': address, state };
    },
    write: {
      create(after, ctx) {
        const as = requireAs(asIn(ctx.documents.after, ctx.keys), ctx.path);
        return inRouter(as, ctx.keys[0]!['name']!, neighborLines(neighborAddress(ctx, after), undefined, neighborOf(after)));
      },
      update(before, after, ctx) {
        const as = requireAs(asIn(ctx.documents.after, ctx.keys), ctx.path);
        return inRouter(as, ctx.keys[0]!['name']!, neighborLines(neighborAddress(ctx, after), neighborOf(before), neighborOf(after)));
      },
      delete(before, ctx) {
        const as = requireAs(asIn(ctx.documents.before, ctx.keys), ctx.path);
        return inRouter(as, ctx.keys[0]!['name']!, [` no neighbor ${cliWord(neighborAddress(ctx, before), 'neighbor-address')}`]);
      },
    },
  },
};
