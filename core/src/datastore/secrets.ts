/**
 * Secrets at rest: the one key of a data folder and the sealing of values with it. A value is sealed
 * with AES-256-GCM under the key kept in `<dataDir>/device-secrets.key` (mode 0600, created on first
 * use; the name predates secrets other than device passwords and is kept so existing folders still
 * open), and stored as `$rosetta$v2$<iv>$<tag>$<data>` (base64 parts).
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

/** How a value sealed by this version starts. */
export const SEALED_PREFIX = '$rosetta$v2$';
const PREFIX = SEALED_PREFIX;
const LEGACY_PREFIX = '$rosetta$aes-256-gcm$';
/** The key file's name in a data folder. */
export const KEY_FILE = 'device-secrets.key';

/** Seals and opens secrets with the key of one data folder. */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** The box of `dataDir`, creating its key file (0600) when there is none. Throws when the file is unusable. */
  static open(dataDir: string): SecretBox {
    const file = path.join(dataDir, KEY_FILE);
    fs.mkdirSync(dataDir, { recursive: true });
    let key: Buffer;
    try {
      key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      key = randomBytes(32);
      try {
        // 'wx': two services racing on one folder cannot both write a key; the loser reads the winner's.
        fs.writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
      } catch (race) {
        if ((race as NodeJS.ErrnoException).code !== 'EEXIST') throw race;
        key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
      }
    }
    if (key.length !== 32) throw new Error(`${file}: not a 256-bit key`);
    return new SecretBox(key);
  }

  /** Whether a value has the form of a sealed value (of this version or an earlier one). */
  static isSealed(value: string): boolean {
    return value.startsWith(PREFIX) || value.startsWith(LEGACY_PREFIX);
  }

  /** `plain` sealed for `context` (a fresh IV each time, so equal secrets do not look equal). */
  seal(plain: string, context = ''): string {
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
      // A full 16-byte tag only: a shorter one would make forging a sealed value cheap.
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'), { authTagLength: 16 });
      if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
