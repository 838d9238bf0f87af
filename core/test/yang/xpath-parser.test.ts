/**
 * The XPath parser (yang/xpath parseXPath): abbreviations expanded, leafref predicates, XPath 1.0
 * precedence, operator-or-name tokenizing, errors with offset and reason, and hostile nesting refused.
 */
import test from 'ava';
import { parseXPath, formatExpr } from '../../src/yang/xpath';
import { cpuStopwatch } from '../cpu-time';

function parsed(src: string): string {
  const r = parseXPath(src);
  if ('error' in r) return `error@${r.error.pos}: ${r.error.reason}`;
  return formatExpr(r.expr);
}

test('abbreviated location paths expand to their axes', (t) => {
  t.is(parsed('../if:name'), 'parent::node()/child::if:name');
  t.is(parsed('/if:interfaces/if:interface/if:name'), '/child::if:interfaces/child::if:interface/child::if:name');
  t.is(parsed('.'), 'self::node()');
  t.is(parsed('//a'), '/descendant-or-self::node()/child::a');
  t.is(parsed('a//b'), 'child::a/descendant-or-self::node()/child::b');
  t.is(parsed('@x'), 'attribute::x');
  t.is(parsed('/'), '/');
  t.is(parsed('ancestor-or-self::*'), 'ancestor-or-self::*');
  t.is(parsed('oc:*'), 'child::oc:*');
});

test('leafref predicates with current() and deref()', (t) => {
  t.is(
    parsed('/if:interfaces/if:interface[if:name = current()/../ifname]/if:type'),
    '/child::if:interfaces/child::if:interface[child::if:name = current()/parent::node()/child::ifname]/child::if:type',
  );
  t.is(parsed('deref(../ifname)/../oc:config'), 'deref(parent::node()/child::ifname)/parent::node()/child::oc:config');
});

test('operator precedence follows XPath 1.0', (t) => {
  const r = parseXPath('1 + 2 * 3 = 7 and not(a) or b');
  t.true('expr' in r);
  if (!('expr' in r)) return;
  const e = r.expr;
  t.is(e.kind === 'binary' && e.op, 'or');
  if (e.kind !== 'binary' || e.left.kind !== 'binary') return t.fail();
  t.is(e.left.op, 'and');
  const eq = e.left.left;
  t.is(eq.kind === 'binary' && eq.op, '=');
  if (eq.kind !== 'binary' || eq.left.kind !== 'binary') return t.fail();
  t.is(eq.left.op, '+');
  t.is(eq.left.right.kind === 'binary' && eq.left.right.op, '*');
  t.is(parsed('a | b/c'), 'child::a | child::b/child::c');
  t.is(parsed('- - 3'), '--3');
});

test('the tokenizer tells operators from names by what precedes them', (t) => {
  t.is(parsed('div div div'), 'child::div div child::div');
  t.is(parsed('* * *'), 'child::* * child::*');
  t.is(parsed('mod mod mod'), 'child::mod mod child::mod');
  t.is(parsed('and and or'), 'child::and and child::or');
  t.is(parsed('count(x) > 0'), 'count(child::x) > 0');
  t.is(parsed('a-b - c'), 'child::a-b - child::c');
  t.is(parsed('.5 + 1.'), '0.5 + 1');
});

test('syntax errors carry the offset and a reason', (t) => {
  t.is(parsed('a +'), 'error@3: expected an expression');
  t.is(parsed("a = 'x"), 'error@4: unterminated string literal');
  t.is(parsed('a[b'), "error@3: expected ']'");
  t.is(parsed('a b'), "error@2: expected an operator, found 'b'");
  t.is(parsed('foo::bar'), "error@0: unknown axis 'foo'");
  t.is(parsed('a ! b'), "error@2: '!' must be followed by '='");
  t.is(parsed('f(a,'), 'error@4: expected an expression');
  t.is(parsed(''), 'error@0: expected an expression');
  t.is(parsed('a)'), "error@1: unexpected ')' after the expression");
  t.is(parsed('#'), "error@0: unexpected character '#'");
});

test('hostile nesting is refused, not a stack overflow', (t) => {
  const deep = `${'('.repeat(100000)}1${')'.repeat(100000)}`;
  t.regex(parsed(deep), /nested deeper than/);
  const preds = `a${'[b'.repeat(50000)}`;
  t.regex(parsed(preds), /nested deeper than/);
  const long = Array.from({ length: 100000 }, (_, i) => `a${i}`).join(' or ');
  const cpuMs = cpuStopwatch();
  t.regex(parsed(long), /more than 512 nested operations/);
  t.false(parsed(Array.from({ length: 300 }, (_, i) => `a${i}`).join(' or ')).startsWith('error'));
  const ms = cpuMs();
  t.true(ms < 2000, `${ms.toFixed(0)} ms of CPU`);
});
