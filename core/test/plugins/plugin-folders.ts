/**
 * Writes real plugin folders (package.json + CommonJS entry) and plugins.json into a temporary directory,
 * for the plugin host tests. The entries are plain JS against the core's plugin contract, as a compiled
 * plugin would be.
 */
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';

export interface Workspace {
  readonly root: string;
  readonly configFile: string;
  writePlugin(folder: string, pkg: object, entrySource: string, entryFile?: string): Promise<void>;
  writeConfig(config: object): Promise<void>;
  remove(): Promise<void>;
}

export async function makeWorkspace(): Promise<Workspace> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'rosetta-plugins-'));
  const configFile = path.join(root, 'plugins.json');
  return {
    root,
    configFile,
    async writePlugin(folder, pkg, entrySource, entryFile = 'index.js') {
      const dir = path.join(root, folder);
      await fs.mkdir(dir, { recursive: true });
      // entry first, package.json last: a watcher that fires early sees the old manifest or the whole new plugin
      await fs.writeFile(path.join(dir, entryFile), entrySource);
      await fs.writeFile(path.join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
    },
    async writeConfig(config) {
      const tmp = `${configFile}.tmp`;
      await fs.writeFile(tmp, JSON.stringify(config, null, 2));
      await fs.rename(tmp, configFile);
    },
    remove: () => fs.rm(root, { recursive: true, force: true }),
  };
}

/** package.json of a plugin with the given kind. */
export function pkg(name: string, version: string, kind = 'callbacks', extra: object = {}): object {
  return { name, version, rosetta: { kind, entry: 'index.js', ...extra } };
}

/**
 * A plugin answering the local RPC `test:version` with its own version, after `delayMs`; its dispose
 * appends `name@version` to globalThis.__disposed so tests see when an instance is let go.
 */
export function versionPlugin(version: string, delayMs = 0): string {
  return `
module.exports = {
  rosettaPlugin: 1,
  setup(api) {
    api.hooks.rpc.invoke.for('test:version').tapPromise('version', async () => {
      await new Promise((r) => setTimeout(r, ${delayMs}));
      return { output: { version: ${JSON.stringify(version)} } };
    });
  },
  dispose() { (globalThis.__disposed ??= []).push(${JSON.stringify(version)}); },
};
`;
}
