// kill -9 at random moments: a child process appends numbered records from 8 concurrent writers
// (snapshotting every 150 records) and prints each number once its append resolved. After each kill the
// journal must hold every acknowledged record, in order, with nothing half-written, and the next child
// continues on top of it. Some rounds kill during start-up, i.e. during recovery itself.
import test from 'ava';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Journal } from '../../src/datastore/journal';
import { temporaryDirectory } from './journal-fixture';

const JOURNAL_MODULE = path.resolve(__dirname, '../../src/datastore/journal.js');

/** The exact text of record `n`: about 200 bytes, different for every n, so a mixed-up record shows. */
function recordFor(n: number): string {
  return `record ${n} ${`${n}:`.repeat(200).slice(0, 190)}`;
}

const CHILD_SCRIPT = `
const { Journal } = require(${JSON.stringify(JOURNAL_MODULE)});
const recordFor = ${recordFor.toString()};
(async () => {
  let count = 0;
  const journal = await Journal.open(process.argv[2], {
    log: (line) => process.stderr.write(line + '\\n'),
    onSnapshot: (state) => { count = JSON.parse(state.toString()).count; },
    onRecord: (record) => {
      if (record.toString() !== recordFor(count)) throw new Error('unexpected record at ' + count);
      count += 1;
    },
    compactAfterRecords: 150,
    onCompactionDue: (due) => {
      // The state as of every record appended so far; padded so snapshot writes take a while.
      due.snapshot(JSON.stringify({ count: due.position, padding: 'p'.repeat(200000) })).catch(() => undefined);
    },
  });
  process.stdout.write('ready ' + count + '\\n');
  let next = count;
  const writer = async () => {
    for (;;) {
      const n = next++;
      await journal.append(recordFor(n));
      process.stdout.write(n + '\\n');
    }
  };
  for (let i = 0; i < 8; i++) writer().catch((error) => { process.stderr.write(String(error) + '\\n'); process.exit(3); });
})().catch((error) => { process.stderr.write(String(error && error.stack) + '\\n'); process.exit(2); });
`;

interface Round {
  acknowledged: number[];
  readyAt: number | undefined;
  stderr: string;
}

/** Runs one child until the kill condition holds, SIGKILLs it, and returns what it acknowledged. */
function runAndKill(script: string, directory: string, kill: { afterAcks?: number; afterMs?: number }): Promise<Round> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, directory], { stdio: ['ignore', 'pipe', 'pipe'] });
    const round: Round = { acknowledged: [], readyAt: undefined, stderr: '' };
    let partial = '';
    let killed = false;
    const killNow = (): void => {
      if (killed) return;
      killed = true;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(killNow, kill.afterMs ?? 10_000);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith('ready ')) round.readyAt = Number(line.slice(6));
        else round.acknowledged.push(Number(line));
      }
      // A random extra delay moves the kill off the acknowledgement boundary.
      if (kill.afterAcks !== undefined && round.acknowledged.length >= kill.afterAcks) setTimeout(killNow, Math.random() * 5);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      round.stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`child exited by itself (code ${code}): ${round.stderr}`));
      else resolve(round);
    });
  });
}

/** Opens the journal and returns how many records it holds, checking each one's exact text. */
async function verifyJournal(directory: string): Promise<{ count: number; droppedBytes: number; fromSnapshot: number }> {
  let count = 0;
  const journal = await Journal.open(directory, {
    log: () => undefined,
    onSnapshot: (state) => {
      count = (JSON.parse(state.toString()) as { count: number }).count;
    },
    onRecord: (record, position) => {
      if (position !== count) throw new Error(`record at position ${position}, expected ${count}`);
      if (record.toString() !== recordFor(count)) throw new Error(`record ${count} is not what was appended`);
      count += 1;
    },
  });
  const { droppedBytes, snapshotPosition } = journal.recovery;
  await journal.close();
  return { count, droppedBytes, fromSnapshot: snapshotPosition };
}

test('kill -9 at random moments loses no acknowledged record and leaves none half-written', async (t) => {
  const directory = temporaryDirectory(t);
  const script = path.join(temporaryDirectory(t), 'appender.js');
  fs.writeFileSync(script, CHILD_SCRIPT);

  const rounds = 8;
  let highestAcknowledged = -1;
  let totalAcknowledged = 0;
  for (let round = 0; round < rounds; round++) {
    // Every third round dies at a random time from spawn, often inside open/recovery.
    const kill = round % 3 === 2 ? { afterMs: 30 + Math.floor(Math.random() * 200) } : { afterAcks: 1 + Math.floor(Math.random() * 1200) };
    const result = await runAndKill(script, directory, kill);
    if (result.readyAt !== undefined) {
      t.true(result.readyAt > highestAcknowledged, `round ${round} started at ${result.readyAt}, acknowledged ${highestAcknowledged}`);
    }
    // Acknowledgements arrive in order and start where the recovered journal ended.
    t.deepEqual(
      result.acknowledged,
      result.acknowledged.map((_, i) => (result.readyAt ?? 0) + i),
    );
    if (result.acknowledged.length > 0) highestAcknowledged = Math.max(highestAcknowledged, result.acknowledged.at(-1)!);
    totalAcknowledged += result.acknowledged.length;

    const recovered = await verifyJournal(directory);
    t.true(
      recovered.count > highestAcknowledged,
      `round ${round}: ${recovered.count} records recovered, ${highestAcknowledged} acknowledged`,
    );
    t.log(
      `round ${round}: kill ${JSON.stringify(kill)}, ${result.acknowledged.length} acknowledged, ` +
        `${recovered.count} recovered (snapshot at ${recovered.fromSnapshot}), ${recovered.droppedBytes} torn byte(s) dropped`,
    );
  }
  t.true(totalAcknowledged > 0);
});

test('another process cannot open a directory a live process holds, and takes it over once that one is killed', async (t) => {
  const directory = temporaryDirectory(t);
  const script = path.join(temporaryDirectory(t), 'holder.js');
  fs.writeFileSync(
    script,
    `require(${JSON.stringify(JOURNAL_MODULE)}).Journal.open(process.argv[2]).then(async (journal) => {
       await journal.append('from the holder');
       process.stdout.write('holding\\n');
       setInterval(() => undefined, 1000);
     });`,
  );
  const holder = spawn(process.execPath, [script, directory], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => {
    holder.kill('SIGKILL');
  });
  await new Promise<void>((resolve, reject) => {
    holder.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('holding') && resolve());
    holder.on('exit', () => reject(new Error('holder exited early')));
  });
  const refused = await t.throwsAsync(Journal.open(directory, { log: () => undefined }));
  t.is((refused as { code?: string }).code, 'locked');
  t.regex(refused?.message ?? '', new RegExp(`in use by process ${holder.pid}`));

  const exited = new Promise((resolve) => holder.once('exit', resolve));
  holder.kill('SIGKILL');
  await exited;
  const logs: string[] = [];
  const records: string[] = [];
  const journal = await Journal.open(directory, {
    log: (line) => logs.push(line),
    onRecord: (record) => void records.push(record.toString()),
  });
  await journal.close();
  t.deepEqual(records, ['from the holder']);
  t.true(
    logs.some((line) => line.includes(`stale lock of process ${holder.pid}`)),
    logs.join('\n'),
  );
});
