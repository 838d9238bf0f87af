/**
 * Interfaces (`rosetta-openconfig-interfaces`): name, description and enabled (FRR's `shutdown`) from the
 * running configuration, state from `show interface json`, and the IPv4 addresses of subinterface 0 (FRR
 * has no subinterfaces; index 0 is the interface itself). Writers open `interface NAME`, change what
 * differs and `exit`; deleting an interface removes everything configured on it, after which FRR drops the
 * block (a kernel interface such as `lo` cannot be removed, only cleared).
 */
import { renderInstancePath, type Handler, type HandlerContext, type JsonObject, type Keys, type WriterContext } from '@rosetta/sdk';
import { child, cliText, cliWord, entry, flag, IF_MODULE, INTERFACES, isObject, num, text } from './model';
import { runningConfig, type InterfaceConfig } from './running-config';
import { parsedJson } from './show-json';

const SHOW_INTERFACES = 'show interface json';

async function configured(ctx: HandlerContext): Promise<ReadonlyMap<string, InterfaceConfig>> {
  return (await runningConfig(ctx)).interfaces;
}

/** `show interface json`: name -> facts, indexed once per request (every per-interface reader asks). */
async function facts({ session, memo }: HandlerContext): Promise<ReadonlyMap<string, JsonObject>> {
  const parsed = parsedJson(memo, SHOW_INTERFACES, await session.exec(SHOW_INTERFACES));
  return memo.derive('interface facts', parsed, factsByName);
}

function factsByName(parsed: unknown): ReadonlyMap<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  if (isObject(parsed)) for (const [name, v] of Object.entries(parsed)) if (isObject(v)) out.set(name, v);
  return out;
}

/** An address of `show interface json` (`"address":"10.0.0.1/32"`). */
function stateAddresses(f: JsonObject | undefined): { ip: string; prefixLength: number }[] {
  const list = f?.['ipAddresses'];
  if (!Array.isArray(list)) return [];
  const out: { ip: string; prefixLength: number }[] = [];
  for (const a of list) {
    const m = isObject(a) && typeof a['address'] === 'string' ? /^([\d.]+)\/(\d+)$/.exec(a['address']) : null;
    if (m) out.push({ ip: m[1]!, prefixLength: Number(m[2]) });
  }
  return out;
}

const OPER: Record<string, string> = { up: 'UP', down: 'DOWN' };

// ---- writers -------------------------------------------------------------------------------------

interface Settings {
  description?: string;
  enabled: boolean;
}

function settingsOf(config: JsonObject): Settings {
  const description = text(config, 'description');
  return { enabled: flag(config, 'enabled', true), ...(description !== undefined ? { description } : {}) };
}

/** Lines inside `interface NAME` that take `was` to `now`. */
function settingLines(was: Settings, now: Settings): string[] {
  const out: string[] = [];
  if (now.description !== undefined && now.description !== was.description)
    out.push(` description ${cliText(now.description, 'description')}`);
  if (now.description === undefined && was.description !== undefined) out.push(' no description');
  if (was.enabled !== now.enabled) out.push(now.enabled ? ' no shutdown' : ' shutdown');
  return out;
}

/** `interface NAME` ... `exit` around some lines, or nothing when there are none. */
function inInterface(name: string, body: readonly string[]): string[] {
  return body.length === 0 ? [] : [`interface ${cliWord(name, 'interface name')}`, ...body, 'exit'];
}

const UNCONFIGURED: Settings = { enabled: true };

/**
 * The configured addresses of a subinterface entry as `A.B.C.D/L` strings; `where` names the entry in an
 * error (called only then, so a write's path is written as text only when it is refused).
 */
function addressesOf(sub: JsonObject | undefined, where: () => string): string[] {
  const list = child(child(sub, 'ipv4'), 'addresses')['address'];
  if (!Array.isArray(list)) return [];
  return list.filter(isObject).map((a) => {
    const config = child(a, 'config');
    const ip = text(a, 'ip') ?? text(config, 'ip');
    const length = num(config, 'prefix-length');
    if (ip === undefined) throw new Error(`${where()}: an address needs ip`);
    if (length === undefined || length > 32) throw new Error(`${where()}: address ${ip} needs a prefix-length of 0..32`);
    return `${cliWord(ip, 'address')}/${length}`;
  });
}

function checkIndex(key: Keys): void {
  if (key['index'] !== '0')
    throw new Error(`FRR interfaces have no subinterfaces: only index 0 (the interface itself), not ${key['index']}`);
}

/** The whole interface entry (with its subinterfaces) in a document. */
function interfaceIn(doc: JsonObject, name: string): JsonObject | undefined {
  return entry(doc[`${IF_MODULE}:interfaces`], 'interface', { name });
}

function checkName(key: Keys, after: JsonObject): void {
  const named = text(child(after, 'config'), 'name');
  if (named !== undefined && named !== key['name'])
    throw new Error(`config/name ${JSON.stringify(named)} differs from the key ${JSON.stringify(key['name'])}`);
}

