import test from 'ava';
import { Readiness } from '../../src/service/readiness';

/** Parts whose states the test sets. */
function parts() {
  const state = { storesOpen: true, swapping: false, pluginsLoaded: true };
  return {
    state,
    parts: { storesOpen: () => state.storesOpen, schemaSwapping: () => state.swapping, pluginsLoaded: () => state.pluginsLoaded },
  };
}

test('ready only while serving with the stores open, no schema swap and the plugins loaded; each check says what it is doing instead', (t) => {
  const readiness = new Readiness();
  t.deepEqual(readiness.report(), {
    ready: false,
    checks: { service: 'starting', datastores: 'closed', schema: 'starting', plugins: 'loading' },
  });
  const { state, parts: watched } = parts();
  readiness.watch(watched);
  state.pluginsLoaded = false;
  t.like(readiness.report(), { ready: false, checks: { service: 'starting', datastores: 'UP', schema: 'UP', plugins: 'loading' } });
  readiness.phase = 'serving';
  t.like(readiness.report(), { ready: false, checks: { service: 'UP', plugins: 'loading' } });
  state.pluginsLoaded = true;
  t.deepEqual(readiness.report(), { ready: true, checks: { service: 'UP', datastores: 'UP', schema: 'UP', plugins: 'UP' } });
  state.swapping = true;
  t.like(readiness.report(), { ready: false, checks: { schema: 'swapping' } });
  state.swapping = false;
  state.storesOpen = false; // read when asked, never cached
  t.like(readiness.report(), { ready: false, checks: { datastores: 'closed' } });
  state.storesOpen = true;
  readiness.phase = 'stopping';
  t.like(readiness.report(), { ready: false, checks: { service: 'stopping', datastores: 'UP' } });
});
