/**
 * The fault type's structural facts, checked over the sources: the error-tag -> status table exists once
 * in the core (fault/status.ts), and no plugin carries its own HTTP statuses on an error class of its
 * own (they raise the SDK's FaultError, mostly through its named device faults).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'ava';
import { FaultError, STATUS_BY_TAG, statusOfTag } from '../../src/fault';
import { RestconfError, fromFaultError } from '../../src/restconf/errors';

/** The repository root, from core/dist/test/fault. */
const ROOT = path.resolve(__dirname, '../../../..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(full));
    else if (entry.name.endsWith('.ts')) out.push(full);
  }
  return out;
}

/** The body (between its braces) of each class declared with `extends <base>` in `text`. */
function classBodies(text: string, base: string): Array<{ name: string; body: string }> {
  const out: Array<{ name: string; body: string }> = [];
  for (const m of text.matchAll(new RegExp(`class\\s+(\\w+)\\s+extends\\s+${base}\\b[^{]*\\{`, 'g'))) {
    let depth = 1;
    let i = m.index + m[0].length;
    while (i < text.length && depth > 0) {
      if (text[i] === '{') depth++;
      else if (text[i] === '}') depth--;
      i++;
    }
    out.push({ name: m[1]!, body: text.slice(m.index + m[0].length, i - 1) });
  }
  return out;
}

test('the core holds one error-tag -> status table, in fault/status.ts', (t) => {
  // entries only such a table has: a tag and its status, side by side
  const distinctive = [/'unknown-namespace'\s*:\s*400/, /'lock-denied'\s*:\s*409/, /'partial-operation'\s*:\s*500/];
  const tables = sources(path.join(ROOT, 'core/src')).filter((file) => {
    const text = fs.readFileSync(file, 'utf8');
    return distinctive.some((re) => re.test(text));
  });
  t.deepEqual(
    tables.map((f) => path.relative(ROOT, f)),
    ['core/src/fault/status.ts'],
  );
  t.is(Object.keys(STATUS_BY_TAG).length, 20, 'every RFC 8040 §7 error-tag');
  t.is(statusOfTag('southbound_no_connection'), 502);
  t.is(statusOfTag('some-device-tag'), 500);
});

test('no plugin declares an error class of its own carrying an HTTP status', (t) => {
  const plugins = path.join(ROOT, 'plugins');
  const offenders: string[] = [];
  for (const name of fs.readdirSync(plugins)) {
    const src = path.join(plugins, name, 'src');
    if (!fs.existsSync(src)) continue;
    for (const file of sources(src)) {
      const text = fs.readFileSync(file, 'utf8');
      for (const c of classBodies(text, 'Error'))
        if (/\b(status|tag)\b\s*[=:(]|get\s+(status|tag)\b/.test(c.body)) offenders.push(`${path.relative(ROOT, file)}: ${c.name}`);
    }
  }
  t.deepEqual(offenders, []);
});

test('the structure check finds a status-carrying error class', (t) => {
  const text = 'export class X extends Error {\n  readonly status = 502;\n  constructor() { super("x"); }\n}\nclass Y extends Error {}';
  const found = classBodies(text, 'Error');
  t.deepEqual(
    found.map((c) => c.name),
    ['X', 'Y'],
  );
  t.regex(found[0]!.body, /status = 502/);
});

test('a fault of any layer reaches the envelope with its status, tags, paths and headers', (t) => {
  const e = new FaultError(
    [
      { type: 'protocol', tag: 'data-exists', message: 'there', path: '/m:a' },
      { tag: 'malformed-message', message: 'unreadable', path: '/' },
    ],
    { headers: { Allow: 'GET' } },
  );
  t.is(e.status, 409);
  const r = fromFaultError(e);
  t.true(r instanceof RestconfError);
  t.is(r.status, 409);
  t.deepEqual(r.headers, { Allow: 'GET' });
  t.deepEqual(r.errors, [
    { type: 'protocol', tag: 'data-exists', message: 'there', path: '/m:a' },
    { type: 'rpc', tag: 'malformed-message', message: 'unreadable' },
  ]);
  t.is(new FaultError({ tag: 'operation-failed', message: 'late' }, { status: 504 }).status, 504);
});
