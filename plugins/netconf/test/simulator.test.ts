/**
 * The plugin against the SDK's NETCONF simulator: YANG 1.1 actions (netconfd has none), correlation with
 * requests answered out of order, request timeouts, and bad devices (no hello, malformed XML, broken
 * chunk, wrong password): each a clear error, never a crash or a hang.
 */
import test from 'ava';
import { FIRST_REPLY_NUDGE_MS, type ConnectPacing } from '@rosetta/sdk';
import { EditFault, openRawNetconf, startNetconfSimulator, type NetconfDeviceDefinition } from '@rosetta/sdk/testing';
import {
  discoverSchemas,
  invokeOperation,
  NetconfDevice,
  NetconfRpcError,
  NetconfSession,
  NetconfSessionError,
  readData,
  readNodeSettings,
  writeEdits,
} from '../src';
import { compileSources, testCodec } from './support/codec';

const YANG = `module sim-interfaces {
  yang-version 1.1;
  namespace "urn:example:sim-interfaces";
  prefix sif;
  revision 2026-11-01;
  container interfaces {
    list interface {
      key name;
      leaf name { type string; }
      leaf mtu { type uint16; }
      leaf description { type string; }
      action reset {
        input { leaf delay { type uint8; } }
        output { leaf done-at { type string; } }
      }
    }
  }
  rpc ping { output { leaf pong { type string; } } }
}`;

const NS = 'urn:example:sim-interfaces';

function device(extra: Partial<NetconfDeviceDefinition> = {}): NetconfDeviceDefinition {
  return {
    yang: YANG,
    username: 'admin',
    password: 'secret',
    config: `<interfaces xmlns="${NS}"><interface><name>eth0</name><mtu>1500</mtu></interface></interfaces>`,
    operations: {
      '/interfaces/interface/reset': (call) => {
        if (call.input.children.find((c) => c.name === 'delay')?.text === '99')
          throw new EditFault('invalid-value', '/interfaces/interface/reset/delay', 'delay too long');
        return `<done-at xmlns="${NS}">reset ${call.keys[0]!['name']}</done-at>`;
      },
      ping: () => `<pong xmlns="${NS}">pong</pong>`,
    },
    ...extra,
  };
}

const options = (port: number, extra: object = {}) => ({
  host: '127.0.0.1',
  port,
  username: 'admin',
  password: 'secret',
  connectTimeoutMs: 2000,
  requestTimeoutMs: 2000,
  keepaliveMs: 0,
  ...extra,
});

test('schema from the simulator compiles; read, write + commit, YANG 1.1 action and RPC through the plugin', async (t) => {
  const sim = await startNetconfSimulator(device());
  t.teardown(() => sim.close());
  const session = await NetconfSession.open(options(sim.port));
  t.teardown(() => session.close());
  t.is(session.framingMode, 'chunked');
  const schemas = await discoverSchemas(session, session.capabilities, undefined);
  t.deepEqual(
    schemas.sources.map((s) => s.name),
    ['sim-interfaces'],
  );
  const ctx = compileSources(schemas.sources);
  t.deepEqual(
    ctx.diagnostics.filter((d) => d.severity === 'error'),
    [],
  );
  const codec = testCodec(ctx);
  const ns = new Map([['sim-interfaces', NS]]);

  t.deepEqual(
    await readData(session, { path: "/sim-interfaces:interfaces/interface[name='eth0']", content: 'config', fields: 'mtu' }, ns, codec),
    { 'sim-interfaces:interfaces': { interface: [{ name: 'eth0', mtu: 1500 }] } },
  );

  await writeEdits(
    session,
    [
      {
        operation: 'create',
        path: "/sim-interfaces:interfaces/interface[name='eth1']",
        value: { 'sim-interfaces:interface': [{ name: 'eth1', mtu: 9000 }] },
      },
    ],
    ns,
  );
  t.regex(sim.runningXml(), /<name>eth1<\/name><mtu>9000<\/mtu>/);
  // the unlock goes out together with the commit; its reply is not waited for
  for (let i = 0; i < 100 && sim.operationLog.at(-1) !== 'unlock'; i++) await new Promise((r) => setTimeout(r, 10));
  t.deepEqual(
    sim.operationLog.slice(-4),
    ['lock', 'edit-config', 'commit', 'unlock'],
    'candidate: lock, edit, commit, unlock; never validate',
  );

  const duplicate = await t.throwsAsync(
    writeEdits(
      session,
      [
        {
          operation: 'create',
          path: "/sim-interfaces:interfaces/interface[name='eth1']",
          value: { 'sim-interfaces:interface': [{ name: 'eth1' }] },
        },
      ],
      ns,
    ),
    { instanceOf: NetconfRpcError },
  );
  t.is(duplicate!.tag, 'data-exists');
  t.deepEqual(sim.operationLog.slice(-3), ['edit-config', 'discard-changes', 'unlock'], 'failure: discard-changes then unlock');

  t.deepEqual(
    await invokeOperation(
      session,
      "/sim-interfaces:interfaces/interface[name='eth0']/reset",
      { 'sim-interfaces:input': { delay: 5 } },
      ns,
      codec,
    ),
    { 'done-at': 'reset eth0' },
  );
  const missing = await t.throwsAsync(invokeOperation(session, "/sim-interfaces:interfaces/interface[name='nope']/reset", {}, ns, codec), {
    instanceOf: NetconfRpcError,
  });
  t.is(missing!.faults[0]!.tag, 'data-missing');
  const refused = await t.throwsAsync(
    invokeOperation(session, "/sim-interfaces:interfaces/interface[name='eth0']/reset", { delay: 99 }, ns, codec),
    { instanceOf: NetconfRpcError },
  );
  t.deepEqual(
    [refused!.faults[0]!.tag, refused!.faults[0]!.path, refused!.faults[0]!.message],
    ['invalid-value', '/interfaces/interface/reset/delay', 'delay too long'],
  );
  t.deepEqual(await invokeOperation(session, 'sim-interfaces:ping', {}, ns, codec), { pong: 'pong' });
});

