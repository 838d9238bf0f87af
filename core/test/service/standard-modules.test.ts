/**
 * Standard modules in a user's YANG folder: `rosetta start --yang DIR`, run as a process, starts when
 * DIR holds another text of a module the service ships (the published one, with its own descriptions,
 * contact, references, comments and layout), and refuses to start when the text really differs (a
 * changed type, an added node), naming both files and the differing node.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { OWN_YANG_DIR } from '../../src/service/schema';

const BIN = path.resolve(__dirname, '../../../bin/rosetta.js');

/** RFC 7952's module as published: the service's copy says the same in other words and layout. */
const PUBLISHED_METADATA = `module ietf-yang-metadata {

  namespace "urn:ietf:params:xml:ns:yang:ietf-yang-metadata";

  prefix "md";

  organization
    "IETF NETMOD (NETCONF Data Modeling Language) Working Group";

  contact
    "WG Web:   <https://datatracker.ietf.org/wg/netmod/>

     Editor:   Ladislav Lhotka
               <mailto:lhotka@nic.cz>";

  description
    "This YANG module defines an 'extension' statement that allows
     for defining metadata annotations.";

  // A comment the service's copy does not have.
  revision 2016-08-05 {
    description
      "Initial revision.";
    reference
      "RFC 7952: Defining and Using Metadata with YANG";
  }

  extension annotation {
    argument "name" ;
    description
      "This extension allows for defining metadata annotations in "
    + "YANG modules.";
    /* The data type of the annotation value is specified in the same
       way as for a leaf data node using the 'type' statement. */
  }
}
`;

interface Outcome { readonly code: number | null; readonly output: string; readonly listening: boolean }

/**
 * Runs `rosetta start --yang <dir>`; once it listens (it started) it is stopped with SIGTERM, else
 * it is waited for to exit. Bounded by a minute.
 */
function start(yangDir: string): Promise<Outcome> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-std-data-'));
  const proc = spawn(process.execPath, [BIN, 'start', '--port', '0', '--data-dir', dataDir, '--yang', yangDir], { cwd: dataDir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let listening = false;
  const onData = (d: Buffer): void => {
    output += d;
    if (!listening && /modules loaded: .*\n/.test(output)) {
      listening = true;
      proc.kill('SIGTERM');
    }
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  const timer = setTimeout(() => proc.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => proc.once('close', (code) => {
    clearTimeout(timer);
    resolve({ code, output, listening });
  }));
}

function folderWith(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-std-yang-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

const OWN_TYPES = path.join(OWN_YANG_DIR, 'ietf-yang-types@2013-07-15.yang');

test('a published text of a module the service ships, beside the user\'s own modules, starts and is loaded once', async (t) => {
  const dir = folderWith({
    'ietf-yang-metadata@2016-08-05.yang': PUBLISHED_METADATA,
    'example-site.yang': 'module example-site { namespace "urn:example:site"; prefix site; container site { leaf name { type string; } } }',
  });
  const outcome = await start(dir);
  t.true(outcome.listening, outcome.output);
  t.is(outcome.code, 0, outcome.output);
  const loaded = /modules loaded: (.*)\n/.exec(outcome.output)![1]!.split(', ');
  t.true(loaded.includes('example-site'), outcome.output);
  t.is(loaded.filter((m) => m === 'ietf-yang-metadata@2016-08-05').length, 1, outcome.output);
});

test('a text of a shipped module with a changed type refuses to start, naming both files and the node', async (t) => {
  const changed = fs.readFileSync(OWN_TYPES, 'utf8').replace(/(typedef counter32 \{\s*type )uint32/, '$1uint64');
  t.not(changed, fs.readFileSync(OWN_TYPES, 'utf8'), 'the service\'s ietf-yang-types defines counter32 as uint32');
  const dir = folderWith({ 'ietf-yang-types@2013-07-15.yang': changed });
  const outcome = await start(dir);
  t.false(outcome.listening, outcome.output);
  t.is(outcome.code, 1, outcome.output);
  t.true(outcome.output.includes(path.join(dir, 'ietf-yang-types@2013-07-15.yang')), outcome.output);
  t.true(outcome.output.includes(OWN_TYPES), outcome.output);
  t.regex(outcome.output, /\/typedef counter32\/type: type is "uint32" at \S+:\d+:\d+ and "uint64" at \S+:\d+:\d+/);
});

test('a text of a shipped module with an added node refuses to start, naming both files and the node', async (t) => {
  const added = PUBLISHED_METADATA.replace(/\n}\n$/, '\n  container extra { leaf note { type string; } }\n}\n');
  const dir = folderWith({ 'ietf-yang-metadata@2016-08-05.yang': added });
  const outcome = await start(dir);
  t.false(outcome.listening, outcome.output);
  t.is(outcome.code, 1, outcome.output);
  t.true(outcome.output.includes(path.join(dir, 'ietf-yang-metadata@2016-08-05.yang')), outcome.output);
  t.true(outcome.output.includes(path.join(OWN_YANG_DIR, 'ietf-yang-metadata@2016-08-05.yang')), outcome.output);
  t.regex(outcome.output, /\/container extra: defined at \S+ietf-yang-metadata@2016-08-05\.yang:\d+:\d+ and absent from module ietf-yang-metadata/);
});
