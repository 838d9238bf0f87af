/**
 * Why the database could not be used: `unreachable` (no answer at the address, or the connection was
 * lost), `refused` (authentication, or no such database or role), `newer-schema` (a database migrated
 * by a newer Rosetta), `behind` (other instances compacted records this one had not read: it reloads), `corrupt` (stored rows
 * that cannot be read back), `timeout` (a statement ran past its limit: a client's filter), `refused-filter`
 * (PostgreSQL refused a filter's SQL/JSON path), `failed` (anything else the database answered). Messages name the setting
 * or the table at fault and never hold the password.
 */
export type DatabaseErrorCode = 'unreachable' | 'refused' | 'newer-schema' | 'behind' | 'corrupt' | 'timeout' | 'refused-filter' | 'failed';

export class DatabaseError extends Error {
  constructor(
    readonly code: DatabaseErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DatabaseError';
  }
}

/** PostgreSQL's SQLSTATE codes that mean the server would not let us in (class 28, 3D000, 42501). */
const REFUSED_STATES = new Set(['28000', '28P01', '3D000', '42501']);

/** Node's socket error codes that mean nothing answered, or the connection broke. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ETIMEDOUT', 'EPIPE']);

/**
 * A DatabaseError for what node-postgres threw while `doing` something at `where` (the printable URL):
 * sorted by its SQLSTATE or socket code, its message kept (PostgreSQL's messages name the user or the
 * database, never the password).
 */
export function databaseErrorOf(error: unknown, doing: string, where: string): DatabaseError {
  if (error instanceof DatabaseError) return error;
  const e = error as { code?: string; message?: string };
  const message = e.message ?? String(error);
  if (e.code !== undefined && REFUSED_STATES.has(e.code)) return new DatabaseError('refused', `${doing}: ${where} refused: ${message}`);
  if (
    (e.code !== undefined && UNREACHABLE_CODES.has(e.code)) ||
    /Connection terminated|timeout/i.test(message) ||
    e.code?.startsWith('08') === true ||
    e.code === '57P01'
  )
    return new DatabaseError('unreachable', `${doing}: ${where} is unreachable: ${message}`);
  return new DatabaseError('failed', `${doing}: ${where}: ${message}`);
}
