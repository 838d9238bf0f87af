/**
 * `npm run bench`: runs every benchmark once, prints one table and writes bench/results.json.
 * Benchmarks measure against a baseline on this machine (yanglint, JSON.parse, ...) so that the ratio
 * means something whatever the machine's speed. ROSETTA_BENCH=<key>[,<key>...] runs only the suites
 * named (keys below, e.g. `ROSETTA_BENCH=fleet npm run bench`); an unknown key stops the run.
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
import { benchFleet } from './fleet';
import { benchEvents } from './events';
import { benchOperability } from './operability';
import { benchDatabase } from './database';

const suites: Array<[key: string, name: string, run: () => BenchResult[] | Promise<BenchResult[]>]> = [
  ['yang', 'YANG compile', benchYangCompile],
  ['codecs', 'data codecs', benchDataCodecs],
  ['plugins', 'plugin hooks and hot swap', benchPlugins],
  ['cli', 'CLI devices (FRR peer, simulators)', benchCli],
  ['restconf', 'RESTCONF service', benchRestconf],
  ['request-cost', 'request cost (pathological filters and patterns)', benchRequestCost],
  ['uniconfig', 'uniconfig commit and diff', benchUniconfig],
  ['netconf', 'NETCONF devices (netconfd peer)', benchNetconf],
  ['fleet', 'fleets of simulated devices (rosetta-sim)', benchFleet],
  ['events', 'event streams (1,000 SSE subscribers on data-change under writes)', benchEvents],
  ['operability', 'operability (OpenAPI of OpenConfig, metrics and logs on vs off, /metrics hammered)', benchOperability],
  ['database', 'the Config datastore in PostgreSQL (one and three instances vs the embedded journal)', benchDatabase],
];

/** The suites ROSETTA_BENCH names, or all. */
function selected(): typeof suites {
  const keys = process.env.ROSETTA_BENCH?.split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
  if (keys === undefined || keys.length === 0) return suites;
  const unknown = keys.filter((k) => !suites.some(([key]) => key === k));
  if (unknown.length > 0)
    throw new Error(`ROSETTA_BENCH names no suite ${unknown.join(', ')}; the suites: ${suites.map(([key]) => key).join(', ')}`);
  return suites.filter(([key]) => keys.includes(key));
}

async function run(): Promise<void> {
  const rows: BenchResult[] = [];
  for (const [, name, suite] of selected()) {
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
