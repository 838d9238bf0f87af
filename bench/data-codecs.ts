/**
 * Benchmark: a 100,000-entry list (ietf-interfaces `interface` entries with a name, description,
 * identityref type and boolean) decoded and validated, and encoded, in JSON and in XML, beside
 * JSON.parse and JSON.stringify of the same JSON text. Goals: decode+validate within 4x of JSON.parse;
 * encode within 3x of JSON.stringify.
 */
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { yang } from '@rosetta/core';
import { decodeJson } from '@rosetta/core/dist/src/data/json-decode';
import { encodeJson } from '@rosetta/core/dist/src/data/json-encode';
import { decodeXml } from '@rosetta/core/dist/src/data/xml-decode';
import { encodeXml } from '@rosetta/core/dist/src/data/xml-encode';
import { validateTree } from '@rosetta/core/dist/src/data/validate';
import { result, type BenchResult } from './results';
import { sharedYang } from './paths';

const ENTRIES = 100_000;

/** Median wall time of `runs` calls, in milliseconds (one warm-up call first). */
function timeMs(runs: number, fn: () => unknown): number {
  fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export function interfacesDocument(entries: number): string {
  const list = [];
  for (let i = 0; i < entries; i++) {
    list.push({ name: `eth${i}`, description: `uplink ${i} to rack ${i % 48}`, type: 'iana-if-type:ethernetCsmacd', enabled: i % 3 !== 0 });
  }
  return JSON.stringify({ 'ietf-interfaces:interfaces': { interface: list } });
}

export function benchDataCodecs(): BenchResult[] {
  const repo = new yang.ModuleRepository([path.join(sharedYang, 'ietf'), path.join(sharedYang, 'ieee')]);
  const ctx = yang.compileSchema(repo, { modules: ['ietf-interfaces', 'iana-if-type'] });
  const errors = ctx.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(`bench schema failed to compile: ${errors[0]!.message}`);

  const text = interfacesDocument(ENTRIES);
  const parsed = JSON.parse(text) as unknown;
  const runs = 5;
  const parseMs = timeMs(runs, () => JSON.parse(text));
  const stringifyMs = timeMs(runs, () => JSON.stringify(parsed));

  const decodeValidate = (decode: () => { root: import('@rosetta/core/dist/src/data/tree').DataRoot }) => () => {
    const { root } = decode();
    const faults = validateTree(root, ctx, { type: 'config' });
    if (faults.length > 0) throw new Error(`bench document invalid: ${faults[0]!.message}`);
  };
  const jsonDecodeMs = timeMs(runs, decodeValidate(() => decodeJson(text, ctx, { allowState: false })));
  const tree = decodeJson(text, ctx).root;
  const jsonEncodeMs = timeMs(runs, () => encodeJson(tree));
  const xml = encodeXml(tree, ctx);
  const xmlDecodeMs = timeMs(runs, decodeValidate(() => decodeXml(xml, ctx, { allowState: false })));
  const xmlEncodeMs = timeMs(runs, () => encodeXml(tree, ctx));

  const n = `${ENTRIES / 1000}k-entry list`;
  return [
    result(`JSON decode+validate ${n}`, jsonDecodeMs, 'ms', parseMs, '<= 4x JSON.parse'),
    result(`JSON encode ${n}`, jsonEncodeMs, 'ms', stringifyMs, '<= 3x JSON.stringify'),
    result(`XML decode+validate ${n}`, xmlDecodeMs, 'ms', parseMs, '<= 4x JSON.parse'),
    result(`XML encode ${n}`, xmlEncodeMs, 'ms', stringifyMs, '<= 3x JSON.stringify'),
  ];
}

if (require.main === module) {
  for (const row of benchDataCodecs()) console.log(JSON.stringify(row));
}
