// A damaged data directory never loses data silently. A store of 240 acknowledged writes (a snapshot,
// the live journal after it, sealed secrets, COMMITTED; a lock left by a dead process) is copied and
// one file damaged: cut to half, a byte flipped at its start, middle or end, deleted, or emptied. Opening
// it either starts with every acknowledged write (a torn tail only) or refuses naming the damaged file,
// with every file of the directory byte for byte as before. Then `rosetta store check` and
// `rosetta store repair --keep-damaged`, run as the command a user runs, and `rosetta start` refusing.
import test, { type ExecutionContext } from 'ava';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { decodeJson, type Edit, type PathStep } from '../../src/data';
import { childTable, resolveChild, topTable } from '../../src/data/children';
import { encodeJson } from '../../src/data/json-encode';
import { openDatastores } from '../../src/datastore';
import { compileSchema } from '../../src/yang/compiler';
import { ModuleRepository } from '../../src/yang/repository';
import type { SchemaContext, SchemaNode } from '../../src/yang/schema';
import { dataDirectory } from './store-fixture';

const ROSETTA = path.resolve(__dirname, '../../../bin/rosetta.js');
const OWN_YANG = path.resolve(__dirname, '../../../yang');
const MODULE = `module damage-test {
  yang-version 1.1; namespace "urn:rosetta:test:damage"; prefix dmg;
  import rosetta-secret { prefix rsec; }
  container devices {
    list device {
      key name;
      leaf name { type string; }
      leaf address { type string; }
      leaf password { type string; rsec:sensitive; }
    }
  }
}`;

function compile(): SchemaContext {
  const repo = new ModuleRepository([OWN_YANG]);
  repo.addText('damage-test.yang', MODULE);
  const ctx = compileSchema(repo, { modules: ['damage-test'] });
  if (ctx.diagnostics.some((d) => d.severity === 'error')) throw new Error(ctx.diagnostics.map((d) => d.message).join('\n'));
  return ctx;
}
const ctx = compile();
const WRITES = 240;
const COMPACT_AFTER = 150;
const password = (i: number) => `pw-${i}-secret`;
const device = (i: number) => ({ name: `dev${i}`, address: `10.0.${i >> 8}.${i & 255}`, password: password(i) });
const write = (i: number): Edit => ({
  operation: 'merge',
  target: [],
  value: decodeJson({ 'damage-test:devices': { device: [device(i)] } }, ctx).root,
});

function passwordSteps(i: number): PathStep[] {
  const devices = resolveChild(topTable(ctx), 'damage-test:devices')!.schema as SchemaNode;
  const list = resolveChild(childTable(devices), 'device')!.schema as SchemaNode;
  const leaf = resolveChild(childTable(list), 'password')!.schema as SchemaNode;
  return [{ schema: devices }, { schema: list, keys: [`dev${i}`] }, { schema: leaf }];
}

const quiet = { log: () => undefined };

/** Writes devices `from`..`to - 1`, one acknowledged write each. */
async function writeDevices(dataDir: string, from: number, to: number, compactAfterRecords: number): Promise<void> {
  const stores = await openDatastores(dataDir, ctx, { ...quiet, journal: { compactAfterRecords } });
  for (let i = from; i < to; i++) await stores.config.apply([write(i)]);
  await stores.close();
}

/** Every file under `dir`, by relative path, with its bytes. */
function contents(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath ?? entry.path, entry.name);
    out.set(path.relative(dir, full), fs.readFileSync(full));
  }
  return out;
}

const config = (dataDir: string) => path.join(dataDir, 'config');
const only = (dir: string, pattern: RegExp) => fs.readdirSync(dir).filter((n) => pattern.test(n));

/**
 * The pristine directories: `main` holds a snapshot (records before it), the live journal after it,
 * COMMITTED, sealed secrets and their key; `segments` holds no snapshot but two segments, as a crash
 * between starting a segment and writing its snapshot leaves, so that the older one still counts.
 */
