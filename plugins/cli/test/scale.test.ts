/**
 * A large device through the whole CLI read path (SSH session, per-request cache, the SDK's read engine,
 * plugins/frr's units): 10,000 interfaces, each with a description and an address, and 2,000 static
 * routes on the SDK's FRR simulator. Before the engine indexed list entries by key (and the units parsed
 * `show interface json` and grouped routes once per output) this read was quadratic: 10,000 interfaces
 * took minutes; the bound below is generous for a loaded machine and still far under that.
 */
import test from 'ava';
import { frrDevice, startSimulator } from '@rosetta/sdk/testing';
import { cliSettings, frrPluginUnit, harness } from './fixture';

const INTERFACES = 10_000;
const ROUTES = 2_000;
const BOUND_MS = 20_000;

function largeConfig(): string[] {
  const lines: string[] = [];
  for (let i = 0; i < ROUTES; i++) lines.push(`ip route 10.${100 + (i >> 8)}.${i & 255}.0/24 127.0.0.${2 + (i % 3)}`);
  for (let i = 0; i < INTERFACES; i++) lines.push(`interface e${i}`, ` description port ${i}`, ` ip address 10.${i >> 8}.${i & 255}.1/24`);
  return lines;
}

const unit = frrPluginUnit();

(unit ? test : test.skip)('10,000 interfaces and 2,000 static routes read whole, in both contents, in linear time', async (t) => {
  t.timeout(4 * BOUND_MS);
  const device = await startSimulator(frrDevice({ username: 'frruser', password: 'frrpass', config: largeConfig() }));
  const h = await harness();
  const node = await h.connect('BIG', cliSettings(device.port), [unit!]);
  try {
    for (const content of ['config', 'all'] as const) {
      const from = device.commandLog.length;
      const t0 = performance.now();
      const doc = (await h.read(node, '/', content)) as any;
      const ms = performance.now() - t0;
      t.log(`whole read, content=${content}: ${ms.toFixed(0)} ms`);
      t.true(ms < BOUND_MS, `${ms} ms`);
      // every show command once per request, however many entries read it
      const sent = device.commandLog.slice(from);
      t.is(sent.length, new Set(sent).size);

      const ifs = doc['rosetta-openconfig-interfaces:interfaces'].interface;
      t.is(ifs.length, INTERFACES + (content === 'all' ? 1 : 0)); // state adds lo
      const e4321 = ifs.find((i: any) => i.name === 'e4321');
      t.deepEqual(e4321.config, { name: 'e4321', enabled: true, description: 'port 4321' });
      t.deepEqual(
        e4321.subinterfaces.subinterface[0].ipv4.addresses.address.map((a: any) => [a.ip, a.config['prefix-length']]),
        [['10.16.225.1', 24]],
      );
      if (content === 'all') t.is(e4321.state['oper-status'], 'NOT_PRESENT');
      else t.is(e4321.state, undefined);

      const instance = doc['rosetta-openconfig-network-instance:network-instances']['network-instance'].find(
        (n: any) => n.name === 'default',
      );
      const statics = instance.protocols.protocol.find((p: any) => p.name === 'static')['static-routes'].static;
      t.is(statics.length, ROUTES);
      const route = statics.find((s: any) => s.prefix === '10.107.158.0/24'); // i = 1950 = 7 * 256 + 158, 1950 % 3 = 0
      t.deepEqual(
        route['next-hops']['next-hop'].map((n: any) => n.config),
        [{ index: '127.0.0.2', 'next-hop': '127.0.0.2' }],
      );
    }
    // a subtree of one entry is as cheap as its own commands: no list scan of the others' readers
    const one = await h.read(node, "/rosetta-openconfig-interfaces:interfaces/interface[name='e9999']/config", 'config');
    t.deepEqual(one, { 'rosetta-openconfig-interfaces:config': { name: 'e9999', enabled: true, description: 'port 9999' } });
  } finally {
    await node.connection.close();
    await device.close();
  }
});
