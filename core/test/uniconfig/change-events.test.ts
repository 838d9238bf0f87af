/**
 * The uniconfig layer's data-change events, read over SSE from a running service with a simulated
 * NETCONF device: a transaction's commit publishes, for the node, what changed in its intended
 * configuration (uniconfig-intended) and in what the device now holds (uniconfig-actual), with the
 * topology and node id, after the install's own events.
 */
import { startNetconfSimulator, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import test from 'ava';
import { openStream } from '../restconf/streams-client';
import { pluginsFile, startMountService, type MountService } from '../mount/fixture';
import { ACME_ROUTER_CONFIG, ACME_ROUTER_YANG, installN1, N1_CONFIGURATION } from './acme-router';

const CONF = N1_CONFIGURATION;
const OPS = '/rests/operations';

let device: SimulatedNetconfDevice | undefined;
let s: MountService | undefined;
test.after.always(async () => {
  await s?.service.stop();
  await device?.close();
});

interface Change {
  datastore: string;
  'topology-id'?: string;
  'node-id'?: string;
  edit: { operation: string; target: string; value?: unknown }[];
}

test.serial('a commit publishes the node intended and actual changes on data-change', async (t) => {
  device = await startNetconfSimulator({ yang: ACME_ROUTER_YANG, username: 'admin', password: 'pw', config: ACME_ROUTER_CONFIG });
  s = await startMountService(pluginsFile(['plugins/netconf']));
  const install = await installN1(s, device.port);
  t.is(install.status, 204, install.text);

  const sse = await openStream(`${s.service.url}/rests/streams/json/data-change`);
  try {
    t.is(sse.status, 200);
    const tx = await s.request('POST', `${OPS}/uniconfig-manager:create-transaction`);
    const cookie = tx.headers.get('set-cookie')!.split(';')[0]!;
    const put = await s.request('PUT', `${CONF}/acme-router:system/hostname`, { 'acme-router:hostname': 'edge-1' }, { cookie });
    t.is(put.status, 204, put.text);
    t.is(sse.messages.length, 0, 'an edit inside a transaction is not a change until it is committed');
    const commit = await s.request('POST', `${OPS}/uniconfig-manager:commit`, { input: {} }, { cookie });
    t.is(commit.status, 204, commit.text);

    const messages = await sse.waitFor(2);
    const changes = messages.map((m) => JSON.parse(m.data)['ietf-restconf:notification']['rosetta-events:data-change'] as Change);
    t.deepEqual(changes.map((c) => [c.datastore, c['topology-id'], c['node-id']]).sort(), [
      ['uniconfig-actual', 'uniconfig', 'N1'],
      ['uniconfig-intended', 'uniconfig', 'N1'],
    ]);
    for (const c of changes) {
      t.is(c.edit.length, 1, JSON.stringify(c));
      t.regex(c.edit[0]!.target, /acme-router:system\/hostname$/);
      t.deepEqual(c.edit[0]!.value, { 'acme-router:hostname': 'edge-1' });
    }
    t.true(Number(messages[0]!.id) < Number(messages[1]!.id), 'numbered in order');
  } finally {
    sse.close();
  }
});
