/**
 * Standard modules in a user's YANG folder: `rosetta start --yang DIR`, run as a process, starts when
 * DIR holds another text of a module the service ships (the published one, with its own descriptions,
 * contact, references, comments and layout), and refuses to start when the text really differs (a
 * changed type, an added node), naming both files and the differing node. It starts too when DIR holds
 * the published texts of every module the service ships (read from the corpus), or another revision of
 * a module the service only imports beside a module that uses that revision; the service's own
 * import-only modules stay import-only in ietf-yang-library and their RPCs are not served.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import test from 'ava';
import { memoryDatastores } from '../restconf/http-fixture';
import { corpusPath, corpusTest } from '../corpus';
import { resolveConfig } from '../../src/service/config';
import { IMPORT_ONLY, OWN_YANG_DIR } from '../../src/service/schema';
import { startService } from '../../src/service/service';
import { ModuleRepository } from '../../src/yang/repository';

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

interface Outcome {
  readonly code: number | null;
  readonly output: string;
  readonly listening: boolean;
}

/**
 * Runs `rosetta start --yang <dir>`; once it listens (it started) it is stopped with SIGTERM, else
 * it is waited for to exit. Bounded by a minute.
 */
function start(yangDir: string): Promise<Outcome> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-std-data-'));
  const proc = spawn(process.execPath, [BIN, 'start', '--port', '0', '--data-dir', dataDir, '--yang', yangDir], {
    cwd: dataDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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
  return new Promise((resolve) =>
    proc.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, listening });
    }),
  );
}

