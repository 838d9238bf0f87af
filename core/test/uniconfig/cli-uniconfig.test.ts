/**
 * The uniconfig topology on a real service against two FRR-like SDK simulators (CLI southbound + FRR
 * units): install fills intended and actual; immediate writes reach the device (and a refused one
 * leaves device and stores as they were); transactions with the UNICONFIGTXID cookie, calculate-diff,
 * dry run, commit, the second of two transactions on one node refused, a commit across two devices
 * where the second refuses rolled back on the first; checked-commit after a hand change, sync, is-in-sync;
 * snapshots; bad input (unknown node, garbage cookie, device down); restart keeps what was committed.
 */
import test from 'ava';
import { frrDevice, startSimulator, type SimulatedDevice } from '@rosetta/sdk/testing';
import { eventually, pluginsFile, startMountService, type MountService } from '../mount/fixture';

const TOPO = '/rests/data/network-topology:network-topology/topology=uniconfig';
const conf = (node: string) => `${TOPO}/node=${node}/configuration`;
const ifaces = (node: string) => `${conf(node)}/rosetta-openconfig-interfaces:interfaces`;
const desc = (node: string, iface: string) => `${ifaces(node)}/interface=${iface}/config/description`;
const OPS = '/rests/operations';

let r1: SimulatedDevice;
let r2: SimulatedDevice;
let s: MountService;
const plugins = pluginsFile(['plugins/cli', 'plugins/frr']);

function installBody(nodeId: string, port: number, extra: Record<string, unknown> = {}) {
  return {
    input: {
      'node-id': nodeId,
      cli: {
        'cli-topology:host': '127.0.0.1',
        'cli-topology:port': port,
        'cli-topology:transport-type': 'ssh',
        'cli-topology:device-type': 'frr',
        'cli-topology:device-version': '8.4.4',
        'cli-topology:username': 'u',
        'cli-topology:password': 'p',
        ...extra,
      },
    },
  };
}

/** An FRR-like device that refuses any configuration command mentioning REFUSE. */
async function refusingDevice(hostname: string, config: string[]): Promise<SimulatedDevice> {
  return startSimulator({ ...frrDevice({ hostname, username: 'u', password: 'p', config }), configCommands: [/^(?!.*REFUSE).*$/] });
}

async function description(node: string, iface: string, cookie?: string, content = 'config'): Promise<string | undefined> {
  const r = await s.request('GET', `${desc(node, iface)}?content=${content}`, undefined, cookie ? { cookie } : {});
  return r.status === 200 ? r.json['rosetta-openconfig-interfaces:description'] : undefined;
}

async function setDescription(node: string, iface: string, text: string, cookie?: string) {
  return s.request('PUT', desc(node, iface), { 'rosetta-openconfig-interfaces:description': text }, cookie ? { cookie } : {});
}

async function createTransaction(): Promise<string> {
  const r = await s.request('POST', `${OPS}/uniconfig-manager:create-transaction`);
  if (r.status !== 201) throw new Error(`create-transaction: ${r.status} ${r.text}`);
  return `UNICONFIGTXID=${r.json['uniconfig-manager:output']['transaction-id']}`;
}

test.before(async () => {
  r1 = await refusingDevice('r1', ['interface eth0', ' description uplink', 'interface eth1', ' shutdown']);
  r2 = await refusingDevice('r2', ['interface eth0', ' description r2-uplink']);
  s = await startMountService(plugins);
  for (const [id, dev] of [
    ['R1', r1],
    ['R2', r2],
  ] as const) {
    const r = await s.request('POST', `${OPS}/connection-manager:install-node`, installBody(id, dev.port));
    if (r.status !== 204) throw new Error(`install ${id}: ${r.status} ${r.text}`);
  }
});

test.after.always(async () => {
  await s?.service.stop();
  await r1?.close();
  await r2?.close();
});

