/**
 * parseQuery: every parameter with good and bad values, unknown and repeated parameters, methods,
 * empty pairs and bad encoding; insert/point resolution against the ordered-by user jukebox playlist.
 */
import test from 'ava';
import { RestconfError } from '../../src/restconf/errors';
import { parseQuery, resolveInsert } from '../../src/restconf/query';
import type { ListSchema, LeafListSchema, SchemaNode } from '../../src/yang/schema';
import { parseDataPath } from '../../src/restconf/uri';
import { ietfSchema } from './fixture';

function rejects(t: import('ava').ExecutionContext, query: string, method: string, param: string, tag = 'invalid-value'): RestconfError {
  const err = t.throws(() => parseQuery(query, method), { instanceOf: RestconfError }, `${query} ${method}`) as RestconfError;
  t.is(err.status, 400, err.message);
  t.is(err.errors[0]!.tag, tag, err.message);
  t.true(err.message.includes(`'${param}'`), err.message);
  return err;
}

test('empty queries, empty pairs and a trailing & are fine', (t) => {
  t.deepEqual(parseQuery('', 'GET'), {});
  t.deepEqual(parseQuery('?', 'GET'), {});
  t.deepEqual(parseQuery('depth=2&', 'GET'), { depth: 2 });
  t.deepEqual(parseQuery('&&depth=2&&', 'GET'), { depth: 2 });
  t.deepEqual(parseQuery(new URLSearchParams('depth=3&'), 'GET'), { depth: 3 });
});

test('unknown, repeated and badly encoded parameters are 400 naming them', (t) => {
  rejects(t, 'dpeth=1', 'GET', 'dpeth');
  rejects(t, 'depth=1&depth=2', 'GET', 'depth');
  rejects(t, 'fields=a%ZZ', 'GET', 'fields');
  rejects(t, 'de%pth=1', 'GET', 'de%pth');
  rejects(t, 'toString=1', 'GET', 'toString');
  rejects(t, '__proto__=1', 'GET', '__proto__');
  const err = rejects(t, 'x=1', 'GET', 'x');
  t.deepEqual(err.errors[0]!.info, { 'bad-attribute': 'x' });
});

test('parameters only on the methods that take them', (t) => {
  rejects(t, 'content=config', 'PUT', 'content');
  rejects(t, 'depth=1', 'POST', 'depth');
  rejects(t, 'insert=first', 'GET', 'insert');
  rejects(t, 'insert=first', 'PATCH', 'insert');
  rejects(t, 'apply-tags=true', 'PUT', 'apply-tags');
  rejects(t, 'checkForReferences=true', 'GET', 'checkForReferences');
  t.deepEqual(parseQuery('content=config', 'head'), { content: 'config' });
  t.deepEqual(parseQuery('checkForReferences=true', 'DELETE'), { checkForReferences: true });
  t.deepEqual(parseQuery('apply-tags=true', 'PATCH'), { applyTags: true });
  t.deepEqual(parseQuery('depth=1', 'OPTIONS'), { depth: 1 });
});

test('content, depth, with-defaults', (t) => {
  for (const v of ['config', 'nonconfig', 'all'] as const) t.is(parseQuery(`content=${v}`, 'GET').content, v);
  rejects(t, 'content=conf', 'GET', 'content');
  rejects(t, 'content', 'GET', 'content');
  t.is(parseQuery('depth=1', 'GET').depth, 1);
  t.is(parseQuery('depth=65535', 'GET').depth, 65535);
  t.is(parseQuery('depth=unbounded', 'GET').depth, 'unbounded');
  for (const bad of ['0', '65536', '-1', '1.5', 'x', '', '0x10', '1e3', '99999999999999999999']) rejects(t, `depth=${bad}`, 'GET', 'depth');
  t.is(parseQuery('with-defaults', 'GET').withDefaults, 'report-all');
  t.is(parseQuery('with-defaults=', 'GET').withDefaults, 'report-all');
  for (const v of ['report-all', 'explicit', 'trim', 'report-all-tagged'] as const)
    t.is(parseQuery(`with-defaults=${v}`, 'GET').withDefaults, v);
  rejects(t, 'with-defaults=all', 'GET', 'with-defaults');
});

