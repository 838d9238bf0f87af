/**
 * A client that reconnects with Last-Event-ID after the service restarted gets every event after the
 * last one it saw, from before and after the restart, in order, once each: the replay log is durable
 * and its ids continue.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { startTestService } from '../../src/service/test-service';
import { TEST_MODELS } from '../test-models';
import { openStream } from './streams-client';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-streams-restart-'));
test.after.always(() => fs.rmSync(dataDir, { recursive: true, force: true }));
const start = () => startTestService({ plugins: [], yangDirs: [TEST_MODELS], dataDir, label: 'streams-restart' });
const gap = (tenths: number) => ({ 'example-jukebox:player': { gap: (tenths / 10).toFixed(1) } });
const gapOf = (data: string) =>
  JSON.parse(data)['ietf-restconf:notification']['rosetta-events:data-change'].edit[0].value['example-jukebox:player'].gap;

test('Last-Event-ID resumes across a restart with no gap and no duplicate', async (t) => {
  let svc = await start();
  let lastSeen: string;
  try {
    const sse = await openStream(`${svc.service.url}/rests/streams/json/data-change`);
    try {
      for (const tenths of [1, 2, 3])
        t.true([201, 204].includes((await svc.request('PUT', '/rests/data/example-jukebox:jukebox/player', gap(tenths))).status));
      const seen = await sse.waitFor(3);
      t.deepEqual(
        seen.map((m) => gapOf(m.data)),
        ['0.1', '0.2', '0.3'],
      );
      lastSeen = seen[1]!.id!; // the client read two events before it lost the connection
    } finally {
      sse.close();
    }
  } finally {
    await svc.stop();
  }

  svc = await start();
  try {
    for (const tenths of [4, 5]) t.is((await svc.request('PUT', '/rests/data/example-jukebox:jukebox/player', gap(tenths))).status, 204);
    const resumed = await openStream(`${svc.service.url}/rests/streams/json/data-change`, { 'last-event-id': lastSeen });
    try {
      const messages = await resumed.waitFor(3);
      t.deepEqual(
        messages.map((m) => gapOf(m.data)),
        ['0.3', '0.4', '0.5'],
      );
      const ids = messages.map((m) => Number(m.id));
      t.true(ids[0]! > Number(lastSeen) && ids[0]! < ids[1]! && ids[1]! < ids[2]!, `ids ${ids} after ${lastSeen}`);
      t.is((await svc.request('PUT', '/rests/data/example-jukebox:jukebox/player', gap(6))).status, 204);
      const [live] = (await resumed.waitFor(4)).slice(3);
      t.is(gapOf(live!.data), '0.6', 'then the live events');
      t.is(resumed.messages.length, 4, 'nothing twice');
    } finally {
      resumed.close();
    }
  } finally {
    await svc.stop();
  }
});
