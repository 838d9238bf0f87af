/**
 * Faults in data: what validation, the codecs and tree operations report. Each names the instance
 * path at fault (RFC 7951 instance-identifier form, e.g. `/ietf-interfaces:interfaces/interface[name='eth0']/mtu`)
 * and the rule or value that failed, and carries the RFC 8040 error-tag whose status the one catalogue
 * (`fault/status.ts`) gives. A DataError is the fault type (`fault/fault.ts`) under the name that tells a
 * refusal of the data itself from other faults (a device answer the device's schema refuses, say).
 */
import { FaultError, type ErrorTag, type Fault } from '../fault';

export type { ErrorTag } from '../fault';

/** A fault of the data layer: always at a path ('/' for the document as a whole), always a known tag. */
export interface DataFault extends Fault {
  readonly tag: ErrorTag;
  readonly path: string;
}

/** Thrown by data operations that cannot continue; carries one or more faults. */
export class DataError extends FaultError {
  declare readonly faults: readonly DataFault[];
  constructor(faults: DataFault | readonly DataFault[], status?: number) {
    super(faults, status === undefined ? {} : { status });
    this.name = 'DataError';
    // every data fault has a path, so the message always names one (a whole document's is '/')
    this.message = this.faults.map((f) => `${f.path}: ${f.message}`).join('; ');
  }
  override get first(): DataFault {
    return this.faults[0]!;
  }
}

export function fault(tag: ErrorTag, path: string, message: string, appTag?: string): DataFault {
  return appTag === undefined ? { tag, path, message } : { tag, path, message, appTag };
}
