/**
 * Run by yang-compile.ts in a fresh process: compiles every OpenConfig module of the corpus in one
 * context and prints {ms, peakRssMb, modules, errors} as JSON, so peak memory is this work's alone.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { yang } from '@rosetta/core';

import { sharedYang as found, sharedYangAbsent } from './paths';

if (found === undefined) throw new Error(`the compile benchmark needs the YANG corpus: ${sharedYangAbsent}`);
const sharedYang: string = found;

const files = fs
  .readFileSync(path.join(sharedYang, 'oracle', 'compile-results.tsv'), 'utf8')
  .split('\n')
  .slice(1)
  .map((l) => l.split('\t'))
  .filter((c) => c[0]?.startsWith('openconfig/') && c[1] === 'module')
  .map((c) => path.join(sharedYang, c[0]!));

const start = performance.now();
const repo = new yang.ModuleRepository([
  path.join(sharedYang, 'openconfig/release/models'),
  path.join(sharedYang, 'openconfig/third_party/ietf'),
]);
const ctx = yang.compileSchema(repo, { modules: files, implementImports: true });
const ms = performance.now() - start;
const errors = ctx.diagnostics.filter((d) => d.severity === 'error').length;
console.log(
  JSON.stringify({ ms, peakRssMb: process.resourceUsage().maxRSS / 1024, modules: files.length, compiled: ctx.modules.size, errors }),
);
