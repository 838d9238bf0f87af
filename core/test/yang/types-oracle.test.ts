/**
 * The value codecs against the reference implementation: a test module using the built-in types and
 * real typedefs (ietf-inet-types, ietf-yang-types, ietf-interfaces/iana-if-type identities) is
 * compiled by our compiler, and each value, in JSON and in XML, is given both to our codecs and to
 * yanglint. The verdicts must agree, and where both accept, the canonical JSON must be the same.
 * Needs `yanglint` on the PATH (Debian libyang2-tools); without it the test is not registered.
 */
import test from 'ava';
import { CORPUS, corpusPath, corpusTest } from '../corpus';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compileSchema } from '../../src/yang/compiler';
import { ModuleRepository } from '../../src/yang/repository';
import type { LeafSchema, SchemaNode } from '../../src/yang/schema';
import { valueFromJson, valueFromText, valueToJson } from '../../src/yang/types';

const corpusOnly = corpusTest(test, 'value codecs against yanglint with the published iana-if-type');
const MODULE = `module types-oracle {
  yang-version 1.1;
  namespace "urn:types-oracle";
  prefix to;
  import ietf-inet-types { prefix inet; }
  import ietf-yang-types { prefix yang; }
  import ietf-interfaces { prefix if; }
  import iana-if-type { prefix ianaift; }
  typedef percent { type uint8 { range "0..100"; } }
  identity base;
  identity a { base base; }
  identity b { base a; }
  container c {
    leaf u8 { type uint8; }
    leaf i16 { type int16; }
    leaf u32 { type uint32; }
    leaf i64 { type int64; }
    leaf u64 { type uint64; }
    leaf pct { type percent; }
    leaf edge-pct { type percent { range "min..10 | 90..max"; } }
    leaf dec { type decimal64 { fraction-digits 2; range "-90..90"; } }
    leaf str { type string { length "2..4"; pattern '[a-z]*'; } }
    leaf bin { type binary { length "1..3"; } }
    leaf bits { type bits { bit zero { position 0; } bit one { position 1; } bit seven { position 7; } } }
    leaf en { type enumeration { enum up; enum down; } }
    leaf e { type empty; }
    leaf bo { type boolean; }
    leaf id { type identityref { base base; } }
    leaf iftype { type identityref { base if:interface-type; } }
    leaf v4 { type inet:ipv4-address; }
    leaf v6 { type inet:ipv6-address; }
    leaf host { type inet:host; }
    leaf port { type inet:port-number; }
    leaf mac { type yang:mac-address; }
    leaf dt { type yang:date-and-time; }
    leaf un { type union { type int32; type string; } }
    leaf un2 { type union { type uint8; type enumeration { enum auto; } } }
    leaf ii { type instance-identifier { require-instance false; } }
    list l { key "k1 k2"; leaf k1 { type string; } leaf k2 { type uint8; } }
  }
}
`;

/** [leaf, JSON value] pairs: good and bad values of every kind. */
const JSON_CASES: Array<[string, unknown]> = [
  ['u8', 0],
  ['u8', 255],
  ['u8', 256],
  ['u8', -1],
  ['u8', '5'],
  ['u8', 1e2],
  ['i16', -32768],
  ['i16', 32768],
  ['u32', 4294967295],
  ['u32', 4294967296],
  ['i64', '-9223372036854775808'],
  ['i64', '9223372036854775808'],
  ['i64', 5],
  ['u64', '18446744073709551615'],
  ['u64', '-1'],
  ['pct', 100],
  ['pct', 101],
  ['edge-pct', 10],
  ['edge-pct', 50],
  ['edge-pct', 95],
  ['dec', '1.50'],
  ['dec', '3'],
  ['dec', '-0.00'],
  ['dec', '90.01'],
  ['dec', '1.555'],
  ['dec', '1.500'],
  ['dec', 1.5],
  ['dec', '.5'],
  ['str', 'abc'],
  ['str', 'a'],
  ['str', 'abcde'],
  ['str', 'AB'],
  ['bin', 'AAE='],
  ['bin', 'AAE'],
  ['bin', 'AAECAw=='],
  ['bits', 'seven zero'],
  ['bits', ''],
  ['bits', 'one one'],
  ['bits', 'two'],
  ['en', 'up'],
  ['en', 'sideways'],
  ['e', [null]],
  ['e', null],
  ['bo', true],
  ['bo', 'true'],
  ['id', 'a'],
  ['id', 'types-oracle:b'],
  ['id', 'types-oracle:base'],
  ['id', 'nomod:a'],
  ['iftype', 'iana-if-type:ethernetCsmacd'],
  ['iftype', 'ietf-interfaces:interface-type'],
  ['iftype', 'iana-if-type:l2vlan'],
  ['iftype', 'ethernetCsmacd'],
  ['iftype', 'types-oracle:a'],
  ['v4', '192.168.1.1'],
  ['v4', '256.1.1.1'],
  ['v4', '10.0.0.1%eth0'],
  ['v6', '2001:db8::1'],
  ['v6', '2001:db8:::1'],
  ['v6', '::ffff:192.0.2.1'],
  ['host', 'router1.example.com'],
  ['host', '10.1.1.1'],
  ['host', 'bad host'],
  ['port', 65535],
  ['port', 65536],
  ['mac', '00:1a:2b:3c:4d:5e'],
  ['mac', '00-1a-2b-3c-4d-5e'],
  ['dt', '2024-02-29T12:34:56Z'],
  ['dt', '2024-13-01T00:00:00Z'],
  ['un', 15],
  ['un', '15'],
  ['un', 'abc'],
  ['un2', 7],
  ['un2', 'auto'],
  ['un2', 'manual'],
  ['un2', '7'],
  ['ii', '/types-oracle:c/u8'],
  ['ii', "/types-oracle:c/l[k1='x'][k2='3']"],
  ['ii', '/types-oracle:c/nothing'],
  ['ii', '/types-oracle:c/types-oracle:u8'],
  // Keys in another order than the schema's: yanglint keeps the order written, we canonicalise to the
  // schema's order (see types-values.test.ts), so that case is not compared here.
];

