/**
 * The SDK's example plugin: a translation unit for FRR that serves the `rosetta-example-frr` model
 * (yang/): interfaces from `show running-config` (config) and `show interface json` (state), and IPv4
 * static routes from `show running-config`. It shows the whole API: list handlers with keys, config and
 * state readers, writers whose undo the engine derives, and the CLI parsing helpers. Copy this folder to
 * start a unit of your own.
 */
import { defineTranslationUnit, definePlugin, parseJsonOutput, records, sections, type JsonObject } from '@rosetta/sdk';

const RUNNING = 'show running-config';
const INTERFACES_JSON = 'show interface json';

/** The interface blocks of the running config, by name. */
async function interfaceBlocks(exec: (c: string) => Promise<string>): Promise<Map<string, string[]>> {
  const found = sections(await exec(RUNNING), /^interface (\S+)$/);
  return new Map(found.map((s) => [s.match[1]!, s.lines]));
}

/** FRR's `show interface json`: interface name -> facts (an object; anything else reads as no interfaces). */
async function interfaceFacts(exec: (c: string) => Promise<string>): Promise<Record<string, Record<string, unknown>>> {
  const parsed = parseJsonOutput(await exec(INTERFACES_JSON));
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, Record<string, unknown>>) : {};
}

/** Commands that set an interface's config inside its block (the caller opens and closes the block). */
function interfaceSettings(before: JsonObject | undefined, after: JsonObject): string[] {
  const was = (before ?? {}) as { description?: string; enabled?: boolean };
  const now = after as { description?: string; enabled?: boolean };
  const out: string[] = [];
  if (now.description !== undefined && now.description !== was.description) out.push(` description ${now.description}`);
  if (now.description === undefined && was.description !== undefined) out.push(' no description');
  const wasEnabled = was.enabled ?? true;
  const nowEnabled = now.enabled ?? true;
  if (wasEnabled !== nowEnabled) out.push(nowEnabled ? ' no shutdown' : ' shutdown');
  return out;
}

const configOf = (entry: JsonObject): JsonObject => (entry['config'] as JsonObject | undefined) ?? {};

export const unit = defineTranslationUnit({
  paths: {
    '/rosetta-example-frr:interfaces/interface': {
      keys: ['name'],
      async list({ session, content }) {
        const names = new Set((await interfaceBlocks((c) => session.exec(c))).keys());
        if (content !== 'config') for (const name of Object.keys(await interfaceFacts((c) => session.exec(c)))) names.add(name);
        return [...names].sort().map((name) => ({ name }));
      },
      async readConfig({ session, key }) {
        const block = (await interfaceBlocks((c) => session.exec(c))).get(key['name']!);
        if (!block) return undefined;
        const config: JsonObject = { enabled: !block.includes('shutdown') };
        const description = block.find((l) => l.startsWith('description '));
        if (description) config['description'] = description.slice('description '.length);
        return { config };
      },
      async readState({ session, key }) {
        const facts = (await interfaceFacts((c) => session.exec(c)))[key['name']!];
        if (!facts) return undefined;
        const state: JsonObject = {};
        if (facts['administrativeStatus'] === 'up' || facts['administrativeStatus'] === 'down')
          state['admin-status'] = facts['administrativeStatus'];
        if (facts['operationalStatus'] === 'up' || facts['operationalStatus'] === 'down') state['oper-status'] = facts['operationalStatus'];
        if (typeof facts['mtu'] === 'number') state['mtu'] = facts['mtu'];
        return { state };
      },
      write: {
        create: (after, { key }) => [`interface ${key['name']}`, ...interfaceSettings(undefined, configOf(after)), 'exit'],
        update: (before, after, { key }) => {
          const settings = interfaceSettings(configOf(before), configOf(after));
          return settings.length === 0 ? [] : [`interface ${key['name']}`, ...settings, 'exit'];
        },
        delete: (_before, { key }) => [`no interface ${key['name']}`],
      },
    },
    '/rosetta-example-frr:static-routes/route': {
      keys: ['prefix', 'next-hop'],
      async list({ session }) {
        return records(await session.exec(RUNNING), /^ip route (?<prefix>[0-9.]+\/\d+) (?<nh>\S+)$/).map((r) => ({
          prefix: r['prefix']!,
          'next-hop': r['nh']!,
        }));
      },
      write: {
        create: (_after, { key }) => [`ip route ${key['prefix']} ${key['next-hop']}`],
        delete: (_before, { key }) => [`no ip route ${key['prefix']} ${key['next-hop']}`],
      },
    },
  },
});

export default definePlugin({ translationUnit: unit });
