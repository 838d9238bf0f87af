/**
 * The instance path value (yang/instance-path.ts): its JSON text reads back to the value it was
 * rendered from, the XML form prefixes every node and key, the data layer's paths are its renderer's,
 * and no plugin or SDK source splits a path string with a scanner of its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { instancePath, instancePathOf, type PathSegment } from '../../src/data/path';
import { type InstancePath, parseJsonInstancePath, renderInstancePath } from '../../src/yang/instance-path';
import { lexPath } from '../../src/restconf/uri-segments';
import { schema } from '../data/fixture';

const ROOT = path.resolve(__dirname, '../../../..');

test('JSON text and value read back into each other, keys in order, every quoting XPath allows', (t) => {
  const value: InstancePath = [
    { module: 'm', name: 'a' },
    { module: 'm', name: 'l', keys: { k: "it's", j: 'a"b', both: `x'y"z` } },
    { module: 'o', name: 'aug' },
    { module: 'o', name: 'll', value: 'v]/w' },
  ];
  const text = renderInstancePath(value);
  t.is(text, `/m:a/l[k="it's"][j='a"b'][both=concat('x', "'", 'y"z')]/o:aug/ll[.='v]/w']`);
  t.deepEqual(parseJsonInstancePath(text), { ok: true, path: value });
  t.is(renderInstancePath([]), '/');
  t.deepEqual(parseJsonInstancePath('/'), { ok: true, path: [] });
  t.is(
    renderInstancePath([{ module: 'm', name: 'x' }], { kind: 'json', base: '/n:top/yang-ext:mount', baseModule: 'm' }),
    '/n:top/yang-ext:mount/x',
  );
});

test('XML form prefixes every node and key with the caller prefix of its module', (t) => {
  const value: InstancePath = [
    { module: 'ietf-interfaces', name: 'interfaces' },
    { module: 'ietf-interfaces', name: 'interface', keys: { name: 'eth0' } },
    { module: 'ietf-ip', name: 'ipv4' },
    { module: 'ietf-ip', name: 'address', position: 2 },
  ];
  t.is(
    renderInstancePath(value, { kind: 'xml', prefixFor: (m) => (m === 'ietf-ip' ? 'ip' : 'if') }),
    "/if:interfaces/if:interface[if:name='eth0']/ip:ipv4/ip:address[2]",
  );
});

test('URI form: RFC 8040 segments, values percent-encoded, and what RESTCONF reads back to the same keys', (t) => {
  const value: InstancePath = [
    { module: 'ietf-interfaces', name: 'interfaces' },
    { module: 'ietf-interfaces', name: 'interface', keys: { name: 'ge-0/0/1', unit: 'a b,c' } },
    { module: 'ietf-ip', name: 'ipv4' },
    { module: 'ietf-ip', name: 'search', value: '"quoted"' },
  ];
  t.is(
    renderInstancePath(value, { kind: 'uri' }),
    '/ietf-interfaces:interfaces/interface=ge-0%2F0%2F1,a%20b%2Cc/ietf-ip:ipv4/search=%22quoted%22',
  );
  const text = renderInstancePath(value, { kind: 'uri', keyDelimiter: '%22' });
  t.is(text, '/ietf-interfaces:interfaces/interface=%22ge-0/0/1%22,a%20b%2Cc/ietf-ip:ipv4/search=%22%22quoted%22%22');
  t.deepEqual(
    lexPath(text, '%22').segments.map((s) => s.keys),
    [undefined, ['ge-0/0/1', 'a b,c'], undefined, ['"quoted"']],
  );
  t.is(renderInstancePath([{ module: 'm', name: 'x' }], { kind: 'uri', baseModule: 'm' }), '/x');
  t.throws(() => renderInstancePath([{ module: 'm', name: 'l', position: 1 }], { kind: 'uri' }), { message: /no URI form/ });
});

test('the JSON reader refuses what names no node: unqualified first node, stray value predicate, bad quoting', (t) => {
  for (const bad of ['', 'm:a', '/a', "/m:a/ll[.='x']/b", "/m:a/ll[.='x'][.='y']", "/m:a/l[k='open", '/m:a[.=x]', '/m:a//b', '/m:a/'])
    t.false(parseJsonInstancePath(bad).ok, bad);
  t.false(parseJsonInstancePath('/m:a/b[k="a\\"b"]').ok, 'no escapes in XPath literals by default');
  t.deepEqual(parseJsonInstancePath('/m:a/b[k="a\\"b"]', { backslashEscapes: true }), {
    ok: true,
    path: [
      { module: 'm', name: 'a' },
      { module: 'm', name: 'b', keys: { k: 'a"b' } },
    ],
  });
});

test("the data layer's instance paths are the value's rendering", (t) => {
  const interfaces = schema().data.find((n) => n.name === 'interfaces')!;
  const list = interfaces.children.find((n) => n.kind === 'list' && n.keys.length === 1)!;
  const segments: PathSegment[] = [{ schema: interfaces }, { schema: list, keys: ["it's"] }];
  const value = instancePathOf(segments);
  t.is(value[0]!.module, interfaces.module.name);
  t.is(instancePath(segments), renderInstancePath(value));
  t.deepEqual(parseJsonInstancePath(instancePath(segments)), { ok: true, path: value });
});

/** Every .ts file under a folder. */
function sources(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

test('no plugin or SDK source scans a path string itself; the core XML error-path goes through the renderer', (t) => {
  const plugins = fs.readdirSync(path.join(ROOT, 'plugins')).map((p) => path.join(ROOT, 'plugins', p, 'src'));
  const files = [...plugins.flatMap(sources), ...sources(path.join(ROOT, 'sdk', 'src'))];
  t.true(files.length > 20, 'the plugin and SDK sources were found');
  // the scanners the SDK and the NETCONF plugin had: a predicate regex, a value-predicate regex, a bracket matcher
  const ownScanners = [/\\\[\\s\*\(?\[A-Za-z_\]/, /\\\[\\s\*\\\.\\s\*=/, /function predicateEnd\b/, /\.split\(['"]\/['"]\)/];
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8');
    for (const scanner of ownScanners) t.false(scanner.test(text), `${path.relative(ROOT, file)} splits paths itself (${scanner})`);
  }
  const defining = [...sources(path.join(ROOT, 'core', 'src')), ...files].filter((f) =>
    /export function (parseInstanceIdentifier|parseJsonInstancePath|renderInstancePath)\b/.test(fs.readFileSync(f, 'utf8')),
  );
  t.deepEqual(
    defining.map((f) => path.relative(ROOT, f)),
    [path.join('core', 'src', 'yang', 'instance-path.ts')],
  );
  const errors = fs.readFileSync(path.join(ROOT, 'core', 'src', 'restconf', 'errors.ts'), 'utf8');
  t.regex(errors, /renderInstancePath\(parsed\.path, \{ kind: 'xml'/);
});

test('every path the hook contract hands a plugin is the value: hooks.ts types no context path as text', (t) => {
  const hooks = fs.readFileSync(path.join(ROOT, 'core', 'src', 'hooks.ts'), 'utf8');
  const members: string[] = [];
  for (const block of hooks.matchAll(/^export interface (\w+)[^{]*\{([\s\S]*?)^\}/gm)) {
    for (const m of block[2]!.matchAll(/^\s+(?:readonly\s+)?(path|changed|action)\??:\s*([^;]+);/gm))
      members.push(`${block[1]}.${m[1]}: ${m[2]}`);
  }
  t.true(members.length >= 9, `the contexts' path members were found: ${members.join(', ')}`);
  // the URI on its way to the parser is the request's own text, the one path that is not yet a node
  const text = members.filter((m) => !/: (readonly )?InstancePath(\[\])?$/.test(m));
  t.deepEqual(text, ['UriParseContext.path: string']);
});
