// The service opens one event hub under <dataDir>/events with the built-in streams, closes it at stop,
// keeps the replay log across a restart, and still starts when the log is damaged (set aside, logged).
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'ava';
import { startTestService } from '../../src/service/test-service';
import { RecordingSink, temporaryDirectory } from './hub-fixture';

test('the built-in streams exist and the replay log continues across a restart', async (t) => {
  const dataDir = path.join(temporaryDirectory(t), 'data');
  const first = await startTestService({ label: 'events', plugins: [], dataDir });
  t.deepEqual(
    first.service.events
      .streams()
      .map((s) => [s.name, s.replay])
      .sort(),
    [
      ['NETCONF', true],
      ['data-change', true],
      ['node-status', true],
    ],
  );
  const event = await first.service.events.publish('node-status', {
    content: { 'rosetta-events:node-status': { 'topology-id': 't', 'node-id': 'n', status: 'installed' } },
  });
  await first.stop();
  t.true(fs.existsSync(path.join(dataDir, 'events', 'replay-log.json')));

  const second = await startTestService({ label: 'events', plugins: [], dataDir });
  t.teardown(() => second.stop());
  const replay = new RecordingSink();
  second.service.events.subscribe('node-status', { afterId: event.id - 1 }, replay);
  t.deepEqual(replay.events, [event]);
});

test('a damaged replay log does not stop the service: it is set aside and logged', async (t) => {
  const dataDir = path.join(temporaryDirectory(t), 'data');
  fs.mkdirSync(path.join(dataDir, 'events'), { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'events', 'replay-log.json'), 'not json');
  const running = await startTestService({ label: 'events', plugins: [], dataDir });
  t.teardown(() => running.stop());
  t.true(running.logs.some((line) => line.startsWith('ERROR the event replay log is damaged')));
  t.truthy(running.service.events.replayState().creationTime);
});
