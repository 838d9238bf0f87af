/**
 * The configuration fault, on its own so that every checker of a configuration section (config.ts,
 * auth-config.ts, the command-line flags) can throw it without importing the file reader that calls
 * the checkers.
 */

/** A configuration fault: the field (dotted path) and what is wrong with it. */
export class ConfigError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field}: ${problem}`);
    this.name = 'ConfigError';
  }
}
