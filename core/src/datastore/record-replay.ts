/**
 * Reading the Config datastore's stored changes back into a tree: a snapshot, and records applied on a
 * tree, at recovery and when another instance's records arrive (the database's journal). Stored
 * secrets are opened before decoding (their type is checked on the clear value, as when written) and
 * sealed again, the clear values opened kept out of the log lines; data of modules the schema lacks is
 * handed to the parked set, and a record's deletes supersede what is parked under them.
 */
import { applyEdits, type Edit, type PathStep } from '../data/edit';
import { DataError } from '../data/errors';
import type { DataRoot } from '../data/tree';
import type { SchemaContext, SchemaNode } from '../yang/schema';
import { decodeEditRecord, decodeSnapshot, type ReadContext } from './edit-record';
import { JournalError } from './journal-error';
import type { ParkedData } from './parked-data';
import type { SecretBox } from './secrets';
import { openStoredSecrets, schemaHoldsSensitive, sealEdits, sealTree, secretContext } from './sensitive';

export interface StoredReader {
  /** The tree a snapshot holds. */
  snapshot(state: Buffer, position: number): DataRoot;
  /** `root` with the record's edits applied (those the schema no longer takes dropped, saying so), and those edits. */
  record(root: DataRoot, record: Buffer, position: number): { readonly root: DataRoot; readonly edits: readonly Edit[] };
  /** How stored data named `where` is read (parked data put back reads this way too). */
  reading(where: string): ReadContext;
}

/** A reader of stored changes for `ctx`, opening secrets with `secrets`, parking into `parked`. */
export function storedReader(
  ctx: SchemaContext,
  secrets: SecretBox | undefined,
  parked: ParkedData,
  log: (m: string) => void,
): StoredReader {
  const box = secrets !== undefined && schemaHoldsSensitive(ctx) ? secrets : undefined;
  const opened: string[] = [];
  const quiet = box === undefined ? log : (message: string) => log(withheld(message, opened));
  // A sealed value that does not open is refused when no stored secret has opened before it: the key is
  // missing, damaged or another folder's, and starting would lose every stored secret. One that does not
  // open after others did is a sealed value a client copied to another leaf (sensitive.ts), kept as is.
  let anyOpened = false;
  const prepare =
    box === undefined
      ? undefined
      : (where: string) => (doc: Record<string, unknown>, parent: SchemaNode | undefined, steps: readonly PathStep[]) => {
          const before = opened.length;
          openStoredSecrets(doc, parent, secretContext(steps), ctx, box, opened, (context) => {
            if (anyOpened || opened.length > before) return;
            const why = box.hasKey ? 'does not open it (damaged, or another folder’s key)' : 'is missing';
            throw new JournalError(
              'corrupt',
              `${box.file} ${why}, while ${where} holds a sealed secret (${context}); refusing to start rather than lose the stored secrets: point secretsKeyFile (or ROSETTA_SECRETS_KEY_FILE) at the key that sealed them, or restore it from a backup (docs/operations.md)`,
            );
          });
          if (opened.length > before) anyOpened = true;
        };
  const park = parked.add.bind(parked);
  const reading = (where: string): ReadContext =>
    prepare === undefined ? { ctx, log: quiet, where, park } : { ctx, log: quiet, where, park, prepare: prepare(where) };
  return {
    reading,
    snapshot(state, position) {
      let root = decodeSnapshot(state.toString('utf8'), reading(`snapshot at record ${position}`));
      if (box !== undefined) root = sealTree(root, box);
      opened.length = 0;
      return root;
    },
    record(root, record, position) {
      const read = reading(`record ${position}`);
      const parkedBefore = parked.size;
      let edits = decodeEditRecord(record.toString('utf8'), read);
      for (const edit of edits) parked.supersede(edit, parkedBefore);
      if (box !== undefined) edits = sealEdits(edits, box) as Edit[];
      try {
        root = applyEdits(root, edits, ctx);
      } catch (error) {
        if (!(error instanceof DataError)) throw error;
        // Only possible when the schema changed since the record was written: keep what still applies.
        quiet(`${read.where}: ${error.message}; applying its edits one by one`);
        for (const edit of edits) {
          try {
            root = applyEdits(root, [edit], ctx);
          } catch (single) {
            if (!(single instanceof DataError)) throw single;
            quiet(`${read.where}: dropping an edit: ${single.message}`);
          }
        }
      }
      opened.length = 0;
      return { root, edits };
    },
  };
}

/** `message` with every occurrence of the clear values in `secrets` replaced by `***`. */
function withheld(message: string, secrets: readonly string[]): string {
  let out = message;
  for (const secret of secrets) if (secret !== '') out = out.split(secret).join('***');
  return out;
}