test('several requests in flight are correlated by message-id when answered out of order', async (t) => {
  const sim = await startNetconfSimulator(device({ replyDelayMs: (op) => (op === 'get-config' ? 150 : 0) }));
  t.teardown(() => sim.close());
  const session = await NetconfSession.open(options(sim.port));
  t.teardown(() => session.close());
  const slow = session.rpc('<get-config><source><running/></source></get-config>');
  const fast = Promise.all(
    Array.from({ length: 20 }, () => session.rpc(`<get><filter type="subtree"><interfaces xmlns="${NS}"/></filter></get>`)),
  );
  t.is(session.inFlight, 21);
  const order: string[] = [];
  await Promise.all([
    slow.then((r) => order.push(`slow ${r.root.attrs['message-id']}`)),
    fast.then((rs) => order.push(`fast ${rs.map((r) => r.root.attrs['message-id']).join(',')}`)),
  ]);
  t.deepEqual(order, [`fast ${Array.from({ length: 20 }, (_, i) => i + 2).join(',')}`, 'slow 1']);
});

test('a request timeout fails that request only; the session keeps serving', async (t) => {
  const sim = await startNetconfSimulator(device({ replyDelayMs: (op) => (op === 'get-config' ? 600 : 0) }));
  t.teardown(() => sim.close());
  const session = await NetconfSession.open(options(sim.port, { requestTimeoutMs: 200 }));
  t.teardown(() => session.close());
  const e = await t.throwsAsync(session.rpc('<get-config><source><running/></source></get-config>'), { instanceOf: NetconfSessionError });
  t.is(e!.failure, 'timeout');
  t.true(session.isOpen);
  t.truthy(await session.rpc('<get/>'));
});

test('a device that reads the hello together with the first request and stalls (netconfd under load) answers after one nudge', async (t) => {
  const sim = await startNetconfSimulator(device({ misbehave: 'hello-stall' }));
  t.teardown(() => sim.close());
  const sent: string[] = [];
  const session = await NetconfSession.open(options(sim.port, { requestTimeoutMs: 5000, onSend: (body: string) => sent.push(body) }));
  t.teardown(() => session.close());
  const start = Date.now();
  const reply = await session.rpc('<get-config><source><running/></source></get-config>');
  t.regex(reply.text, /<name>eth0<\/name>/);
  t.true(Date.now() - start >= FIRST_REPLY_NUDGE_MS, 'answered only once the nudge arrived');
  t.deepEqual(sim.operationLog, ['get-config', 'get-config'], 'the request, then the empty get-config that pushed it through');
  t.is(sent.length, 1, "the nudge is the session's own: not traced as a caller's request");
  t.truthy(await session.rpc('<get/>'), 'later requests are answered at once');

  const raw = await openRawNetconf({ host: '127.0.0.1', port: sim.port, username: 'admin', password: 'secret', timeoutMs: 5000 });
  t.teardown(() => raw.close());
  t.regex(await raw.rpc('<get-config><source><running/></source></get-config>'), /<name>eth0<\/name>/, "the SDK's raw client nudges too");

  const healthy = await startNetconfSimulator(device());
  t.teardown(() => healthy.close());
  const prompt = await NetconfSession.open(options(healthy.port));
  t.teardown(() => prompt.close());
  await prompt.rpc('<get/>');
  await new Promise((r) => setTimeout(r, FIRST_REPLY_NUDGE_MS + 100));
  t.deepEqual(healthy.operationLog, ['get'], 'a device that answers gets no nudge');
});

