/**
 * A write refused because the disk of the data directory is full (ENOSPC) or its quota is spent
 * (EDQUOT): kept apart from other storage failures because it is the client's to wait out, not a fault
 * of the service. It answers 507 `resource-denied` (docs/restconf-api.md#errors).
 */
import { DataError, fault } from '../data/errors';

const NO_SPACE_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT']);

/** Whether `error`, or an error it was caused by (a JournalError wraps the system's), says no space is left. */
export function isNoSpace(error: unknown): boolean {
  let e = error;
  for (let depth = 0; e instanceof Error && depth < 8; depth++) {
    if (NO_SPACE_CODES.has((e as NodeJS.ErrnoException).code ?? '')) return true;
    e = e.cause;
  }
  return false;
}

/** The change was not stored, nothing of it is applied; reads go on and writes pass again once there is space. */
export class StorageFullError extends DataError {
  constructor(directory: string) {
    super(
      fault(
        'resource-denied',
        '/',
        `no space left on the disk of the data directory (${directory}): the change was not stored and nothing of it applied; ` +
          'reads are still served, and writes succeed again once space is freed',
      ),
      507,
    );
    this.name = 'StorageFullError';
  }
}