let pristine: Promise<{ main: string; segments: string }> | undefined;
function pristineDirectories(t: ExecutionContext): Promise<{ main: string; segments: string }> {
  pristine ??= (async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-damage-pristine-'));
    const main = path.join(root, 'main');
    await writeDevices(main, 0, WRITES, COMPACT_AFTER);

    const segments = path.join(root, 'segments');
    await writeDevices(segments, 0, WRITES, 1_000_000);
    const whole = path.join(config(segments), 'journal-0000000000000000.log');
    const bytes = fs.readFileSync(whole);
    let offset = 0;
    for (let record = 0; record < COMPACT_AFTER; record++) offset += 8 + bytes.readUInt32LE(offset);
    fs.writeFileSync(whole, bytes.subarray(0, offset));
    fs.writeFileSync(path.join(config(segments), `journal-${COMPACT_AFTER.toString(16).padStart(16, '0')}.log`), bytes.subarray(offset));
    await writeDevices(segments, WRITES, WRITES, 1_000_000); // opens and closes: COMMITTED lists both segments
    return { main, segments };
  })();
  t.teardown(() => undefined);
  return pristine;
}

test.after.always(async () => {
  if (pristine) fs.rmSync(path.dirname((await pristine).main), { recursive: true, force: true });
});

type Damage = 'truncate to half' | 'flip first byte' | 'flip middle byte' | 'flip last byte' | 'delete' | 'empty';
const DAMAGES: Damage[] = ['truncate to half', 'flip first byte', 'flip middle byte', 'flip last byte', 'delete', 'empty'];

function damage(file: string, how: Damage): void {
  if (how === 'delete') {
    fs.rmSync(file);
    return;
  }
  const bytes = fs.readFileSync(file);
  if (how === 'empty' || how === 'truncate to half') {
    fs.writeFileSync(file, bytes.subarray(0, how === 'empty' ? 0 : bytes.length >> 1));
    return;
  }
  const at = how === 'flip first byte' ? 0 : how === 'flip middle byte' ? bytes.length >> 1 : bytes.length - 1;
  bytes[at]! ^= 0xff;
  fs.writeFileSync(file, bytes);
}

interface Kind {
  readonly name: string;
  readonly from: 'main' | 'segments';
  /** The file, relative to the data directory. */
  readonly file: (dataDir: string) => string;
  /** The damages after which it must start (nothing acknowledged lost); it must refuse after the others. */
  readonly starts: readonly Damage[];
}

const KINDS: Kind[] = [
  { name: 'live journal', from: 'main', file: (d) => path.join('config', only(config(d), /^journal-.*\.log$/).at(-1)!), starts: [] },
  { name: 'older journal', from: 'segments', file: () => path.join('config', 'journal-0000000000000000.log'), starts: [] },
  { name: 'snapshot', from: 'main', file: (d) => path.join('config', only(config(d), /^snapshot-.*\.snap$/)[0]!), starts: [] },
  // Without COMMITTED (as an earlier version left the directory) nothing is known to be missing.
  { name: 'COMMITTED', from: 'main', file: () => path.join('config', 'COMMITTED'), starts: ['delete'] },
  { name: 'lock', from: 'main', file: () => path.join('config', 'LOCK'), starts: DAMAGES },
  { name: 'secrets key', from: 'main', file: () => 'device-secrets.key', starts: [] },
];

/** Every device written is there, passwords included. */
function assertEverythingThere(t: ExecutionContext, stores: Awaited<ReturnType<typeof openDatastores>>, label: string): void {
  const tree = JSON.parse(encodeJson(stores.config.current())) as { 'damage-test:devices'?: { device: Array<{ name: string }> } };
  const names = (tree['damage-test:devices']?.device ?? []).map((d) => d.name).sort();
  t.deepEqual(names, Array.from({ length: WRITES }, (_, i) => `dev${i}`).sort(), label);
  for (const i of [0, COMPACT_AFTER - 1, COMPACT_AFTER, WRITES - 1]) {
    t.is((stores.config as unknown as { revealSecret(s: PathStep[]): string }).revealSecret(passwordSteps(i)), password(i), label);
  }
}

