/**
 * `rosetta store check` and `rosetta store repair --keep-damaged`: what to do when the service refuses
 * to start over a damaged data directory (docs/operations.md).
 *
 * `check` reads the data directory without changing it (not even the lock) and reports each file's
 * state; exit 0 when the service would start on it, 1 when not. `repair` takes the directory's lock
 * (so never while the service runs), copies every file it changes aside first (`<name>.damaged-<time>`),
 * cuts a corrupt journal segment at its damage, keeping every record before it, sets later segments
 * aside, and rewrites COMMITTED to what is left, saying exactly what was cut. Damage it cannot mend
 * without losing records that are still whole (a lost snapshot, a gap between segments) it refuses,
 * changing nothing.
 */
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, SECRETS_KEY_FILE_ENV, type ServiceConfig } from '../service/config';
import {
  COMMITTED_FILE_NAME,
  CONFIG_DIRECTORY,
  DirectoryLock,
  describeRefusals,
  type Examination,
  Journal,
  JournalError,
  LOCK_FILE_NAME,
  byModule,
  readParkedFile,
  SecretBox,
  writeCommitted,
} from '../datastore';

const HELP = `usage: rosetta store check [--config FILE] [--data-dir DIR]
       rosetta store repair --keep-damaged [--config FILE] [--data-dir DIR]

check    reads the data directory without changing it and reports each file: ok, torn tail at offset N
         (dropped at start), corrupt at offset N: reason, damaged, missing, empty. Exit 0 when the service
         would start on it, 1 when not.
repair   cuts a corrupt journal at its damage, keeping every record before it, and records what is left;
         says how many records and bytes were cut, from which offset. Refused while the service runs.
  --keep-damaged   required by repair: each file it changes is first copied to <name>.damaged-<time>
  --config FILE    the service's configuration file: its dataDir and secretsKeyFile are the ones checked
  --data-dir DIR   the service's data directory (default: the configuration's, else ./data)
  -h, --help       show this help

See docs/operations.md, "When the store is damaged".`;