test.serial('install-node fills intended (config) and actual (nonconfig); configuration may be written bare or prefixed', async (t) => {
  t.is(await description('R1', 'eth0'), 'uplink');
  t.is(await description('R1', 'eth0', undefined, 'nonconfig'), 'uplink');
  const prefixed = await s.request(
    'GET',
    `${TOPO}/node=R1/uniconfig-topology:configuration/rosetta-openconfig-interfaces:interfaces/interface=eth0/config?content=config`,
  );
  t.is(prefixed.status, 200, prefixed.text);
  const whole = await s.request('GET', `${TOPO}/node=R2?content=config`);
  t.is(whole.status, 200, whole.text);
  t.is(
    whole.json['network-topology:node'][0]['uniconfig-topology:configuration']['rosetta-openconfig-interfaces:interfaces'].interface[0]
      .config.description,
    'r2-uplink',
  );
  const root = await s.request('GET', conf('R1'));
  t.is(root.status, 200, root.text);
  t.deepEqual(Object.keys(root.json), ['uniconfig-topology:configuration']);
  t.is(root.json['uniconfig-topology:configuration']['rosetta-openconfig-interfaces:interfaces'].interface.length, 2);
  const rootXml = await s.request('GET', conf('R1'), undefined, { accept: 'application/yang-data+xml' });
  // each top-level node carries its own namespace (their order across modules follows the schema's)
  t.regex(rootXml.text, /^<configuration xmlns="urn:rosetta:params:xml:ns:yang:uniconfig-topology"><(interfaces|network-instances) xmlns=/);
  t.regex(rootXml.text, /<interfaces xmlns="urn:rosetta:params:xml:ns:yang:rosetta-openconfig-interfaces"><interface><name>eth0<\/name>/);
  const count = await s.request('GET', `${ifaces('R1')}/interface?fetch=count`);
  t.is(count.text, '2');
  const fields = await s.request('GET', `${ifaces('R1')}?fields=interface(name)`);
  t.deepEqual(fields.json['rosetta-openconfig-interfaces:interfaces'].interface, [{ name: 'eth0' }, { name: 'eth1' }]);
  const xml = await s.request('GET', `${desc('R1', 'eth0')}`, undefined, { accept: 'application/yang-data+xml' });
  t.regex(xml.text, /<description xmlns="[^"]+">uplink<\/description>/);
  // an install with install-uniconfig-node-enabled false makes no uniconfig node
  const dev = await startSimulator(frrDevice({ hostname: 'r3', username: 'u', password: 'p' }));
  try {
    const r = await s.request(
      'POST',
      `${OPS}/connection-manager:install-node`,
      installBody('R3', dev.port, { 'uniconfig-config:install-uniconfig-node-enabled': false }),
    );
    t.is(r.status, 204, r.text);
    t.is((await s.request('GET', `${TOPO}/node=R3`)).status, 404);
    t.is((await s.request('GET', conf('R3'))).status, 404);
    t.is(
      (await s.request('POST', `${OPS}/connection-manager:uninstall-node`, { input: { 'node-id': 'R3', 'connection-type': 'cli' } }))
        .status,
      204,
    );
  } finally {
    await dev.close();
  }
});

test.serial('with-defaults=report-all answers a defaulted leaf of the intended configuration; explicit and trim do not', async (t) => {
  // In a transaction, an interface written without `enabled`: its value is the model's default.
  const cookie = await createTransaction();
  const put = await s.request(
    'PUT',
    `${ifaces('R1')}/interface=lo8`,
    { 'rosetta-openconfig-interfaces:interface': [{ name: 'lo8', config: { name: 'lo8', description: 'eight' } }] },
    { cookie },
  );
  t.is(put.status, 201, put.text);
  const enabled = `${ifaces('R1')}/interface=lo8/config/enabled`;
  const all = await s.request('GET', `${enabled}?with-defaults=report-all`, undefined, { cookie });
  t.is(all.status, 200, all.text);
  t.deepEqual(all.json, { 'rosetta-openconfig-interfaces:enabled': true });
  const tagged = await s.request('GET', `${enabled}?with-defaults=report-all-tagged`, undefined, { cookie });
  t.is(tagged.status, 200, tagged.text);
  for (const mode of ['explicit', 'trim']) {
    t.is((await s.request('GET', `${enabled}?with-defaults=${mode}`, undefined, { cookie })).status, 404, mode);
  }
  t.is((await s.request('POST', `${OPS}/uniconfig-manager:close-transaction`, undefined, { cookie })).status, 204);
});

