// The replay log's index: entries kept in order through growth and head drops (the head reused and
// compacted), binary searches after an id and before a time, and the columns each kind keeps.
import test from 'ava';
import { EventIndex } from '../../src/events/event-index';

test('entries survive growth and head drops; searches find ids and times among the kept ones', (t) => {
  const index = new EventIndex(false);
  // Ids in steps of 2, times in steps of 10 ms, locations derived from the id.
  const push = (n: number) => index.push(2 * n, 10 * n, 0, { segment: n % 3, offset: 100 * n, length: n + 8 });
  for (let n = 1; n <= 5000; n++) push(n);
  for (let n = 1; n <= 3000; n++) index.shift();
  for (let n = 5001; n <= 6000; n++) push(n);
  t.is(index.length, 3000);
  t.is(index.idAt(0), 6002);
  t.is(index.idAt(2999), 12_000);
  t.is(index.idAt(3000), undefined);
  t.is(index.positionAfter(0), 0);
  t.is(index.positionAfter(6002), 1);
  t.is(index.positionAfter(6003), 1);
  t.is(index.positionAfter(12_000), 3000);
  t.deepEqual(index.locationAt(1), { segment: 3002 % 3, offset: 300_200, length: 3010 });
  t.is(index.timeAt(0), 30_010);
  t.is(index.idBefore(0), 6001);
  t.is(index.idBefore(30_015), 6003);
  t.is(index.idBefore(60_001), undefined);
  for (let n = 0; n < 3000; n++) index.shift();
  t.is(index.length, 0);
  push(7000);
  t.is(index.idAt(0), 14_000);
});

test('the index across streams keeps stream numbers and no locations; a stream index starts small', (t) => {
  const across = new EventIndex(true);
  const stream = new EventIndex(false);
  t.true(stream.bytes <= 8 * 32);
  for (let n = 1; n <= 1024; n++) {
    across.push(n, n, n % 5);
    stream.push(n, n, 0, { segment: 0, offset: n, length: 1 });
  }
  t.is(across.streamAt(1023), 1024 % 5);
  t.is(across.bytes, 1024 * 20);
  t.is(stream.bytes, 1024 * 32);
});