test('offset, limit, fetch, flags, unhide', (t) => {
  t.deepEqual(parseQuery('offset=0&limit=10', 'GET'), { offset: 0, limit: 10 });
  t.is(parseQuery('limit=0', 'GET').limit, 0);
  for (const bad of ['-1', 'a', '1.0', '', '2147483648']) {
    rejects(t, `offset=${bad}`, 'GET', 'offset');
    rejects(t, `limit=${bad}`, 'GET', 'limit');
  }
  t.is(parseQuery('fetch=count', 'GET').fetchCount, true);
  rejects(t, 'fetch=all', 'GET', 'fetch');
  rejects(t, 'fetch', 'GET', 'fetch');
  for (const name of ['hideEmptyDataNodes', 'hideAttributes']) {
    t.deepEqual(parseQuery(`${name}=true`, 'GET'), { [name]: true });
    t.deepEqual(parseQuery(`${name}=false`, 'GET'), { [name]: false });
    rejects(t, `${name}=yes`, 'GET', name);
    rejects(t, `${name}=TRUE`, 'GET', name);
  }
  rejects(t, 'checkForReferences=1', 'PUT', 'checkForReferences');
  rejects(t, 'apply-tags=', 'PATCH', 'apply-tags');
  t.is(parseQuery('unhide=all', 'GET').unhide, 'all');
  t.deepEqual(parseQuery('unhide=frinx:hidden deprecated,frinx:hidden', 'GET').unhide, [
    { extension: 'frinx:hidden', argument: 'deprecated' },
    { extension: 'frinx:hidden' },
  ]);
  rejects(t, 'unhide=hidden', 'GET', 'unhide');
  rejects(t, 'unhide=', 'GET', 'unhide');
});

test('fields grammar: good and bad', (t) => {
  t.deepEqual(parseQuery('fields=a/b;c(d;e/f)', 'GET').fields, [
    { path: ['a', 'b'] },
    { path: ['c'], sub: [{ path: ['d'] }, { path: ['e', 'f'] }] },
  ]);
  t.deepEqual(parseQuery('fields=ietf-ip:ipv4(mtu)', 'GET').fields, [{ path: ['ietf-ip:ipv4'], sub: [{ path: ['mtu'] }] }]);
  for (const bad of ['', 'a;', ';a', 'a//b', 'a(b', 'a(b))', 'a()', '(a)', 'a b', 'a:b:c', '1a', 'a/'])
    rejects(t, `fields=${encodeURIComponent(bad)}`, 'GET', 'fields');
  rejects(t, `fields=${'a('.repeat(100)}b${')'.repeat(100)}`, 'GET', 'fields');
});

test('sortby and jsonb-filter syntax', (t) => {
  t.deepEqual(parseQuery('sortby=name(desc);config/mtu;ietf-ip:ipv4/mtu(asc)', 'GET').sortby, [
    { path: ['name'], descending: true },
    { path: ['config', 'mtu'], descending: false },
    { path: ['ietf-ip:ipv4', 'mtu'], descending: false },
  ]);
  for (const bad of ['', 'name(up)', 'name()', 'name;', '(desc)', 'a b']) rejects(t, `sortby=${encodeURIComponent(bad)}`, 'GET', 'sortby');
  t.truthy(parseQuery(`jsonb-filter=${encodeURIComponent('{@/enabled} == true && !({@/mtu} > 1500)')}`, 'GET').jsonbFilter);
  for (const bad of [
    '',
    '{@/a}',
    '{@/a} ==',
    '{@/a} = 1',
    '{a} == 1',
    '{@/a == 1',
    '"x" like_regex "("',
    '{@/a} like_regex "x" flag "z"',
    '({@/a} == 1',
    'exists({@/a}',
    '{$} == 1',
    '{@/a} is known',
    '"unterminated == 1',
    '{@/a} starts "x"',
  ]) {
    rejects(t, `jsonb-filter=${encodeURIComponent(bad)}`, 'GET', 'jsonb-filter');
  }
  rejects(t, `jsonb-filter=${encodeURIComponent(`${'!'.repeat(500)}({@/a} == 1)`)}`, 'GET', 'jsonb-filter');
  rejects(t, `jsonb-filter=${encodeURIComponent(`${'('.repeat(500)}{@/a} == 1${')'.repeat(500)}`)}`, 'GET', 'jsonb-filter');
});

