/**
 * The one error-tag -> HTTP status catalogue (RFC 8040 §7, docs/restconf-api.md#errors), read by every
 * fault (`fault.ts`) whatever layer raised it: a data fault, a RESTCONF error, a device's rpc-error.
 * `invalid-value` is 400 except for a URI naming no schema node, which the RESTCONF layer raises with an
 * explicit 404; `southbound_no_connection` is the service's own tag for a device it cannot reach.
 */

/** The RFC 8040 / RFC 6241 error-tags. */
export type ErrorTag =
  | 'in-use'
  | 'invalid-value'
  | 'too-big'
  | 'missing-attribute'
  | 'bad-attribute'
  | 'unknown-attribute'
  | 'missing-element'
  | 'bad-element'
  | 'unknown-element'
  | 'unknown-namespace'
  | 'access-denied'
  | 'lock-denied'
  | 'resource-denied'
  | 'rollback-failed'
  | 'data-exists'
  | 'data-missing'
  | 'operation-not-supported'
  | 'operation-failed'
  | 'partial-operation'
  | 'malformed-message';

/** Status of each error-tag. */
export const STATUS_BY_TAG: Readonly<Record<ErrorTag, number>> = Object.freeze({
  'in-use': 409,
  'invalid-value': 400,
  'too-big': 413,
  'missing-attribute': 400,
  'bad-attribute': 400,
  'unknown-attribute': 400,
  'missing-element': 400,
  'bad-element': 400,
  'unknown-element': 400,
  'unknown-namespace': 400,
  'access-denied': 403,
  'lock-denied': 409,
  'resource-denied': 409,
  'rollback-failed': 500,
  'data-exists': 409,
  'data-missing': 404,
  'operation-not-supported': 501,
  'operation-failed': 500,
  'partial-operation': 500,
  'malformed-message': 400,
});

/** The service's own tag: a device cannot be reached (502). */
export const NO_CONNECTION = 'southbound_no_connection';

/** The status for a tag; a tag not listed (a device's own) answers 500. */
export function statusOfTag(tag: string): number {
  if (tag === NO_CONNECTION) return 502;
  return (STATUS_BY_TAG as Record<string, number>)[tag] ?? 500;
}
