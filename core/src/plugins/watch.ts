/**
 * Watching plugins.json and every listed plugin folder (chokidar), so that an edit reloads the plugins:
 * file events are debounced into one reload, and the watched folders follow plugins.json's entries.
 */
import { watch, type FSWatcher } from 'chokidar';
import type { Logger } from '../logger';
import type { PluginEntry } from './plugins-config';

export class PluginWatcher {
  private watcher: FSWatcher | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private folders = new Set<string>();
  private closed = false;

  constructor(
    private readonly configFile: string,
    private readonly debounceMs: number,
    /** Runs after the last of a burst of file events; its failure is logged. */
    private readonly reload: () => Promise<unknown>,
    private readonly logger: Required<Logger>,
  ) {}

  get watching(): boolean {
    return this.watcher !== undefined;
  }

  /** Starts watching plugins.json and these entries' folders; resolves once chokidar is ready. */
  async start(entries: readonly PluginEntry[]): Promise<void> {
    const watcher = watch(this.configFile, {
      ignoreInitial: true,
      ignored: (p: string) => /[\\/](node_modules|\.git)([\\/]|$)/.test(p),
    });
    this.watcher = watcher;
    const schedule = (): void => {
      if (this.closed) return;
      clearTimeout(this.debounce);
      this.debounce = setTimeout(() => {
        this.reload().catch((err: unknown) => this.logger.error(`plugin reload failed: ${(err as Error).message}`));
      }, this.debounceMs);
    };
    watcher.on('all', schedule);
    watcher.on('error', (err: unknown) => this.logger.error(`plugin watcher: ${(err as Error).message}`));
    this.follow(entries);
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  }

  /** Watches exactly the folders of these entries (after a rescan changed plugins.json). */
  follow(entries: readonly PluginEntry[]): void {
    const wanted = new Set(entries.map((e) => e.folder));
    for (const f of this.folders) if (!wanted.has(f)) this.watcher?.unwatch(f);
    for (const f of wanted) if (!this.folders.has(f)) this.watcher?.add(f);
    this.folders = wanted;
  }

  /** Stops watching; a reload already scheduled does not run. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.debounce);
    await this.watcher?.close();
  }
}
