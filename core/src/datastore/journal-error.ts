/**
 * The one error type of the persistence layer (journal, snapshots, directory lock). Callers branch on
 * `code`, never on the message; the message names the file, offset or limit at fault.
 */

/** Why a persistence operation failed. */
export type JournalErrorCode =
  /** The journal was closed; nothing more can be appended or snapshotted. */
  | 'closed'
  /** An earlier write or fsync failed; the journal refuses work until it is reopened (recovery re-reads the disk). */
  | 'failed'
  /** The write or fsync of this request failed; the request is not durable. */
  | 'io'
  /** The files on disk are damaged beyond the torn tail that recovery repairs by itself. */
  | 'corrupt'
  /** Another live process (or another Journal in this process) holds the directory. */
  | 'locked'
  /** A record or snapshot is larger than the configured limit. */
  | 'too-large'
  /** The caller passed something that is not a string or bytes, or a bad option. */
  | 'bad-argument';

/** Raised (as a rejection) by every persistence operation that cannot complete. */
export class JournalError extends Error {
  readonly code: JournalErrorCode;
  constructor(code: JournalErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'JournalError';
    this.code = code;
  }
}
