/**
 * The codecs' performance bars, measured on a real model (ietf-interfaces + ietf-ip): decoding with
 * type checks within 4x of JSON.parse on the same text, encoding within 3x of JSON.stringify of the
 * parsed value, and the tree well under 1 KB per small list entry. Best of several interleaved runs,
 * since the machine is shared; XML is measured and logged.
 */
import test from 'ava';
import { decodeJson, decodeXml, encodeJson, encodeXml } from '../../src/data';
import { schema } from './fixture';

const N = 50000;

function best(runs: number, fn: () => unknown): number {
  let ms = Infinity;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    fn();
    ms = Math.min(ms, Number(process.hrtime.bigint() - start) / 1e6);
  }
  return ms;
}

test('JSON decode <= 4x JSON.parse, encode <= 3x JSON.stringify, < 1 KB per entry', (t) => {
  const ctx = schema();
  const entries = Array.from({ length: N }, (_, i) => ({
    name: `eth${i}`, description: `interface number ${i}`, enabled: i % 2 === 0, 'ietf-ip:ipv4': { mtu: 1500 },
  }));
  const text = JSON.stringify({ 'ietf-interfaces:interfaces': { interface: entries } });
  const parsed = JSON.parse(text);
  const { root } = decodeJson(text, ctx);
  t.is(encodeJson(root), text);
  let parse = Infinity; let decode = Infinity; let stringify = Infinity; let encode = Infinity;
  for (let round = 0; round < 5; round++) {
    parse = Math.min(parse, best(1, () => JSON.parse(text)));
    decode = Math.min(decode, best(1, () => decodeJson(text, ctx)));
    stringify = Math.min(stringify, best(1, () => JSON.stringify(parsed)));
    encode = Math.min(encode, best(1, () => encodeJson(root)));
  }
  t.log(`${N} entries, ${text.length} bytes: JSON.parse ${parse.toFixed(1)} ms, decodeJson ${decode.toFixed(1)} ms (${(decode / parse).toFixed(2)}x); `
    + `JSON.stringify ${stringify.toFixed(1)} ms, encodeJson ${encode.toFixed(1)} ms (${(encode / stringify).toFixed(2)}x)`);
  t.true(decode <= 4 * parse, `decode ${decode} ms vs parse ${parse} ms`);
  t.true(encode <= 3 * stringify, `encode ${encode} ms vs stringify ${stringify} ms`);

  const xml = encodeXml(root, ctx);
  const xmlEncode = best(3, () => encodeXml(root, ctx));
  const xmlDecode = best(2, () => decodeXml(xml, ctx));
  t.log(`XML ${xml.length} bytes: encodeXml ${xmlEncode.toFixed(1)} ms, decodeXml ${xmlDecode.toFixed(1)} ms`);

  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept = decodeJson(parsed, ctx);
    gc();
    const perEntry = (process.memoryUsage().heapUsed - before) / N;
    t.log(`tree memory: ${perEntry.toFixed(0)} bytes per entry (strings, index included)`);
    t.true(perEntry < 1024);
    t.truthy(kept.root);
  }
});
