/**
 * Benchmark: the request-cost suite (core/test/restconf/request-cost.ts) against the real service
 * (`rosetta start` in a child process, the suite's module through --yang): every pathological
 * jsonb-filter and pattern-checked value sent while a probe reads a small entry every 10 ms. Goals are
 * the issue's: each answered within 1 s, the probe answered within 50 ms meanwhile.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { costCases, REQUEST_COST_MODULE, runCase, seed } from '@rosetta/core/dist/test/restconf/request-cost';
import { result, type BenchResult } from './results';
import { startChild, stopChild } from './restconf';

export async function benchRequestCost(): Promise<BenchResult[]> {
  const yangDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-cost-yang-'));
  fs.writeFileSync(path.join(yangDir, 'request-cost.yang'), REQUEST_COST_MODULE);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rosetta-bench-cost-data-'));
  const service = await startChild(['service', '--port', '0', '--data-dir', dataDir, '--yang', yangDir]);
  try {
    await seed(service.url);
    const results = [];
    for (const c of costCases()) {
      const r = await runCase(service.url, c);
      if (r.wrong !== undefined) throw new Error(`${c.name}: ${r.wrong}`);
      console.log(`bench: ${r.ms.toFixed(0).padStart(5)} ms, probe worst ${r.probeWorstMs.toFixed(0).padStart(4)} ms: ${r.name}`);
      results.push(r);
    }
    const slowest = results.reduce((a, b) => (b.ms > a.ms ? b : a));
    const stalled = results.reduce((a, b) => (b.probeWorstMs > a.probeWorstMs ? b : a));
    return [
      result(`pathological request, slowest of ${results.length} (${slowest.name})`, slowest.ms, 'ms', 1000, '<= 1 s'),
      result('pathological requests answered over 1 s', results.filter((r) => r.ms > 1000).length, 'count', null, '0'),
      result(`probe GET during them, worst (${stalled.name})`, stalled.probeWorstMs, 'ms', 50, '<= 50 ms'),
      result(
        'pathological requests during which the probe waited over 50 ms',
        results.filter((r) => r.probeWorstMs > 50).length,
        'count',
        null,
        '0',
      ),
    ];
  } finally {
    await stopChild(service);
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(yangDir, { recursive: true, force: true });
  }
}
