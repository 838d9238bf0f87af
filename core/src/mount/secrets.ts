/**
 * Device passwords and secrets at rest. The install-node settings of a device are kept in the Config
 * datastore (so a restart reconnects it), but a password is never stored, logged or answered in clear
 * text: it is sealed with AES-256-GCM under a key kept in the data folder (`device-secrets.key`,
 * mode 0600, created on first use), and the datastore holds `$rosetta$aes-256-gcm$<iv>$<tag>$<data>`.
 * Whoever can read the key file can read the passwords; whoever has only the datastore (a backup, a
 * GET of the node) cannot.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

const PREFIX = '$rosetta$aes-256-gcm$';
const KEY_FILE = 'device-secrets.key';

/** Seals and opens device secrets with the key of one data folder. */
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
      // 'wx': two services racing on one folder cannot both write a key.
      fs.writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    }
    if (key.length !== 32) throw new Error(`${file}: not a 256-bit key`);
    return new SecretBox(key);
  }

  /** Whether a stored value is sealed (so it is not sealed twice). */
  static isSealed(value: string): boolean {
    return value.startsWith(PREFIX);
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `${PREFIX}${iv.toString('base64')}$${cipher.getAuthTag().toString('base64')}$${data.toString('base64')}`;
  }

  /** The clear text of a sealed value; undefined when it is not one of ours or the key does not open it. */
  open(sealed: string): string | undefined {
    if (!sealed.startsWith(PREFIX)) return undefined;
    const [iv, tag, data] = sealed.slice(PREFIX.length).split('$');
    if (iv === undefined || tag === undefined || data === undefined) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
