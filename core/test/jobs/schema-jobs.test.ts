/**
 * A device's schema download and compile as jobs, on a real service with the NETCONF plugin against the
 * SDK's simulator offering six modules, one of which it answers get-schema for only after a while: a
 * first install with an empty schema cache is readable as a running `schema-download` job with every
 * module but that one done, then as a finished one with all done; its compile is a `schema-compile` job;
 * the log carries both jobs' lines. A second node with the same modules (a cache hit) makes no job.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { startNetconfSimulator, type SimulatedNetconfDevice } from '@rosetta/sdk/testing';
import { startTestService, type TestService } from '../../src/service/test-service';
import { eventually, pluginsFile, netconfNodeInput } from '../mount/fixture';
import { type JobEntry, readJobs } from './jobs-read';

const MODEL = `module acme-box {
  yang-version 1.1;
  namespace "urn:acme:box";
  prefix ab;
  import acme-types-1 { prefix t1; }
  container system { leaf hostname { type t1:name; } }
}`;

const typesModule = (i: number) => `module acme-types-${i} {
  yang-version 1.1;
  namespace "urn:acme:types:${i}";
  prefix t${i};
  typedef name { type string { length "1..64"; } }
}`;

const EXTRA = [1, 2, 3, 4, 5].map(typesModule);
const MODULES = 1 + EXTRA.length;
/** The module whose get-schema the device answers late, so the test reads the download running. */
const SLOW_MODULE = 'acme-types-5';
/** Long enough for a loaded machine's polls to see the job running; it is the test's whole wait. */
const SLOW_MS = 2000;

let s: TestService;
let device: SimulatedNetconfDevice;
const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-schema-jobs-'));

const jobs = (): Promise<JobEntry[]> => readJobs(s);

function install(nodeId: string) {
  return s.request('POST', '/rests/operations/connection-manager:install-node', {
    input: netconfNodeInput(nodeId, device.port, { 'netconf-node-topology:schema-cache-directory': cache }),
  });
}

test.before(async () => {
  device = await startNetconfSimulator({
    yang: MODEL,
    extraModules: EXTRA,
    username: 'admin',
    password: 'pw',
    replyDelayMs: (operation, request) =>
      operation === 'get-schema' && request.children.find((c) => c.name === 'identifier')?.text.trim() === SLOW_MODULE ? SLOW_MS : 0,
  });
  s = await startTestService({ label: 'schema-jobs', plugins: pluginsFile(['plugins/netconf']) });
});

test.after.always(async () => {
  await s?.stop();
  await device?.close();
  fs.rmSync(cache, { recursive: true, force: true });
});

test.serial('a first connect downloads its modules as a job a client reads moving, then compiles them as a job', async (t) => {
  const mark = s.logs.length;
  const installing = install('FIRST');
  let running: JobEntry | undefined;
  t.true(
    await eventually(async () => {
      running = (await jobs()).find((j) => j.kind === 'schema-download' && j.state === 'running' && j.done === MODULES - 1);
      return running !== undefined;
    }, 30_000),
    'the download was never read running with all but the slow module done',
  );
  t.like(running, { 'node-id': 'FIRST', total: MODULES, failed: 0 });
  t.is(running!.finished, undefined);
  const r = await installing;
  t.is(r.status, 204, r.text);
  const all = await jobs();
  t.like(
    all.find((j) => j.id === running!.id),
    { kind: 'schema-download', state: 'succeeded', 'node-id': 'FIRST', total: MODULES, done: MODULES, failed: 0 },
  );
  const compiles = all.filter((j) => j.kind === 'schema-compile');
  t.is(compiles.length, 1, JSON.stringify(all));
  t.like(compiles[0], { state: 'succeeded', 'node-id': 'FIRST', total: MODULES, done: MODULES, failed: 0 });
  t.true(compiles[0]!.id > running!.id, 'the compile follows the download');
  const log = s.logs.slice(mark);
  t.true(log.includes(`downloading ${MODULES} module(s) of FIRST`), log.join('\n'));
  t.true(
    log.some((l) => new RegExp(`^downloading ${MODULES - 1}/${MODULES} of FIRST$`).test(l)),
    log.join('\n'),
  );
  t.true(
    log.some((l) => new RegExp(`^downloaded ${MODULES}/${MODULES} module\\(s\\) of FIRST in [\\d.]+ s$`).test(l)),
    log.join('\n'),
  );
  t.true(
    log.some((l) => new RegExp(`^compiled ${MODULES}/${MODULES} module\\(s\\) of FIRST in [\\d.]+ s$`).test(l)),
    log.join('\n'),
  );
});

test.serial('a second node with the same modules finds them cached and compiled: no job', async (t) => {
  const before = (await jobs()).length;
  const r = await install('SECOND');
  t.is(r.status, 204, r.text);
  const after = await jobs();
  t.is(after.length, before, JSON.stringify(after.slice(before)));
  t.false(
    after.some((j) => j['node-id'] === 'SECOND'),
    JSON.stringify(after),
  );
});