function folderWith(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-std-yang-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

const OWN_TYPES = path.join(OWN_YANG_DIR, 'ietf-yang-types@2013-07-15.yang');

test("a published text of a module the service ships, beside the user's own modules, starts and is loaded once", async (t) => {
  const dir = folderWith({
    'ietf-yang-metadata@2016-08-05.yang': PUBLISHED_METADATA,
    'example-site.yang': 'module example-site { namespace "urn:example:site"; prefix site; container site { leaf name { type string; } } }',
  });
  const outcome = await start(dir);
  t.true(outcome.listening, outcome.output);
  t.is(outcome.code, 0, outcome.output);
  const loaded = loadedModules(outcome);
  t.true(loaded.includes('example-site'), outcome.output);
  t.is(loaded.filter((m) => m === 'ietf-yang-metadata@2016-08-05').length, 1, outcome.output);
});

test('a text of a shipped module with a changed type refuses to start, naming both files and the node', async (t) => {
  const changed = fs.readFileSync(OWN_TYPES, 'utf8').replace(/(typedef counter32 \{\s*type )uint32/, '$1uint64');
  t.not(changed, fs.readFileSync(OWN_TYPES, 'utf8'), "the service's ietf-yang-types defines counter32 as uint32");
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
  t.regex(
    outcome.output,
    /\/container extra: defined at \S+ietf-yang-metadata@2016-08-05\.yang:\d+:\d+ and absent from module ietf-yang-metadata/,
  );
});

/** The module names and revisions a start printed as loaded (implemented), from the msg of its JSON log line. */
function loadedModules(outcome: Outcome): string[] {
  const line = outcome.output.split('\n').find((l) => l.includes('modules loaded: '))!;
  return /modules loaded: (.*)/.exec(JSON.parse(line).msg)![1]!.split(', ');
}

/** The service's own module files, as `name@revision.yang` -> path. */
function ownModuleFiles(): Map<string, string> {
  return new Map(
    fs
      .readdirSync(OWN_YANG_DIR)
      .filter((f) => f.endsWith('.yang'))
      .map((f) => [f, path.join(OWN_YANG_DIR, f)]),
  );
}

corpusTest(test, 'published texts of the shipped modules')(
  'a folder holding the published text of every module the service ships starts, each module loaded once, the imported ones not implemented',
  async (t) => {
    const corpus = new ModuleRepository([corpusPath()]);
    const files: Record<string, string> = {};
    for (const [name] of ownModuleFiles()) {
      const [module, revision] = name.replace(/\.yang$/, '').split('@');
      const published = corpus.find(module!, revision);
      if (published !== undefined) files[name] = published.text;
    }
    // The standard ones the service ships, network-topology among them; its own modules are not in the corpus.
    t.true(
      [
        'ietf-yang-library@2019-01-04.yang',
        'ietf-netconf-with-defaults@2011-06-01.yang',
        'network-topology@2013-10-21.yang',
        'ietf-inet-types@2013-07-15.yang',
        'ietf-netconf@2011-06-01.yang',
      ].every((f) => f in files),
      Object.keys(files).join(', '),
    );
    const outcome = await start(folderWith(files));
    t.true(outcome.listening, outcome.output);
    t.is(outcome.code, 0, outcome.output);
    const loaded = loadedModules(outcome);
    for (const name of Object.keys(files)) {
      const module = name.replace(/\.yang$/, '');
      t.is(loaded.filter((m) => m === module).length, IMPORT_ONLY.has(module.split('@')[0]!) ? 0 : 1, `${module}: ${outcome.output}`);
    }
  },
);

corpusTest(test, 'another revision of an import-only module')(
  'a folder holding ietf-inet-types@2025-12-22 and a module using it starts with both revisions',
  async (t) => {
    const dir = folderWith({
      'ietf-inet-types@2025-12-22.yang': fs.readFileSync(corpusPath('ietf', 'ietf-inet-types@2025-12-22.yang'), 'utf8'),
      'example-mail.yang': `module example-mail { namespace "urn:example:mail"; prefix mail;
      import ietf-inet-types { prefix inet; revision-date 2025-12-22; }
      container mail { leaf postmaster { type inet:email-address; } } }`,
    });
    const outcome = await start(dir);
    t.true(outcome.listening, outcome.output);
    t.is(outcome.code, 0, outcome.output);
    const loaded = loadedModules(outcome);
    t.true(loaded.includes('ietf-inet-types@2025-12-22'), outcome.output);
    t.true(loaded.includes('example-mail'), outcome.output);
  },
);

/** A later revision of ietf-inet-types (a stand-in, short): `uri` as the service's modules use it and a type of its own. */
const LATER_INET_TYPES = `module ietf-inet-types {
  namespace "urn:ietf:params:xml:ns:yang:ietf-inet-types";
  prefix inet;
  revision 2030-01-01 { description "A later revision, for the test."; }
  revision 2013-07-15;
  typedef uri { type string; }
  typedef port-range { type string { pattern '[0-9]+-[0-9]+'; } }
}
`;

const SITE_USING_LATER = `module example-site {
  namespace "urn:example:site";
  prefix site;
  import ietf-inet-types { prefix inet; revision-date 2030-01-01; }
  container site { leaf ports { type inet:port-range; } }
}
`;

test("another revision of a module the service only imports, used by the user's module, starts", async (t) => {
  const outcome = await start(folderWith({ 'ietf-inet-types@2030-01-01.yang': LATER_INET_TYPES, 'example-site.yang': SITE_USING_LATER }));
  t.true(outcome.listening, outcome.output);
  t.is(outcome.code, 0, outcome.output);
  const loaded = loadedModules(outcome);
  t.true(loaded.includes('ietf-inet-types@2030-01-01'), outcome.output);
  t.true(loaded.includes('example-site'), outcome.output);
  t.false(
    loaded.some((m) => m.startsWith('ietf-netconf')),
    `ietf-netconf and ietf-netconf-with-defaults are only imported: ${outcome.output}`,
  );
});

test("the service's import-only modules are import-only in ietf-yang-library, beside another revision the user implements, and serve no RPCs", async (t) => {
  const yangDir = folderWith({ 'ietf-inet-types@2030-01-01.yang': LATER_INET_TYPES, 'example-site.yang': SITE_USING_LATER });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-std-data-'));
  const errors: string[] = [];
  const running = await startService({
    config: resolveConfig({ port: 0, host: '127.0.0.1', dataDir, yangDirs: [yangDir] }, os.tmpdir()),
    openDatastores: memoryDatastores,
    log: { info: () => undefined, error: (m) => errors.push(m) },
  });
  try {
    const lib = (await (await fetch(`${running.url}/rests/data/ietf-yang-library:yang-library?content=nonconfig`)).json()) as any;
    const set = lib['ietf-yang-library:yang-library']['module-set'][0];
    const implemented = set.module.map((m: any) => `${m.name}@${m.revision ?? ''}`);
    const importOnly = set['import-only-module'].map((m: any) => `${m.name}@${m.revision}`);
    t.deepEqual(importOnly, [
      'ietf-inet-types@2013-07-15',
      'ietf-netconf@2011-06-01',
      'ietf-netconf-with-defaults@2011-06-01',
      'ietf-yang-types@2013-07-15',
    ]);
    t.true(implemented.includes('ietf-inet-types@2030-01-01'), implemented.join(', '));
    t.true(implemented.includes('ietf-yang-library@2019-01-04'), implemented.join(', '));
    t.false(
      implemented.some((m: string) => m.startsWith('ietf-netconf') || m.startsWith('ietf-yang-types@')),
      implemented.join(', '),
    );
    // network-topology's deviations (its never-true musts) are listed with it.
    t.deepEqual(set.module.find((m: any) => m.name === 'network-topology').deviation, ['network-topology-deviations']);

    const operations = (await (await fetch(`${running.url}/rests/operations`)).json()) as any;
    t.false(
      Object.keys(operations['ietf-restconf:operations']).some((rpc) => rpc.startsWith('ietf-netconf')),
      JSON.stringify(operations),
    );
    t.false(running.schema.rpcs.some((rpc) => rpc.module.name === 'ietf-netconf'));
    const getConfig = await fetch(`${running.url}/rests/operations/ietf-netconf:get-config`, {
      method: 'POST',
      headers: { 'content-type': 'application/yang-data+json' },
      body: '{"ietf-netconf:input":{"source":{"running":[null]}}}',
    });
    t.true(getConfig.status >= 400 && getConfig.status < 500, `${getConfig.status}`);
  } finally {
    await running.stop();
  }
  t.deepEqual(errors, []);
});
