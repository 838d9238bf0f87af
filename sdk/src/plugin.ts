/**
 * Defining a plugin: `definePlugin` builds the object a plugin's entry exports as its default, and
 * `defineSettings` builds a checker for the plugin's `config` in plugins.json that names each bad field.
 */
import type { PluginApi, PluginDefinition, SettingsProblem, SettingsResult, TranslationUnitDefinition } from '@rosetta/core';

/** What a plugin author writes; `definePlugin` adds the marker the core checks. */
export interface PluginSpec<Settings = Record<string, unknown>> {
  /** Checks the plugin's `config` object; see `defineSettings`. */
  settings?: (raw: Readonly<Record<string, unknown>>) => SettingsResult;
  /** Taps hooks (`api.hooks`); `api.settings` is what `settings` returned. */
  setup?: (api: PluginApi & { readonly settings: Settings }) => void | Promise<void>;
  /** For translation-unit plugins: the unit from `defineTranslationUnit`. */
  translationUnit?: TranslationUnitDefinition;
  /** Releases what setup acquired (timers, sockets) once this version no longer serves. */
  dispose?: () => void | Promise<void>;
}

/** Builds a plugin's default export. */
export function definePlugin<Settings = Record<string, unknown>>(spec: PluginSpec<Settings>): PluginDefinition {
  const definition: PluginDefinition = {
    rosettaPlugin: 1,
    ...(spec.settings ? { settings: spec.settings } : {}),
    ...(spec.setup ? { setup: spec.setup as (api: PluginApi) => void | Promise<void> } : {}),
    ...(spec.translationUnit ? { translationUnit: spec.translationUnit } : {}),
    ...(spec.dispose ? { dispose: spec.dispose } : {}),
  };
  return Object.freeze(definition);
}

/** One field of a plugin's settings. */
export type SettingField =
  | { type: 'string'; required?: boolean; default?: string; pattern?: RegExp }
  | { type: 'number'; required?: boolean; default?: number; min?: number; max?: number; integer?: boolean }
  | { type: 'boolean'; required?: boolean; default?: boolean }
  | { type: 'string-list'; required?: boolean; default?: string[] };

type FieldValue<F extends SettingField> = F extends { type: 'string' }
  ? string
  : F extends { type: 'number' }
    ? number
    : F extends { type: 'boolean' }
      ? boolean
      : string[];

/** The checked settings object a set of fields produces. */
export type SettingsOf<S extends Record<string, SettingField>> = {
  [K in keyof S]: FieldValue<S[K]> | (S[K] extends { required: true } ? never : S[K] extends { default: unknown } ? never : undefined);
};

/**
 * A settings checker from field declarations: unknown fields, missing required ones and wrong types are
 * each reported with the field's name; defaults fill absent fields.
 */
export function defineSettings<S extends Record<string, SettingField>>(
  fields: S,
): (raw: Readonly<Record<string, unknown>>) => SettingsResult {
  return (raw) => {
    const problems: SettingsProblem[] = [];
    const value: Record<string, unknown> = {};
    for (const name of Object.keys(raw)) {
      if (!(name in fields))
        problems.push({ field: name, message: `unknown setting (known: ${Object.keys(fields).join(', ') || 'none'})` });
    }
    for (const [name, field] of Object.entries(fields)) {
      const given = raw[name];
      if (given === undefined) {
        if (field.default !== undefined) value[name] = field.default;
        else if (field.required) problems.push({ field: name, message: 'required' });
        continue;
      }
      const problem = checkField(field, given);
      if (problem) problems.push({ field: name, message: problem });
      else value[name] = given;
    }
    return problems.length > 0 ? { ok: false, problems } : { ok: true, value };
  };
}

function checkField(field: SettingField, v: unknown): string | undefined {
  switch (field.type) {
    case 'string':
      if (typeof v !== 'string') return `must be a string, got ${JSON.stringify(v)}`;
      if (field.pattern && !field.pattern.test(v)) return `must match ${field.pattern}, got ${JSON.stringify(v)}`;
      return undefined;
    case 'number':
      if (typeof v !== 'number' || !Number.isFinite(v)) return `must be a number, got ${JSON.stringify(v)}`;
      if (field.integer && !Number.isInteger(v)) return `must be an integer, got ${v}`;
      if (field.min !== undefined && v < field.min) return `must be at least ${field.min}, got ${v}`;
      if (field.max !== undefined && v > field.max) return `must be at most ${field.max}, got ${v}`;
      return undefined;
    case 'boolean':
      return typeof v === 'boolean' ? undefined : `must be true or false, got ${JSON.stringify(v)}`;
    case 'string-list':
      return Array.isArray(v) && v.every((s) => typeof s === 'string') ? undefined : 'must be an array of strings';
  }
}
