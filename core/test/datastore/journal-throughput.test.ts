// Measures durable appends per second of ~200-byte records with 1 and with 8 concurrent appenders
// (each appender waits for its acknowledgement before the next append, as an HTTP client waits for
// its 2xx). Logged for the report; the assertion is only on the mechanism that makes 8 faster than 1:
// fewer fsyncs than records. Serial: fsync latency is shared by the whole disk, so the tests of this
// file must not overlap one another.
import test, { type ExecutionContext } from 'ava';
import { Journal } from '../../src/datastore/journal';
import { openCollecting, temporaryDirectory } from './journal-fixture';

const RECORD = 'x'.repeat(200);

async function measure(t: ExecutionContext, appenders: number, durationMs: number) {
  const { journal } = await openCollecting(t, temporaryDirectory(t));
  let appended = 0;
  const deadline = Date.now() + durationMs;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: appenders }, async () => {
      while (Date.now() < deadline) {
        await journal.append(RECORD);
        appended += 1;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const { batchesWritten } = journal.stats;
  await journal.close();
  return { perSecond: Math.round(appended / seconds), appended, batchesWritten };
}

test.serial('durable appends per second with 1 and 8 concurrent appenders', async (t) => {
  const single = await measure(t, 1, 1500);
  const eight = await measure(t, 8, 1500);
  t.log(`1 appender : ${single.perSecond} appends/s (${single.appended} records, ${single.batchesWritten} fsyncs)`);
  t.log(
    `8 appenders: ${eight.perSecond} appends/s (${eight.appended} records, ${eight.batchesWritten} fsyncs, ` +
      `${(eight.appended / eight.batchesWritten).toFixed(1)} records per fsync)`,
  );
  t.is(single.batchesWritten, single.appended); // one waiting writer: one fsync per record
  t.true(eight.appended / eight.batchesWritten >= 4, 'group commit should put several waiting writers in one fsync');
});

function millisecondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e6;
}

test.serial('a 100,000-entry body: append and snapshot cost next to JSON.parse + JSON.stringify; recovery time', async (t) => {
  const entries = Array.from({ length: 100_000 }, (_, i) => ({ name: `eth${i}`, config: { name: `eth${i}`, mtu: 1500, enabled: true } }));
  const body = JSON.stringify({ 'openconfig-interfaces:interfaces': { interface: entries } });
  let started = process.hrtime.bigint();
  const reserialized = JSON.stringify(JSON.parse(body));
  const jsonMs = millisecondsSince(started);

  const directory = temporaryDirectory(t);
  const { journal } = await openCollecting(t, directory);
  started = process.hrtime.bigint();
  await journal.append(reserialized);
  const appendMs = millisecondsSince(started);
  started = process.hrtime.bigint();
  await journal.snapshot(reserialized);
  const snapshotMs = millisecondsSince(started);
  const small = 'y'.repeat(200);
  const appends: Promise<void>[] = [];
  for (let i = 0; i < 100_000; i++) appends.push(journal.append(small));
  await Promise.all(appends);
  await journal.close();

  started = process.hrtime.bigint();
  let replayed = 0;
  let snapshotBytes = 0;
  const reopened = await Journal.open(directory, {
    onSnapshot: (state) => {
      snapshotBytes = state.length;
    },
    onRecord: () => {
      replayed += 1;
    },
  });
  const recoverMs = millisecondsSince(started);
  await reopened.close();

  t.log(
    `body ${(body.length / 1e6).toFixed(1)} MB: JSON.parse+stringify ${jsonMs.toFixed(0)} ms, durable append ${appendMs.toFixed(0)} ms, durable snapshot ${snapshotMs.toFixed(0)} ms`,
  );
  t.log(`recovery of that snapshot + 100,000 records of 200 bytes: ${recoverMs.toFixed(0)} ms`);
  t.is(snapshotBytes, Buffer.byteLength(reserialized));
  t.is(replayed, 100_000);
  // The persistence share of a large PUT must leave room in the 5x budget for parsing and validation.
  t.true(appendMs < 5 * jsonMs, `append ${appendMs} ms vs JSON ${jsonMs} ms`);
});
