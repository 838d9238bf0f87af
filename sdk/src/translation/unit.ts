/**
 * Declaring a translation unit: per YANG path, a config reader, a state reader and a writer. A path is
 * written as a schema path in RFC 7951 style (`/openconfig-interfaces:interfaces/interface/config`, module
 * prefix on the first node and where the module changes). A path whose handler declares `keys` is a list:
 * `list()` enumerates its entries and the readers are called once per entry.
 *
 * Readers return the JSON of their node's subtree (members without module prefixes, except where the
 * module changes), or undefined when the node is absent. Writers get the before/after JSON of their node
 * (with the subtrees other handlers own removed) and return the commands to send; the engine derives the
 * undo commands by running the inverse writer.
 */
import type { ContentFilter, InstancePath, JsonObject, TranslationUnitDefinition } from '@rosetta/core';
import type { CliSession } from '../cli/session';
import { parseSchemaPath, type SchemaPath } from './path';
import type { RequestMemo } from './request-memo';

/** Key leaf name -> value, for one list entry. */
export type Keys = Readonly<Record<string, string>>;

export interface HandlerContext {
  readonly session: CliSession;
  /** What the request reads: list enumerators can skip state-only commands for `config`. */
  readonly content: ContentFilter;
  /** Keys of every list entry on the path, outermost first. */
  readonly keys: readonly Keys[];
  /** Keys of the innermost list entry on the path (`{}` when the path crosses no list). */
  readonly key: Keys;
  /** Values derived from device output (a parsed `show`), shared by this request's handlers only. */
  readonly memo: RequestMemo;
}

export interface WriterContext {
  readonly keys: readonly Keys[];
  readonly key: Keys;
  /** The node written, for messages (`renderInstancePath` writes its RFC 7951 text). */
  readonly path: InstancePath;
  /**
   * The whole configuration before and after this step (for an undo step, the roles are swapped: `after`
   * is what the undo restores). For writers whose commands depend on data elsewhere (a BGP neighbor is
   * configured inside `router bgp <AS>` of its instance) or on their node's whole subtree (a parent whose
   * delete removes its children with one command).
   */
  readonly documents: { readonly before: JsonObject; readonly after: JsonObject };
}

/** Turns a change of one node into device commands (sent in configuration mode). */
export interface Writer {
  create?(after: JsonObject, ctx: WriterContext): readonly string[];
  /** Absent: an update is sent as delete(before) then create(after). */
  update?(before: JsonObject, after: JsonObject, ctx: WriterContext): readonly string[];
  delete?(before: JsonObject, ctx: WriterContext): readonly string[];
}

export interface ContainerHandler {
  /** The node's configuration, as the device has it. */
  readConfig?(ctx: HandlerContext): Promise<JsonObject | undefined>;
  /** The node's state (`config false` data). */
  readState?(ctx: HandlerContext): Promise<JsonObject | undefined>;
  write?: Writer;
}

export interface ListHandler extends ContainerHandler {
  /** Key leaf names in key order. */
  readonly keys: readonly string[];
  /** Every entry's keys (called once per parent entry per request). */
  list(ctx: HandlerContext): Promise<readonly Keys[]>;
}

export type Handler = ContainerHandler | ListHandler;

/** What `defineTranslationUnit` takes. */
export interface TranslationUnitSpec {
  /** Schema path -> handler. Order does not matter; parents are handled before children. */
  readonly paths: Readonly<Record<string, Handler>>;
  /**
   * Output lines by which the device says a command failed (`/^% Unknown command/`, ...). A CLI
   * southbound checks each command's output against the patterns of every unit serving the device.
   */
  readonly errorPatterns?: readonly RegExp[];
  /**
   * Output lines by which the device says it cannot serve commands at all, whatever the command (FRR's
   * vtysh with its daemons gone: `Warning: connecting to zebra...failed!`). A CLI southbound checks every
   * command's output against them, reads included, and answers that the device is not usable (502) instead
   * of taking what it printed as the device's data (an empty configuration).
   */
  readonly unusablePatterns?: readonly RegExp[];
  /**
   * The device's CLI reads typed-ahead lines in order, echoing each after the previous line's prompt
   * (FRR's vtysh does). A CLI southbound may then send a read's show commands in one write instead of one
   * round trip each. Default false: one command at a time.
   */
  readonly typeAhead?: boolean;
}

