// The Node flags the service runs with under `npm start` (package.json runs this file to print them)
// and in the benchmarks (bench/restconf.ts), so both measure and run the same process. They must be
// given when Node starts: Node sizes V8's thread pool before any code runs.
//
// --v8-pool-size: V8's worker threads, which mark, sweep and scavenge beside the event loop. Node starts
// four whatever the machine; on two cores they compete with the event loop, and the heap V8 keeps
// committed around a fleet grows with them: 5,000 idle NETCONF devices took 44.5-46.8 KB each with one
// worker against 48.4-51.3 KB with four, for the same service CPU (docs/operations.md#memory). So one
// worker fewer than the cores, at least one and at most Node's four.
const os = require('node:os');

/** The flags for a machine with `cores` cores. */
function serviceNodeFlags(cores = os.availableParallelism()) {
  return [`--v8-pool-size=${Math.max(1, Math.min(4, cores - 1))}`];
}

module.exports = { serviceNodeFlags };

if (require.main === module) process.stdout.write(serviceNodeFlags().join(' '));
