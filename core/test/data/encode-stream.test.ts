/**
 * A large answer written in pieces (data/encode-stream.ts) is, joined, the very text the one-piece
 * encoders write, in JSON and in XML: for a whole tree, a list, an entry and a container, with large
 * lists nested in entries of small ones and small ones in large ones, attributes on a list and its
 * entries, keys written out of order, identityrefs, and entries of several shapes. A large answer comes
 * in many pieces; a small one is not cut.
 */
import test from 'ava';
import { encodeJsonPieces, encodeXmlPieces, isLargeAnswer, STREAM_ENTRIES } from '../../src/data/encode-stream';
import { decodeJson } from '../../src/data/json-decode';
import { encodeJson } from '../../src/data/json-encode';
import type { DataNode, DataRoot } from '../../src/data/tree';
import { encodeXml } from '../../src/data/xml-encode';
import { schema } from './fixture';

const GENRES = ['example-jukebox:jazz', 'example-jukebox:blues', 'example-jukebox:country'];

/** A jukebox of `artists` artists; artist 7 has `bigAlbums` albums, the others 2 of 3 songs each. */
function jukebox(artists: number, bigAlbums: number): Record<string, unknown> {
  const album = (a: number, b: number) => ({
    name: `album ${a}-${b}`,
    ...(b % 4 === 1 ? {} : { genre: GENRES[(a + b) % 3] }),
    year: 1950 + (b % 50),
    ...(b % 5 === 0 ? { admin: { label: `label <${b}> & co`, 'catalogue-number': `C${b}` } } : {}),
    song: Array.from({ length: 3 }, (_, s) => ({ name: `song ${s}`, location: `/music/${a}/${b}/${s}.mp3`, length: 100 + s })),
  });
  return {
    'example-jukebox:jukebox': {
      library: {
        artist: Array.from({ length: artists }, (_, a) => ({
          name: `artist ${String(a).padStart(4, '0')}`,
          album: Array.from({ length: a === 7 ? bigAlbums : 2 }, (_, b) => album(a, b)),
        })),
      },
      playlist: [{ name: 'mix', description: 'quotes " and \\ and ünïcode', song: [{ index: 1, id: '/example-jukebox:jukebox/library' }] }],
    },
  };
}

/** A list with attributes on itself and on some entries, two keys, written value first for some. */
function routes(count: number): Record<string, unknown> {
  return {
    'data-kinds:kinds': {
      '@': { note: 'top' },
      small: 3,
      route: {
        '@': { note: 'all routes' },
        '#': Array.from({ length: count }, (_, i) =>
          i % 3 === 0
            ? { 'next-hop': `10.0.${i % 250}.1`, metric: i, prefix: `10.${i >> 8}.${i & 255}.0/24`, '@': { weight: i % 200 } }
            : { prefix: `10.${i >> 8}.${i & 255}.0/24`, metric: i },
        ),
      },
    },
  };
}

const joined = (pieces: Iterable<string>) => {
  const all = [...pieces];
  return { text: all.join(''), pieces: all.filter((p) => p !== '').length };
};

function child(node: DataNode | DataRoot, name: string): DataNode {
  const children = node.kind === 'root' || node.kind === 'container' || node.kind === 'entry' ? node.children : [];
  const found = children.find((c) => c.schema.name === name);
  if (found === undefined) throw new Error(`no ${name}`);
  return found;
}

function same(t: import('ava').ExecutionContext, target: DataNode | DataRoot, what: string, attributes = true): number {
  const ctx = schema();
  const json = joined(encodeJsonPieces(target, { attributes }));
  t.is(json.text, encodeJson(target, { attributes }), `${what}: JSON`);
  if (target.kind === 'root') {
    const wrapped = joined(encodeJsonPieces(target, { attributes, wrap: true }));
    t.is(wrapped.text, `{"ietf-restconf:data":${encodeJson(target, { attributes })}}`, `${what}: wrapped JSON`);
  }
  const xml = joined(encodeXmlPieces(target, ctx, { attributes }));
  t.is(xml.text, encodeXml(target, ctx, { attributes }), `${what}: XML`);
  return Math.min(json.pieces, xml.pieces);
}

test('a large tree in pieces is the text of the whole, in JSON and XML, at every level of it', (t) => {
  const ctx = schema();
  const root = decodeJson({ ...jukebox(900, 700), ...routes(1200) }, ctx).root;
  t.true(isLargeAnswer(root));
  t.true(same(t, root, 'root') > 5, 'a large tree comes in many pieces');
  const box = child(root, 'jukebox');
  const artists = child(child(box, 'library'), 'artist');
  same(t, box, 'container');
  t.true(same(t, artists, 'list') > 2);
  if (artists.kind !== 'list') throw new Error('artist is a list');
  t.true(same(t, artists.entries[7]!, 'entry holding a large list') > 1);
  same(t, artists.entries[8]!, 'small entry');
  const kinds = child(root, 'kinds');
  t.true(same(t, kinds, 'list with attributes') > 1);
  same(t, kinds, 'attributes left out', false);
  same(t, root, 'root without attributes', false);
});

test('a small answer is one piece; the threshold is counted in list entries at any depth', (t) => {
  const ctx = schema();
  const small = decodeJson(jukebox(3, 2), ctx).root;
  t.false(isLargeAnswer(small));
  t.is(same(t, small, 'small tree'), 1);
  // each artist holds 2 albums of 3 songs: 9 entries an artist, so this many artists pass the threshold
  const deep = decodeJson(jukebox(Math.ceil(STREAM_ENTRIES / 9) + 1, 2), ctx).root;
  t.true(isLargeAnswer(deep));
  same(t, deep, 'many small nested lists');
  const empty: DataRoot = { kind: 'root', children: [] };
  t.is(same(t, empty, 'empty tree'), 1);
});
