/**
 * Benchmark: a 100,000-entry list (ietf-interfaces `interface` entries with a name, description,
 * identityref type and boolean) decoded and validated, and encoded, in JSON and in XML, beside
 * JSON.parse and JSON.stringify of the same JSON text. Goals: decode+validate within 4x of JSON.parse;
 * encode within 3x of JSON.stringify.
 *
 * How: in a process of its own (started with --expose-gc), each operation is timed in turn with its
 * baseline, 11 pairs, each call after a full collection; the rows are the medians. Timed one after the
 * other instead, every figure swung by ±30% from run to run on this 2-core machine (the heap a phase
 * inherits decides how much collection it pays), and a ratio then compared a baseline and an operation
 * measured under different conditions.
 */
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { yang } from '@rosetta/core';
import { decodeJson } from '@rosetta/core/dist/src/data/json-decode';
import { encodeJson } from '@rosetta/core/dist/src/data/json-encode';
import { decodeXml } from '@rosetta/core/dist/src/data/xml-decode';
import { encodeXml } from '@rosetta/core/dist/src/data/xml-encode';
import { validateTree } from '@rosetta/core/dist/src/data/validate';
import { result, type BenchResult } from './results';
import { testModels } from './paths';
import { OWN_YANG_DIR } from '@rosetta/core/dist/src/service/schema';

const ENTRIES = 100_000;

const PAIRS = 11;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Median wall times (ms) of `operation` and of `baseline`, timed in alternation, each call after a full
 * collection (one warm-up call of each first).
 */
function timePair(operation: () => unknown, baseline: () => unknown): { ms: number; baselineMs: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('the codec benchmark runs with --expose-gc');
  const timeOnce = (fn: () => unknown): number => {
    gc();
    const t = performance.now();
    fn();
    return performance.now() - t;
  };
  operation();
  baseline();
  const ours: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    base.push(timeOnce(baseline));
    ours.push(timeOnce(operation));
  }
  return { ms: median(ours), baselineMs: median(base) };
}

export function interfacesDocument(entries: number): string {
  const list = [];
  for (let i = 0; i < entries; i++) {
    list.push({ name: `eth${i}`, description: `uplink ${i} to rack ${i % 48}`, type: 'iana-if-type:ethernetCsmacd', enabled: i % 3 !== 0 });
  }
  return JSON.stringify({ 'ietf-interfaces:interfaces': { interface: list } });
}

/** Runs the measurement in a process of its own (see the top comment). */
export function benchDataCodecs(): BenchResult[] {
  const child = spawnSync(process.execPath, ['--expose-gc', __filename, '--measure'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 10 * 60_000,
  });
  if (child.status !== 0) throw new Error(`codec benchmark failed (exit ${child.status})`);
  return child.stdout
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as BenchResult);
}

function measure(): BenchResult[] {
  const repo = new yang.ModuleRepository([testModels, OWN_YANG_DIR]);
  const ctx = yang.compileSchema(repo, { modules: ['ietf-interfaces', 'iana-if-type'] });
  const errors = ctx.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(`bench schema failed to compile: ${errors[0]!.message}`);

  const text = interfacesDocument(ENTRIES);
  const parsed = JSON.parse(text) as unknown;
  const parse = () => JSON.parse(text);
  const stringify = () => JSON.stringify(parsed);

  const decodeValidate = (decode: () => { root: import('@rosetta/core/dist/src/data/tree').DataRoot }) => () => {
    const { root } = decode();
    const faults = validateTree(root, ctx, { type: 'config' });
    if (faults.length > 0) throw new Error(`bench document invalid: ${faults[0]!.message}`);
  };
  const tree = decodeJson(text, ctx).root;
  const xml = encodeXml(tree, ctx);
  const jsonDecode = timePair(
    decodeValidate(() => decodeJson(text, ctx, { allowState: false })),
    parse,
  );
  const jsonEncode = timePair(() => encodeJson(tree), stringify);
  const xmlDecode = timePair(
    decodeValidate(() => decodeXml(xml, ctx, { allowState: false })),
    parse,
  );
  const xmlDecodeViews = timePair(
    decodeValidate(() => decodeXml(xml, ctx, { allowState: false, views: true })),
    parse,
  );
  const xmlEncode = timePair(() => encodeXml(tree, ctx), stringify);

  const n = `${ENTRIES / 1000}k-entry list`;
  return [
    result(`JSON decode+validate ${n}`, jsonDecode.ms, 'ms', jsonDecode.baselineMs, '<= 4x JSON.parse'),
    result(`JSON encode ${n}`, jsonEncode.ms, 'ms', jsonEncode.baselineMs, '<= 3x JSON.stringify'),
    result(`XML decode+validate ${n}`, xmlDecode.ms, 'ms', xmlDecode.baselineMs, '<= 4x JSON.parse'),
    // values left as views into the text (DecodeOptions.views): only for a tree dropped with its document
    result(
      `XML decode+validate ${n}, values as views into the text`,
      xmlDecodeViews.ms,
      'ms',
      xmlDecodeViews.baselineMs,
      'for scale: what copying the values costs',
    ),
    result(`XML encode ${n}`, xmlEncode.ms, 'ms', xmlEncode.baselineMs, '<= 3x JSON.stringify'),
    // the XML rows read and write this much more text than their JSON baselines
    result(`XML text of the ${n} (size beside its JSON text)`, xml.length / 1e6, 'MB', text.length / 1e6, 'context for the XML rows'),
  ];
}

if (require.main === module) {
  const rows = process.argv.includes('--measure') ? measure() : benchDataCodecs();
  for (const row of rows) console.log(JSON.stringify(row));
}
