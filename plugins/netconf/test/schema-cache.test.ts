/**
 * The schema cache under concurrent writers: devices with one module set discovered at the same instant
 * all download it and write it to the cache together (same process, same millisecond). Every discovery
 * succeeds, the cache ends with the one set and no temporary folder, and a later discovery reads it back.
 * The device is a fake RPC sender whose answers all resolve in the same turn, so the writes coincide.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { MONITORING_NS, parseXml } from '@rosetta/sdk';
import { discoverSchemas, type RpcReply, type RpcSender } from '../src';

const MODULES = ['acme-a', 'acme-b', 'acme-c'];
const CAPABILITIES = MODULES.map((m) => `urn:acme:${m}?module=${m}&revision=2024-01-01`);
const yangOf = (name: string) => `module ${name} { namespace "urn:acme:${name}"; prefix x; revision 2024-01-01; }`;

/** Answers get-schema from MODULES, every reply after the same shared tick. */
function fakeDevice(tick: Promise<void>): RpcSender {
  return {
    async rpc(body: string): Promise<RpcReply> {
      await tick;
      const name = /<identifier>([^<]+)<\/identifier>/.exec(body)?.[1] ?? '';
      const text = `<rpc-reply xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"><data xmlns="${MONITORING_NS}">${yangOf(name)}</data></rpc-reply>`;
      return { root: parseXml(text), text, warnings: [] };
    },
  };
}

test('32 discoveries of one module set writing an empty cache at once all succeed and leave one folder', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-schema-cache-'));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  let release!: () => void;
  const tick = new Promise<void>((r) => (release = r));
  const running = Array.from({ length: 32 }, () => discoverSchemas(fakeDevice(tick), CAPABILITIES, root));
  release();
  const results = await Promise.allSettled(running);
  const failed = results.flatMap((r) => (r.status === 'rejected' ? [String(r.reason)] : []));
  t.deepEqual(failed, []);
  const ids = new Set(results.map((r) => (r.status === 'fulfilled' ? r.value.moduleSetId : '')));
  t.is(ids.size, 1);
  t.deepEqual(fs.readdirSync(root), [...ids], 'the set, and no temporary folder');

  const again = await discoverSchemas(fakeDevice(Promise.resolve()), CAPABILITIES, root);
  t.true(again.cacheHit);
  t.deepEqual(
    again.sources.map((s) => s.name),
    MODULES,
  );
});