test.serial('immediate mode: each write is committed to the device before the answer; a refused one changes nothing', async (t) => {
  const put = await setDescription('R1', 'eth0', 'to core');
  t.is(put.status, 204, put.text);
  t.regex(r1.view.runningConfig(), /interface eth0\n description to core/);
  t.is(await description('R1', 'eth0', undefined, 'nonconfig'), 'to core');
  const post = await s.request('POST', ifaces('R1'), {
    'rosetta-openconfig-interfaces:interface': [{ name: 'lo7', config: { name: 'lo7', description: 'seven' } }],
  });
  t.is(post.status, 201, post.text);
  t.regex(post.headers.get('location') ?? '', /configuration\/rosetta-openconfig-interfaces:interfaces\/interface=lo7$/);
  t.regex(r1.view.runningConfig(), /interface lo7\n description seven/);
  const del = await s.request('DELETE', `${ifaces('R1')}/interface=lo7`);
  t.is(del.status, 204, del.text);
  // (the FRR units delete an interface's settings; FRR keeps the bare `interface lo7` block)
  t.notRegex(r1.view.runningConfig(), /description seven/);

  const before = r1.view.runningConfig();
  const refused = await setDescription('R1', 'eth0', 'REFUSE me');
  t.true(refused.status >= 400 && refused.status < 600, refused.text);
  t.regex(refused.text, /REFUSE/);
  t.is(r1.view.runningConfig(), before);
  t.is(await description('R1', 'eth0'), 'to core');
  t.is(await description('R1', 'eth0', undefined, 'nonconfig'), 'to core');
});

test.serial('build-and-commit: the transaction sees its own changes, diff and dry run show them, commit sends them', async (t) => {
  const cookie = await createTransaction();
  const created = await s.request('POST', `${OPS}/uniconfig-manager:create-transaction`);
  t.regex(created.headers.get('set-cookie') ?? '', /^UNICONFIGTXID=[0-9a-f-]{36};\s*Path=\/rests\/$/);
  t.is(
    (
      await s.request('POST', `${OPS}/uniconfig-manager:close-transaction`, undefined, {
        cookie: created.headers.get('set-cookie')!.split(';')[0]!,
      })
    ).status,
    204,
  );

  t.is((await setDescription('R1', 'eth0', 'in a tx', cookie)).status, 204);
  t.is((await setDescription('R2', 'eth0', 'r2 in a tx', cookie)).status, 204);
  t.is(await description('R1', 'eth0', cookie), 'in a tx');
  t.is(await description('R1', 'eth0'), 'to core', 'others do not see the transaction');
  t.is(await description('R1', 'eth0', cookie, 'nonconfig'), 'to core', 'actual is untouched until commit');
  t.notRegex(r1.view.runningConfig(), /in a tx/);

  const diff = await s.request('POST', `${OPS}/uniconfig-manager:calculate-diff`, { input: {} }, { cookie });
  t.is(diff.status, 200, diff.text);
  const results = diff.json['uniconfig-manager:output']['node-results']['node-result'];
  t.deepEqual(
    results.map((n: any) => n['node-id']),
    ['R1', 'R2'],
  );
  const updated = results[0]['updated-data'][0];
  t.is(updated.path, "/rosetta-openconfig-interfaces:interfaces/interface[name='eth0']/config/description");
  t.is(JSON.parse(updated['data-actual'])['rosetta-openconfig-interfaces:description'], 'to core');
  t.is(JSON.parse(updated['data-intended'])['rosetta-openconfig-interfaces:description'], 'in a tx');

  const commandsBefore = r1.commandLog.length;
  const dry = await s.request('POST', `${OPS}/dryrun-manager:dryrun-commit`, { input: { 'target-nodes': { node: ['R1'] } } }, { cookie });
  t.is(dry.status, 200, dry.text);
  const dryR1 = dry.json['dryrun-manager:output']['node-results']['node-result'][0];
  t.is(dryR1.protocol, 'cli');
  t.true(
    dryR1.command.some((c: string) => c.includes('description in a tx')),
    dryR1.command.join('\n'),
  );
  t.false(
    r1.commandLog.slice(commandsBefore).some((c) => c.includes('in a tx')),
    'dry run sent nothing',
  );

  const commit = await s.request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, { cookie });
  t.is(commit.status, 204, commit.text);
  t.regex(r1.view.runningConfig(), /interface eth0\n description in a tx/);
  t.regex(r2.view.runningConfig(), /interface eth0\n description r2 in a tx/);
  t.is(await description('R1', 'eth0'), 'in a tx');
  t.is(await description('R2', 'eth0', undefined, 'nonconfig'), 'r2 in a tx');
  const closed = await s.request('GET', desc('R1', 'eth0'), undefined, { cookie });
  t.is(closed.status, 422);
  t.is(closed.json.errors.error[0]['error-tag'], 'invalid-transaction');
});

