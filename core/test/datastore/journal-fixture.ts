/**
 * What the journal tests share: a private temporary directory per test, and opening a journal while
 * collecting what recovery replays and logs.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ExecutionContext } from 'ava';
import { Journal, type JournalOptions } from '../../src/datastore/journal';

/** A fresh directory removed when the test ends. */
export function temporaryDirectory(t: ExecutionContext): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-journal-'));
  t.teardown(() => fs.rmSync(directory, { recursive: true, force: true }));
  return directory;
}

export interface Opened {
  readonly journal: Journal;
  /** Snapshot state recovered, as text. */
  readonly snapshot: string | undefined;
  /** Records replayed after it, as text, in order. */
  readonly records: string[];
  /** Sequence numbers onRecord was given. */
  readonly positions: number[];
  readonly logs: string[];
}

/** Opens `directory`, collecting the replay; closes the journal at the end of the test. */
export async function openCollecting(t: ExecutionContext, directory: string, options: JournalOptions = {}): Promise<Opened> {
  let snapshot: string | undefined;
  const records: string[] = [];
  const positions: number[] = [];
  const logs: string[] = [];
  const journal = await Journal.open(directory, {
    log: (message) => logs.push(message),
    onSnapshot: (state) => {
      snapshot = state.toString('utf8');
    },
    onRecord: (record, position) => {
      records.push(record.toString('utf8'));
      positions.push(position);
    },
    ...options,
  });
  t.teardown(() => journal.close());
  return { journal, snapshot, records, positions, logs };
}

/** Names of the journal's record and snapshot files in `directory` (not LOCK or COMMITTED), sorted. */
export function journalFiles(directory: string): string[] {
  return fs
    .readdirSync(directory)
    .filter((name) => name !== 'LOCK' && name !== 'COMMITTED')
    .sort();
}
