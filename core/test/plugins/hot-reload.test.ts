/**
 * Hot reload under load: requests keep flowing through a plugin while chokidar sees it replaced twice on
 * disk. No request may fail, each request must see one version from start to end, and every old
 * instance must be disposed once its requests are done.
 */
import test from 'ava';
import { PluginHost } from '../../src/plugins';
import { makeWorkspace, pkg, versionPlugin } from './plugin-folders';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('a plugin replaced twice on disk while requests flow: zero failures, no mixed versions', async (t) => {
  const ws = await makeWorkspace();
  const disposed: string[] = ((globalThis as { __disposed?: string[] }).__disposed ??= []);
  const errors: string[] = [];
  try {
    await ws.writePlugin('plugins/ver', pkg('plugin-ver', '1.0.0'), versionPlugin('hot-1', 1));
    await ws.writeConfig({ watch: true, plugins: [{ path: 'plugins/ver' }] });
    const host = await PluginHost.start({
      configFile: ws.configFile,
      debounceMs: 50,
      logger: { info: () => undefined, warn: (m) => errors.push(m), error: (m) => errors.push(m) },
    });

    let running = true;
    let completed = 0;
    const failures: string[] = [];
    const seen = new Map<string, number>();
    const worker = async (): Promise<void> => {
      while (running) {
        try {
          // two hook calls per request with a pause between: a swap may land in the middle
          const versions = await host.withScope(async (scope) => {
            const hook = scope.hooks.rpc.invoke.for('test:version');
            const a = await hook.promise({ operation: 'test:version', input: {} });
            await sleep(Math.random() * 3);
            const b = await hook.promise({ operation: 'test:version', input: {} });
            return [a?.output?.['version'], b?.output?.['version']];
          });
          if (versions[0] === undefined || versions[0] !== versions[1]) failures.push(`mixed or missing: ${JSON.stringify(versions)}`);
          else seen.set(String(versions[0]), (seen.get(String(versions[0])) ?? 0) + 1);
          completed++;
        } catch (err) {
          failures.push((err as Error).message);
        }
      }
    };
    const workers = Array.from({ length: 16 }, worker);

    const waitFor = async (version: string): Promise<void> => {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        if (host.status()[0]?.version === version) return;
        await sleep(20);
      }
      throw new Error(`version ${version} was not swapped in within 10 s`);
    };
    await sleep(150);
    await ws.writePlugin('plugins/ver', pkg('plugin-ver', '2.0.0'), versionPlugin('hot-2', 1));
    await waitFor('2.0.0');
    await sleep(150);
    await ws.writePlugin('plugins/ver', pkg('plugin-ver', '3.0.0'), versionPlugin('hot-3', 1));
    await waitFor('3.0.0');
    await sleep(150);
    running = false;
    await Promise.all(workers);

    t.deepEqual(failures, []);
    t.deepEqual(errors, []);
    t.true(completed > 100, `only ${completed} requests completed`);
    t.true((seen.get('hot-1') ?? 0) > 0 && (seen.get('hot-2') ?? 0) > 0 && (seen.get('hot-3') ?? 0) > 0, JSON.stringify([...seen]));
    t.is(host.draining, 0);
    await sleep(10);
    t.true(disposed.includes('hot-1') && disposed.includes('hot-2'));
    t.false(disposed.includes('hot-3'));
    t.log(`${completed} requests across two swaps: ${JSON.stringify(Object.fromEntries(seen))}`);
    await host.close();
  } finally {
    await ws.remove();
  }
});