test('bad devices: no hello, malformed XML, broken chunk, wrong password, base:1.0 only', async (t) => {
  const silent = await startNetconfSimulator(device({ misbehave: 'no-hello' }));
  t.teardown(() => silent.close());
  let start = Date.now();
  // the window is the default sessions' 2 s, which a loaded machine's SSH handshake meets; the silent device never says hello
  const noHello = await t.throwsAsync(NetconfSession.open(options(silent.port)), {
    instanceOf: NetconfSessionError,
  });
  t.is(noHello!.failure, 'hello');
  t.regex(noHello!.message, /no hello/);
  t.true(Date.now() - start < 8000, `gave up waiting for the hello after ${Date.now() - start} ms`);

  const garbled = await startNetconfSimulator(device({ misbehave: 'malformed-xml' }));
  t.teardown(() => garbled.close());
  const s1 = await NetconfSession.open(options(garbled.port));
  const bad = await t.throwsAsync(Promise.all([s1.rpc('<get/>'), s1.rpc('<get/>')]), { instanceOf: NetconfSessionError });
  t.is(bad!.failure, 'malformed');
  t.false(s1.isOpen);

  const chunky = await startNetconfSimulator(device({ misbehave: 'broken-chunk' }));
  t.teardown(() => chunky.close());
  const s2 = await NetconfSession.open(options(chunky.port));
  const broken = await t.throwsAsync(s2.rpc('<get/>'), { instanceOf: NetconfSessionError });
  t.is(broken!.failure, 'framing');
  t.regex(broken!.message, /bad character "x" in a chunk size/);

  const sim = await startNetconfSimulator(device({ base11: false }));
  t.teardown(() => sim.close());
  const denied = await t.throwsAsync(NetconfSession.open({ ...options(sim.port), password: 'wrong' }), { instanceOf: NetconfSessionError });
  t.regex(denied!.message, /authentication .* failed/);
  t.false(denied!.message.includes('wrong'), 'the password never appears in messages');
  start = Date.now();
  const refused = await t.throwsAsync(NetconfSession.open(options(1)), { instanceOf: NetconfSessionError });
  t.is(refused!.failure, 'connect');
  const old = await NetconfSession.open(options(sim.port));
  t.is(old.framingMode, 'eom');
  t.truthy(await old.rpc('<get/>'));
  await old.close();
});

test('device: reconnects with back-off after the device drops the session', async (t) => {
  const sim = await startNetconfSimulator(device());
  t.teardown(() => sim.close());
  const settings = readNodeSettings({
    host: '127.0.0.1',
    port: sim.port,
    username: 'admin',
    password: 'secret',
    'between-attempts-timeout': 50,
  });
  if (!settings.ok) return t.fail(settings.problems.join());
  const logs: string[] = [];
  const log = { info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m), error: (m: string) => logs.push(m) };
  const dev = await NetconfDevice.install('sim1', settings.value, undefined, log);
  t.teardown(() => dev.close());
  t.is(dev.status(), 'connected');
  t.is(dev.schemaSources!.length, 1);
  sim.dropSessions();
  const until = Date.now() + 3000;
  while (Date.now() < until && (dev.connects < 2 || dev.status() !== 'connected')) await new Promise((r) => setTimeout(r, 20));
  t.is(dev.connects, 2);
  t.is(dev.status(), 'connected');
  t.truthy(await dev.current().rpc('<get/>'));
  t.true(logs.some((l) => /session lost/.test(l)));
});

test('device: a reconnect after a lost session takes a slot of the service pacing, and only the reconnect does', async (t) => {
  const sim = await startNetconfSimulator(device());
  t.teardown(() => sim.close());
  const settings = readNodeSettings({
    host: '127.0.0.1',
    port: sim.port,
    username: 'admin',
    password: 'secret',
    'between-attempts-timeout': 50,
  });
  if (!settings.ok) return t.fail(settings.problems.join());
  let attempts = 0;
  let inSlot = false;
  const pacing: ConnectPacing = {
    async attempt(open) {
      attempts++;
      inSlot = true;
      try {
        return await open();
      } finally {
        inSlot = false;
      }
    },
  };
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const dev = await NetconfDevice.install('sim1', settings.value, undefined, quiet, { pacing });
  t.teardown(() => dev.close());
  t.is(attempts, 0, 'the install is paced by its caller, not by the device');
  sim.dropSessions();
  const until = Date.now() + 3000;
  while (Date.now() < until && (dev.connects < 2 || dev.status() !== 'connected')) await new Promise((r) => setTimeout(r, 20));
  t.is(dev.status(), 'connected');
  t.is(attempts, 1);
  t.false(inSlot, 'the slot is given back once the session is open');
});
