/**
 * Faults in data: what validation, the codecs and tree operations report. Each names the instance
 * path at fault (RFC 7951 instance-identifier form, e.g. `/ietf-interfaces:interfaces/interface[name='eth0']/mtu`)
 * and the rule or value that failed, and carries the RFC 8040 error-tag that the RESTCONF layer turns
 * into a status code.
 */

/** The RFC 8040 / RFC 6241 error-tags data faults use. */
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

export interface DataFault {
  readonly tag: ErrorTag;
  /** Instance path of the node at fault; '/' for the document as a whole. */
  readonly path: string;
  readonly message: string;
  /** error-app-tag from the model (must/range/length/pattern error-app-tag) or a standard one. */
  readonly appTag?: string;
}

/** Thrown by data operations that cannot continue; carries one or more faults. */
export class DataError extends Error {
  readonly faults: readonly DataFault[];
  constructor(faults: DataFault | readonly DataFault[]) {
    const list = Array.isArray(faults) ? faults : [faults as DataFault];
    super(list.map((f) => `${f.path}: ${f.message}`).join('; '));
    this.name = 'DataError';
    this.faults = list;
  }
  get first(): DataFault {
    return this.faults[0]!;
  }
}

export function fault(tag: ErrorTag, path: string, message: string, appTag?: string): DataFault {
  return appTag === undefined ? { tag, path, message } : { tag, path, message, appTag };
}