for (const kind of KINDS) {
  test(`damage to the ${kind.name}: starts with every acknowledged write, or refuses naming it and changes nothing`, async (t) => {
    const sources = await pristineDirectories(t);
    for (const how of DAMAGES) {
      const label = `${kind.name}, ${how}`;
      const dataDir = dataDirectory(t);
      fs.cpSync(sources[kind.from], dataDir, { recursive: true });
      if (kind.name === 'lock') {
        // A lock left by a process that died: its pid no longer runs. (Only here: a refused start takes
        // over a stale lock and so removes it, which the other kinds' byte-for-byte check would see.)
        const dead = spawnSync(process.execPath, ['-e', '']).pid;
        fs.writeFileSync(path.join(config(dataDir), 'LOCK'), `${dead}\n${os.hostname()}\n00112233445566778899aabb\n4242\n`);
      }
      const file = kind.file(dataDir);
      damage(path.join(dataDir, file), how);
      const before = contents(dataDir);
      let stores: Awaited<ReturnType<typeof openDatastores>> | undefined;
      let refusal: Error | undefined;
      try {
        stores = await openDatastores(dataDir, ctx, quiet);
      } catch (error) {
        refusal = error as Error;
      }
      if (kind.starts.includes(how)) {
        t.is(refusal, undefined, `${label}: ${refusal?.message}`);
        if (stores) {
          assertEverythingThere(t, stores, label);
          await stores.close();
        }
        continue;
      }
      await stores?.close();
      t.truthy(refusal, `${label}: started`);
      t.true(refusal?.message.includes(path.basename(file)), `${label}: ${refusal?.message}`);
      t.deepEqual(contents(dataDir), before, `${label}: files changed by a refused start`);
    }
  });
}

