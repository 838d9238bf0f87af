/**
 * A document decoded in pieces as it arrives (xmlPieceDecoder: a NETCONF reply decoded while the rest
 * is on the wire) makes the tree the whole text makes, wherever the pieces are cut after an end tag,
 * with the decoder's shortcuts for repeated entries taken across cuts. Cut anywhere else, a piece may
 * make a fault but never another tree. Runs on the test model of ietf-interfaces.
 */
import test from 'ava';
import { decodeXml, encodeJson } from '../../src/data';
import { xmlPieceDecoder } from '../../src/data/xml-decode';
import type { Decoded } from '../../src/data/json-decode';
import { schema } from './fixture';

const IF_NS = 'urn:ietf:params:xml:ns:yang:ietf-interfaces';
const IANA_NS = 'urn:ietf:params:xml:ns:yang:iana-if-type';

/** Pretty-printed as netconfd writes it, with a few entries of other shapes among 300 alike. */
function document(): string {
  const entries: string[] = [];
  for (let i = 0; i < 300; i++) {
    const description = i === 150 ? 'a &amp; b' : i === 151 ? '' : `uplink ${i}`;
    const extra = i === 200 ? '\n    <link-up-down-trap-enable>disabled</link-up-down-trap-enable>' : '';
    entries.push(
      `\n  <interface>\n    <name>eth${i}</name>\n    <description>${description}</description>\n    <type\n      xmlns:ianaift="${IANA_NS}">ianaift:ethernetCsmacd</type>\n    <enabled>${i % 3 !== 0}</enabled>${extra}\n  </interface>`,
    );
  }
  return `<data xmlns:nc="urn:ietf:params:xml:ns:netconf:base:1.0"><interfaces xmlns="${IF_NS}">${entries.join('')}\n</interfaces>\n</data>`;
}

const json = (d: Decoded): unknown => JSON.parse(encodeJson(d.root));

/** Decodes `text` in the pieces that end at `cuts` (ascending offsets). */
function inPieces(text: string, cuts: readonly number[]): Decoded {
  const decoder = xmlPieceDecoder(schema());
  let from = 0;
  for (const cut of cuts) {
    decoder.push(text.slice(from, cut));
    from = cut;
  }
  return decoder.end(text.slice(from));
}

/** Every offset just after an end tag's `>`. */
function endTagCuts(text: string): number[] {
  const cuts: number[] = [];
  for (let lt = text.indexOf('</'); lt >= 0; lt = text.indexOf('</', lt + 2)) cuts.push(text.indexOf('>', lt) + 1);
  return cuts;
}

test('cut after end tags, in every way tried, the pieces decode to the tree of the whole text', (t) => {
  const text = document();
  const whole = json(decodeXml(text, schema()));
  const cuts = endTagCuts(text);
  t.true(cuts.length > 1500);
  t.deepEqual(json(inPieces(text, cuts)), whole, 'after every end tag');
  for (const every of [2, 7, 33, 250])
    t.deepEqual(
      json(
        inPieces(
          text,
          cuts.filter((_, i) => i % every === 0),
        ),
      ),
      whole,
      `after every ${every}th end tag`,
    );
  t.deepEqual(json(inPieces(text, [])), whole, 'all at the end');
  t.deepEqual(json(inPieces(text, [0, 0, cuts[0]!, cuts[0]!])), whole, 'empty pieces');
});

test('cut anywhere, the pieces make the tree of the whole text or a fault, never another tree', (t) => {
  const text = document();
  const whole = json(decodeXml(text, schema()));
  let seed = 7;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  let same = 0;
  let faults = 0;
  for (let round = 0; round < 200; round++) {
    const cuts = Array.from({ length: 1 + random(12) }, () => random(text.length)).sort((a, b) => a - b);
    let got: unknown;
    try {
      got = json(inPieces(text, cuts));
    } catch {
      faults++;
      continue;
    }
    t.deepEqual(got, whole, `cuts ${cuts.join(',')}`);
    same++;
  }
  t.true(same > 0 && faults > 0, `${same} trees, ${faults} faults`);
});

test('a fault in a piece is thrown; the whole text says the same', (t) => {
  const text = document().replace('<enabled>true</enabled>', '<enabled>maybe</enabled>');
  const cuts = endTagCuts(text).filter((_, i) => i % 10 === 0);
  const piecewise = t.throws(() => inPieces(text, cuts))!;
  const whole = t.throws(() => decodeXml(text, schema()))!;
  t.is(piecewise.message, whole.message);
});
