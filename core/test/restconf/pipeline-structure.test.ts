/**
 * The shape of the RESTCONF request pipeline, checked on the sources (core/src): one dispatcher
 * chooses the handler of every data request's method; OPTIONS and the `Allow` sets live in one module;
 * the plugin lease of a request is taken in one place; express is only the plugin routes' adapter;
 * the data handlers reach data only through a datastore view. A change that adds a second way through
 * fails here, naming the file.
 */
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';

const SRC = path.resolve(__dirname, '../../../src');

/** Every TypeScript source under core/src, as [path relative to src, text without comments]. */
function sources(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) {
        const text = fs
          .readFileSync(full, 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/^\s*\/\/.*$/gm, '');
        out.push([path.relative(SRC, full).split(path.sep).join('/'), text]);
      }
    }
  };
  walk(SRC);
  return out;
}

const ALL = sources();

/** The files whose code (comments left out) matches `pattern`. */
function filesMatching(pattern: RegExp): string[] {
  return ALL.filter(([, text]) => pattern.test(text))
    .map(([file]) => file)
    .sort();
}

test('the sources are found', (t) => {
  t.true(ALL.length > 100, `${ALL.length} files under ${SRC}`);
  t.true(ALL.some(([file]) => file === 'restconf/dispatcher.ts'));
});

test('only the dispatcher calls the data handlers of each method', (t) => {
  const calls = /(?<!function )\bhandle(Get|Put|Post|Delete|PlainPatch|YangPatch)\(/;
  t.deepEqual(filesMatching(calls), ['restconf/dispatcher.ts']);
  // one handler file per method
  const defined = (name: string) => filesMatching(new RegExp(`export async function ${name}\\(`));
  t.deepEqual(defined('handleGet'), ['restconf/read.ts']);
  t.deepEqual(defined('handlePut'), ['restconf/put.ts']);
  t.deepEqual(defined('handlePost'), ['restconf/post.ts']);
  t.deepEqual(defined('handlePlainPatch'), ['restconf/patch.ts']);
  t.deepEqual(defined('handleYangPatch'), ['restconf/yang-patch.ts']);
  t.deepEqual(defined('handleDelete'), ['restconf/delete.ts']);
});

test('OPTIONS and the Allow sets are answered by options.ts alone', (t) => {
  t.deepEqual(filesMatching(/setHeader\(\s*'Allow'/), ['restconf/options.ts'], "only options.ts writes an OPTIONS answer's Allow");
  t.deepEqual(filesMatching(/\bconst ALLOW\s*=/), ['restconf/options.ts'], 'the Allow sets are defined once');
  t.deepEqual(filesMatching(/\bAccept-Patch\b/), ['restconf/options.ts']);
  t.deepEqual(
    filesMatching(/=== 'OPTIONS'\)\s*(return\s+)?answerOptions|answerOptions\(/).filter((f) => !f.startsWith('restconf/')),
    [],
  );
  // every OPTIONS branch of the restconf and uniconfig layers answers through answerOptions
  for (const [file, text] of ALL) {
    if (!file.startsWith('restconf/') && !file.startsWith('uniconfig/')) continue;
    for (const m of text.matchAll(/=== 'OPTIONS'\)([^;]*;)/g)) t.regex(m[1]!, /answerOptions\(|return;|=/, `${file}: ${m[0]}`);
  }
});

test("a request's plugin lease is taken in one place, request-scope.ts, by the authentication gate or the dispatcher", (t) => {
  const restconfAndUniconfig = ALL.filter(([file]) => file.startsWith('restconf/') || file.startsWith('uniconfig/'));
  t.deepEqual(
    restconfAndUniconfig.filter(([, text]) => /\.acquire\(\)/.test(text)).map(([file]) => file),
    ['restconf/request-scope.ts', 'uniconfig/uniconfig.ts'],
    'request-scope.ts leases for requests; uniconfig.ts leases for its own install-node work, not a request',
  );
  t.deepEqual(filesMatching(/\bleaseScope\(/), ['restconf/dispatcher.ts', 'restconf/request-scope.ts', 'service/authentication.ts']);
  const gate = fs.readFileSync(path.join(SRC, 'service/authentication.ts'), 'utf8');
  t.notRegex(gate, /\.acquire\(\)/, 'the authentication gate takes the request lease through request-scope.ts, never one of its own');
});

test('express is only the adapter of plugin routes', (t) => {
  t.deepEqual(filesMatching(/from 'express'/), ['restconf/plugin-routes.ts']);
});

test('no claim callback decides routing: the route table is consulted by the dispatcher only', (t) => {
  t.deepEqual(filesMatching(/\.dataView\(|\.operation\(\{|routes\.operation\(/), ['restconf/dispatcher.ts']);
  t.deepEqual(filesMatching(/\bclaimed\b|pluginRouteClaims|withDirectData/), []);
});

test('the data handlers reach data through the datastore view only', (t) => {
  for (const file of ['read.ts', 'put.ts', 'post.ts', 'patch.ts', 'yang-patch.ts', 'delete.ts']) {
    const text = ALL.find(([f]) => f === `restconf/${file}`)![1];
    t.notRegex(text, /\bcommitWrite\(/, `${file} commits through call.view.commit`);
    t.notRegex(text, /datastores\.(config|operational)\.apply\(/, `${file} writes through call.view.commit`);
    // YANG Patch tries its edits on the view's Config tree before committing them; the others read through call.view.read
    if (file !== 'yang-patch.ts') t.notRegex(text, /datastores\./, `${file} reads through call.view.read`);
  }
});

test('the local datastores, a mounted device and a uniconfig node are datastore views', (t) => {
  t.deepEqual(filesMatching(/\bclass \w+ (implements DatastoreView|extends TreeView)\b/), [
    'restconf/mount-view.ts',
    'restconf/tree-view.ts',
    'uniconfig/data-route.ts',
  ]);
  t.deepEqual(filesMatching(/handleMountData|mount-routes/), [], 'no separate mount request path');
});

test('only operation-call.ts decodes and answers an operation, for local, device and uniconfig operations alike', (t) => {
  // an operation's input is a body decoded with the operation as its parent
  t.deepEqual(filesMatching(/decodeBody\([^;]*\bparent: op\b/), ['restconf/operation-call.ts']);
  t.deepEqual(filesMatching(/:input' only/), ['restconf/operation-call.ts'], 'one check that the body holds the input only');
  t.deepEqual(filesMatching(/\.name\}:output`/), ['restconf/operation-call.ts'], 'one place decodes or writes the output');
  t.deepEqual(filesMatching(/\bcallOperation\(/), [
    'restconf/mount-view.ts',
    'restconf/operation-call.ts',
    'restconf/operations.ts',
    'uniconfig/routes.ts',
  ]);
});
