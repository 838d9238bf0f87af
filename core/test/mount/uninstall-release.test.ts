/**
 * Uninstalling a node gives its memory back: after every node is uninstalled, nothing in the service
 * still reaches a device connection it handed the southbound's reads (its session, buffers, schema
 * sources hang off it). The check runs in a child process started with --expose-gc
 * (uninstall-release-child.ts), which holds the connections through WeakRefs only and collects garbage
 * before it looks.
 */
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';

test('after every node is uninstalled, no device connection is still reachable', async (t) => {
  const child = path.join(__dirname, 'uninstall-release-child.js');
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', child], { timeout: 90_000 });
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as { seen: number; alive: string[]; problems: string[] };
  t.deepEqual(result.problems, []);
  t.is(result.seen, 10, 'the probe saw every device connection');
  t.deepEqual(result.alive, [], 'connections still reachable after uninstall');
});