test('insert and point: pairing, method, ordered-by user, both point forms', (t) => {
  const ctx = ietfSchema();
  const song = parseDataPath('/example-jukebox:jukebox/playlist=Foo/song', ctx, { keyDelimiter: '%22' }).target as ListSchema;
  const playlist = parseDataPath('/example-jukebox:jukebox/playlist', ctx, { keyDelimiter: '%22' }).target as ListSchema;
  const order = parseDataPath('/rc-extra:box/order', ctx, { keyDelimiter: '%22' }).target as LeafListSchema;
  const uri = { keyDelimiter: '%22' };
  t.deepEqual(parseQuery('insert=first', 'POST').insert, { where: 'first' });
  t.deepEqual(parseQuery('insert=last', 'PUT').insert, { where: 'last' });
  t.deepEqual(parseQuery('insert=after&point=5', 'POST').insert, { where: 'after', point: '5' });
  rejects(t, 'insert=middle', 'POST', 'insert');
  rejects(t, 'insert=before', 'POST', 'point', 'missing-attribute');
  rejects(t, 'insert=after', 'PUT', 'point', 'missing-attribute');
  rejects(t, 'point=5', 'POST', 'point');
  rejects(t, 'insert=first&point=5', 'POST', 'point');
  rejects(t, 'insert=first', 'DELETE', 'insert');

  const before = parseQuery('insert=before&point=3', 'POST').insert!;
  t.deepEqual(resolveInsert(before, song, ctx, uri), { where: 'before', point: [3] });
  const byPath = parseQuery(`insert=after&point=${encodeURIComponent('/example-jukebox:jukebox/playlist=Foo%20Bar/song=7')}`, 'PUT')
    .insert!;
  t.deepEqual(resolveInsert(byPath, song, ctx, uri), { where: 'after', point: [7] });
  t.deepEqual(resolveInsert({ where: 'first' }, song, ctx, uri), { where: 'first' });
  t.deepEqual(resolveInsert({ where: 'after', point: 'b' }, order, ctx, uri), { where: 'after', point: ['b'] });
  const fail = (fn: () => unknown, param: string): void => {
    const err = t.throws(fn, { instanceOf: RestconfError }) as RestconfError;
    t.is(err.status, 400);
    t.is(err.errors[0]!.tag, 'invalid-value');
    t.true(err.message.includes(`'${param}'`), err.message);
  };
  fail(() => resolveInsert({ where: 'first' }, playlist, ctx, uri), 'insert'); // playlist is ordered-by system
  fail(() => resolveInsert({ where: 'before', point: 'x' }, song, ctx, uri), 'point'); // not a uint32
  fail(() => resolveInsert({ where: 'before', point: '1,2' }, song, ctx, uri), 'point');
  fail(() => resolveInsert({ where: 'before', point: '/example-jukebox:jukebox/playlist=Foo' }, song, ctx, uri), 'point');
  fail(() => resolveInsert({ where: 'before', point: '/example-jukebox:jukebox/nothing' }, song, ctx, uri), 'point');
  fail(() => resolveInsert({ where: 'before', point: '/example-jukebox:jukebox/playlist=Foo/song' }, song, ctx, uri), 'point');
  const plain = ctx.data.find((n) => n.name === 'box')!.children.find((c: SchemaNode) => c.name === 'plain') as LeafListSchema;
  fail(() => resolveInsert({ where: 'last' }, plain, ctx, uri), 'insert');
});

test('garbage queries never throw anything but RestconfError', (t) => {
  for (const q of ['%', '=', '==', '&=&', 'a=%', '%%%=%%%', '\u0000=1', 'fields=%E0%A4%A', 'depth=%00', '=1&=2']) {
    try {
      parseQuery(q, 'GET');
    } catch (e) {
      t.true(e instanceof RestconfError, `${q}: ${String(e)}`);
    }
  }
  t.pass();
});
