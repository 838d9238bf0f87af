/**
 * Whether the service is ready for traffic, and what is not when it is not: the phase of the service
 * (starting, serving, stopping), the datastores (open), the local schema (not being swapped: requests
 * wait at the gate then), the plugins (their start-up load done) and the shared database (reached by
 * its last probe, every 2 s: database/database.ts). `GET /rests/ready` and the
 * `uniconfig-manager:health` RPC both answer from here, so they cannot disagree.
 */

export type ServicePhase = 'starting' | 'serving' | 'stopping';

/** The parts readiness asks; each is read when asked, never cached. */
export interface ReadinessParts {
  readonly storesOpen: () => boolean;
  readonly schemaSwapping: () => boolean;
  /** Whether the plugins' start-up load is done (always, without plugins). */
  readonly pluginsLoaded: () => boolean;
  /** The shared database's state (`UP`, or why not), when the service has one. */
  readonly database?: () => string;
}

export interface ReadinessReport {
  readonly ready: boolean;
  /** One entry per part: `UP`, or what it is doing instead. */
  readonly checks: Readonly<Record<string, string>>;
}

export class Readiness {
  phase: ServicePhase = 'starting';
  private parts: ReadinessParts | undefined;

  /** Names the parts once they exist (until then the service is starting). */
  watch(parts: ReadinessParts): void {
    this.parts = parts;
  }

  report(): ReadinessReport {
    const parts = this.parts;
    const checks: Record<string, string> = {
      service: this.phase === 'serving' ? 'UP' : this.phase,
      datastores: parts?.storesOpen() ? 'UP' : 'closed',
      schema: parts === undefined ? 'starting' : parts.schemaSwapping() ? 'swapping' : 'UP',
      plugins: parts?.pluginsLoaded() ? 'UP' : 'loading',
      ...(parts?.database !== undefined ? { database: parts.database() } : {}),
    };
    return { ready: Object.values(checks).every((v) => v === 'UP'), checks };
  }
}
