/**
 * Real certificates for the TLS tests, made with openssl in a temporary folder: a server key pair
 * (RSA 2048, CN=localhost, SAN 127.0.0.1) in a PKCS#12 key store; trusted clients alice and bob (self-signed,
 * each under its own alias in a PKCS#12 trust store); an untrusted client mallory; an empty trust store
 * (node-forge, since openssl refuses to export nothing); and a trust store made by Java's keytool when
 * it is installed (the format integrators' existing trust stores have).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import forge from 'node-forge';

export interface Pki {
  readonly dir: string;
  readonly keystore: string;
  readonly keystorePassword: string;
  readonly serverCert: string;
  readonly truststore: string;
  readonly truststorePassword: string;
  readonly emptyTruststore: string;
  /** undefined when keytool is not installed. */
  readonly keytoolTruststore: string | undefined;
  readonly clients: Readonly<Record<'alice' | 'bob' | 'mallory', { readonly cert: string; readonly key: string }>>;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function selfSigned(dir: string, name: string, subject: string, extra: string[] = []): void {
  openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      `${name}.key`,
      '-out',
      `${name}.crt`,
      '-subj',
      subject,
      '-days',
      '2',
      ...extra,
    ],
    dir,
  );
}

function hasKeytool(): boolean {
  try {
    execFileSync('keytool', ['-help'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Makes the whole set in a fresh temporary folder. */
export function makePki(): Pki {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-pki-'));
  selfSigned(dir, 'server', '/CN=localhost', ['-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost']);
  openssl(
    [
      'pkcs12',
      '-export',
      '-in',
      'server.crt',
      '-inkey',
      'server.key',
      '-name',
      'server',
      '-out',
      'keystore.p12',
      '-passout',
      'pass:ks-secret',
    ],
    dir,
  );
  for (const name of ['alice', 'bob', 'mallory']) selfSigned(dir, name, `/O=Example/CN=${name}`);
  fs.writeFileSync(
    path.join(dir, 'trusted.pem'),
    fs.readFileSync(path.join(dir, 'alice.crt'), 'utf8') + fs.readFileSync(path.join(dir, 'bob.crt'), 'utf8'),
  );
  openssl(
    [
      'pkcs12',
      '-export',
      '-nokeys',
      '-in',
      'trusted.pem',
      '-caname',
      'alice',
      '-caname',
      'bob',
      '-out',
      'truststore.p12',
      '-passout',
      'pass:ts-secret',
    ],
    dir,
  );
  const empty = forge.pkcs12.toPkcs12Asn1(null, null as never, 'ts-secret', { algorithm: 'aes256' });
  fs.writeFileSync(path.join(dir, 'empty.p12'), Buffer.from(forge.asn1.toDer(empty).getBytes(), 'binary'));
  let keytoolTruststore: string | undefined;
  if (hasKeytool()) {
    execFileSync(
      'keytool',
      [
        '-importcert',
        '-noprompt',
        '-alias',
        'alice',
        '-file',
        'alice.crt',
        '-keystore',
        'java-trust.p12',
        '-storetype',
        'PKCS12',
        '-storepass',
        'ts-secret',
      ],
      { cwd: dir, stdio: 'ignore' },
    );
    keytoolTruststore = path.join(dir, 'java-trust.p12');
  }
  const file = (f: string) => path.join(dir, f);
  const client = (n: string) => ({ cert: fs.readFileSync(file(`${n}.crt`), 'utf8'), key: fs.readFileSync(file(`${n}.key`), 'utf8') });
  return {
    dir,
    keystore: file('keystore.p12'),
    keystorePassword: 'ks-secret',
    serverCert: fs.readFileSync(file('server.crt'), 'utf8'),
    truststore: file('truststore.p12'),
    truststorePassword: 'ts-secret',
    emptyTruststore: file('empty.p12'),
    keytoolTruststore,
    clients: { alice: client('alice'), bob: client('bob'), mallory: client('mallory') },
  };
}