export const interfacePaths: Record<string, Handler> = {
  [INTERFACES]: {
    keys: ['name'],
    async list(ctx) {
      const { content } = ctx;
      const names = new Set((await configured(ctx)).keys());
      if (content !== 'config') for (const name of (await facts(ctx)).keys()) names.add(name);
      return [...names].sort().map((name) => ({ name }));
    },
    async readConfig(ctx) {
      const { key } = ctx;
      const c = (await configured(ctx)).get(key['name']!);
      if (!c) return undefined;
      const config: JsonObject = { name: c.name, enabled: !c.shutdown };
      if (c.description !== undefined) config['description'] = c.description;
      return { name: c.name, config };
    },
    async readState(ctx) {
      const { key } = ctx;
      const f = (await facts(ctx)).get(key['name']!);
      if (!f) return undefined;
      const admin = f['administrativeStatus'];
      const state: JsonObject = { name: key['name']!, enabled: admin !== 'down' };
      if (typeof f['description'] === 'string') state['description'] = f['description'];
      if (typeof f['index'] === 'number') state['ifindex'] = f['index'];
      if (admin === 'up' || admin === 'down') state['admin-status'] = OPER[admin]!;
      const oper = f['operationalStatus'];
      // FRR omits the operational status of interfaces the kernel does not have
      state['oper-status'] =
        typeof oper === 'string' ? (OPER[oper] ?? 'UNKNOWN') : f['pseudoInterface'] === true ? 'NOT_PRESENT' : 'UNKNOWN';
      if (typeof f['mtu'] === 'number') state['mtu'] = f['mtu'];
      return { name: key['name']!, state };
    },
    write: {
      create(after, { key }) {
        checkName(key, after);
        return inInterface(key['name']!, settingLines(UNCONFIGURED, settingsOf(child(after, 'config'))));
      },
      update(before, after, { key }) {
        checkName(key, after);
        return inInterface(key['name']!, settingLines(settingsOf(child(before, 'config')), settingsOf(child(after, 'config'))));
      },
      // everything configured on the interface, its addresses included (their own deletes are skipped)
      delete(before, { key, documents }) {
        const whole = interfaceIn(documents.before, key['name']!) ?? before;
        const subs = child(whole, 'subinterfaces')['subinterface'];
        const addresses = (Array.isArray(subs) ? subs.filter(isObject) : []).flatMap((s) => addressesOf(s, () => key['name']!));
        return inInterface(key['name']!, [
          ...settingLines(settingsOf(child(before, 'config')), UNCONFIGURED),
          ...addresses.map((a) => ` no ip address ${a}`),
        ]);
      },
    },
  },

  [`${INTERFACES}/subinterfaces/subinterface`]: {
    keys: ['index'],
    async list(ctx) {
      const { content, keys } = ctx;
      const name = keys[0]!['name']!;
      const has =
        ((await configured(ctx)).get(name)?.addresses.length ?? 0) > 0 ||
        (content !== 'config' && stateAddresses((await facts(ctx)).get(name)).length > 0);
      return has ? [{ index: '0' }] : [];
    },
    async readConfig({ key }) {
      return key['index'] === '0' ? { index: 0, config: { index: 0 } } : undefined;
    },
    async readState({ key }) {
      return key['index'] === '0' ? { index: 0, state: { index: 0 } } : undefined;
    },
    // the writer of subinterface 0 owns its addresses: FRR configures them on the interface itself
    write: {
      create(after, ctx) {
        checkIndex(ctx.key);
        return inInterface(
          interfaceName(ctx),
          addressesOf(after, () => renderInstancePath(ctx.path)).map((a) => ` ip address ${a}`),
        );
      },
      update(before, after, ctx) {
        checkIndex(ctx.key);
        const was = addressesOf(before, () => renderInstancePath(ctx.path));
        const now = addressesOf(after, () => renderInstancePath(ctx.path));
        return inInterface(interfaceName(ctx), [
          ...was.filter((a) => !now.includes(a)).map((a) => ` no ip address ${a}`),
          ...now.filter((a) => !was.includes(a)).map((a) => ` ip address ${a}`),
        ]);
      },
      delete(before, ctx) {
        checkIndex(ctx.key);
        return inInterface(
          interfaceName(ctx),
          addressesOf(before, () => renderInstancePath(ctx.path)).map((a) => ` no ip address ${a}`),
        );
      },
    },
  },

  [`${INTERFACES}/subinterfaces/subinterface/ipv4/addresses/address`]: {
    keys: ['ip'],
    async list(ctx) {
      const { content, keys } = ctx;
      const name = keys[0]!['name']!;
      const ips = new Set((await configured(ctx)).get(name)?.addresses.map((a) => a.ip) ?? []);
      if (content !== 'config') for (const a of stateAddresses((await facts(ctx)).get(name))) ips.add(a.ip);
      return [...ips].map((ip) => ({ ip }));
    },
    async readConfig(ctx) {
      const { keys, key } = ctx;
      const a = (await configured(ctx)).get(keys[0]!['name']!)?.addresses.find((x) => x.ip === key['ip']);
      return a ? { ip: a.ip, config: { ip: a.ip, 'prefix-length': a.prefixLength } } : undefined;
    },
    async readState(ctx) {
      const { keys, key } = ctx;
      const a = stateAddresses((await facts(ctx)).get(keys[0]!['name']!)).find((x) => x.ip === key['ip']);
      return a ? { ip: a.ip, state: { ip: a.ip, 'prefix-length': a.prefixLength } } : undefined;
    },
  },
};

function interfaceName(ctx: WriterContext): string {
  return ctx.keys[0]!['name']!;
}
