/**
 * Secrets at rest: the one key of a data folder and the sealing of values with it. A value is sealed
 * with AES-256-GCM under the key kept in `<dataDir>/device-secrets.key` (mode 0600; the name predates
 * secrets other than device passwords and is kept so existing folders still open), and stored as
 * `$rosetta$v2$<iv>$<tag>$<data>` (base64 parts).
 *
 * The key file is created, durably, by the first seal, never by opening: a missing key while sealed
 * secrets exist must refuse start-up (the Config datastore's recovery does), not be replaced by a new
 * key under which no stored secret opens. A key file that is not exactly one base64 256-bit key (cut
 * short, a flipped byte, emptied) is refused naming the file.
 *
 * Each sealed value is bound to a context, the instance path of the leaf that holds it (GCM additional
 * data): a sealed value copied to another leaf (a device password pasted into a plugin's token, whose
 * clear value the plugin sends to a server the writer chose) does not open there. Whoever can read the
 * key file can read the secrets; whoever has only the datastore files, a backup or a GET cannot.
 *
 * Values sealed by earlier versions (`$rosetta$aes-256-gcm$...`, no context) open with `openLegacy`,
 * which only the Config datastore's recovery uses, to seal them again with their context.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkKeyFileMode } from './key-file-mode';

/** How a value sealed by this version starts. */
export const SEALED_PREFIX = '$rosetta$v2$';
const PREFIX = SEALED_PREFIX;
const LEGACY_PREFIX = '$rosetta$aes-256-gcm$';
/** The key file's name in a data folder. */
export const KEY_FILE = 'device-secrets.key';

/** The one line a key file holds: 32 bytes in base64. */
const KEY_TEXT = /^[A-Za-z0-9+/]{43}=\n?$/;

/** The key in `file`, undefined when there is none; throws naming the file when it is not a key. */
function readKey(file: string): Buffer | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'latin1');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  if (!KEY_TEXT.test(text)) {
    throw new Error(
      `${file} is damaged: not a 256-bit key in base64; restore it from a backup (without it no stored secret opens), or remove it only if the store holds none`,
    );
  }
  return Buffer.from(text.trim(), 'base64');
}

/** Writes a new key to `file` durably (file and directory entry fsync'ed); the key already there if another process won the race. */
function createKey(file: string): Buffer {
  const key = randomBytes(32);
  let descriptor: number;
  try {
    // 'wx': two services racing on one folder cannot both write a key; the loser reads the winner's.
    descriptor = fs.openSync(file, 'wx', 0o600);
  } catch (race) {
    if ((race as NodeJS.ErrnoException).code !== 'EEXIST') throw race;
    return readKey(file)!;
  }
  try {
    fs.writeFileSync(descriptor, `${key.toString('base64')}\n`);
    fs.fsyncSync(descriptor);
  } finally {
    fs.closeSync(descriptor);
  }
  const directory = fs.openSync(path.dirname(file), 'r');
  try {
    fs.fsyncSync(directory);
  } finally {
    fs.closeSync(directory);
  }
  return key;
}

/** Seals and opens secrets with the key of one data folder. */
export class SecretBox {
  private constructor(
    /** The key file. */
    readonly file: string,
    private key: Buffer | undefined,
  ) {}

  /**
   * The box of `dataDir`, its key in `file` (default `<dataDir>/device-secrets.key`; the configuration's
   * `secretsKeyFile` may put it elsewhere). Throws naming the key file when it is not a key, or is open to
   * other users. Without a key file, nothing opens and the first seal creates it.
   */
  static open(dataDir: string, file = path.join(dataDir, KEY_FILE)): SecretBox {
    checkKeyFileMode(file);
    return new SecretBox(file, readKey(file));
  }

  /** Whether the key file exists (it is created by the first seal). */
  get hasKey(): boolean {
    if (this.key === undefined) this.key = readKey(this.file); // another box of the folder may have created it
    return this.key !== undefined;
  }

  /** Whether a value has the form of a sealed value (of this version or an earlier one). */
  static isSealed(value: string): boolean {
    return value.startsWith(PREFIX) || value.startsWith(LEGACY_PREFIX);
  }

  /** `plain` sealed for `context` (a fresh IV each time, so equal secrets do not look equal). */
  seal(plain: string, context = ''): string {
    if (this.key === undefined) {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      this.key = readKey(this.file) ?? createKey(this.file);
    }
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${PREFIX}${iv.toString('base64')}$${cipher.getAuthTag().toString('base64')}$${data.toString('base64')}`;
  }

  /**
   * The clear text of a value sealed for `context`; undefined when it is not sealed, was sealed for
   * another context or with another key, or is damaged. Never throws.
   */
  open(sealed: string, context = ''): string | undefined {
    if (!sealed.startsWith(PREFIX)) return undefined;
    return this.decrypt(sealed.slice(PREFIX.length), context);
  }

  /** The clear text of a value sealed by an earlier version (no context); undefined otherwise. */
  openLegacy(sealed: string): string | undefined {
    if (!sealed.startsWith(LEGACY_PREFIX)) return undefined;
    return this.decrypt(sealed.slice(LEGACY_PREFIX.length), undefined);
  }

  private decrypt(parts: string, context: string | undefined): string | undefined {
    const [iv, tag, data, extra] = parts.split('$');
    if (iv === undefined || tag === undefined || data === undefined || extra !== undefined) return undefined;
    try {
      if (!this.hasKey) return undefined;
      // A full 16-byte tag only: a shorter one would make forging a sealed value cheap.
      const decipher = createDecipheriv('aes-256-gcm', this.key!, Buffer.from(iv, 'base64'), { authTagLength: 16 });
      if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
