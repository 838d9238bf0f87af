/**
 * Secrets at rest in the Config datastore: the SecretBox (a value opens only for the context and key
 * it was sealed with), and the store sealing leaves marked rosetta-secret:sensitive in its tree, its
 * journal records and its snapshots; recovery opening them to check their types (a pattern that sealed
 * text would fail) and sealing them again; values sealed by earlier versions upgraded; a sealed value
 * written back kept, one copied to another entry unreadable there; recovery log lines without the
 * clear value; and what a write costs with and without secrets.
 */
import test from 'ava';
import { createCipheriv, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeJson, encodeJson, type Edit, type PathStep } from '../../src/data';
import { childTable, resolveChild, topTable } from '../../src/data/children';
import { ConfigStore, KEY_FILE, SecretBox, sealEdits, type ConfigStoreOptions } from '../../src/datastore';
import { compileSchema } from '../../src/yang/compiler';
import { ModuleRepository } from '../../src/yang/repository';
import type { SchemaContext, SchemaNode } from '../../src/yang/schema';
import { dataDirectory } from './store-fixture';

const OWN_YANG = path.resolve(__dirname, '../../../yang');
const vaultModule = (masterLength: string) => `module secret-test {
  yang-version 1.1; namespace "urn:rosetta:test:secret"; prefix sct;
  import rosetta-secret { prefix rsec; }
  container vault {
    leaf owner { type string; }
    leaf master { type string { length "${masterLength}"; } rsec:sensitive; }
    leaf note { type string; rsec:sensitive; }
    list account {
      key name;
      leaf name { type string; rsec:sensitive; }
      leaf pin { type string { pattern '[0-9]{4,8}'; } rsec:sensitive; }
      leaf token { type string; rsec:sensitive; }
    }
  }
}`;

function compile(masterLength = '1..16'): SchemaContext {
  const repo = new ModuleRepository([OWN_YANG]);
  repo.addText('secret-test.yang', vaultModule(masterLength));
  const ctx = compileSchema(repo, { modules: ['secret-test'] });
  if (ctx.diagnostics.some((d) => d.severity === 'error')) throw new Error(ctx.diagnostics.map((d) => d.message).join('\n'));
  return ctx;
}
const ctx = compile();
const VAULT = {
  'secret-test:vault': {
    owner: 'ops',
    master: 'Master-0xA1',
    note: 'Note-77',
    account: [
      { name: 'alice', pin: '123456', token: 'Tok-alice' },
      { name: 'bob', pin: '987654', token: 'Tok-bob' },
    ],
  },
};
const CLEAR = ['Master-0xA1', 'Note-77', '123456', '987654', 'Tok-alice', 'Tok-bob'];

const put = (doc: unknown, schema = ctx): Edit => ({ operation: 'merge', target: [], value: decodeJson(doc, schema).root });

function steps(schema: SchemaContext, ...names: Array<string | [string, string]>): PathStep[] {
  const out: PathStep[] = [];
  let parent: SchemaNode | undefined;
  for (const n of names) {
    const [name, key] = Array.isArray(n) ? n : [n, undefined];
    const node = resolveChild(parent === undefined ? topTable(schema) : childTable(parent), name)!.schema as SchemaNode;
    out.push(key === undefined ? { schema: node } : { schema: node, keys: [key] });
    parent = node;
  }
  return out;
}
const masterAt = (schema = ctx) => steps(schema, 'secret-test:vault', 'master');
const pinOf = (who: string, schema = ctx) => steps(schema, 'secret-test:vault', ['account', who], 'pin');
const tokenOf = (who: string) => steps(ctx, 'secret-test:vault', ['account', who], 'token');
const noteAt = () => steps(ctx, 'secret-test:vault', 'note');

function filesHolding(dir: string, needle: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && fs.readFileSync(path.join(e.parentPath ?? e.path, e.name)).includes(needle))
    .map((e) => e.name);
}

async function open(t: import('ava').ExecutionContext, dir: string, options: ConfigStoreOptions = {}, schema = ctx): Promise<ConfigStore> {
  const store = await ConfigStore.open(path.join(dir, 'config'), schema, {
    log: () => undefined,
    secrets: SecretBox.open(dir),
    ...options,
  });
  t.teardown(() => store.close());
  return store;
}

