/**
 * Error entries about sensitive leaves: the leaf is found from the error-path (key predicates with
 * quotes, '/' and ']' inside), its value-bearing messages are replaced by its name and rules, entries
 * about presence are kept, and V8's quoted snippet of a malformed JSON body is dropped.
 */
import test from 'ava';
import * as path from 'node:path';
import { schemaAtPath, withheldEntries } from '../../src/restconf/withheld-values';
import type { RestconfErrorEntry } from '../../src/restconf/errors';
import { compileSchema } from '../../src/yang/compiler';
import { ModuleRepository } from '../../src/yang/repository';

const repo = new ModuleRepository([path.resolve(__dirname, '../../../yang')]);
repo.addText(
  'withheld-test.yang',
  `module withheld-test {
  yang-version 1.1; namespace "urn:rosetta:test:withheld"; prefix wt;
  import rosetta-secret { prefix rsec; }
  list account { key name; leaf name { type string; } leaf pin { type string { length "4..8"; pattern '[0-9]*'; } rsec:sensitive; } leaf note { type string; } }
}`,
);
const ctx = compileSchema(repo, { modules: ['withheld-test'] });

test('schemaAtPath follows names and skips predicates, quotes respected', (t) => {
  t.is(schemaAtPath(ctx, "/withheld-test:account[name='a/b]c']/pin")?.name, 'pin');
  t.is(schemaAtPath(ctx, '/withheld-test:account[name="x\'y"]/note')?.name, 'note');
  t.is(schemaAtPath(ctx, '/withheld-test:account')?.name, 'account');
  t.is(schemaAtPath(ctx, '/withheld-test:nothing/pin'), undefined);
  t.is(schemaAtPath(ctx, "/withheld-test:account[name='unterminated/pin"), undefined);
  t.is(schemaAtPath(ctx, ''), undefined);
});

test('value messages about a sensitive leaf name the leaf and its rules only; others are kept', (t) => {
  const bad: RestconfErrorEntry = {
    type: 'application',
    tag: 'invalid-value',
    path: "/withheld-test:account[name='a']/pin",
    message: 'invalid value "12ab" for \'pin\'',
    info: { value: '12ab' },
  };
  const missing: RestconfErrorEntry = {
    type: 'application',
    tag: 'data-missing',
    path: "/withheld-test:account[name='a']/pin",
    message: 'no data',
  };
  const plain: RestconfErrorEntry = {
    type: 'application',
    tag: 'invalid-value',
    path: "/withheld-test:account[name='a']/note",
    message: 'invalid value "x" for \'note\'',
  };
  const syntax: RestconfErrorEntry = {
    type: 'rpc',
    tag: 'malformed-message',
    message: 'malformed JSON at line 1, column 9: Unexpected token \'h\', ..."pin": hunter2"... is not valid JSON',
  };
  const out = withheldEntries([bad, missing, plain, syntax], ctx);
  t.false(JSON.stringify(out).includes('12ab'));
  t.is(
    out[0]!.message,
    "the value of 'pin' is not accepted (type string, length 4..8, pattern '[0-9]*'); the value of a sensitive leaf is not shown",
  );
  t.is(out[0]!.info, undefined);
  t.is(out[1], missing);
  t.is(out[2], plain);
  t.is(out[3]!.message, 'malformed JSON at line 1, column 9: unexpected character');
  const untouched = [missing, plain];
  t.is(withheldEntries(untouched, ctx), untouched);
});
