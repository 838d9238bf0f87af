/**
 * SIGHUP to `rosetta start`: the configuration is read again (the `--config` file with the same
 * command-line flags) and what can change in a running service is applied at once: `log.level` (the
 * least level of the JSON log) and `metrics.enabled` (metrics switched off pause counting and stop
 * serving `/metrics`; switched on again they count on). This is how an operator turns on debug lines
 * while chasing a problem, as `log:set` does in OpenDaylight's console, without dropping device
 * sessions. Every other field is read at start only: a reload that finds one changed says which, and
 * that it waits for the next start. A file that no longer reads or checks is refused, naming the field,
 * and the running settings stay.
 */
import type { JsonLogger } from '../logging/json-logger';
import type { ServiceMetrics } from '../metrics';
import type { ServiceConfig } from '../service/config';

export interface ReloadParts {
  /** Reads and checks the configuration as start-up did (throws a ConfigError naming the field). */
  readonly read: () => ServiceConfig;
  readonly log: JsonLogger;
  /** The service's metrics; undefined when it started without them (a reload cannot add them). */
  readonly metrics: ServiceMetrics | undefined;
  /** The configuration the service started with. */
  readonly started: ServiceConfig;
}

/** Fields a reload applies; the others are compared to say what waits for a restart. */
const LIVE_FIELDS: ReadonlySet<string> = new Set(['log', 'metrics']);

/** Levels under which an info line is written. */
const INFO_WRITING: ReadonlySet<string> = new Set(['trace', 'debug', 'info']);

/** The top-level fields of `next` that differ from `started` and are read at start only. */
function fieldsWaitingForRestart(started: ServiceConfig, next: ServiceConfig): string[] {
  const changed: string[] = [];
  for (const field of Object.keys(next) as (keyof ServiceConfig)[]) {
    if (LIVE_FIELDS.has(field)) continue;
    if (JSON.stringify(next[field]) !== JSON.stringify(started[field])) changed.push(field);
  }
  if (next.metrics.auth !== started.metrics.auth) changed.push('metrics.auth');
  return changed;
}

/** Applies a reload once (exported for the tests); what `onHangup` runs on each SIGHUP. */
export function reloadConfig(parts: ReloadParts): void {
  const { log, metrics } = parts;
  let next: ServiceConfig;
  try {
    next = parts.read();
  } catch (e) {
    log.error(`rosetta: SIGHUP: configuration not reloaded, the running settings stay: ${(e as Error).message}`);
    return;
  }
  const waiting = fieldsWaitingForRestart(parts.started, next);
  if (waiting.length > 0) log.warn(`rosetta: SIGHUP: ${waiting.join(', ')} changed; read at start only, applied at the next start`);
  let metricsState = 'off';
  if (metrics !== undefined) {
    metrics.recording = next.metrics.enabled;
    metricsState = next.metrics.enabled ? 'on' : 'off';
  } else if (next.metrics.enabled) {
    log.warn('rosetta: SIGHUP: metrics.enabled: the service started without metrics; they are switched on at the next start');
  }
  const applied = `rosetta: SIGHUP: configuration reloaded: log.level ${next.log.level}, metrics ${metricsState}`;
  // said under the new level when it writes info lines, else under the old one: written whenever
  // either level writes them
  const newWritesInfo = INFO_WRITING.has(next.log.level);
  if (!newWritesInfo) log.info(applied);
  log.setLevel(next.log.level);
  if (newWritesInfo) log.info(applied);
}

/** Reloads on every SIGHUP until the returned function is called. */
export function onHangup(parts: ReloadParts): () => void {
  const handler = () => reloadConfig(parts);
  process.on('SIGHUP', handler);
  return () => {
    process.off('SIGHUP', handler);
  };
}
