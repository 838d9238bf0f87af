/**
 * The gate between plugins and the local schema: before a rescan's instances are swapped in, the YANG of
 * the plugins that would serve in the local datastore (loaded, not translation units, with a `yang`
 * folder) is checked whenever that set changes (the first rescan included). A fault in a file of a
 * plugin this rescan changed sends that plugin back to its previous instance (or leaves it out) with the
 * fault as its error, and the check runs again on what is left; a fault no changed plugin owns is
 * reported and the schema stays as it is.
 */
import * as path from 'node:path';
import type { Logger } from '../logger';
import { disposeQuietly, type LoadedPlugin } from './loader';
import { type PluginSlots, type Slot, label } from './slots';

/** What `checkLocalYang` found: the schema compiles (and is installed by `commit`), or which files are at fault. */
export type LocalYangVerdict =
  | { readonly ok: true; commit(): void }
  | { readonly ok: false; readonly message: string; readonly files: readonly string[] };

export class LocalYangGate {
  private checked = false;

  constructor(
    private readonly check: (yangDirs: readonly string[]) => LocalYangVerdict,
    private readonly logger: Required<Logger>,
  ) {}

  /**
   * Checks the slots' serving instances against `previous` (the generation serving now); `prior` is what
   * each slot served before this rescan. Returns what to call once the new generation is current.
   */
  run(
    slots: PluginSlots,
    prior: ReadonlyMap<Slot, LoadedPlugin | undefined>,
    previous: readonly LoadedPlugin[],
    errors: string[],
  ): (() => void) | undefined {
    const firstCheck = !this.checked;
    for (;;) {
      const wanted = withLocalYang(slots.serving());
      if (!firstCheck && sameInstances(wanted, withLocalYang(previous))) return undefined;
      const verdict = this.check(wanted.map((p) => p.manifest.yangDir!));
      if (verdict.ok) {
        this.checked = true;
        return () => verdict.commit();
      }
      const changedSlots = slots.all().filter((s) => {
        const before = prior.get(s);
        return s.active !== before && (hasLocalYang(s.active) || hasLocalYang(before));
      });
      const owning = changedSlots.filter((s) => verdict.files.some((f) => isInside(f, s.active?.manifest.yangDir)));
      const culprits = owning.length > 0 ? owning : changedSlots;
      if (culprits.length === 0) {
        errors.push(verdict.message);
        this.logger.error(`the local YANG modules do not compile; the schema stays as it was: ${verdict.message}`);
        return undefined;
      }
      for (const slot of culprits) {
        const refused = slot.active;
        const before = prior.get(slot);
        const message = `plugin ${refused ? label(refused) : slot.entry.path}: its YANG does not compile into the local schema: ${verdict.message}`;
        errors.push(message);
        Object.assign(slot, { active: before, state: before ? 'loaded' : 'failed', error: message });
        this.logger.error(before ? `${message}; ${label(before)} keeps serving` : `${message}; the service runs without this plugin`);
        if (refused && refused !== before)
          void disposeQuietly(refused.definition, (m) => this.logger.error(`plugin ${label(refused)}: ${m}`));
      }
    }
  }
}

function hasLocalYang(p: LoadedPlugin | undefined): boolean {
  return p !== undefined && !p.unit && p.manifest.yangDir !== undefined;
}

function withLocalYang(plugins: readonly LoadedPlugin[]): LoadedPlugin[] {
  return plugins.filter(hasLocalYang);
}

function sameInstances(a: readonly LoadedPlugin[], b: readonly LoadedPlugin[]): boolean {
  return a.length === b.length && a.every((p, i) => p === b[i]);
}

/** Whether `file` lies inside `dir` (both absolute). */
function isInside(file: string, dir: string | undefined): boolean {
  if (dir === undefined) return false;
  const rel = path.relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}