test('SecretBox: a value opens only with its key and context; tampering, short tags and other forms do not', (t) => {
  const dir = dataDirectory(t);
  const box = SecretBox.open(dir);
  t.false(fs.existsSync(path.join(dir, KEY_FILE)), 'opening creates no key: the first seal does');
  const sealed = box.seal('p@ss', '/m:a');
  t.is(fs.statSync(path.join(dir, KEY_FILE)).mode & 0o777, 0o600);
  t.regex(sealed, /^\$rosetta\$v2\$/);
  t.not(box.seal('p@ss', '/m:a'), sealed); // fresh IV
  t.is(box.open(sealed, '/m:a'), 'p@ss');
  t.is(SecretBox.open(dir).open(sealed, '/m:a'), 'p@ss'); // the same key file
  t.is(box.open(sealed, '/m:b'), undefined);
  t.is(box.open(sealed), undefined);
  t.is(SecretBox.open(dataDirectory(t)).open(sealed, '/m:a'), undefined);
  const [iv, tag, data] = sealed.slice('$rosetta$v2$'.length).split('$');
  t.is(box.open(`$rosetta$v2$${iv}$${tag!.slice(0, 8)}$${data}`, '/m:a'), undefined, 'a 4-byte tag is refused');
  t.is(box.open(`$rosetta$v2$${iv}$${tag}$${data}$x`, '/m:a'), undefined);
  t.is(box.open('$rosetta$v2$$$', '/m:a'), undefined);
  t.is(box.open('p@ss'), undefined);
  t.is(box.openLegacy(sealed), undefined);
});

test('the store seals sensitive leaves in its tree, records and snapshots; recovery opens, checks and re-seals them', async (t) => {
  const dir = dataDirectory(t);
  const store = await open(t, dir, { journal: { compactAfterRecords: 2 } });
  await store.apply([put(VAULT)]);
  const text = encodeJson(store.current());
  for (const secret of CLEAR) t.false(text.includes(secret), secret);
  t.regex(text, /"owner":"ops"/);
  t.regex(text, /"name":"alice"/, 'a list key stays clear even when marked');
  t.is(store.revealSecret(masterAt()), 'Master-0xA1');
  t.is(store.revealSecret(pinOf('bob')), '987654');
  t.is(store.revealSecret(steps(ctx, 'secret-test:vault', 'owner')), undefined, 'not a sensitive leaf');
  await store.apply([put({ 'secret-test:vault': { owner: 'ops2' } })]); // compaction due: a snapshot
  await store.apply([put({ 'secret-test:vault': { account: [{ name: 'carol', pin: '5555' }] } })]); // a record after it
  await store.close();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const files = fs.readdirSync(path.join(dir, 'config'));
  t.true(
    files.some((f) => /snap/i.test(f)),
    files.join(' '),
  );
  for (const secret of [...CLEAR, '5555']) t.deepEqual(filesHolding(dir, secret), [], secret);

  // Recovery: the pins' pattern is checked on the clear value (sealed text would fail it and be dropped).
  const logs: string[] = [];
  const again = await open(t, dir, { log: (m) => logs.push(m) });
  t.is(again.revealSecret(masterAt()), 'Master-0xA1');
  t.is(again.revealSecret(pinOf('alice')), '123456');
  t.is(again.revealSecret(pinOf('carol')), '5555');
  t.deepEqual(logs, []);
  for (const secret of [...CLEAR, '5555']) t.false(encodeJson(again.current()).includes(secret));
});

