/**
 * `unhide=<ext-prefix>:hidden <value>,...|all`: which nodes hidden on read by schema extensions
 * (`hiddenDataOnReadByExtensions`, docs/configuration.md#schemafilters) a GET shows after all. Parsed and checked here; the
 * schema filter that hides data reads the result.
 */
import { badQuery } from '../errors';

/** One extension to unhide: `prefix:name`, optionally with the extension argument it must carry. */
export interface UnhideItem {
  readonly extension: string;
  readonly argument?: string;
}

export type Unhide = 'all' | readonly UnhideItem[];

const ITEM = /^([A-Za-z_][A-Za-z0-9_.-]*:[A-Za-z_][A-Za-z0-9_.-]*)(?: +(\S+))?$/;

/** Parses the value of `unhide`. */
export function parseUnhide(value: string): Unhide {
  if (value === 'all') return value;
  const items: UnhideItem[] = [];
  for (const part of value.split(',')) {
    const m = ITEM.exec(part.trim());
    if (!m) throw badQuery('unhide', `'${part}' is not <prefix>:<extension> [value] (or use 'all')`);
    items.push(m[2] === undefined ? { extension: m[1]! } : { extension: m[1]!, argument: m[2] });
  }
  return items;
}
