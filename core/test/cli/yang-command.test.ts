/**
 * The `rosetta yang` sub-commands, run as a user runs them: the real bin script in a child process,
 * on the test models (core/test/models) and, where the point is agreeing with yanglint on the
 * published modules, with yanglint's command lines from the corpus's MANIFEST.md (skipped without the
 * corpus).
 */
import test from 'ava';
import { OWN_YANG_DIR } from '../../src/service/schema';
import { corpusPath, corpusTest } from '../corpus';
import { TEST_MODELS } from '../test-models';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
const bin = path.join(repoRoot, 'core', 'bin', 'rosetta.js');
const corpusOnly = corpusTest(test, 'rosetta yang against yanglint on the published modules');

function rosetta(args: string[], cwd = TEST_MODELS): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tempFile(name: string, text: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-cli-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** The corpus's search paths for its IETF modules (MANIFEST.md), for commands run in the corpus. */
const IETF = ['-p', 'ietf', '-p', 'ieee'];
/** The test models, run in their folder; the service's own folder supplies ietf-yang-types. */
const MODELS = ['-p', OWN_YANG_DIR];
const INTERFACES = ['ietf-interfaces@2018-02-20.yang', 'iana-if-type@2026-03-17.yang'];

test('every sub-command has --help and a bad option is a usage error', (t) => {
  for (const sub of ['tree', 'check', 'validate']) {
    const help = rosetta(['yang', sub, '--help']);
    t.is(help.code, 0);
    t.regex(help.stdout, new RegExp(`usage: rosetta yang ${sub}`));
  }
  const bad = rosetta(['yang', 'tree', '--bogus', 'x.yang']);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /--bogus/);
  t.is(rosetta(['yang', 'frobnicate']).code, 2);
  t.is(rosetta([]).code, 2);
});

corpusOnly('yang tree prints what yanglint prints for ietf-interfaces (the MANIFEST command line)', (t) => {
  const r = rosetta(['yang', 'tree', '-D', ...IETF, 'ietf/ietf-interfaces@2018-02-20.yang'], corpusPath());
  t.is(r.code, 0, r.stderr);
  const oracle = fs.readFileSync(corpusPath('oracle/trees/ietf-interfaces@2018-02-20.tree'), 'utf8');
  const squash = (s: string) =>
    s
      .split('\n')
      .map((l) => l.trim().split(/\s+/).join(' '))
      .filter(Boolean);
  t.deepEqual(squash(r.stdout), squash(oracle));
});

test('yang tree -P prints one subtree with the augmenting modules loaded', (t) => {
  const r = rosetta([
    'yang',
    'tree',
    '-P',
    '/ietf-interfaces:interfaces',
    ...MODELS,
    'ietf-interfaces@2018-02-20.yang',
    'ietf-ip@2018-02-22.yang',
  ]);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /\+--rw ip:ipv4!/);
  t.notRegex(r.stdout, /interfaces-state/);
});

corpusOnly('yang check accepts a good module and names the fault of a bad one', (t) => {
  t.is(rosetta(['yang', 'check', ...IETF, 'ietf/ietf-ip@2018-02-22.yang'], corpusPath()).code, 0);
  const template = rosetta(['yang', 'check', ...IETF, 'ietf/ietf-template@2023-07-26.yang'], corpusPath());
  t.is(template.code, 1);
  t.regex(template.stderr, /ietf-template@2023-07-26\.yang:60:\d+: error: .*date/);
  const badEscape = rosetta(['yang', 'check', ...IETF, 'ietf-older-revisions/ietf-netconf-acm@2012-02-22.yang'], corpusPath());
  t.is(badEscape.code, 1);
  t.regex(badEscape.stderr, /:103:\d+: error: .*\\\*/);
  const missing = rosetta(['yang', 'check', ...IETF, 'no-such-module'], corpusPath());
  t.is(missing.code, 1);
  t.regex(missing.stderr, /no-such-module/);
});

corpusOnly('yang check -F switches features: ietf-tls-client needs ietf-tls-common features, as in yanglint', (t) => {
  // With every feature of the named module on and none of the imported ietf-tls-common, a feature
  // whose if-feature names tls12 cannot be enabled (yanglint fails the same way); -F fixes it.
  const off = rosetta(['yang', 'check', ...IETF, 'ietf/ietf-tls-client@2024-10-10.yang'], corpusPath());
  t.is(off.code, 1);
  t.regex(off.stderr, /client-ident-tls12-psk/);
  const on = rosetta(['yang', 'check', ...IETF, '-F', 'ietf-tls-common:*', 'ietf/ietf-tls-client@2024-10-10.yang'], corpusPath());
  t.is(on.code, 0, on.stderr);
});

test('yang validate: a valid configuration exits 0 in JSON and XML', (t) => {
  const json = tempFile(
    'good.json',
    JSON.stringify({
      'ietf-interfaces:interfaces': {
        interface: [{ name: 'eth0', type: 'iana-if-type:ethernetCsmacd', enabled: true, description: 'uplink' }],
      },
    }),
  );
  const r = rosetta(['yang', 'validate', '-t', 'config', ...MODELS, ...INTERFACES, json]);
  t.is(r.code, 0, r.stderr);
  const xml = tempFile(
    'good.xml',
    `<interfaces xmlns="urn:ietf:params:xml:ns:yang:ietf-interfaces"
    xmlns:ianaift="urn:ietf:params:xml:ns:yang:iana-if-type"><interface><name>eth0</name>
    <type>ianaift:ethernetCsmacd</type></interface></interfaces>`,
  );
  const rx = rosetta(['yang', 'validate', '-t', 'config', ...MODELS, ...INTERFACES, xml]);
  t.is(rx.code, 0, rx.stderr);
});

