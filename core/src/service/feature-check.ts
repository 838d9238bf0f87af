/**
 * Start-up checks of configuration sections whose plugin is not loaded. TLS and authentication
 * configured without their plugin stop start-up (authentication.ts); `schemaFilters` and `callbacks`
 * configured without theirs are announced loudly instead: the service still serves, but an operator who
 * wrote filters that hide data on read must not believe that data hidden while it is shown.
 */
import type { ServiceConfig } from './config';

/** The plugin kind that reads each section, and what is lost without it. */
const SECTIONS = [
  {
    section: 'schemaFilters',
    kind: 'schema-filter',
    loss: 'nothing is hidden on read or ignored on write; data is shown and accepted exactly as the YANG models say',
  },
  { section: 'callbacks', kind: 'callbacks', loss: '/rests/http-client/ is not served' },
] as const;

/**
 * One warning per configured section whose plugin kind is not among `loadedKinds` (the kinds of the
 * plugins loaded at start-up), naming the section; empty when every configured section is served.
 */
export function unservedSectionWarnings(
  config: Pick<ServiceConfig, 'schemaFilters' | 'callbacks'>,
  loadedKinds: ReadonlySet<string>,
): string[] {
  const warnings: string[] = [];
  for (const { section, kind, loss } of SECTIONS) {
    if (config[section] === undefined || loadedKinds.has(kind)) continue;
    warnings.push(`WARNING: ${section} is configured but no ${kind} plugin is loaded (enable it in plugins.json): ${loss}`);
  }
  return warnings;
}
