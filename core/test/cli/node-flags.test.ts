/**
 * The Node flags `npm start` gives the service (core/bin/node-flags.js): the V8 worker pool by the
 * machine's cores, and the start script and the flags file agreeing on what Node actually runs with.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { serviceNodeFlags } from '@rosetta/core/bin/node-flags.js';

const ROOT = path.resolve(__dirname, '../../../..');

test('the V8 pool is one worker fewer than the cores, at least one and at most Node’s four', (t) => {
  t.deepEqual(
    [1, 2, 3, 4, 5, 8, 64].map((cores) => serviceNodeFlags(cores)),
    [1, 1, 2, 3, 4, 4, 4].map((pool) => [`--v8-pool-size=${pool}`]),
  );
});

test('npm start passes the printed flags to Node, and Node accepts them', (t) => {
  const start = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start as string;
  t.regex(start, /node \$\(node core\/bin\/node-flags\.js\) core\/bin\/rosetta\.js start/);
  const printed = execFileSync(process.execPath, [path.join(ROOT, 'core/bin/node-flags.js')], { encoding: 'utf8' });
  t.is(printed, serviceNodeFlags().join(' '));
  // Node refuses a flag it does not know (exit 9): these must start a process
  const flags = printed.split(' ');
  const ran = execFileSync(process.execPath, [...flags, '-p', 'JSON.stringify(process.execArgv)'], { encoding: 'utf8' });
  t.deepEqual(JSON.parse(ran).slice(0, flags.length), flags);
});
