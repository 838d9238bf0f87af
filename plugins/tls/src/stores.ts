/**
 * The two PKCS#12 files: the key store (the server's key pair and certificate chain, handed to Node as
 * `pfx`) and the trust store (trusted client certificates, each under its own alias, as a Java keytool
 * trust store or `openssl pkcs12 -export -nokeys` makes them). Node reads a key store itself; a trust
 * store holds certificates only, which Node cannot read, so node-forge parses it (verifying its MAC with
 * the password) and the certificates become the `ca` list. Every failure names the field to fix.
 */
import { X509Certificate } from 'node:crypto';
import * as fs from 'node:fs';
import { createSecureContext } from 'node:tls';
import forge from 'node-forge';
import { TlsConfigError } from './settings';

/** Largest store file read (a trust store of thousands of certificates is far smaller). */
const MAX_STORE_BYTES = 16 * 1024 * 1024;

function readStore(file: string, field: string): Buffer {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (e) {
    throw new TlsConfigError(field, `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (size > MAX_STORE_BYTES) throw new TlsConfigError(field, `${file} is ${size} bytes; a PKCS#12 store is far smaller`);
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new TlsConfigError(field, `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** The key store's bytes, checked: Node can open it with the password and it holds a key and certificate. */
export function loadKeystore(file: string, password: string): Buffer {
  const pfx = readStore(file, 'tls.keystorePath');
  try {
    createSecureContext({ pfx, passphrase: password });
  } catch (e) {
    const message = (e as Error).message;
    if (/mac verify failure|invalid password|bad decrypt/i.test(message)) {
      throw new TlsConfigError('tls.keystorePassword', `wrong password for the key store ${file}`);
    }
    throw new TlsConfigError(
      'tls.keystorePath',
      `${file} is not a usable PKCS#12 key store with a private key and its certificate (${message})`,
    );
  }
  return pfx;
}

/** One trusted certificate from the trust store. */
export interface TrustedCertificate {
  /** The entry's alias (PKCS#12 friendlyName), when it has one. */
  readonly alias: string | undefined;
  readonly subject: string;
  readonly pem: string;
}

function forgeMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The certificates of a trust store; throws TlsConfigError naming the path or password at fault. */
export function loadTruststore(file: string, password: string): TrustedCertificate[] {
  const bytes = readStore(file, 'tls.truststorePath');
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    const asn1 = forge.asn1.fromDer(forge.util.createBuffer(bytes.toString('binary')), true);
    p12 = forge.pkcs12.pkcs12FromAsn1(asn1, false, password);
  } catch (e) {
    const message = forgeMessage(e);
    if (/MAC could not be verified|Invalid password|decrypt/i.test(message)) {
      throw new TlsConfigError('tls.truststorePassword', `wrong password for the trust store ${file}`);
    }
    throw new TlsConfigError('tls.truststorePath', `${file} is not a PKCS#12 trust store (${message})`);
  }
  const bags = p12.getBags({ bagType: forge.pki.oids.certBag })[forge.pki.oids.certBag!] ?? [];
  const trusted: TrustedCertificate[] = [];
  bags.forEach((bag, i) => {
    const asn1 = bag.cert ? forge.pki.certificateToAsn1(bag.cert) : (bag as { asn1?: forge.asn1.Asn1 }).asn1;
    const alias = bag.attributes['friendlyName']?.[0] as string | undefined;
    try {
      if (!asn1) throw new Error('empty certificate entry');
      const der = Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
      const x509 = new X509Certificate(der);
      trusted.push({ alias, subject: x509.subject.replace(/\n/g, ', '), pem: x509.toString() });
    } catch (e) {
      throw new TlsConfigError(
        'tls.truststorePath',
        `${file}: entry ${alias ?? `#${i + 1}`} is not a readable X.509 certificate (${forgeMessage(e)})`,
      );
    }
  });
  return trusted;
}
