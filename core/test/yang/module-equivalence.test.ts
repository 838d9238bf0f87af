/**
 * What counts when two texts of one module revision are compared (module-equivalence.ts): documentation,
 * stated defaults and the order of unordered siblings do not; definitions, data node order and enum
 * order do, and the difference names its statement path and both places.
 */
import test from 'ava';
import { parseYang } from '../../src/yang/parser';
import { moduleDifference } from '../../src/yang/module-equivalence';
import type { Statement } from '../../src/yang/statement';

function parsed(body: string, file: string): Statement {
  const r = parseYang(`module m { namespace "urn:m"; prefix m; revision 2024-01-01; ${body} }`, file);
  if (!r.statement) throw new Error(r.diagnostics.map((d) => d.message).join('; '));
  return r.statement;
}

const differenceOf = (a: string, b: string) => moduleDifference(parsed(a, 'a.yang'), parsed(b, 'b.yang'));

test('documentation, stated defaults, quoting and the order of typedefs do not count', (t) => {
  t.is(
    differenceOf(
      'typedef t1 { type string; } typedef t2 { type int8; } container c { leaf x { type t1; } }',
      `typedef t2 { type "int8"; description "two"; } typedef t1 { type string; reference "RFC"; }
     container c { config true; status current; description "c"; leaf x { type "t" + "1"; mandatory false; } }`,
    ),
    undefined,
  );
});

test('a changed type, an added node, and another order of data nodes or enums count', (t) => {
  t.like(differenceOf('leaf x { type string; }', 'leaf x { type int8; }'), {
    path: '/leaf x/type',
    what: 'type is "string" at a.yang:1:71 and "int8" at b.yang:1:71',
  });
  t.like(differenceOf('leaf x { type string; }', 'leaf x { type string; } leaf y { type string; }'), { path: '/leaf y' });
  t.like(differenceOf('leaf x { type string; } leaf y { type string; }', 'leaf y { type string; } leaf x { type string; }'), {
    path: '/leaf y',
  });
  t.like(differenceOf('leaf x { type enumeration { enum a; enum b; } }', 'leaf x { type enumeration { enum b; enum a; } }'), {
    path: '/leaf x/type enumeration/enum b',
  });
});

test('a stated default still counts where it overrides: in refine and deviate', (t) => {
  const grouping = 'grouping g { leaf x { type string; mandatory true; } } ';
  t.like(
    differenceOf(
      `${grouping} container c { uses g { refine x; } }`,
      `${grouping} container c { uses g { refine x { mandatory false; } } }`,
    ),
    { path: '/container c/uses g/refine x/mandatory false' },
  );
});
