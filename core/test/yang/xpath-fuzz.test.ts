/** Garbage in, errors out: random expressions never throw or hang the parser or the evaluator. */
import test from 'ava';
import { XNode, evaluateXPath, parseXPath, resolveSchemaPath } from '../../src/yang/xpath';
import { container, dContainer, dLeaf, dList, dRoot, fixtureContext, fixtureModule, leaf, list, xp } from './xpath-fixture';

const m = fixtureModule('fz', 'fz');
const sName = leaf('name', m);
const sList = list('item', m, ['name'], [sName]);
const sTop = container('top', m, [sList]);
const ctx = fixtureContext([m], [sTop]);
const root = XNode.root(dRoot(dContainer(sTop, dList(sList, [dLeaf(sName, 'a')], [dLeaf(sName, 'b')]))));
const entry = [...[...root.children()][0]!.children()][0]!;

const pieces = [
  '/',
  '//',
  '.',
  '..',
  '@',
  '*',
  '(',
  ')',
  '[',
  ']',
  ',',
  '::',
  ':',
  '|',
  '+',
  '-',
  '=',
  '!=',
  '<',
  '>=',
  ' and ',
  ' or ',
  ' div ',
  ' mod ',
  "'x'",
  '"y"',
  '1',
  '2.5',
  '$v',
  'name',
  'item',
  'top',
  'fz:',
  'fz:item',
  'current()',
  'count(',
  'deref(',
  'child::',
  'ancestor::',
  'following-sibling::',
  'node()',
  'text()',
  're-match(',
  'concat(',
  'derived-from(',
  '!',
  '#',
  'é',
  '\u{1F600}',
];

test('random expressions parse to a tree or an error with a position, and evaluate without throwing', (t) => {
  let seed = 12345;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  let parsedCount = 0;
  const start = Date.now();
  for (let i = 0; i < 20000; i++) {
    let src = '';
    const len = 1 + rand(12);
    for (let k = 0; k < len; k++) src += pieces[rand(pieces.length)];
    const r = parseXPath(src);
    if ('error' in r) {
      t.true(r.error.pos >= 0 && r.error.pos <= src.length, src);
      continue;
    }
    parsedCount++;
    const x = xp(src, m);
    t.notThrows(() => evaluateXPath(x, entry, ctx), src);
    t.notThrows(() => resolveSchemaPath(x, sName, ctx), src);
  }
  t.log(`${parsedCount} of 20000 random expressions parsed; ${Date.now() - start} ms`);
  t.true(parsedCount > 1000);
});