test('a sealed value written back is kept; copied to another entry it opens nowhere; without a box values stay as written', async (t) => {
  const dir = dataDirectory(t);
  const store = await open(t, dir);
  await store.apply([put(VAULT)]);
  // GET, then PUT of what was read (leaves whose type admits the sealed text: no length or pattern).
  const read = JSON.parse(encodeJson(store.current()))['secret-test:vault'];
  const [alice, bob] = read.account;
  await store.apply([put({ 'secret-test:vault': { note: read.note, account: [{ name: 'alice', token: alice.token }] } })]);
  t.is(store.revealSecret(noteAt()), 'Note-77');
  t.is(store.revealSecret(tokenOf('alice')), 'Tok-alice');
  t.is(JSON.parse(encodeJson(store.current()))['secret-test:vault'].account[0].token, alice.token, 'kept as written, not sealed twice');
  // Copied to another entry or leaf, a sealed value opens nowhere.
  await store.apply([put({ 'secret-test:vault': { note: bob.token, account: [{ name: 'alice', token: bob.token }] } })]);
  t.is(store.revealSecret(tokenOf('alice')), undefined);
  t.is(store.revealSecret(noteAt()), undefined);
  t.is(store.revealSecret(tokenOf('bob')), 'Tok-bob');

  const plainDir = dataDirectory(t);
  const plain = await ConfigStore.open(plainDir, ctx, { log: () => undefined });
  t.teardown(() => plain.close());
  await plain.apply([put(VAULT)]);
  t.regex(encodeJson(plain.current()), /Master-0xA1/);
  t.is(plain.revealSecret(masterAt()), undefined);
});

test('values sealed by the earlier mount code (no context) are opened at recovery and sealed again for their leaf', async (t) => {
  const dir = dataDirectory(t);
  const box = SecretBox.open(dir);
  box.seal('creates the key');
  const key = Buffer.from(fs.readFileSync(path.join(dir, KEY_FILE), 'utf8').trim(), 'base64');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update('Legacy-pw', 'utf8'), cipher.final()]);
  const legacy = `$rosetta$aes-256-gcm$${iv.toString('base64')}$${cipher.getAuthTag().toString('base64')}$${data.toString('base64')}`;
  t.is(box.openLegacy(legacy), 'Legacy-pw');
  // An old data folder: the store then kept what the mount layer had sealed.
  const old = await ConfigStore.open(path.join(dir, 'config'), ctx, { log: () => undefined });
  await old.apply([put({ 'secret-test:vault': { note: legacy } })]);
  await old.close();
  const store = await open(t, dir);
  t.is(store.revealSecret(noteAt()), 'Legacy-pw');
  t.regex(encodeJson(store.current()), /\$rosetta\$v2\$/);
  t.false(encodeJson(store.current()).includes(legacy));
  // Written by a client now, the old form is just a string: sealed as it is, it does not open to the old secret.
  await store.apply([put({ 'secret-test:vault': { note: legacy } })]);
  t.is(store.revealSecret(noteAt()), legacy);
});

test('recovery log lines about a secret that no longer fits its leaf do not hold the clear value', async (t) => {
  const dir = dataDirectory(t);
  const store = await open(t, dir);
  await store.apply([put(VAULT)]);
  await store.close();
  const logs: string[] = [];
  const narrowed = compile('1..4');
  const again = await open(t, dir, { log: (m) => logs.push(m) }, narrowed);
  t.is(again.revealSecret(masterAt(narrowed)), undefined);
  t.is(again.revealSecret(pinOf('bob', narrowed)), '987654');
  const all = logs.join('\n');
  t.regex(all, /master/);
  t.false(all.includes('Master-0xA1'), all);
});

test('cost: sealing walks only subtrees that hold sensitive leaves', (t) => {
  const box = SecretBox.open(dataDirectory(t));
  const accounts = Array.from({ length: 10_000 }, (_, i) => ({ name: `u${i}`, pin: String(1000 + i) }));
  const withSecrets = [put({ 'secret-test:vault': { account: accounts } })];
  const noSecrets = [put({ 'secret-test:vault': { owner: 'x' } })];
  const time = (edits: Edit[]) => {
    let best = Infinity;
    for (let i = 0; i < 5; i++) {
      const started = process.hrtime.bigint();
      sealEdits(edits, box);
      best = Math.min(best, Number(process.hrtime.bigint() - started) / 1e6);
    }
    return best;
  };
  const sealedEdits = sealEdits(withSecrets, box);
  t.not(sealedEdits, withSecrets);
  t.false(encodeJson(sealedEdits[0]!.value as never).includes('"pin":"1000"'));
  const many = time(withSecrets);
  const none = time(noSecrets);
  t.log(
    `sealing 10,000 pins: ${many.toFixed(1)} ms (${((many * 1000) / 10_000).toFixed(1)} us each); an edit without secrets: ${(none * 1000).toFixed(1)} us`,
  );
  t.true(none < 1, `${none} ms`);
});
