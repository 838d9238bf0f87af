/**
 * The Config datastore's commit path publishes one data-change event per committed write (PUT, POST,
 * PATCH, DELETE, YANG Patch), with the request's edits, in commit order, durable before the 2xx; a
 * refused write publishes nothing; a path-scoped subscription's stream gets only the edits in its scope.
 * The hub is replaced by a recorder of what is published, which makes each event durable a turn later.
 */
import test from 'ava';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataChangeFeed } from '../../src/events/data-change-feed';
import { type ChangeStreams, DataChangeSubscriptions } from '../../src/events/subscriptions';
import type { EventInput, StreamDefinition, StreamEvent } from '../../src/events/types';
import { createHooks } from '../../src/hooks';
import type { PluginScope } from '../../src/plugins/generation';
import type { RestconfContext } from '../../src/restconf/context';
import { createRestconfHandler } from '../../src/restconf/dispatcher';
import { createPluginRoutes } from '../../src/restconf/plugin-routes';
import { RouteTable } from '../../src/restconf/route-table';
import { compileSchema } from '../../src/yang/compiler';
import { ModuleRepository } from '../../src/yang/repository';
import { MODEL_DIRS } from '../data/fixture';
import { memoryDatastores } from '../restconf/http-fixture';

interface Published {
  readonly stream: string;
  readonly input: EventInput;
  durable: boolean;
}

class RecordingStreams implements ChangeStreams {
  readonly published: Published[] = [];
  readonly defined = new Map<string, StreamDefinition>();
  private next = 1;
  defineStream(def: StreamDefinition): void {
    this.defined.set(def.name, def);
  }
  removeStream(name: string): void {
    this.defined.delete(name);
  }
  publish(stream: string, input: EventInput): Promise<StreamEvent> {
    const record: Published = { stream, input, durable: false };
    this.published.push(record);
    const event: StreamEvent = { ...input, id: this.next++, stream, eventTime: new Date().toISOString() };
    return new Promise((resolve) =>
      setImmediate(() => {
        record.durable = true;
        resolve(event);
      }),
    );
  }
}

const repo = new ModuleRepository([...MODEL_DIRS]);
const schema = compileSchema(repo, { modules: ['ietf-interfaces', 'iana-if-type', 'example-jukebox'] });

