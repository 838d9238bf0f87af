/**
 * The OpenAPI document of the whole published OpenConfig release (every module yanglint passes,
 * compiled together with their imports implemented) validates with the standard validator. Needs the
 * shared YANG corpus (core/test/corpus.ts); without it the test is registered as skipped and says so.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import ava from 'ava';
import fs from 'node:fs';
import { openApiDocument } from '../../src/openapi';
import { compileSchema } from '../../src/yang/compiler';
import { ModuleRepository } from '../../src/yang/repository';
import { corpusPath, corpusTest } from '../corpus';

const test = corpusTest(ava, 'OpenAPI document of the OpenConfig release');

test('the document of the whole OpenConfig release validates', async (t) => {
  const modules = fs
    .readFileSync(corpusPath('oracle/compile-results.tsv'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'))
    .filter((r) => r[0]!.startsWith('openconfig/release') && r[1] === 'module' && r[6]!.startsWith('PASS'))
    .map((r) => r[2]!);
  const ctx = compileSchema(new ModuleRepository([corpusPath('openconfig/release/models'), corpusPath('openconfig/third_party/ietf')]), {
    modules,
    implementImports: true,
  });
  const doc = openApiDocument(ctx);
  const paths = Object.keys(doc['paths'] as object);
  t.true(paths.includes('/rests/data/openconfig-interfaces:interfaces/interface={name}'));
  t.true(paths.length > 1000, `${paths.length} paths`);
  // Through JSON text, as a client reads it (the validator also dereferences in place).
  await t.notThrowsAsync(SwaggerParser.validate(JSON.parse(JSON.stringify(doc))));
});
