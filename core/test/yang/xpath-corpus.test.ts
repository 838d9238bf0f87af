/**
 * Every `when`, `must` and leafref `path` in the shared YANG corpus (IETF, IEEE, OpenConfig,
 * OpenDaylight) parses, and every function they call is in the library.
 */
import ava from 'ava';
import { corpusPath, corpusTest } from '../corpus';
import fs from 'node:fs';
import path from 'node:path';
import { parseYang } from '../../src/yang/parser';
import type { Statement } from '../../src/yang/statement';
import { FUNCTION_NAMES, parseXPath, type Expr } from '../../src/yang/xpath';

const test = corpusTest(ava, 'XPath expressions of the whole corpus');

function yangFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yangFiles(p, out);
    else if (p.endsWith('.yang')) out.push(p);
  }
  return out;
}

function calls(e: Expr, out: Set<string>): void {
  switch (e.kind) {
    case 'call':
      out.add(e.prefix ? `${e.prefix}:${e.name}` : e.name);
      for (const a of e.args) calls(a, out);
      break;
    case 'binary':
      calls(e.left, out);
      calls(e.right, out);
      break;
    case 'negate':
      calls(e.operand, out);
      break;
    case 'filter':
      calls(e.primary, out);
      for (const p of e.predicates) calls(p, out);
      break;
    case 'path':
      if (typeof e.start === 'object') calls(e.start, out);
      for (const s of e.steps) for (const p of s.predicates) calls(p, out);
      break;
    default:
      break;
  }
}

test('every XPath expression of the corpus parses and calls only known functions', (t) => {
  const failures: string[] = [];
  const used = new Set<string>();
  let count = 0;
  const corpus = corpusPath();
  for (const file of yangFiles(corpus)) {
    const parsed = parseYang(fs.readFileSync(file, 'utf8'), file);
    const visit = (s: Statement): void => {
      if (s.prefix === undefined && (s.keyword === 'when' || s.keyword === 'must' || s.keyword === 'path') && s.arg !== undefined) {
        count++;
        const r = parseXPath(s.arg);
        if ('error' in r) failures.push(`${path.relative(corpus, file)}:${s.position.line}: ${r.error.reason}`);
        else calls(r.expr, used);
      }
      s.substatements.forEach(visit);
    };
    if (parsed.statement) visit(parsed.statement);
  }
  t.log(`${count} expressions, functions used: ${[...used].sort().join(', ')}`);
  t.true(count > 2000);
  t.deepEqual(failures, []);
  t.deepEqual(
    [...used].filter((f) => !FUNCTION_NAMES.has(f)),
    [],
  );
});