/** One registered path, parsed. */
export interface Registration {
  readonly path: SchemaPath;
  readonly text: string;
  readonly handler: Handler;
}

/** A translation unit as the engine runs it; the CLI southbound receives it through `ServingUnit.definition`. */
export interface TranslationUnit extends TranslationUnitDefinition {
  /** Registrations, parents before children. */
  readonly registrations: readonly Registration[];
  /** The spec's error patterns (empty when it gave none). */
  readonly errorPatterns: readonly RegExp[];
  /** The spec's device-unusable patterns (empty when it gave none). */
  readonly unusablePatterns: readonly RegExp[];
  /** Whether the device takes typed-ahead commands (the spec's `typeAhead`, default false). */
  readonly typeAhead: boolean;
}

export function isListHandler(h: Handler): h is ListHandler {
  return Array.isArray((h as ListHandler).keys);
}

/** Builds a unit; throws at load time (reported by the host as a load error) when a path is malformed. */
export function defineTranslationUnit(spec: TranslationUnitSpec): TranslationUnit {
  const registrations: Registration[] = [];
  const seen = new Set<string>();
  for (const [text, handler] of Object.entries(spec.paths)) {
    const parsed = parseSchemaPath(text);
    if (!parsed.ok) throw new Error(`translation unit path ${JSON.stringify(text)}: ${parsed.error}`);
    const canonical = parsed.path.segments.join('/');
    if (seen.has(canonical)) throw new Error(`translation unit path ${JSON.stringify(text)} is registered twice`);
    seen.add(canonical);
    if (isListHandler(handler)) {
      if (handler.keys.length === 0) throw new Error(`translation unit path ${text}: a list handler needs at least one key`);
      if (typeof handler.list !== 'function') throw new Error(`translation unit path ${text}: a list handler needs list()`);
    }
    registrations.push({ path: parsed.path, text, handler });
  }
  registrations.sort((a, b) => a.path.segments.length - b.path.segments.length);
  const errorPatterns = [...(spec.errorPatterns ?? [])];
  if (!errorPatterns.every((p) => p instanceof RegExp)) throw new Error('translation unit errorPatterns must be regular expressions');
  const unusablePatterns = [...(spec.unusablePatterns ?? [])];
  if (!unusablePatterns.every((p) => p instanceof RegExp)) throw new Error('translation unit unusablePatterns must be regular expressions');
  if (spec.typeAhead !== undefined && typeof spec.typeAhead !== 'boolean') throw new Error('translation unit typeAhead must be a boolean');
  return Object.freeze({
    kind: 'rosetta-translation-unit' as const,
    registrations,
    errorPatterns,
    unusablePatterns,
    typeAhead: spec.typeAhead ?? false,
  });
}

/** Checks that something the core handed over is a unit this SDK built. */
export function asTranslationUnit(definition: TranslationUnitDefinition): TranslationUnit {
  const unit = definition as Partial<TranslationUnit>;
  if (definition.kind !== 'rosetta-translation-unit' || !Array.isArray(unit.registrations)) {
    throw new Error('not a translation unit built by @rosetta/sdk defineTranslationUnit');
  }
  // a unit built by an older SDK lacks the pattern members and typeAhead
  if (Array.isArray(unit.errorPatterns) && Array.isArray(unit.unusablePatterns) && typeof unit.typeAhead === 'boolean')
    return unit as TranslationUnit;
  return {
    ...(unit as TranslationUnit),
    errorPatterns: unit.errorPatterns ?? [],
    unusablePatterns: unit.unusablePatterns ?? [],
    typeAhead: unit.typeAhead ?? false,
  };
}
