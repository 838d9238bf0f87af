/**
 * Benchmark: compile every OpenConfig module of the shared corpus in one context, beside yanglint
 * doing the same (`yanglint -i -p openconfig/release/models -p openconfig/third_party/ietf <181 files>`).
 * Goal: faster than yanglint. Skipped, saying so, without the corpus (bench/paths.ts).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { result, type BenchResult } from './results';
import { sharedYang, sharedYangAbsent } from './paths';

function ocModuleFiles(sharedYang: string): string[] {
  return fs
    .readFileSync(path.join(sharedYang, 'oracle', 'compile-results.tsv'), 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.split('\t'))
    .filter((c) => c[0]?.startsWith('openconfig/') && c[1] === 'module')
    .map((c) => c[0]!);
}

function yanglintSeconds(sharedYang: string, files: string[]): number | null {
  const probe = spawnSync('yanglint', ['-v'], { encoding: 'utf8' });
  if (probe.error) {
    console.log('bench: yanglint not installed (apt-get install libyang2-tools); no baseline for the compile');
    return null;
  }
  const start = performance.now();
  const run = spawnSync('yanglint', ['-D', '-i', '-p', 'openconfig/release/models', '-p', 'openconfig/third_party/ietf', ...files], {
    cwd: sharedYang,
    stdio: 'ignore',
  });
  const seconds = (performance.now() - start) / 1000;
  return run.status === 0 ? seconds : null;
}

export function benchYangCompile(): BenchResult[] {
  if (sharedYang === undefined) {
    console.log(`bench: YANG compile skipped: it compiles the published OpenConfig modules, and ${sharedYangAbsent}`);
    return [];
  }
  const files = ocModuleFiles(sharedYang);
  const baseline = yanglintSeconds(sharedYang, files);
  const child = spawnSync(process.execPath, [path.join(__dirname, 'yang-compile-child.js')], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`compile benchmark failed: ${child.stderr}`);
  const out = JSON.parse(child.stdout.trim().split('\n').pop()!) as { ms: number; peakRssMb: number; modules: number; errors: number };
  if (out.errors > 0) console.log(`bench: the OpenConfig compile reported ${out.errors} errors`);
  return [
    result(`compile ${out.modules} OpenConfig modules (one context, -i)`, out.ms / 1000, 's', baseline, 'faster than yanglint (ratio < 1)'),
    result('compile OpenConfig: peak memory', out.peakRssMb, 'MB'),
  ];
}