test.serial('two transactions on one node: the second commit is refused with 409 and changes nothing', async (t) => {
  const a = await createTransaction();
  const b = await createTransaction();
  t.is((await setDescription('R1', 'eth1', 'from a', a)).status, 201);
  t.is((await setDescription('R1', 'eth1', 'from b', b)).status, 201);
  t.is((await s.request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, { cookie: a })).status, 204);
  const second = await s.request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, { cookie: b });
  t.is(second.status, 409, second.text);
  t.regex(r1.view.runningConfig(), /description from a/);
  t.notRegex(r1.view.runningConfig(), /from b/);
  t.is(await description('R1', 'eth1'), 'from a');
  t.is((await s.request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, { cookie: b })).status, 422, 'commit closed it');
});

test.serial('a commit across two devices where the second refuses leaves both as they were', async (t) => {
  const cookie = await createTransaction();
  t.is((await setDescription('R1', 'eth0', 'all or nothing', cookie)).status, 204);
  t.is((await setDescription('R2', 'eth0', 'REFUSE this', cookie)).status, 204);
  const config1 = r1.view.runningConfig();
  const config2 = r2.view.runningConfig();
  const commit = await s.request(
    'POST',
    `${OPS}/uniconfig-manager:commit`,
    { input: { 'target-nodes': { node: ['R1', 'R2'] } } },
    { cookie },
  );
  t.is(commit.status, 500, commit.text);
  const info = commit.json.errors.error.map((e: any) => e['error-info']);
  t.deepEqual(info, [
    { 'node-id': 'R1', 'configuration-status': 'complete', 'rollback-status': 'complete' },
    { 'node-id': 'R2', 'configuration-status': 'fail', 'rollback-status': 'complete' },
  ]);
  t.true(
    r1.commandLog.some((c) => c.includes('all or nothing')),
    'R1 was changed, then rolled back',
  );
  t.is(r1.view.runningConfig(), config1);
  t.is(r2.view.runningConfig(), config2);
  t.is(await description('R1', 'eth0'), 'in a tx');
  t.is(await description('R1', 'eth0', undefined, 'nonconfig'), 'in a tx');
});

