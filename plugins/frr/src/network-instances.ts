/**
 * Network instances (`rosetta-openconfig-network-instance`): `default` is FRR's main table, any other
 * name is an FRR VRF (`vrf NAME`). An instance lists the protocols FRR runs in it: STATIC (named `static`)
 * when it has static routes, BGP (named `default`) when it has a `router bgp` instance. Deleting an
 * instance or a protocol tears down what is configured under it with the fewest commands (`no router bgp`,
 * `no vrf`, which also drops the VRF's static routes); the engine skips the children's own deletes.
 */
import type { Handler, HandlerContext, JsonObject, Keys, WriterContext } from '@rosetta/sdk';
import { bgpPaths, routerBgp } from './bgp';
import {
  child,
  cliWord,
  instanceIn,
  NETWORK_INSTANCES,
  NI_MODULE,
  num,
  PROTOCOL_NAMES,
  protocolIdentity,
  protocolKind,
  protocolsOf,
  PROTOCOLS,
  text,
  type ProtocolKind,
} from './model';
import { DEFAULT_VRF, parseShowVrf, runningConfig } from './running-config';
import { inInstance, routeLines, staticRoutePaths } from './static-routes';

const SHOW_VRF = 'show vrf';

/** Every instance name: default, VRFs zebra knows (an empty `vrf` block is not printed), BGP VRFs. */
async function instanceNames(ctx: HandlerContext): Promise<string[]> {
  const config = await runningConfig(ctx);
  const names = new Set([DEFAULT_VRF, ...config.vrfs, ...config.staticRoutes.keys(), ...config.bgp.keys()]);
  for (const vrf of parseShowVrf(await ctx.session.exec(SHOW_VRF))) names.add(vrf);
  return [DEFAULT_VRF, ...[...names].filter((n) => n !== DEFAULT_VRF).sort()];
}

function instanceJson(name: string): JsonObject {
  return { name, type: `${NI_MODULE}:${name === DEFAULT_VRF ? 'DEFAULT_INSTANCE' : 'L3VRF'}` };
}

/** The protocols running in an instance. */
async function protocolsIn(ctx: HandlerContext, vrf: string): Promise<ProtocolKind[]> {
  const config = await runningConfig(ctx);
  const kinds: ProtocolKind[] = [];
  if ((config.staticRoutes.get(vrf)?.length ?? 0) > 0) kinds.push('STATIC');
  if (config.bgp.has(vrf)) kinds.push('BGP');
  return kinds;
}

function protocolJson(kind: ProtocolKind): JsonObject {
  return { identifier: protocolIdentity(kind), name: PROTOCOL_NAMES[kind] };
}

// ---- writers -------------------------------------------------------------------------------------

/** Commands removing one protocol entry of an instance with everything under it. */
function protocolTeardown(vrf: string, protocol: JsonObject): string[] {
  const kind = protocolKind(text(protocol, 'identifier') ?? text(child(protocol, 'config'), 'identifier'));
  if (kind === 'BGP') {
    const as = num(child(child(child(protocol, 'bgp'), 'global'), 'config'), 'as');
    return as === undefined ? [] : [`no ${routerBgp(as, vrf)}`];
  }
  if (kind === 'STATIC') {
    const routes = child(protocol, 'static-routes')['static'];
    const bodies = (Array.isArray(routes) ? routes : []).flatMap((r) => {
      const entry = r as JsonObject;
      return routeLines(entry, { prefix: text(entry, 'prefix') ?? text(child(entry, 'config'), 'prefix') ?? '' }, vrf);
    });
    return inInstance(
      vrf,
      bodies.map((b) => `no ip route ${b}`),
    );
  }
  return [];
}

function checkProtocol(key: Keys): ProtocolKind {
  const kind = protocolKind(key['identifier']);
  if (!kind) throw new Error(`FRR translation covers the protocols STATIC and BGP, not ${key['identifier']}`);
  if (key['name'] !== PROTOCOL_NAMES[kind]) {
    throw new Error(
      `FRR runs one ${kind} instance per network instance: name it ${JSON.stringify(PROTOCOL_NAMES[kind])}, not ${JSON.stringify(key['name'])}`,
    );
  }
  return kind;
}

function checkInstance(ctx: WriterContext, entry: JsonObject): string {
  const name = ctx.key['name']!;
  const config = child(entry, 'config');
  const named = text(config, 'name');
  if (named !== undefined && named !== name)
    throw new Error(`config/name ${JSON.stringify(named)} differs from the key ${JSON.stringify(name)}`);
  const type = text(config, 'type')?.replace(/^.*:/, '');
  const expected = name === DEFAULT_VRF ? 'DEFAULT_INSTANCE' : 'L3VRF';
  if (type !== undefined && type !== expected) throw new Error(`network instance ${name} is of type ${expected} on FRR, not ${type}`);
  return cliWord(name, 'network instance name');
}

export const networkInstancePaths: Record<string, Handler> = {
  [NETWORK_INSTANCES]: {
    keys: ['name'],
    list: async (ctx) => (await instanceNames(ctx)).map((name) => ({ name })),
    readConfig: async ({ key }) => ({ name: key['name']!, config: instanceJson(key['name']!) }),
    readState: async ({ key }) => ({ name: key['name']!, state: instanceJson(key['name']!) }),
    write: {
      create(after, ctx) {
        const name = checkInstance(ctx, after);
        return name === DEFAULT_VRF ? [] : [`vrf ${name}`, 'exit-vrf'];
      },
      update(_before, after, ctx) {
        checkInstance(ctx, after);
        return [];
      },
      delete(before, ctx) {
        const name = checkInstance(ctx, before);
        const teardown = protocolsOf(instanceIn(ctx.documents.before, name))
          // `no vrf` drops the VRF's static routes itself
          .filter((p) => name === DEFAULT_VRF || protocolKind(text(p, 'identifier')) !== 'STATIC')
          .flatMap((p) => protocolTeardown(name, p));
        return name === DEFAULT_VRF ? teardown : [...teardown, `no vrf ${name}`];
      },
    },
  },

  [PROTOCOLS]: {
    keys: ['identifier', 'name'],
    async list(ctx) {
      const { keys } = ctx;
      return (await protocolsIn(ctx, keys[0]!['name']!)).map((kind) => protocolJson(kind) as Record<string, string>);
    },
    readConfig: async ({ key }) => {
      const kind = protocolKind(key['identifier']);
      return kind ? { ...protocolJson(kind), config: protocolJson(kind) } : undefined;
    },
    readState: async ({ key }) => {
      const kind = protocolKind(key['identifier']);
      return kind ? { ...protocolJson(kind), state: protocolJson(kind) } : undefined;
    },
    // a protocol entry itself sends nothing: its static routes and BGP instance carry the commands
    write: {
      create(_after, { key }) {
        checkProtocol(key);
        return [];
      },
      update(_before, _after, { key }) {
        checkProtocol(key);
        return [];
      },
      delete(_before, ctx) {
        checkProtocol(ctx.key);
        const instance = instanceIn(ctx.documents.before, ctx.keys[0]!['name']!);
        const whole = protocolsOf(instance).find(
          (p) => text(p, 'identifier') === ctx.key['identifier'] && text(p, 'name') === ctx.key['name'],
        );
        return whole ? protocolTeardown(ctx.keys[0]!['name']!, whole) : [];
      },
    },
  },

  ...staticRoutePaths,
  ...bgpPaths,
};
