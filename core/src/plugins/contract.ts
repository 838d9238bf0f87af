/**
 * The contract between the core and a plugin's entry module: what the entry's default export must be
 * (the SDK's `definePlugin` builds it) and what the core hands the plugin when it sets it up. This is the
 * only thing the core and the SDK agree on at run time; everything else is hooks.
 */
import type { JobStarter } from '../jobs';
import type { Logger } from '../logger';
import type { JsonValue, RosettaHooks, TranslationUnitDefinition } from '../hooks';

/** One problem with a plugin's settings from plugins.json, naming the field. */
export interface SettingsProblem {
  /** Dotted path inside the plugin's `config` object (`timeouts.connect`), '' for the object itself. */
  readonly field: string;
  readonly message: string;
}

export type SettingsResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problems: readonly SettingsProblem[] };

/**
 * Where a plugin reports what it does: the core's one `Logger`, with every level there; the host
 * prefixes every line with the plugin's name.
 */
export type PluginLogger = Required<Logger>;

/** What `setup` receives: the hooks to tap and the plugin's own facts. */
export interface PluginApi {
  /** Tap these. Taps are recorded and replayed into every generation this instance belongs to. */
  readonly hooks: RosettaHooks;
  /** The settings from plugins.json after the plugin's `settings` check (`{}` when none given). */
  readonly settings: unknown;
  readonly name: string;
  readonly version: string;
  /** Absolute path of the plugin's folder. */
  readonly folder: string;
  /** Absolute path of the plugin's YANG folder, when its manifest names one. */
  readonly yangDir: string | undefined;
  readonly log: PluginLogger;
  /**
   * The plugin-facing sections of the service configuration file (`schemaFilters`, `callbacks`), as
   * the core checked them at start-up; a section the file leaves out is absent. Secrets (`tls`, `auth`)
   * are not here: their hooks hand them to the plugin that needs them.
   */
  readonly serviceConfig?: Readonly<Record<string, JsonValue>>;
  /**
   * The service's data folder (absolute), where a plugin keeps files that belong to this service
   * instance (caches, state) under a folder of its own name. Absent when the host was started without one.
   */
  readonly dataDir?: string;
  /**
   * The service's job board, where a plugin reports long work it does on its own (a NETCONF device's
   * schema download) so a client reads its progress under `rosetta-jobs:jobs` and the log gets its
   * progress lines. Absent when the host was started without a board.
   */
  readonly jobs?: JobStarter;
}

/** The default export of a plugin's entry module. */
export interface PluginDefinition {
  /** Marks objects built by the SDK (or by hand to the same shape). */
  readonly rosettaPlugin: 1;
  /** Checks and normalises the plugin's `config` from plugins.json; absent means any object is fine. */
  settings?(raw: Readonly<Record<string, unknown>>): SettingsResult;
  /** Taps hooks. Runs once per loaded instance; may be async (bounded by the host's setup timeout). */
  setup?(api: PluginApi): void | Promise<void>;
  /** Required for kind `translation-unit`: the unit the CLI southbound runs for matching devices. */
  readonly translationUnit?: TranslationUnitDefinition;
  /** Runs once the instance no longer serves anything (swapped out and its last lease released). */
  dispose?(): void | Promise<void>;
}