test.serial("a failing node's rollback-status is its southbound's report: an undo the device refuses too is rollback fail", async (t) => {
  // the undo of eth0's new description is the old one, which mentions REFUSE: the device refuses it too
  const r4 = await refusingDevice('r4', ['interface eth0', ' description REFUSE-kept', 'interface eth1', ' description one']);
  try {
    t.is((await s.request('POST', `${OPS}/connection-manager:install-node`, installBody('R4', r4.port))).status, 204);
    const cookie = await createTransaction();
    t.is((await setDescription('R4', 'eth0', 'fine', cookie)).status, 204);
    t.is((await setDescription('R4', 'eth1', 'REFUSE now', cookie)).status, 204);
    const commit = await s.request('POST', `${OPS}/uniconfig-manager:commit`, { input: { 'target-nodes': { node: ['R4'] } } }, { cookie });
    t.is(commit.status, 500, commit.text);
    const entry = commit.json.errors.error[0];
    t.deepEqual(entry['error-info'], { 'node-id': 'R4', 'configuration-status': 'fail', 'rollback-status': 'fail' });
    t.regex(entry['error-message'], /rollback on the device: 1 undo command\(s\) refused \("description REFUSE-kept"/);
    t.regex(r4.view.runningConfig(), /description fine/, 'the device really kept the half-applied change');
  } finally {
    await s.request('POST', `${OPS}/connection-manager:uninstall-node`, { input: { 'node-id': 'R4' } });
    await r4.close();
  }
});

test.serial('a hand change on the device: checked-commit 409, is-in-sync false, sync-from-network picks it up', async (t) => {
  const cookie = await createTransaction();
  t.is((await setDescription('R1', 'eth1', 'checked', cookie)).status, 204);
  // changed behind uniconfig's back, through the mount point
  const hand = await s.request(
    'PUT',
    '/rests/data/network-topology:network-topology/topology=cli/node=R1/yang-ext:mount/rosetta-openconfig-interfaces:interfaces/interface=eth0/config/description',
    { 'rosetta-openconfig-interfaces:description': 'by hand' },
  );
  t.is(hand.status, 204, hand.text);
  const checked = await s.request('POST', `${OPS}/uniconfig-manager:checked-commit`, { input: {} }, { cookie });
  t.is(checked.status, 409, checked.text);
  t.notRegex(r1.view.runningConfig(), /checked/);
  const sync = await s.request('POST', `${OPS}/uniconfig-manager:is-in-sync`, { input: { 'target-nodes': { node: ['R1', 'R2'] } } });
  t.is(sync.status, 200, sync.text);
  t.deepEqual(
    sync.json['uniconfig-manager:output']['node-results']['node-result'].map((n: any) => [n['node-id'], n['is-in-sync']]),
    [
      ['R1', false],
      ['R2', true],
    ],
  );
  const pulled = await s.request('POST', `${OPS}/uniconfig-manager:sync-from-network`, { input: { 'target-nodes': { node: ['R1'] } } });
  t.is(pulled.status, 200, pulled.text);
  t.is(await description('R1', 'eth0', undefined, 'nonconfig'), 'by hand');
  t.is(await description('R1', 'eth0'), 'in a tx', 'intended stays until replaced');
  const replace = await s.request('POST', `${OPS}/uniconfig-manager:replace-config-with-operational`, {
    input: { 'target-nodes': { node: ['R1'] } },
  });
  t.is(replace.status, 204, replace.text);
  t.is(await description('R1', 'eth0'), 'by hand');
});

test.serial('snapshots: create, read as data, replace the configuration with one (committed), delete', async (t) => {
  t.is(
    (
      await s.request('POST', `${OPS}/snapshot-manager:create-snapshot`, {
        input: { name: 'before-change', 'target-nodes': { node: ['R1'] } },
      })
    ).status,
    204,
  );
  const dup = await s.request('POST', `${OPS}/snapshot-manager:create-snapshot`, { input: { name: 'before-change' } });
  t.is(dup.status, 409, dup.text);
  const data = await s.request('GET', '/rests/data/snapshot-manager:snapshots/snapshot=before-change/node=R1');
  t.is(data.status, 200, data.text);
  t.is(
    data.json['snapshot-manager:node'][0].configuration['rosetta-openconfig-interfaces:interfaces'].interface[0].config.description,
    'by hand',
  );
  t.is((await setDescription('R1', 'eth0', 'after snapshot')).status, 204);
  const back = await s.request('POST', `${OPS}/snapshot-manager:replace-config-with-snapshot`, { input: { name: 'before-change' } });
  t.is(back.status, 204, back.text);
  t.regex(r1.view.runningConfig(), /interface eth0\n description by hand/);
  t.is(await description('R1', 'eth0'), 'by hand');
  const direct = await s.request('DELETE', '/rests/data/snapshot-manager:snapshots/snapshot=before-change');
  t.is(direct.status, 400, 'only the RPCs write snapshots');
  t.is((await s.request('POST', `${OPS}/snapshot-manager:delete-snapshot`, { input: { name: 'before-change' } })).status, 204);
  t.is((await s.request('POST', `${OPS}/snapshot-manager:delete-snapshot`, { input: { name: 'before-change' } })).status, 404);
  t.is((await s.request('POST', `${OPS}/snapshot-manager:replace-config-with-snapshot`, { input: { name: 'nosuch' } })).status, 404);
});

test.serial('bad input: unknown target node 404, garbage or unknown cookies 422, direct writes of uniconfig nodes refused', async (t) => {
  const unknown = await s.request('POST', `${OPS}/uniconfig-manager:commit`, { input: { 'target-nodes': { node: ['NOPE'] } } });
  t.is(unknown.status, 404, unknown.text);
  for (const cookie of [
    'UNICONFIGTXID=garbage',
    'UNICONFIGTXID=',
    `UNICONFIGTXID=${'x'.repeat(5000)}`,
    'UNICONFIGTXID=00000000-0000-0000-0000-000000000000',
    'UNICONFIGTXID=a; UNICONFIGTXID=b',
  ]) {
    const r = await s.request('GET', desc('R1', 'eth0'), undefined, { cookie });
    t.is(r.status, 422, `${cookie.slice(0, 40)}: ${r.text}`);
    const c = await s.request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, { cookie });
    t.is(c.status, 422);
  }
  t.is(
    (await s.request('GET', desc('R1', 'eth0'), undefined, { cookie: 'other=1; session=abc' })).status,
    200,
    'other cookies are ignored',
  );
  t.is((await s.request('POST', `${OPS}/uniconfig-manager:close-transaction`)).status, 422);
  t.is((await s.request('POST', `${OPS}/uniconfig-manager:create-transaction?timeout=abc`)).status, 400);
  const direct = await s.request('PUT', `${TOPO}/node=R1`, { 'network-topology:node': [{ 'node-id': 'R1' }] });
  t.is(direct.status, 400, direct.text);
  t.is((await s.request('GET', `${conf('NOPE')}`)).status, 404);
  t.is((await s.request('GET', `${conf('R1')}/nosuch:thing`)).status, 404);
  const badBody = await s.request('PUT', desc('R1', 'eth0'), '{"rosetta-openconfig-interfaces:description": ');
  t.is(badBody.status, 400);
});

