/**
 * The node store's decoded trees: the most recently used ones are kept up to the bound, the least
 * recently used dropped first, and a tree is found only for the schema it was decoded in.
 */
import test from 'ava';
import type { DataRoot } from '../../src/data/tree';
import { DecodedTrees } from '../../src/uniconfig/decoded-trees';
import type { SchemaContext } from '../../src/yang/schema';

const schema = {} as SchemaContext;
const tree = (): DataRoot => ({ kind: 'root', children: [] });

test('beyond the bound the least recently used tree is dropped; a use keeps a tree', (t) => {
  const trees = new DecodedTrees(3);
  const configurations = [{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }];
  const roots = configurations.map(tree);
  for (let i = 0; i < 3; i++) trees.set(configurations[i]!, schema, roots[i]!);
  t.is(trees.get(configurations[0]!, schema), roots[0], 'the first is used again: now the most recent');
  trees.set(configurations[3]!, schema, roots[3]!);
  t.is(trees.size, 3);
  t.is(trees.get(configurations[1]!, schema), undefined, 'the least recently used was dropped');
  t.is(trees.get(configurations[0]!, schema), roots[0]);
  t.is(trees.get(configurations[2]!, schema), roots[2]);
  t.is(trees.get(configurations[3]!, schema), roots[3]);
  t.is(trees.get(configurations[3]!, {} as SchemaContext), undefined, 'decoded in another schema');
});
