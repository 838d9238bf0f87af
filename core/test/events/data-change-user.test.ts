/**
 * With authentication on, a Config datastore write's data-change event names the user who made it, as
 * the login check knew them; the password is nowhere in the event.
 */
import test from 'ava';
import { hashPassword } from '../../src/cli/hash-password-command';
import { startTestService } from '../../src/service/test-service';
import { TEST_MODELS } from '../test-models';
import { pluginsFile } from '../mount/fixture';
import { openStream } from '../restconf/streams-client';

test('the event of an authenticated write carries its user', async (t) => {
  const passwordHash = await hashPassword('s3cret-pw', { cost: 1024 });
  const svc = await startTestService({
    plugins: pluginsFile(['plugins/auth']),
    yangDirs: [TEST_MODELS],
    label: 'events-user',
    config: { auth: { users: [{ name: 'operator7', role: 'write', passwordHash }] } },
  });
  t.teardown(() => svc.stop());
  const authorization = `Basic ${Buffer.from('operator7:s3cret-pw').toString('base64')}`;
  const sse = await openStream(`${svc.service.url}/rests/streams/json/data-change`, { authorization });
  try {
    t.is(sse.status, 200);
    const put = await svc.request(
      'PUT',
      '/rests/data/example-jukebox:jukebox/player',
      { 'example-jukebox:player': { gap: '0.5' } },
      { authorization },
    );
    t.is(put.status, 201, put.text);
    const [m] = await sse.waitFor(1);
    const change = JSON.parse(m!.data)['ietf-restconf:notification']['rosetta-events:data-change'];
    t.is(change.user, 'operator7');
    t.is(change.datastore, 'config');
    t.false(m!.data.includes('s3cret-pw'));
  } finally {
    sse.close();
  }
});
