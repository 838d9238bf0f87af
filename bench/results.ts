/**
 * The shape of benchmark results and how a run reports them: a table on stdout and
 * bench/results.json (`[{name, value, unit, baseline, ratio}]`) so that runs can be compared.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface BenchResult {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** What the value is measured against (the same unit), or null when there is no baseline. */
  readonly baseline: number | null;
  /** value / baseline, or null. */
  readonly ratio: number | null;
  /** The goal, in words, for the reader of the table. */
  readonly goal?: string;
}

/** The middle value (the upper of the two middle ones for an even count); the measures' summary, since a busy neighbour only ever slows a sample. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

export function result(name: string, value: number, unit: string, baseline: number | null = null, goal?: string): BenchResult {
  const ratio = baseline === null || baseline === 0 ? null : round(value / baseline, 3);
  return { name, value: round(value, 3), unit, baseline: baseline === null ? null : round(baseline, 3), ratio, ...(goal ? { goal } : {}) };
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export function printTable(rows: readonly BenchResult[]): void {
  const head = ['benchmark', 'value', 'unit', 'baseline', 'ratio', 'goal'];
  const body = rows.map((r) => [
    r.name,
    String(r.value),
    r.unit,
    r.baseline === null ? '-' : String(r.baseline),
    r.ratio === null ? '-' : String(r.ratio),
    r.goal ?? '',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const b of body) console.log(line(b));
}

export function writeResults(rows: readonly BenchResult[]): string {
  const file = path.resolve(__dirname, '..', 'results.json');
  fs.writeFileSync(
    file,
    `${JSON.stringify(
      rows.map(({ goal: _goal, ...r }) => r),
      null,
      2,
    )}\n`,
  );
  return file;
}
