/**
 * A body sent in pieces (respond.ts sendPieces) gives the event loop back while it is written: another
 * request on the same server is answered before the body's encoding is done. The body's source keeps
 * yielding until that other answer went out (or a cap far above what is needed), so written in one go
 * it would reach the cap and the test fails; and the client receives the whole body, in order.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { sendPieces } from '../../src/restconf/respond';

const PIECE = 'x'.repeat(16 * 1024);
const CAP = 4000;

test('another request is answered while a body in pieces is written; the body arrives whole', async (t) => {
  let otherAnswered = false;
  let yielded = 0;
  let yieldedWhenOtherAnswered = -1;
  function* body(): Generator<string> {
    while (yielded < CAP) {
      yield `${String(yielded).padStart(8, '0')}${PIECE}`;
      yielded++;
      if (otherAnswered && yielded > yieldedWhenOtherAnswered + 3) return;
    }
  }
  const server = http.createServer((req, res) => {
    if (req.url === '/big') {
      void sendPieces(res, 200, 'text/plain', body());
      return;
    }
    yieldedWhenOtherAnswered = yielded;
    otherAnswered = true;
    res.end('small');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const agent = new http.Agent({ keepAlive: false });
    const big = new Promise<{ text: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
      http
        .get(`${base}/big`, { agent }, (res) => {
          const parts: Buffer[] = [];
          let asked = false;
          res.on('data', (d: Buffer) => {
            parts.push(d);
            if (asked) return;
            asked = true;
            // the first piece is here: ask the server something else while the rest is being written
            http.get(`${base}/small`, { agent }, (small) => small.resume()).on('error', reject);
          });
          res.on('end', () => resolve({ text: Buffer.concat(parts).toString('utf8'), headers: res.headers }));
          res.on('error', reject);
        })
        .on('error', reject);
    });
    const { text, headers } = await big;
    t.true(otherAnswered, 'the other request was answered');
    t.true(yieldedWhenOtherAnswered >= 0 && yieldedWhenOtherAnswered < CAP, `answered after ${yieldedWhenOtherAnswered} pieces of ${CAP}`);
    t.is(headers['transfer-encoding'], 'chunked');
    t.is(headers['content-type'], 'text/plain; charset=utf-8');
    const count = text.length / (8 + PIECE.length);
    t.is(count, yielded);
    for (let i = 0; i < count; i++) t.is(text.slice(i * (8 + PIECE.length), i * (8 + PIECE.length) + 8), String(i).padStart(8, '0'));
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
