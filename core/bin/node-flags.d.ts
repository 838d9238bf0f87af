/** The Node flags the service runs with on a machine with `cores` cores (default: this machine's); see node-flags.js. */
export function serviceNodeFlags(cores?: number): string[];
