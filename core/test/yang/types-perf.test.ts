/**
 * Performance sanity of the value codecs: a million values of common types through the public API,
 * with the CPU cost per value logged (`npx ava --verbose` shows it). CPU time, not wall time, so other
 * processes loading the machine do not count; the bounds are loose but catch a codec that recompiles per
 * value or goes super-linear.
 */
import test from 'ava';
import { valueFromJson, valueFromText, valueToJson } from '../../src/yang/types';
import type { YangType } from '../../src/yang/schema';
import { cpuStopwatch } from '../cpu-time';
import { makeContext, makeType } from './types-fixture';

const { ctx } = makeContext();
const N = 1_000_000;

function measure(label: string, run: (i: number) => boolean): number {
  let accepted = 0;
  for (let i = 0; i < 10_000; i++) if (run(i)) accepted++; // warm-up
  accepted = 0;
  const cpuMs = cpuStopwatch();
  for (let i = 0; i < N; i++) if (run(i)) accepted++;
  const ns = (cpuMs() * 1e6) / N;
  if (accepted !== N) throw new Error(`${label}: only ${accepted} of ${N} values accepted`);
  return ns;
}

function perValue(
  t: { log: (...a: unknown[]) => void; true: (v: boolean, m?: string) => void },
  label: string,
  limitNs: number,
  run: (i: number) => boolean,
): void {
  const ns = measure(label, run);
  t.log(`${label}: ${ns.toFixed(1)} ns of CPU per value`);
  t.true(ns < limitNs, `${label} took ${ns.toFixed(1)} ns per value (limit ${limitNs})`);
}

test('a million uint32 values, JSON and text', (t) => {
  const u32: YangType = makeType('uint32', { range: '0..4000000000' });
  perValue(t, 'uint32 from JSON', 1000, (i) => valueFromJson(u32, i * 7, ctx, 'base-mod').ok);
  const texts = Array.from({ length: 1024 }, (_, i) => String(i * 4093));
  perValue(t, 'uint32 from text', 1500, (i) => valueFromText(u32, texts[i & 1023]!, ctx, () => undefined, 'base-mod').ok);
  perValue(t, 'uint32 to JSON', 1000, (i) => valueToJson(u32, i) === i);
});

test('a million strings, plain, length-checked and pattern-checked (ipv4-address)', (t) => {
  const plain = makeType('string');
  const names = Array.from({ length: 1024 }, (_, i) => `GigabitEthernet0/0/${i}`);
  perValue(t, 'string from JSON', 1000, (i) => valueFromJson(plain, names[i & 1023], ctx, 'base-mod').ok);
  const limited = makeType('string', { length: '1..64' });
  perValue(t, 'string (length 1..64) from JSON', 1000, (i) => valueFromJson(limited, names[i & 1023], ctx, 'base-mod').ok);
  const ipv4 = makeType('string', {
    patterns: [
      '(([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])\\.){3}([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])(%[\\p{N}\\p{L}]+)?',
    ],
  });
  const addresses = Array.from({ length: 1024 }, (_, i) => `10.${i & 255}.${(i * 7) & 255}.${(i * 13) & 255}`);
  perValue(t, 'ipv4-address from JSON', 3000, (i) => valueFromJson(ipv4, addresses[i & 1023], ctx, 'base-mod').ok);
});
