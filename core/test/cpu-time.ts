/**
 * CPU time for the tests that prove work is linear, not backtracking or quadratic. Wall-clock bounds
 * fail on a loaded machine (other processes take the cores, not this work); the CPU time this process
 * spends is what the work itself costs, whatever else runs. ava runs each test file in its own process,
 * so the count holds only this file's work; it includes V8's helper threads (GC), which bounds allow for.
 * Speed goals live in `npm run bench`, not here.
 */

/** Starts counting; the function returned gives the CPU milliseconds (user + system) this process spent since. */
export function cpuStopwatch(): () => number {
  const started = process.cpuUsage();
  return () => {
    const spent = process.cpuUsage(started);
    return (spent.user + spent.system) / 1000;
  };
}
