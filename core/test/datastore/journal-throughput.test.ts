// Measures durable appends per second of ~200-byte records with 1 and with 8 concurrent appenders
// (each appender waits for its acknowledgement before the next append, as an HTTP client waits for
// its 2xx). Logged for the report; the assertion is only on the mechanism that makes 8 faster than 1:
// fewer fsyncs than records.
import test, { type ExecutionContext } from 'ava';
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

test('durable appends per second with 1 and 8 concurrent appenders', async (t) => {
  const single = await measure(t, 1, 1500);
  const eight = await measure(t, 8, 1500);
  t.log(`1 appender : ${single.perSecond} appends/s (${single.appended} records, ${single.batchesWritten} fsyncs)`);
  t.log(`8 appenders: ${eight.perSecond} appends/s (${eight.appended} records, ${eight.batchesWritten} fsyncs, ` +
    `${(eight.appended / eight.batchesWritten).toFixed(1)} records per fsync)`);
  t.is(single.batchesWritten, single.appended); // one waiting writer: one fsync per record
  t.true(eight.appended / eight.batchesWritten >= 4, 'group commit should put several waiting writers in one fsync');
});