test('yang validate: faults are reported with their instance path and reason', (t) => {
  const noType = tempFile('no-type.json', JSON.stringify({ 'ietf-interfaces:interfaces': { interface: [{ name: 'eth0' }] } }));
  const r = rosetta(['yang', 'validate', '-t', 'config', ...MODELS, ...INTERFACES, noType]);
  t.is(r.code, 1);
  t.regex(r.stderr, /\/ietf-interfaces:interfaces\/interface\[name='eth0'\]\/type/);
  const badBool = tempFile(
    'bad.json',
    JSON.stringify({
      'ietf-interfaces:interfaces': { interface: [{ name: 'eth0', type: 'iana-if-type:ethernetCsmacd', enabled: 'yes' }] },
    }),
  );
  const b = rosetta(['yang', 'validate', '-t', 'config', ...MODELS, ...INTERFACES, badBool]);
  t.is(b.code, 1);
  t.regex(b.stderr, /enabled/);
  t.regex(b.stderr, /"yes"/);
  const state = tempFile(
    'state.json',
    JSON.stringify({
      'ietf-interfaces:interfaces-state': {
        interface: [
          {
            name: 'lo',
            type: 'iana-if-type:softwareLoopback',
            'oper-status': 'up',
            statistics: { 'discontinuity-time': '2024-01-01T00:00:00Z' },
          },
        ],
      },
    }),
  );
  t.is(rosetta(['yang', 'validate', '-t', 'config', ...MODELS, ...INTERFACES, state]).code, 1, 'state data is refused in a configuration');
  const garbage = tempFile('garbage.json', '{"ietf-interfaces:interfaces": {"interface": [');
  const g = rosetta(['yang', 'validate', ...MODELS, ...INTERFACES, garbage]);
  t.is(g.code, 1);
  t.regex(g.stderr, /malformed-message/);
  const txt = tempFile('data.txt', '{}');
  t.is(rosetta(['yang', 'validate', ...MODELS, ...INTERFACES, txt]).code, 2, 'an unknown data format is a usage error, not a silent pass');
});

/** A module with both kinds of reference (written here: the corpus is not needed). */
const REFS_MODULE = `module example-refs {
  yang-version 1.1;
  namespace "urn:example:refs";
  prefix refs;
  container site {
    list port { key name; leaf name { type string; } }
    leaf uplink { type leafref { path "../port/name"; } }
    leaf watched { type instance-identifier; }
  }
}
`;

const REFS_NS = 'urn:example:refs';
const refsJson = (uplink: string, watched: string) =>
  JSON.stringify({ 'example-refs:site': { port: [{ name: 'eth0' }], uplink, watched } });
const refsXml = (uplink: string, watched: string) =>
  `<site xmlns="${REFS_NS}" xmlns:refs="${REFS_NS}"><port><name>eth0</name></port><uplink>${uplink}</uplink><watched>${watched}</watched></site>`;
const GOOD_WATCHED = { json: "/example-refs:site/port[name='eth0']", xml: "/refs:site/refs:port[refs:name='eth0']" };
const BAD_WATCHED = { json: "/example-refs:site/port[name='eth9']", xml: "/refs:site/refs:port[refs:name='eth9']" };

/** Whether yanglint accepts the data file (its exit codes for a refusal vary), or undefined when it is not installed. */
function yanglintAccepts(moduleFile: string, dataFile: string): boolean | undefined {
  const r = spawnSync('yanglint', ['-t', 'config', moduleFile, dataFile], { encoding: 'utf8' });
  if (r.error && (r.error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
  return r.status === 0;
}

test('yang validate checks leafrefs and instance-identifiers as yanglint does, in JSON and XML', (t) => {
  const moduleFile = tempFile('example-refs.yang', REFS_MODULE);
  const cases: Array<{ name: string; path: RegExp | undefined; text: Record<'json' | 'xml', string> }> = [
    { name: 'good', path: undefined, text: { json: refsJson('eth0', GOOD_WATCHED.json), xml: refsXml('eth0', GOOD_WATCHED.xml) } },
    {
      name: 'dangling-leafref',
      path: /\/example-refs:site\/uplink: .*"eth9"/,
      text: { json: refsJson('eth9', GOOD_WATCHED.json), xml: refsXml('eth9', GOOD_WATCHED.xml) },
    },
    {
      name: 'dangling-instance-identifier',
      path: /\/example-refs:site\/watched: .*eth9/,
      text: { json: refsJson('eth0', BAD_WATCHED.json), xml: refsXml('eth0', BAD_WATCHED.xml) },
    },
  ];
  let yanglintMissing = false;
  for (const c of cases) {
    for (const format of ['json', 'xml'] as const) {
      const dataFile = tempFile(`${c.name}.${format}`, c.text[format]);
      const r = rosetta(['yang', 'validate', '-t', 'config', moduleFile, dataFile], os.tmpdir());
      const expected = c.path === undefined ? 0 : 1;
      t.is(r.code, expected, `${c.name}.${format}: ${r.stderr}`);
      if (c.path !== undefined) t.regex(r.stderr, c.path, `${c.name}.${format}`);
      const theirs = yanglintAccepts(moduleFile, dataFile);
      if (theirs === undefined) yanglintMissing = true;
      else t.is(theirs, c.path === undefined, `yanglint on ${c.name}.${format}`);
    }
  }
  if (yanglintMissing) t.log('SKIPPED: yanglint is not installed, so its verdicts on the same files were not compared');
});
