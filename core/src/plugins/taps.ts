/**
 * Recording and replaying taps. A plugin taps a *recorder* hooks object once, in its `setup`; the host
 * replays those taps into the hooks object of every generation the plugin belongs to. This is what lets a
 * plugin be swapped while requests run: each generation is a complete, independent set of tapable hooks,
 * and nothing is ever untapped.
 */
import { HookMap } from 'tapable';
import { createHooks, type RosettaHooks } from '../hooks';

/** One tap as tapable stores it (`type` says tap, tapAsync or tapPromise). */
interface StoredTap {
  readonly type: 'sync' | 'async' | 'promise';
  readonly fn: AnyTapFn;
  readonly name: string;
  readonly [option: string]: unknown;
}

/** A tap taken on a recorder: which hook (dotted name, and key for a HookMap) and the tap itself. */
export interface RecordedTap {
  readonly hook: string;
  readonly key: string | undefined;
  readonly tap: StoredTap;
}

/** Any tap function: each hook types its own arguments, and the recorder only hands them on. */
// biome-ignore lint/suspicious/noExplicitAny: see above; `unknown[]` would refuse every typed tap function
type AnyTapFn = (...args: any[]) => unknown;

interface TappableHook {
  taps: StoredTap[];
  tap(options: object, fn: AnyTapFn): void;
  tapAsync(options: object, fn: AnyTapFn): void;
  tapPromise(options: object, fn: AnyTapFn): void;
}

/** Real hooks whose taps can be collected once the plugin has tapped them. */
export interface Recorder {
  readonly hooks: RosettaHooks;
  collect(): RecordedTap[];
}

/** A fresh recorder: real hooks (so plugins get the exact types), remembering every HookMap key used. */
export function createRecorder(): Recorder {
  const hooks = createHooks();
  const keysByMap = new Map<HookMap<unknown>, string[]>();
  for (const [, hookOrMap] of walkHooks(hooks)) {
    if (hookOrMap instanceof HookMap) {
      const keys: string[] = [];
      keysByMap.set(hookOrMap, keys);
      hookOrMap.intercept({
        factory: (key: unknown, hook: unknown) => {
          keys.push(String(key));
          return hook;
        },
      });
    }
  }
  return {
    hooks,
    collect(): RecordedTap[] {
      const taps: RecordedTap[] = [];
      for (const [name, hookOrMap] of walkHooks(hooks)) {
        if (hookOrMap instanceof HookMap) {
          for (const key of keysByMap.get(hookOrMap) ?? []) {
            const hook = hookOrMap.get(key) as TappableHook | undefined;
            for (const tap of hook?.taps ?? []) taps.push({ hook: name, key, tap });
          }
        } else {
          for (const tap of (hookOrMap as TappableHook).taps) taps.push({ hook: name, key: undefined, tap });
        }
      }
      return taps;
    },
  };
}

/** Taps `recorded` into `target`, in order (tapable's `stage` and `before` options still apply). */
export function replayTaps(target: RosettaHooks, recorded: readonly RecordedTap[]): void {
  const byName = new Map(walkHooks(target));
  for (const { hook, key, tap } of recorded) {
    const found = byName.get(hook);
    if (found === undefined) continue; // recorder and target come from the same createHooks(): cannot happen
    const dest = (found instanceof HookMap ? found.for(key) : found) as TappableHook;
    const { type, fn, ...options } = tap;
    if (type === 'sync') dest.tap(options, fn);
    else if (type === 'async') dest.tapAsync(options, fn);
    else dest.tapPromise(options, fn);
  }
}

/** Every hook and HookMap of a hooks object with its dotted name (`data.beforeRead`). */
function walkHooks(hooks: RosettaHooks): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = [];
  for (const [group, members] of Object.entries(hooks)) {
    for (const [name, hook] of Object.entries(members as Record<string, unknown>)) found.push([`${group}.${name}`, hook]);
  }
  return found;
}