const OPTIONS = {
  config: { type: 'string' },
  'data-dir': { type: 'string' },
  'keep-damaged': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Sealed values as stored, in any version's form (secrets.ts). */
const SEALED_FORMS = ['$rosetta$v2$', '$rosetta$aes-256-gcm$'];

/** Runs `rosetta store <check|repair> ...`; resolves with the exit code. */
export async function storeCommand(argv: readonly string[]): Promise<number> {
  const [action, ...rest] = argv;
  let values: { config?: string; 'data-dir'?: string; 'keep-damaged'?: boolean; help?: boolean };
  try {
    values = parseArgs({ args: [...rest], options: OPTIONS, allowPositionals: false, strict: true }).values;
  } catch (e) {
    console.error(`rosetta store: ${(e as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (values.help || action === '-h' || action === '--help') {
    console.log(HELP);
    return 0;
  }
  // The configuration names where the data and the key live, as the service reads them (the key may
  // be outside the data directory: secretsKeyFile or ROSETTA_SECRETS_KEY_FILE).
  let config: ServiceConfig;
  try {
    config = loadConfig(values.config, values['data-dir'] !== undefined ? { dataDir: values['data-dir'] } : {});
  } catch (e) {
    console.error(`rosetta store: ${(e as Error).message}`);
    return 2;
  }
  const dataDir = config.dataDir;
  switch (action) {
    case 'check':
      return check(dataDir, config.secretsKeyFile);
    case 'repair':
      if (!values['keep-damaged']) {
        console.error(
          'rosetta store repair: refused without --keep-damaged: a repair cuts records that cannot be read back, and a copy of each file it changes is the only way to get any of them back later',
        );
        return 2;
      }
      return repair(dataDir);
    default:
      console.error(`rosetta store: ${action === undefined ? 'no action' : `unknown action '${action}'`}\n\n${HELP}`);
      return 2;
  }
}

/** What the key file holds, and whether the store could start with it; never creates the key. */
async function keyState(dataDir: string, file: string, holdsSealed: boolean): Promise<{ line: string; ok: boolean }> {
  let box: SecretBox;
  try {
    box = SecretBox.open(dataDir, file);
  } catch (e) {
    return { line: `${file}: damaged: ${(e as Error).message}`, ok: false };
  }
  if (box.hasKey) return { line: `${file}: ok`, ok: true };
  if (holdsSealed) return { line: `${file}: missing, while the store holds sealed secrets`, ok: false };
  return { line: `${file}: absent (no sealed secret stored; created by the first one)`, ok: true };
}

function findingLines(directory: string, found: Examination): string[] {
  return found.files.map((finding) => {
    const where = finding.offset !== undefined ? ` at offset ${finding.offset}` : '';
    return `${path.join(directory, finding.name)}: ${finding.state}${where}${finding.detail !== undefined ? `: ${finding.detail}` : ''}`;
  });
}

async function lockLine(directory: string): Promise<string> {
  const file = path.join(directory, LOCK_FILE_NAME);
  const text = await fs.readFile(file, 'latin1').catch(() => undefined);
  if (text === undefined) return `${file}: absent (no service holds the directory)`;
  const [pid, host] = text.split('\n');
  return /^\d+$/.test(pid ?? '') && host
    ? `${file}: names process ${pid} on ${host} (the next start judges whether it is still alive)`
    : `${file}: damaged (taken over at start only if no process has files of the directory open)`;
}

async function check(dataDir: string, keyFile: string): Promise<number> {
  const directory = path.join(dataDir, CONFIG_DIRECTORY);
  if (!(await fs.stat(directory).catch(() => undefined))?.isDirectory()) {
    console.log(`${directory}: absent: the service starts an empty store`);
    return 0;
  }
  let holdsSealed = false;
  const spot = (bytes: Buffer): void => {
    if (!holdsSealed) holdsSealed = SEALED_FORMS.some((form) => bytes.includes(form));
  };
  const found = await Journal.examine(directory, { onSnapshot: spot, onRecord: spot });
  for (const line of findingLines(directory, found)) console.log(line);
  console.log(await lockLine(directory));
  const parked = await parkedLine(directory);
  console.log(parked.line);
  const key = await keyState(dataDir, keyFile, holdsSealed || parked.sealed);
  console.log(key.line);
  if (found.refusals.length > 0 || !key.ok || parked.refusal !== undefined) {
    if (found.refusals.length > 0) console.log(`would not start: ${describeRefusals(directory, found.refusals)}`);
    else if (parked.refusal !== undefined) console.log(`would not start: ${parked.refusal}`);
    else {
      console.log(
        `would not start: the sealed secrets cannot be opened without their key; point secretsKeyFile (or ${SECRETS_KEY_FILE_ENV}) at the key that sealed them, or restore ${keyFile} from a backup`,
      );
    }
    if (found.refusals.some((refusal) => refusal.repairable)) {
      console.log(`'rosetta store repair --keep-damaged --data-dir ${dataDir}' can cut the damage, keeping every record before it`);
    }
    return 1;
  }
  const tail = found.tail === undefined ? '' : `, after dropping a torn tail of ${found.tail.droppedBytes} byte(s)`;
  console.log(`would start: ${found.position} record(s)${tail}`);
  return 0;
}

/** What the PARKED file holds (data of modules the schema lacked, by module), or why it refuses the start. */
async function parkedLine(directory: string): Promise<{ line: string; sealed: boolean; refusal?: string }> {
  try {
    const items = await readParkedFile(directory);
    if (items.length === 0) return { line: 'PARKED: none (no data of absent modules kept)', sealed: false };
    const sealed = items.some((item) => SEALED_FORMS.some((form) => JSON.stringify(item.edit).includes(form)));
    return { line: `PARKED: ${items.length} item(s) of modules absent when last started: ${byModule(items)}`, sealed };
  } catch (error) {
    if (!(error instanceof JournalError)) throw error;
    return { line: `PARKED: damaged`, sealed: false, refusal: error.message };
  }
}

/** `name` copied beside itself as `<name>.damaged-<stamp>`, fsync'ed; returns the copy's name. */
async function keepCopy(directory: string, name: string, stamp: string): Promise<string> {
  const copy = `${name}.damaged-${stamp}`;
  await fs.copyFile(path.join(directory, name), path.join(directory, copy), constants.COPYFILE_EXCL);
  const handle = await fs.open(path.join(directory, copy), 'r');
  await handle.sync().finally(() => handle.close());
  return copy;
}

async function repair(dataDir: string): Promise<number> {
  const directory = path.join(dataDir, CONFIG_DIRECTORY);
  let lock: DirectoryLock;
  try {
    lock = await DirectoryLock.acquire(directory, (message) => console.log(message));
  } catch (e) {
    const running = e instanceof JournalError && e.code === 'locked';
    console.error(`rosetta store repair: ${(e as Error).message}${running ? '; stop the service first' : ''}`);
    return 1;
  }
  try {
    const found = await Journal.examine(directory);
    if (found.refusals.length === 0) {
      console.log(`nothing to repair: the store starts with ${found.position} record(s)`);
      return 0;
    }
    const unrepairable = found.refusals.filter((refusal) => !refusal.repairable);
    if (unrepairable.length > 0) {
      console.error(
        `rosetta store repair: cannot repair without losing records that are still whole; nothing was changed: ${describeRefusals(directory, unrepairable)}`,
      );
      return 1;
    }
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const damage = found.damage;
    if (damage !== undefined && found.refusals.some((refusal) => refusal.file === damage.name && refusal.offset === damage.offset)) {
      const copy = await keepCopy(directory, damage.name, stamp);
      const handle = await fs.open(path.join(directory, damage.name), 'r+');
      try {
        await handle.truncate(damage.offset);
        await handle.datasync();
      } finally {
        await handle.close();
      }
      const start = Number.parseInt(damage.name.slice('journal-'.length, 'journal-'.length + 16), 16);
      const first = start + damage.recordsBefore;
      console.log(
        `cut ${damage.fileBytes - damage.offset} byte(s) from ${damage.name} at offset ${damage.offset} (${damage.reason}): ` +
          `the damaged record ${first} and ${damage.recordsAfter} whole record(s) after it; kept ${damage.recordsBefore} record(s) before it; the whole file is in ${copy}`,
      );
      // Later segments continue records that are now gone: set aside, kept whole.
      for (const name of (await fs.readdir(directory)).filter((n) => /^journal-[0-9a-f]{16}\.log$/.test(n)).sort()) {
        if (name > damage.name) {
          const aside = `${name}.damaged-${stamp}`;
          await fs.rename(path.join(directory, name), path.join(directory, aside));
          console.log(`set ${name} aside as ${aside}: its records follow the ones cut`);
        }
      }
    }
    const committed = path.join(directory, COMMITTED_FILE_NAME);
    if (await fs.stat(committed).catch(() => undefined)) {
      const copy = await keepCopy(directory, COMMITTED_FILE_NAME, stamp);
      await fs.rm(committed);
      console.log(`set COMMITTED aside as ${copy}`);
    }
    const after = await Journal.examine(directory);
    if (after.refusals.length > 0) {
      console.error(`rosetta store repair: still damaged: ${describeRefusals(directory, after.refusals)}`);
      return 1;
    }
    await writeCommitted(directory, after.position);
    if (found.committed !== undefined && after.position < found.committed) {
      console.log(
        `${found.committed - after.position} committed record(s) are lost (${found.committed} were committed, ${after.position} remain)`,
      );
    }
    console.log(`repaired: the store starts with ${after.position} record(s)`);
    return 0;
  } finally {
    await lock.release();
  }
}
