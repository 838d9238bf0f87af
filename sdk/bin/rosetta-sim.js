#!/usr/bin/env node
// rosetta-sim: a simulated fleet of NETCONF and CLI devices (sdk/src/testing/fleet-process.ts); run `npm run build` first.
require('../dist/src/testing/fleet-process.js').main(process.argv.slice(2));
