/**
 * The shared FRR peer lease (src/testing/frr-peer.ts) with a stand-in start script, so it runs anywhere:
 * leases from separate processes never overlap, a lock left by a dead process is recovered, a live
 * holder makes a waiter give up naming it, the peer is restarted to its baseline when it was running and
 * started (then stopped on release) when it was not.
 */
import test from 'ava';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { acquireFrrPeer } from '../src/testing';

const MODULE = path.resolve(__dirname, '../src/testing/frr-peer.js');

/** A start script that records its commands and keeps a `running` marker, as frr-device.sh behaves. */
function fakePeer(): { dir: string; script: string; lockDir: string; calls: () => string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-frr-lock-'));
  const script = path.join(dir, 'peer.sh');
  fs.writeFileSync(
    script,
    `#!/bin/bash
echo "$1" >> "${dir}/calls"
case "$1" in
  start) touch "${dir}/running" ;;
  stop) rm -f "${dir}/running" ;;
  restart) touch "${dir}/running" ;;
  status) [ -e "${dir}/running" ] || exit 3 ;;
esac
`,
  );
  return {
    dir,
    script,
    lockDir: path.join(dir, 'lock'),
    calls: () => (fs.existsSync(path.join(dir, 'calls')) ? fs.readFileSync(path.join(dir, 'calls'), 'utf8').trim().split('\n') : []),
  };
}

test('leases from separate processes run one after another', async (t) => {
  const peer = fakePeer();
  const log = path.join(peer.dir, 'holds');
  const holder = (name: string) => `
    const { acquireFrrPeer } = require(${JSON.stringify(MODULE)});
    const fs = require('fs');
    (async () => {
      const lease = await acquireFrrPeer({ script: ${JSON.stringify(peer.script)}, lockDir: ${JSON.stringify(peer.lockDir)}, who: '${name}' });
      fs.appendFileSync(${JSON.stringify(log)}, 'in ${name} ' + Date.now() + '\\n');
      await new Promise((r) => setTimeout(r, 300));
      fs.appendFileSync(${JSON.stringify(log)}, 'out ${name} ' + Date.now() + '\\n');
      await lease.release();
    })();`;
  const run = (name: string) =>
    new Promise<number>((resolve) =>
      spawn(process.execPath, ['-e', holder(name)], { stdio: 'inherit' }).on('exit', (c) => resolve(c ?? 1)),
    );
  t.deepEqual(await Promise.all([run('a'), run('b'), run('c')]), [0, 0, 0]);
  const events = fs
    .readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(' '));
  t.is(events.length, 6);
  for (let i = 0; i < 6; i += 2) {
    t.is(events[i]![0], 'in');
    t.is(events[i + 1]![0], 'out');
    t.is(events[i]![1], events[i + 1]![1], 'each lease ends before the next begins');
  }
  t.false(fs.existsSync(peer.lockDir), 'the last holder released the lock');
  // the first lease started the peer and stopped it; so did each later one (none found it running)
  t.deepEqual(
    peer.calls().filter((c) => c !== 'status'),
    ['start', 'stop', 'start', 'stop', 'start', 'stop'],
  );
});

test('a running peer is restarted to its baseline and left running; a lock of a dead process is recovered', async (t) => {
  const peer = fakePeer();
  fs.writeFileSync(path.join(peer.dir, 'running'), '');
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  fs.mkdirSync(peer.lockDir);
  fs.writeFileSync(
    path.join(peer.lockDir, 'owner'),
    JSON.stringify({ pid: Number(dead.stdout), who: 'crashed worker', since: new Date().toISOString() }),
  );
  const lease = await acquireFrrPeer({ script: peer.script, lockDir: peer.lockDir, waitMs: 5000 });
  t.true(lease.waitedMs < 5000);
  t.is(JSON.parse(fs.readFileSync(path.join(peer.lockDir, 'owner'), 'utf8')).pid, process.pid);
  await lease.release();
  await lease.release(); // twice is harmless
  t.deepEqual(peer.calls(), ['status', 'restart']);
  t.true(fs.existsSync(path.join(peer.dir, 'running')), 'a peer found running stays running');
  t.false(fs.existsSync(peer.lockDir));
});

test('a waiter gives up after waitMs naming the live holder; acquires in one process queue', async (t) => {
  const peer = fakePeer();
  fs.mkdirSync(peer.lockDir);
  fs.writeFileSync(path.join(peer.lockDir, 'owner'), JSON.stringify({ pid: process.pid, who: 'someone else', since: 'now' }));
  const refused = await acquireFrrPeer({ script: peer.script, lockDir: peer.lockDir, waitMs: 300 }).catch((e: Error) => e);
  t.regex(String((refused as Error).message), new RegExp(`still held after 300 ms by pid ${process.pid} \\(someone else\\)`));
  fs.rmSync(peer.lockDir, { recursive: true });

  const first = await acquireFrrPeer({ script: peer.script, lockDir: peer.lockDir });
  let secondIn = false;
  const second = acquireFrrPeer({ script: peer.script, lockDir: peer.lockDir }).then((l) => {
    secondIn = true;
    return l;
  });
  await new Promise((r) => setTimeout(r, 300));
  t.false(secondIn, 'the second lease waits for the first');
  await first.release();
  const l2 = await second;
  t.true(secondIn);
  await l2.release();
  t.false(fs.existsSync(peer.lockDir));
});
