/**
 * Boolean query parameters (`hideEmptyDataNodes`, `hideAttributes`, `checkForReferences`,
 * `apply-tags`): `true` or `false`, nothing else (a typo must not silently mean false).
 */
import { badQuery } from '../errors';

/** Parses `true`/`false`; anything else is 400 naming the parameter and the value. */
export function parseFlag(name: string, value: string): boolean {
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw badQuery(name, `'${value}' is not true or false`);
}