/** [leaf, XML text] pairs. */
const XML_CASES: Array<[string, string]> = [
  ['u8', ' 15 '],
  ['u8', '+015'],
  ['u8', '0x15'],
  ['u8', '256'],
  ['i64', '-9223372036854775809'],
  ['dec', ' 1.5'],
  ['dec', '-0.00'],
  ['bo', 'true'],
  ['bo', ' true'],
  ['e', ''],
  ['e', 'x'],
  ['bits', 'one  zero'],
  ['en', 'down'],
  ['id', 'a'],
  ['id', 'p:b'],
  ['iftype', 'ift:ethernetCsmacd'],
  ['iftype', 'nope:x'],
  ['un', '15'],
  ['un', 'abc'],
  ['un2', 'auto'],
  ['str', ' ab'],
  ['ii', '/p:c/p:u8'],
  ['ii', "/p:c/p:l[p:k1='x'][p:k2='03']"],
];

const XML_PREFIXES: Record<string, string> = { p: 'types-oracle', ift: 'iana-if-type' };

function hasYanglint(): boolean {
  return spawnSync('yanglint', ['-v'], { encoding: 'utf8' }).status === 0;
}

/** Runs yanglint on one data document; the leaf's canonical JSON value, or the refusal. */
function yanglint(dir: string, file: string, data: string, leaf: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const dataFile = path.join(dir, file);
  fs.writeFileSync(dataFile, data);
  const r = spawnSync(
    'yanglint',
    [
      '-f',
      'json',
      '-p',
      corpusPath('ietf'),
      path.join(dir, 'types-oracle.yang'),
      corpusPath('ietf', 'iana-if-type@2026-03-17.yang'),
      dataFile,
    ],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) return { ok: false, message: r.stderr.trim() };
  const doc = JSON.parse(r.stdout) as { 'types-oracle:c': Record<string, unknown> };
  return { ok: true, value: doc['types-oracle:c'][leaf] };
}

if (CORPUS === undefined || hasYanglint()) {
  corpusOnly('values agree with yanglint in JSON and XML', (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'types-oracle-'));
    try {
      fs.writeFileSync(path.join(dir, 'types-oracle.yang'), MODULE);
      const repo = new ModuleRepository([dir, corpusPath('ietf')]);
      const ctx = compileSchema(repo, { modules: ['types-oracle', 'iana-if-type'] });
      t.deepEqual(
        ctx.diagnostics.filter((d) => d.severity === 'error'),
        [],
      );
      const container = ctx.modules.get('types-oracle')!.data.find((n) => n.name === 'c')!;
      const leafOf = (name: string): LeafSchema => container.children.find((n: SchemaNode) => n.name === name) as LeafSchema;
      const disagreements: string[] = [];
      let compared = 0;
      for (const [leaf, raw] of JSON_CASES) {
        const ours = valueFromJson(leafOf(leaf).type, raw, ctx, 'types-oracle');
        const theirs = yanglint(dir, 'd.json', JSON.stringify({ 'types-oracle:c': { [leaf]: raw } }), leaf);
        compared++;
        const oursJson = ours.ok ? valueToJson(leafOf(leaf).type, ours.value) : undefined;
        if (ours.ok !== theirs.ok || (theirs.ok && JSON.stringify(oursJson) !== JSON.stringify(theirs.value))) {
          disagreements.push(
            `JSON ${leaf}=${JSON.stringify(raw)}: ours ${ours.ok ? JSON.stringify(oursJson) : `refused (${ours.message})`}, yanglint ${theirs.ok ? JSON.stringify(theirs.value) : `refused (${theirs.message.split('\n')[0]})`}`,
          );
        }
      }
      for (const [leaf, text] of XML_CASES) {
        const ours = valueFromText(leafOf(leaf).type, text, ctx, (p) => XML_PREFIXES[p], 'types-oracle');
        const esc = text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
        const xml = `<c xmlns="urn:types-oracle" xmlns:p="urn:types-oracle" xmlns:ift="urn:ietf:params:xml:ns:yang:iana-if-type"><${leaf}>${esc}</${leaf}></c>`;
        const theirs = yanglint(dir, 'd.xml', xml, leaf);
        compared++;
        const oursJson = ours.ok ? valueToJson(leafOf(leaf).type, ours.value) : undefined;
        if (ours.ok !== theirs.ok || (theirs.ok && JSON.stringify(oursJson) !== JSON.stringify(theirs.value))) {
          disagreements.push(
            `XML ${leaf}=${JSON.stringify(text)}: ours ${ours.ok ? JSON.stringify(oursJson) : `refused (${ours.message})`}, yanglint ${theirs.ok ? JSON.stringify(theirs.value) : `refused (${theirs.message.split('\n')[0]})`}`,
          );
        }
      }
      t.log(`${compared} values compared with yanglint`);
      t.deepEqual(disagreements, []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
} else {
  test('yanglint is not installed: the oracle comparison of values did not run', (t) => {
    t.log('install libyang2-tools to compare value verdicts with yanglint');
    t.pass();
  });
}
