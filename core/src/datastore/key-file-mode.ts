/**
 * The secrets key file must be its owner's alone: a key others may read is a copy of every stored
 * secret for them (docs/configuration.md#secrets-key). Checked when the key is opened, so the service
 * refuses to start rather than run with it.
 */
import * as fs from 'node:fs';

/** Throws naming `file` when group or others have any permission on it; a missing file passes (the first seal creates it 0600). */
export function checkKeyFileMode(file: string): void {
  let mode: number;
  try {
    mode = fs.statSync(file).mode;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  if ((mode & 0o077) !== 0) {
    throw new Error(
      `${file} is open to other users (mode ${(mode & 0o777).toString(8).padStart(4, '0')}): the key that unseals the stored secrets must be readable by the service's user only; chmod 600 ${file}`,
    );
  }
}
