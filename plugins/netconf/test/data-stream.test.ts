/**
 * A data reply handed to its reader as it arrives (data-stream.ts): the reader gets the data as a
 * standalone `<data>` document in pieces cut after end tags, never past a `</data`, and its answer is
 * used only when the whole reply turned out to be nothing but data; anything else (an rpc-error, a
 * comment, a reader that throws, a reply of another request) leaves the reply to be read whole.
 */
import test from 'ava';
import { NETCONF_NS } from '@rosetta/sdk';
import { startNetconfSimulator } from '@rosetta/sdk/testing';
import { cutPoint, IncomingMessage, MAX_HELD, type DataPieces } from '../src/data-stream';
import { readEnvelope } from '../src/reply';
import { NetconfSession } from '../src';

const IF_NS = 'urn:example:if';

function reply(id: string, data: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<rpc-reply message-id="${id}" xmlns:nc="${NETCONF_NS}"\n  xmlns="${NETCONF_NS}">\n  <data>${data}</data>\n</rpc-reply>`;
}

const entries = (n: number): string =>
  Array.from({ length: n }, (_, i) => `\n    <interface><name>e${i}</name><descr>d ä ${i}</descr></interface>`).join('');

/** A reader that records its pieces and answers the text they make. */
function recorder(): { pieces: string[]; factory: () => DataPieces<unknown> } {
  const pieces: string[] = [];
  return {
    pieces,
    factory: () => ({
      push: (p) => {
        pieces.push(p);
      },
      end: (rest) => {
        pieces.push(rest);
        return pieces.join('');
      },
    }),
  };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Feeds `text` to a message in byte runs of `size` (splitting UTF-8 characters too), `perTurn` of them
 * in each turn of the event loop (as SSH hands over a burst of packets), then finishes it.
 */
async function feed(
  text: string,
  size: number,
  factory: (() => DataPieces<unknown>) | undefined,
  id = '7',
  perTurn = 1,
): Promise<{ readonly value: unknown } | undefined> {
  const message = new IncomingMessage((messageId) => (messageId === id ? factory : undefined));
  const bytes = Buffer.from(text);
  for (let i = 0, n = 0; i < bytes.length; i += size) {
    message.part(bytes.subarray(i, i + size));
    if (++n % perTurn === 0) await nextTurn();
  }
  return message.finish(text, readEnvelope(text)!);
}

test('the data goes to the reader in pieces cut after end tags, as the standalone document', async (t) => {
  const data = `<interfaces xmlns="${IF_NS}">${entries(200)}\n  </interfaces>`;
  const text = reply('7', data);
  for (const size of [1, 3, 64, 1500, 1 << 20]) {
    const r = recorder();
    const answer = await feed(text, size, r.factory);
    t.is(answer?.value, `<data xmlns:nc="${NETCONF_NS}">${data}</data>`, `runs of ${size} bytes`);
    for (const piece of r.pieces.slice(1, -1)) t.true(piece === '' || piece.endsWith('>'), 'cut just after a tag');
    if (size < 1000) t.true(r.pieces.length > 10, 'handed over while arriving');
    t.false(
      r.pieces.slice(0, -1).some((p) => p.includes('</data')),
      'nothing at or past </data before the end',
    );
  }
  // what comes in one turn goes over as one piece
  const burst = recorder();
  t.is((await feed(text, 64, burst.factory, '7', 40))?.value, `<data xmlns:nc="${NETCONF_NS}">${data}</data>`);
  t.true(burst.pieces.length < 10, `${burst.pieces.length} pieces`);
  // a reply that came in all within one turn (any short one) has nothing to overlap: it is read whole
  const oneTurn = recorder();
  t.is(await feed(text, 64, oneTurn.factory, '7', 1000), undefined);
  t.deepEqual(oneTurn.pieces, []);
});

test('replies that are not data alone are left to be read whole', async (t) => {
  const data = `<interfaces xmlns="${IF_NS}">${entries(20)}</interfaces>`;
  const error = `<rpc-error><error-type>application</error-type><error-tag>operation-failed</error-tag><error-severity>error</error-severity></rpc-error>`;
  const cases: Record<string, string> = {
    'an rpc-error after the data': reply('7', data).replace('</data>', `</data>${error}`),
    'a comment in the data': reply('7', data.replace('<interface>', '<!-- x --><interface>')),
    'CDATA in the data': reply('7', data.replace('d ä 3', '<![CDATA[</x>]]>')),
    'an empty data': reply('7', ''),
    'data self-closed': reply('7', '').replace('<data></data>', '<data/>'),
    'data in another namespace': reply('7', data).replace('<data>', '<data xmlns="urn:other">'),
    'an ok': `<rpc-reply message-id="7" xmlns="${NETCONF_NS}"><ok/></rpc-reply>`,
  };
  for (const [name, text] of Object.entries(cases)) t.is(await feed(text, 16, recorder().factory), undefined, name);
  t.is(await feed(reply('8', data), 16, recorder().factory), undefined, 'a reply to a request that reads no pieces');
  t.is(
    await feed(
      `<notification xmlns="urn:ietf:params:xml:ns:netconf:notification:1.0"><eventTime>x</eventTime></notification>`,
      16,
      recorder().factory,
    ),
    undefined,
  );
  const throwing = () => ({
    push: () => {
      throw new Error('no');
    },
    end: () => 'never',
  });
  t.is(await feed(reply('7', data), 16, throwing), undefined, 'a reader that throws');
  const failingEnd = () => ({
    push: () => undefined,
    end: () => {
      throw new Error('no');
    },
  });
  t.is(await feed(reply('7', data), 16, failingEnd), undefined, 'a reader whose end throws');
});

test('a value longer than MAX_HELD without an end tag stops the pieces (each turn would scan it again): the reply is read whole', async (t) => {
  const long = `<interfaces xmlns="${IF_NS}"><interface><name>e</name><descr>${'x'.repeat(2 * MAX_HELD)}</descr></interface></interfaces>`;
  const r = recorder();
  t.true((await feed(reply('7', long), 64 * 1024, r.factory)) === undefined, 'read whole');
  t.true(r.pieces.length <= 2, 'stopped before the end');
  // the same length in short values, each with its end tag, goes through in pieces
  const many = `<interfaces xmlns="${IF_NS}">${entries(40_000)}</interfaces>`;
  t.true(many.length > MAX_HELD);
  t.true(
    (await feed(reply('7', many), 64 * 1024, recorder().factory))?.value === `<data xmlns:nc="${NETCONF_NS}">${many}</data>`,
    'in pieces',
  );
});

test('a </data in the content (an element named data) holds the cut back, and the answer is still whole', async (t) => {
  const data = `<store xmlns="${IF_NS}">${entries(30)}<data>x</data>${entries(30)}<database>y</database></store>`;
  const r = recorder();
  t.is((await feed(reply('7', data), 32, r.factory))?.value, `<data xmlns:nc="${NETCONF_NS}">${data}</data>`);
  t.is(cutPoint('<a></a><data>x</data><b></b>', '</data'), 7);
  t.is(cutPoint('<a></a><b></b></database>', '</data'), 25);
  t.is(cutPoint('<a></a></dat', '</data'), 7);
  t.is(cutPoint('<a></a></data', '</data'), 7);
  t.is(cutPoint('<a>text', '</data'), 0);
});

test('through a session: a long reply from the simulator is read in pieces, and decodes as when read whole', async (t) => {
  const yang = `module sim-if { yang-version 1.1; namespace "${IF_NS}"; prefix s; container interfaces { list interface { key name; leaf name { type string; } leaf descr { type string; } } } }`;
  const config = `<interfaces xmlns="${IF_NS}">${entries(3000)}</interfaces>`;
  // paced as netconfd sends a long reply, so that it surely arrives over several turns of the event loop
  const sim = await startNetconfSimulator({ yang, username: 'u', password: 'p', config, paceReplies: { bytes: 16 * 1024, everyMs: 1 } });
  t.teardown(() => sim.close());
  const session = await NetconfSession.open({
    host: '127.0.0.1',
    port: sim.port,
    username: 'u',
    password: 'p',
    connectTimeoutMs: 5000,
    requestTimeoutMs: 5000,
    keepaliveMs: 0,
  });
  t.teardown(() => session.close());
  const body = `<get-config><source><running/></source></get-config>`;
  const whole = await session.rpcData(body, { whole: (d) => d });
  const r = recorder();
  const piecewise = await session.rpcData(body, { whole: () => t.fail('read whole') as never, pieces: r.factory });
  t.is(piecewise, whole);
  t.true(r.pieces.length >= 3, `${r.pieces.length} pieces`);
  // the reader's fault: the whole reply is read instead, and what that says is the answer
  const fallback = await session.rpcData(body, {
    whole: () => 'whole',
    pieces: () => ({
      push: () => {
        throw new Error('no');
      },
      end: () => 'pieces',
    }),
  });
  t.is(fallback, 'whole');
  await t.throwsAsync(
    session.rpcData(body, {
      whole: () => {
        throw new Error('bad data');
      },
      pieces: () => ({
        push: () => undefined,
        end: () => {
          throw new Error('piece fault');
        },
      }),
    }),
    { message: 'bad data' },
  );
});
