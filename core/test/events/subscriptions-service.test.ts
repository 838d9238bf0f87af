/**
 * Path-scoped data-change subscriptions through the running service: created and deleted with the
 * data-change-events RPCs over HTTP, listed as state, each a stream a client reads over SSE that gets
 * only the edits in its path and scope, and kept across a restart of the service.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { startTestService, type TestService } from '../../src/service/test-service';
import { TEST_MODELS } from '../test-models';
import { openStream } from '../restconf/streams-client';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-subscriptions-'));
test.after.always(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const start = () => startTestService({ plugins: [], yangDirs: [TEST_MODELS], dataDir, label: 'subscriptions' });

const jukebox = (artist: string) => ({ 'example-jukebox:artist': [{ name: artist }] });

async function subscribe(svc: TestService, subtreePath: string, scope?: string): Promise<string> {
  const input = { 'subtree-path': subtreePath, ...(scope ? { 'data-change-scope': scope } : {}) };
  const answer = await svc.request('POST', '/rests/operations/data-change-events:create-data-change-subscription', { input });
  if (answer.status !== 200) throw new Error(`create-data-change-subscription: ${answer.status} ${answer.text}`);
  return answer.json['data-change-events:output']['subscription-id'];
}

test.serial('a subscription is a stream that gets the edits under its path, and survives a restart', async (t) => {
  let svc = await start();
  let id: string;
  try {
    id = await subscribe(svc, '/example-jukebox:jukebox/library', 'SUBTREE');
    const listed = await svc.request('GET', '/rests/data/data-change-events:data-change-subscriptions');
    t.is(listed.status, 200, listed.text);
    t.deepEqual(
      listed.json['data-change-events:data-change-subscriptions'].subscription.map(
        (s: { 'subscription-id': string }) => s['subscription-id'],
      ),
      [id],
    );
    const streams = await svc.request('GET', '/rests/data/ietf-restconf-monitoring:restconf-state/streams');
    t.true(JSON.stringify(streams.json).includes(`"name":"${id}"`), 'listed among the streams');

    const sse = await openStream(`${svc.service.url}/rests/streams/json/${id}`);
    try {
      t.is(sse.status, 200);
      // outside the path: nothing on the subscription's stream
      t.is(
        (await svc.request('PUT', '/rests/data/example-jukebox:jukebox/player', { 'example-jukebox:player': { gap: '0.5' } })).status,
        201,
      );
      t.is(
        (await svc.request('PUT', '/rests/data/example-jukebox:jukebox/library', { 'example-jukebox:library': jukebox('Foo Fighters') }))
          .status,
        201,
      );
      const [m] = await sse.waitFor(1);
      const change = JSON.parse(m!.data)['ietf-restconf:notification']['rosetta-events:data-change'];
      t.is(change.datastore, 'config');
      t.deepEqual(
        change.edit.map((e: { target: string; operation: string }) => [e.operation, e.target]),
        [['replace', '/example-jukebox:jukebox/library']],
      );
      t.is(sse.messages.length, 1, 'the player change went to data-change only');
    } finally {
      sse.close();
    }
  } finally {
    await svc.stop();
  }

  svc = await start();
  try {
    const sse = await openStream(`${svc.service.url}/rests/streams/json/${id}`);
    try {
      t.is(sse.status, 200, 'the stream is back after the restart');
      t.is(
        (
          await svc.request('PUT', '/rests/data/example-jukebox:jukebox/library/artist=Beck', {
            'example-jukebox:artist': [{ name: 'Beck' }],
          })
        ).status,
        201,
      );
      const [m] = await sse.waitFor(1);
      t.regex(m!.data, /artist=Beck/);
    } finally {
      sse.close();
    }
    const deleted = await svc.request('POST', '/rests/operations/data-change-events:delete-data-change-subscription', {
      input: { 'subscription-id': id },
    });
    t.is(deleted.status, 204, deleted.text);
    const gone = await openStream(`${svc.service.url}/rests/streams/json/${id}`);
    gone.close();
    t.is(gone.status, 404, 'the stream went with the subscription');
    const again = await svc.request('POST', '/rests/operations/data-change-events:delete-data-change-subscription', {
      input: { 'subscription-id': id },
    });
    t.is(again.status, 404, again.text);
    t.regex(again.text, new RegExp(`no data-change subscription '${id}'`));
  } finally {
    await svc.stop();
  }
});

test.serial('a subscription without a subtree-path is refused naming the missing input', async (t) => {
  const svc = await start();
  try {
    const answer = await svc.request('POST', '/rests/operations/data-change-events:create-data-change-subscription', { input: {} });
    t.is(answer.status, 400, answer.text);
    t.regex(answer.text, /subtree-path/);
  } finally {
    await svc.stop();
  }
});
