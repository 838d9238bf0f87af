/**
 * Every module the service ships (core/yang, plugins/<name>/yang) that the corpus also holds at the same
 * name and revision is the published text, byte for byte, and so the same module by the rule that lets
 * a user's YANG folder hold standard modules beside the service's own (module-equivalence.ts).
 */
import test from 'ava';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { corpusPath, corpusTest } from '../corpus';
import { moduleDifference } from '../../src/yang/module-equivalence';
import { ModuleRepository } from '../../src/yang/repository';

const REPO_ROOT = path.resolve(__dirname, '../../../..');

function shippedFiles(): string[] {
  const dirs = [path.join(REPO_ROOT, 'core', 'yang')];
  for (const plugin of fs.readdirSync(path.join(REPO_ROOT, 'plugins'))) {
    const dir = path.join(REPO_ROOT, 'plugins', plugin, 'yang');
    if (fs.existsSync(dir)) dirs.push(dir);
  }
  return dirs.flatMap((d) =>
    fs
      .readdirSync(d)
      .filter((f) => f.endsWith('.yang'))
      .map((f) => path.join(d, f)),
  );
}

corpusTest(test, 'shipped modules against their published text')('each shipped module the corpus also has is the published text', (t) => {
  const corpus = new ModuleRepository([corpusPath()]);
  const shipped = new ModuleRepository();
  const compared: string[] = [];
  for (const file of shippedFiles()) {
    const ours = shipped.load(file);
    t.truthy(ours.statement, `${file} parses`);
    const published = corpus.find(ours.name, ours.revision);
    if (!published || !ours.statement) continue;
    compared.push(ours.name);
    const difference = moduleDifference(published.statement!, ours.statement);
    t.is(difference, undefined, `${file} against ${published.file}: ${difference?.path}: ${difference?.what}`);
    t.true(ours.text === published.text, `${file} is ${published.file} byte for byte`);
  }
  t.deepEqual(compared.sort(), [
    'ietf-datastores',
    'ietf-inet-types',
    'ietf-netconf',
    'ietf-netconf-with-defaults',
    'ietf-restconf',
    'ietf-restconf-monitoring',
    'ietf-yang-library',
    'ietf-yang-metadata',
    'ietf-yang-patch',
    'ietf-yang-types',
    'network-topology',
    'yang-ext',
  ]);
});
