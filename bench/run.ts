/**
 * `npm run bench`: runs every benchmark once, prints one table and writes bench/results.json.
 * Benchmarks measure against a baseline on this machine (yanglint, JSON.parse, ...) so that the ratio
 * means something whatever the machine's speed.
 */
import { printTable, writeResults, type BenchResult } from './results';
import { benchYangCompile } from './yang-compile';
import { benchDataCodecs } from './data-codecs';
import { benchPlugins } from './plugins';
import { benchCli } from './cli';
import { benchRestconf } from './restconf';
import { benchRequestCost } from './request-cost';
import { benchUniconfig } from './uniconfig';
import { benchNetconf } from './netconf';

const suites: Array<[string, () => BenchResult[] | Promise<BenchResult[]>]> = [
  ['YANG compile', benchYangCompile],
  ['data codecs', benchDataCodecs],
  ['plugin hooks and hot swap', benchPlugins],
  ['CLI devices (FRR peer, simulators)', benchCli],
  ['RESTCONF service', benchRestconf],
  ['request cost (pathological filters and patterns)', benchRequestCost],
  ['uniconfig commit and diff', benchUniconfig],
  ['NETCONF devices (netconfd peer)', benchNetconf],
];

async function run(): Promise<void> {
  const rows: BenchResult[] = [];
  for (const [name, suite] of suites) {
    console.log(`bench: ${name} ...`);
    rows.push(...(await suite()));
  }
  console.log('');
  printTable(rows);
  console.log(`\nwritten to ${writeResults(rows)}`);
}

run().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
