/**
 * `offset` and `limit` (docs/restconf-api.md#offset-and-limit): a window of the target list's entries, in the order they
 * are returned (after jsonb-filter and sortby). `offset` is 0-based and inclusive; `limit` is how
 * many entries at most (0 returns none). The two live together because neither means anything
 * without the other's window. Values are decimal integers up to 2^31-1.
 */
import type { ListNode } from '../../data/tree';
import { badQuery } from '../errors';

const MAX = 2 ** 31 - 1;

function count(name: string, value: string): number {
  if (/^[0-9]{1,10}$/.test(value)) {
    const n = Number(value);
    if (n <= MAX) return n;
  }
  throw badQuery(name, `'${value}' is not an integer from 0 to ${MAX}`);
}

/** Parses the value of `offset`. */
export function parseOffset(value: string): number {
  return count('offset', value);
}

/** Parses the value of `limit`. */
export function parseLimit(value: string): number {
  return count('limit', value);
}

/** The entries from `offset` (default 0), at most `limit` (default all) of them. */
export function pageEntries(list: ListNode, offset: number | undefined, limit: number | undefined): ListNode {
  const from = offset ?? 0;
  const to = limit === undefined ? list.entries.length : from + limit;
  if (from === 0 && to >= list.entries.length) return list;
  const { index: _dropped, ...rest } = list;
  return { ...rest, entries: list.entries.slice(from, to) };
}

/** The positions of a list's entries that a read shows in full: from `offset`, at most `limit` (undefined: to the end). */
export interface EntryWindow {
  readonly offset: number;
  readonly limit: number | undefined;
}

/**
 * Which entries of a whole-list target the answer of a read with `options` needs in full, when that is
 * fewer than all and the others count by their keys only: the offset/limit window, or none at all for
 * `fetch=count`. Undefined when every entry must be seen whole: jsonb-filter and sortby read every
 * entry's members before paging; with `fields` or hideEmptyDataNodes a count depends on entries' members.
 * A view whose entries are computed on demand (operational state) then computes only these.
 */
export function shownWindow(options: {
  readonly jsonbFilter?: unknown;
  readonly sortby?: unknown;
  readonly fields?: unknown;
  readonly hideEmptyDataNodes?: boolean;
  readonly fetchCount?: boolean;
  readonly offset?: number;
  readonly limit?: number;
}): EntryWindow | undefined {
  if (options.jsonbFilter !== undefined || options.sortby !== undefined) return undefined;
  if (options.fetchCount === true)
    return options.fields === undefined && options.hideEmptyDataNodes !== true ? { offset: 0, limit: 0 } : undefined;
  if (options.offset === undefined && options.limit === undefined) return undefined;
  return { offset: options.offset ?? 0, limit: options.limit };
}
