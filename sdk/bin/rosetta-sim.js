#!/usr/bin/env node
// rosetta-sim: a simulated fleet of NETCONF and CLI devices (sdk/src/testing/fleet-process.ts).
let fleetProcess;
try {
  fleetProcess = require('../dist/src/testing/fleet-process.js');
} catch (e) {
  if (e.code !== 'MODULE_NOT_FOUND') throw e;
  process.stderr.write('rosetta-sim: the SDK is not built; run `npm run build` (tsc -b) in the repository first\n');
  process.exit(2);
}
fleetProcess.main(process.argv.slice(2));
