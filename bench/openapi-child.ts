/**
 * Run by operability.ts in a fresh Node process (with --expose-gc): compiles the published OpenConfig
 * release as the OpenAPI corpus test does (core/test/openapi/openapi-openconfig.test.ts: every release
 * module yanglint passes, imports implemented), then generates its OpenAPI document the way
 * `GET /rests/openapi.json` does (openApiText: the document's JSON text, cached per schema), first
 * uncached and then from the cache. Prints one JSON line: the times, the text's size, and memory —
 * the peak RSS during the first generation over the RSS before it (the kernel's high-water mark, reset
 * just before), and the heap the cached document keeps after a full collection.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openApiText } from '@rosetta/core/dist/src/openapi';
import { compileSchema } from '@rosetta/core/dist/src/yang/compiler';
import { ModuleRepository } from '@rosetta/core/dist/src/yang/repository';
import { sharedYang, sharedYangAbsent } from './paths';

if (sharedYang === undefined) throw new Error(`the OpenAPI benchmark needs the YANG corpus: ${sharedYangAbsent}`);
const corpus: string = sharedYang;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

function collect(): NodeJS.MemoryUsage {
  gc!();
  gc!();
  return process.memoryUsage();
}

function peakRss(): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;
}

const modules = fs
  .readFileSync(path.join(corpus, 'oracle/compile-results.tsv'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => l.split('\t'))
  .filter((r) => r[0]!.startsWith('openconfig/release') && r[1] === 'module' && r[6]!.startsWith('PASS'))
  .map((r) => r[2]!);
const compileStart = performance.now();
const schema = compileSchema(
  new ModuleRepository([path.join(corpus, 'openconfig/release/models'), path.join(corpus, 'openconfig/third_party/ietf')]),
  { modules, implementImports: true },
);
const compileMs = performance.now() - compileStart;

const before = collect();
try {
  fs.writeFileSync('/proc/self/clear_refs', '5'); // resets VmHWM, so the peak read below is this generation's
} catch {
  /* an older kernel: the peak is since start, compile included, and the row says at most that */
}
const firstStart = performance.now();
const text = openApiText(schema, undefined);
const firstMs = performance.now() - firstStart;
const peak = peakRss();
const cachedStart = performance.now();
const again = openApiText(schema, undefined);
const cachedMs = performance.now() - cachedStart;
if (again.length !== text.length) throw new Error('the cached document differs from the first');
const after = collect();
const paths = Object.keys((JSON.parse(text) as { paths: object }).paths).length;

console.log(
  JSON.stringify({
    modules: modules.length,
    compileMs,
    firstMs,
    cachedMs,
    bytes: Buffer.byteLength(text),
    paths,
    rssBefore: before.rss,
    peakRssDelta: peak - before.rss,
    heapKept: after.heapUsed - before.heapUsed,
  }),
);