/** Runs the `rosetta` command; resolves with its exit code and output. */
function rosetta(args: string[], timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ROSETTA, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    // 'close', not 'exit': the process may exit before its last output has been read from the pipes
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A copy of the main pristine directory with a byte flipped in the middle of the live journal; where. */
async function corruptCopy(t: ExecutionContext): Promise<{ dataDir: string; journal: string; offset: number; damaged: Buffer }> {
  const dataDir = dataDirectory(t);
  fs.cpSync((await pristineDirectories(t)).main, dataDir, { recursive: true });
  const journal = only(config(dataDir), /^journal-.*\.log$/).at(-1)!;
  const file = path.join(config(dataDir), journal);
  damage(file, 'flip middle byte');
  const damaged = fs.readFileSync(file);
  let offset = 0; // the frame holding the middle byte
  while (offset + 8 + damaged.readUInt32LE(offset) <= damaged.length >> 1) offset += 8 + damaged.readUInt32LE(offset);
  return { dataDir, journal, offset, damaged };
}

test('rosetta start refuses a journal corrupt in the middle, naming file and offset, and cuts nothing', async (t) => {
  const { dataDir, journal, offset, damaged } = await corruptCopy(t);
  const result = await rosetta(['start', '--data-dir', dataDir, '--port', '0']);
  t.is(result.code, 1, result.stdout);
  t.true(result.stderr.includes(`${path.join(config(dataDir), journal)} at offset ${offset}: corrupt`), result.stderr);
  t.deepEqual(fs.readFileSync(path.join(config(dataDir), journal)), damaged);
});

test('rosetta store check reports each file and says whether the store would start; it changes nothing', async (t) => {
  const sound = dataDirectory(t);
  fs.cpSync((await pristineDirectories(t)).main, sound, { recursive: true });
  const before = contents(sound);
  const ok = await rosetta(['store', 'check', '--data-dir', sound]);
  t.is(ok.code, 0, ok.stdout + ok.stderr);
  t.regex(ok.stdout, /snapshot-[0-9a-f]{16}\.snap: ok/);
  t.regex(ok.stdout, new RegExp(`would start: ${WRITES} record\\(s\\)`));
  t.regex(ok.stdout, /device-secrets\.key: ok/);
  t.deepEqual(contents(sound), before);

  const { dataDir, journal, offset } = await corruptCopy(t);
  const damagedBefore = contents(dataDir);
  const bad = await rosetta(['store', 'check', '--data-dir', dataDir]);
  t.is(bad.code, 1, bad.stdout + bad.stderr);
  t.true(bad.stdout.includes(`${journal}: corrupt at offset ${offset}: checksum mismatch`), bad.stdout);
  t.regex(bad.stdout, /would not start/);
  t.deepEqual(contents(dataDir), damagedBefore);

  fs.rmSync(path.join(dataDir, 'device-secrets.key'));
  fs.writeFileSync(path.join(config(dataDir), journal), damagedBefore.get(path.join('config', journal))!.subarray(0, 0));
  const missing = await rosetta(['store', 'check', '--data-dir', dataDir]);
  t.is(missing.code, 1);
  t.regex(missing.stdout, /device-secrets\.key: missing, while the store holds sealed secrets/);
  t.regex(missing.stdout, new RegExp(`${journal}: empty`));
});

test('rosetta store repair --keep-damaged copies the journal aside, cuts it at the damage, and the store starts with every record before it', async (t) => {
  const { dataDir, journal, offset, damaged } = await corruptCopy(t);
  const refused = await rosetta(['store', 'repair', '--data-dir', dataDir]);
  t.is(refused.code, 2);
  t.regex(refused.stderr, /refused without --keep-damaged/);
  t.deepEqual(fs.readFileSync(path.join(config(dataDir), journal)), damaged);

  // Not while the service (here: a store opened in this process) holds the directory.
  const open = await openDatastores(dataDir, ctx, quiet).catch((e: Error) => e);
  t.true(open instanceof Error); // the damage refuses it: take the lock by hand instead
  const lockHolder = spawn(process.execPath, [
    '-e',
    `require(${JSON.stringify(path.resolve(__dirname, '../../src/datastore/dir-lock.js'))}).DirectoryLock.acquire(${JSON.stringify(config(dataDir))}, () => {}).then(() => { process.stdout.write('held\\n'); setInterval(() => {}, 1000); })`,
  ]);
  await new Promise((resolve) => lockHolder.stdout.once('data', resolve));
  const busy = await rosetta(['store', 'repair', '--keep-damaged', '--data-dir', dataDir]);
  lockHolder.kill('SIGKILL');
  await new Promise((resolve) => lockHolder.once('exit', resolve));
  t.is(busy.code, 1);
  t.regex(busy.stderr, /in use by process .*stop the service first/);
  t.deepEqual(fs.readFileSync(path.join(config(dataDir), journal)), damaged);

  const repaired = await rosetta(['store', 'repair', '--keep-damaged', '--data-dir', dataDir]);
  t.is(repaired.code, 0, repaired.stdout + repaired.stderr);
  const start = Number.parseInt(journal.slice(8, 24), 16);
  let recordsBefore = 0;
  for (let at = 0; at < offset; at += 8 + damaged.readUInt32LE(at)) recordsBefore += 1;
  const kept = start + recordsBefore;
  t.true(repaired.stdout.includes(`cut ${damaged.length - offset} byte(s) from ${journal} at offset ${offset}`), repaired.stdout);
  t.regex(repaired.stdout, new RegExp(`kept ${recordsBefore} record\\(s\\) before it`));
  t.regex(repaired.stdout, new RegExp(`${WRITES - kept} committed record\\(s\\) are lost`));
  const copies = only(config(dataDir), new RegExp(`^${journal.replace('.', '\\.')}\\.damaged-`));
  t.is(copies.length, 1);
  t.deepEqual(fs.readFileSync(path.join(config(dataDir), copies[0]!)), damaged);
  t.is(fs.statSync(path.join(config(dataDir), journal)).size, offset);

  const stores = await openDatastores(dataDir, ctx, quiet);
  t.teardown(() => stores.close());
  const tree = JSON.parse(encodeJson(stores.config.current())) as { 'damage-test:devices': { device: Array<{ name: string }> } };
  t.deepEqual(tree['damage-test:devices'].device.map((d) => d.name).sort(), Array.from({ length: kept }, (_, i) => `dev${i}`).sort());
  t.is((stores.config as unknown as { revealSecret(s: PathStep[]): string }).revealSecret(passwordSteps(kept - 1)), password(kept - 1));
});