async function serve(streams: RecordingStreams, subscriptions?: DataChangeSubscriptions) {
  const hooks = createHooks();
  /** The interface names of the writes the Config datastore made durable, in the order it resolved them. */
  const committedOrder: string[] = [];
  const datastores = await memoryDatastores('', schema);
  const config = datastores.config;
  const apply = config.apply.bind(config);
  (config as { apply: typeof apply }).apply = async (edits, check, prepared) => {
    const stored = await apply(edits, check, prepared);
    committedOrder.push(String(edits[0]?.target[1]?.keys?.[0]));
    return stored;
  };
  const scope: PluginScope = { generation: 0, hooks, unitsFor: () => ({ units: [] }) as never, release: () => undefined };
  const ctx: RestconfContext = {
    schema,
    datastores,
    plugins: { acquire: () => scope },
    options: { keyDelimiter: '%22', bodyLimit: 65536, defaultContent: 'all' },
    log: { info: () => undefined, error: () => undefined },
    dataChanges: new DataChangeFeed(streams, subscriptions),
  };
  const local = { resolve: () => ({}) as never, readConfig: () => undefined, readSecret: () => undefined };
  const server = http.createServer(createRestconfHandler(ctx, { routes: new RouteTable(), pluginRoutes: createPluginRoutes(ctx, local) }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rests/data`;
  return {
    committedOrder,
    async send(method: string, p: string, body?: unknown, type = 'application/yang-data+json') {
      const res = await fetch(base + p, {
        method,
        headers: body === undefined ? {} : { 'content-type': type },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      // what was published by the time the client has its answer must already be durable
      const allDurable = streams.published.every((r) => r.durable);
      return { status: res.status, text: await res.text(), allDurable };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const eth0 = { name: 'eth0', type: 'iana-if-type:ethernetCsmacd', enabled: true };

function change(p: Published): any {
  return (p.input.content as any)['rosetta-events:data-change'];
}

test('each committed write is one data-change event with its edits, durable before the 2xx, in commit order', async (t) => {
  const streams = new RecordingStreams();
  const s = await serve(streams);
  try {
    const put = await s.send('PUT', '/ietf-interfaces:interfaces/interface=eth0', { 'ietf-interfaces:interface': [eth0] });
    t.is(put.status, 201);
    t.true(put.allDurable);
    const patch = await s.send('PATCH', '/ietf-interfaces:interfaces/interface=eth0', {
      'ietf-interfaces:interface': [{ name: 'eth0', description: 'uplink' }],
    });
    t.is(patch.status, 200);
    const post = await s.send('POST', '/ietf-interfaces:interfaces', { 'ietf-interfaces:interface': [{ ...eth0, name: 'eth1' }] });
    t.is(post.status, 201);
    const yangPatch = await s.send(
      'PATCH',
      '/ietf-interfaces:interfaces',
      {
        'ietf-yang-patch:yang-patch': {
          'patch-id': 'p1',
          edit: [
            {
              'edit-id': 'a',
              operation: 'merge',
              target: '/interface=eth1',
              value: { 'ietf-interfaces:interface': [{ name: 'eth1', enabled: false }] },
            },
            { 'edit-id': 'b', operation: 'delete', target: '/interface=eth0/description' },
          ],
        },
      },
      'application/yang-patch+json',
    );
    t.is(yangPatch.status, 200, yangPatch.text);
    const del = await s.send('DELETE', '/ietf-interfaces:interfaces/interface=eth1');
    t.is(del.status, 204);
    t.true(del.allDurable);

    t.deepEqual(
      streams.published.map((p) => p.stream),
      ['data-change', 'data-change', 'data-change', 'data-change', 'data-change'],
    );
    const [c1, c2, c3, c4, c5] = streams.published.map(change);
    t.deepEqual(c1, {
      datastore: 'config',
      edit: [
        {
          'edit-id': '1',
          operation: 'replace',
          target: '/ietf-interfaces:interfaces/interface=eth0',
          value: { 'ietf-interfaces:interface': [eth0] },
        },
      ],
    });
    t.is(c2.edit[0].operation, 'merge');
    t.deepEqual(c2.edit[0].value, { 'ietf-interfaces:interface': [{ name: 'eth0', description: 'uplink' }] });
    t.is(c3.edit[0].operation, 'create');
    t.is(c3.edit[0].target, '/ietf-interfaces:interfaces/interface=eth1');
    t.deepEqual(
      c4.edit.map((e: any) => [e['edit-id'], e.operation, e.target]),
      [
        ['1', 'merge', '/ietf-interfaces:interfaces/interface=eth1'],
        ['2', 'delete', '/ietf-interfaces:interfaces/interface=eth0/description'],
      ],
    );
    t.false('value' in c4.edit[1]);
    t.deepEqual(c5.edit, [{ 'edit-id': '1', operation: 'delete', target: '/ietf-interfaces:interfaces/interface=eth1' }]);
    t.false('user' in c5);
  } finally {
    await s.close();
  }
});

test('a refused write publishes nothing', async (t) => {
  const streams = new RecordingStreams();
  const s = await serve(streams);
  try {
    t.is((await s.send('DELETE', '/ietf-interfaces:interfaces/interface=none')).status, 404);
    t.is(
      (await s.send('PUT', '/ietf-interfaces:interfaces/interface=eth0', { 'ietf-interfaces:interface': [{ name: 'eth0' }] })).status,
      400,
    );
    t.deepEqual(streams.published, []);
  } finally {
    await s.close();
  }
});

test('concurrent writes are published in the order the datastore committed them', async (t) => {
  const streams = new RecordingStreams();
  const s = await serve(streams);
  try {
    const names = Array.from({ length: 20 }, (_, i) => `if${i}`);
    await Promise.all(
      names.map((name) =>
        s.send('PUT', `/ietf-interfaces:interfaces/interface=${name}`, { 'ietf-interfaces:interface': [{ ...eth0, name }] }),
      ),
    );
    const published = streams.published.map((p) => change(p).edit[0].target.split('=')[1]);
    t.is(published.length, 20);
    t.deepEqual(new Set(published), new Set(names));
    t.deepEqual(published, s.committedOrder);
  } finally {
    await s.close();
  }
});

test("a subscription's stream gets only the edits in its path and scope", async (t) => {
  const streams = new RecordingStreams();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-dce-'));
  const subscriptions = new DataChangeSubscriptions(dir, streams);
  const onEth0 = await subscriptions.create({ 'subtree-path': '/ietf-interfaces:interfaces/interface=eth0', 'data-change-scope': 'BASE' });
  const underAll = await subscriptions.create({ 'subtree-path': '/ietf-interfaces:interfaces' });
  t.true(streams.defined.has(onEth0.id));
  const s = await serve(streams, subscriptions);
  try {
    await s.send('PUT', '/ietf-interfaces:interfaces/interface=eth0', { 'ietf-interfaces:interface': [eth0] });
    await s.send('PUT', '/ietf-interfaces:interfaces/interface=eth1', { 'ietf-interfaces:interface': [{ ...eth0, name: 'eth1' }] });
    await s.send('PATCH', '/ietf-interfaces:interfaces/interface=eth0/description', { 'ietf-interfaces:description': 'x' });
    const on = (id: string) => streams.published.filter((p) => p.stream === id).map((p) => change(p).edit.map((e: any) => e.target));
    t.deepEqual(on(onEth0.id), [['/ietf-interfaces:interfaces/interface=eth0']]);
    t.deepEqual(on(underAll.id), [
      ['/ietf-interfaces:interfaces/interface=eth0'],
      ['/ietf-interfaces:interfaces/interface=eth1'],
      ['/ietf-interfaces:interfaces/interface=eth0/description'],
    ]);
  } finally {
    await s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
