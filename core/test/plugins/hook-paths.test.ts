/**
 * What a plugin is handed as a path, through the real service: every local data hook (beforeRead,
 * afterRead, readState, decodeBody, beforeWrite, afterCommit) and a plugin route's resolved path carry
 * the instance path value, not text, and that value is the node the request named: rendered with the one
 * formatter it gives the RFC 7951 text the core writes in messages and error-paths.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import test from 'ava';
import { startTestService } from '../../src/service/test-service';
import { type InstancePath, renderInstancePath } from '../../src/yang/instance-path';
import { makeWorkspace, pkg } from './plugin-folders';

const YANG = `module test-paths {
  yang-version 1.1; namespace "urn:test:paths"; prefix tp;
  revision 2026-01-01;
  container top {
    list item { key name; leaf name { type string; } leaf label { type string; } }
    container counters { config false; leaf seen { type uint32; } }
  }
}
`;

/** Records what each hook is handed into globalThis.__hookPaths; a route resolves a data path. */
const SOURCE = `
const seen = { push: (entry) => (globalThis.__hookPaths ??= []).push(entry) };
module.exports = { rosettaPlugin: 1, setup({ hooks }) {
  hooks.data.beforeRead.tapPromise('paths', async (r) => { seen.push(['beforeRead', r.path]); return r; });
  hooks.data.afterRead.tapPromise('paths', async (d, r) => { seen.push(['afterRead', r.path]); return d; });
  hooks.data.readState.for('test-paths').tapPromise('paths', async (s, r) => {
    seen.push(['readState', r.path]);
    return { ...s, 'test-paths:top': { counters: { seen: 1 } } };
  });
  hooks.data.decodeBody.tap('paths', (p, b) => { seen.push(['decodeBody', b.path]); return p; });
  hooks.data.beforeWrite.tapPromise('paths', async (w) => { seen.push(['beforeWrite', w.path]); });
  hooks.data.afterCommit.tapPromise('paths', async (c) => { seen.push(['afterCommit', c.changed]); });
  hooks.server.routes.tap('paths', ({ routes, local }) => {
    routes.get('/rests/test-resolve', (req, res) => res.json({ path: local.resolve("/test-paths:top/item=it's").path }));
  });
} };
`;

type Seen = Array<[string, unknown]>;
const globalSeen = globalThis as { __hookPaths?: Seen };

test('every path a local data hook or a plugin route is handed is the value of the node the request named', async (t) => {
  const ws = await makeWorkspace();
  const dir = path.join(ws.root, 'plugins/paths');
  fs.mkdirSync(path.join(dir, 'yang'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'yang/test-paths@2026-01-01.yang'), YANG);
  await ws.writePlugin('plugins/paths', pkg('plugin-paths', '1.0.0', 'extension', { yang: 'yang' }), SOURCE);
  const s = await startTestService({ plugins: [{ path: dir }], label: 'hook-paths' });
  globalSeen.__hookPaths = []; // what start-up read is not this test's
  try {
    const entry = '/rests/data/test-paths:top/item=it%27s';
    const text = `/test-paths:top/item[name="it's"]`;
    const put = await s.request('PUT', entry, { 'test-paths:item': [{ name: "it's", label: 'x' }] });
    t.is(put.status, 201, put.text);
    t.is((await s.request('GET', entry)).status, 200);
    t.is((await s.request('GET', '/rests/data/test-paths:top/counters?content=nonconfig')).status, 200);
    const resolved = await s.request('GET', '/rests/test-resolve');
    t.is(resolved.status, 200, resolved.text);
    for (let i = 0; i < 100 && !globalSeen.__hookPaths.some(([hook]) => hook === 'afterCommit'); i++)
      await new Promise((r) => setTimeout(r, 10));

    const seen = globalSeen.__hookPaths;
    const rendered = (value: unknown) => {
      t.true(Array.isArray(value), `a value, not text: ${JSON.stringify(value)}`);
      return renderInstancePath(value as InstancePath);
    };
    const of = (hook: string) => seen.filter(([h]) => h === hook).map(([, p]) => p);
    t.deepEqual(of('decodeBody').map(rendered), [text]);
    t.deepEqual(of('beforeWrite').map(rendered), [text]);
    // the first write created the container, the highest node that changed as a whole
    t.deepEqual(
      of('afterCommit').map((changed) => (changed as unknown[]).map(rendered)),
      [['/test-paths:top']],
    );
    const distinct = (hook: string) => [...new Set(of(hook).map(rendered))];
    t.deepEqual(distinct('beforeRead'), [text, '/test-paths:top/counters']);
    t.deepEqual(distinct('afterRead'), [text, '/test-paths:top/counters']);
    t.deepEqual(distinct('readState'), [text, '/test-paths:top/counters']);
    t.deepEqual(of('beforeWrite')[0], [
      { module: 'test-paths', name: 'top' },
      { module: 'test-paths', name: 'item', keys: { name: "it's" } },
    ]);
    t.is(rendered(resolved.json.path), text);
  } finally {
    await s.stop();
    await ws.remove();
  }
});