test.serial('idle transactions expire', async (t) => {
  const r = await s.request('POST', `${OPS}/uniconfig-manager:create-transaction?timeout=1`);
  t.is(r.status, 201);
  const cookie = `UNICONFIGTXID=${r.json['uniconfig-manager:output']['transaction-id']}`;
  t.is((await s.request('GET', desc('R1', 'eth0'), undefined, { cookie })).status, 200);
  await new Promise((res) => setTimeout(res, 1300));
  t.is((await s.request('GET', desc('R1', 'eth0'), undefined, { cookie })).status, 422);
});

test.serial('commit while a device is down: 502 and nothing changed anywhere', async (t) => {
  const cookie = await createTransaction();
  t.is((await setDescription('R1', 'eth0', 'never sent', cookie)).status, 204);
  t.is((await setDescription('R2', 'eth0', 'never sent either', cookie)).status, 204);
  const config1 = r1.view.runningConfig();
  await r2.close();
  const commit = await s.request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, { cookie });
  t.is(commit.status, 502, commit.text);
  t.is(r1.view.runningConfig(), config1);
  t.is(await description('R1', 'eth0'), 'by hand');
});

test.serial('restart: what was committed survives, open transactions do not', async (t) => {
  const cookie = await createTransaction();
  t.is((await setDescription('R1', 'eth1', 'uncommitted', cookie)).status, 204);
  await s.service.stop();
  s = await startMountService(plugins, s.dataDir);
  t.true(await eventually(async () => (await s.request('GET', desc('R1', 'eth0'))).status === 200), s.logs.join('\n'));
  t.is(await description('R1', 'eth0'), 'by hand');
  t.is(await description('R1', 'eth0', undefined, 'nonconfig'), 'by hand');
  t.is(await description('R1', 'eth1'), 'from a');
  t.is((await s.request('GET', desc('R1', 'eth1'), undefined, { cookie })).status, 422);
});
