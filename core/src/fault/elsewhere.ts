/**
 * Not a fault: what a request reaches (an installed device, a uniconfig transaction) is held by another
 * live instance sharing the database. `locate` asks the database for that instance's URL; the RESTCONF
 * layer forwards the request there (restconf/forward.ts), and answers `missing()` when no live
 * instance holds it.
 */
export class Elsewhere extends Error {
  constructor(
    /** What is held, as a message names it: `node 'R1'`, `transaction '<id>'`. */
    readonly what: string,
    readonly locate: () => Promise<string | undefined>,
    readonly missing: () => Error,
  ) {
    super(`${what} is held by another instance`);
    this.name = 'Elsewhere';
  }
}
