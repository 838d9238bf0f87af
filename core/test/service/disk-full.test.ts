/**
 * A full disk under the data directory, for real: the data directory on a 2 MiB tmpfs (mounted here,
 * so the test needs root; without it the test is skipped with a warning), filled by a file, then a
 * write answers 507 `resource-denied` saying no space is left, nothing of it applied, reads still
 * served; once the file is gone writes pass again, and a restart finds exactly the acknowledged ones.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { openDatastores } from '../../src/datastore';
import { resolveConfig } from '../../src/service/config';
import { startService, type RunningService } from '../../src/service/service';
import { IANA_IF_TYPE, INTERFACES, modelYangDir } from '../restconf/http-fixture';

const mountPoint = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-full-disk-'));
const mountRefusal = ((): string | undefined => {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mountPoint], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `${(error as Error).message.split('\n')[0]}`;
  }
})();
if (mountRefusal !== undefined) console.warn(`disk-full: SKIPPED, a tmpfs cannot be mounted here (needs root): ${mountRefusal}`);
const maybe = mountRefusal === undefined ? test.serial : test.skip;

const dataDir = path.join(mountPoint, 'data');
const filler = path.join(mountPoint, 'filler');
const yangDir = modelYangDir([INTERFACES, IANA_IF_TYPE]);
const logs: string[] = [];
let running: RunningService | undefined;

test.after.always(async () => {
  await running?.stop();
  if (mountRefusal === undefined) execFileSync('umount', [mountPoint]);
  fs.rmSync(mountPoint, { recursive: true, force: true });
});

async function start(): Promise<RunningService> {
  const config = resolveConfig({ port: 0, dataDir, yangDirs: [yangDir] }, mountPoint);
  running = await startService({ config, openDatastores, log: { info: (m) => logs.push(m), error: (m) => logs.push(m) } });
  return running;
}

async function request(method: string, p: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(running!.url + p, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/yang-data+json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? undefined : JSON.parse(text) };
}

const IF = '/rests/data/ietf-interfaces:interfaces/interface';
const iface = (name: string) => ({
  'ietf-interfaces:interface': [{ name, type: 'iana-if-type:ethernetCsmacd', description: 'x'.repeat(2000) }],
});

/** Writes into `filler` until the file system refuses. */
function fillDisk(): void {
  const fd = fs.openSync(filler, 'w');
  const chunk = Buffer.alloc(16 * 1024, 1);
  try {
    for (;;) fs.writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    fs.closeSync(fd);
  }
}

maybe('a full disk answers writes 507 resource-denied, keeps serving reads, and takes writes again once space is freed', async (t) => {
  await start();
  t.is((await request('PUT', `${IF}=eth0`, iface('eth0'))).status, 201);

  fillDisk();
  for (const name of ['eth1', 'eth2']) {
    const full = await request('PUT', `${IF}=${name}`, iface(name));
    t.is(full.status, 507, JSON.stringify(full.json));
    const error = full.json.errors.error[0];
    t.is(error['error-tag'], 'resource-denied');
    t.is(error['error-type'], 'application');
    t.regex(error['error-message'], /^no space left on the disk of the data directory \(.*\): the change was not stored/);
    t.is((await request('GET', `${IF}=${name}`)).status, 404, 'nothing of the refused write applied');
    t.is((await request('GET', `${IF}=eth0`)).status, 200, 'reads are still served');
  }

  fs.unlinkSync(filler);
  t.is((await request('PUT', `${IF}=eth3`, iface('eth3'))).status, 201, logs.join('\n'));
  t.is((await request('GET', `${IF}=eth3`)).status, 200);

  await running!.stop();
  running = undefined;
  await start();
  const names = (await request('GET', '/rests/data/ietf-interfaces:interfaces')).json['ietf-interfaces:interfaces'].interface.map(
    (i: { name: string }) => i.name,
  );
  t.deepEqual(names, ['eth0', 'eth3'], 'a restart finds the acknowledged writes only');
});
