/**
 * The transcript harness: runs a translation unit against recorded device output (a command -> output
 * table), so a vendor can test readers without a device, and shows the commands (and undo commands) a
 * write produces. A command missing from the transcript fails with its exact text, so the fix is to
 * record it.
 */
import type { ContentFilter, JsonObject, PluginDefinition } from '@rosetta/core';
import { cachingSession, type CliSession } from '../cli/session';
import { readUnits } from '../translation/read';
import { asTranslationUnit, type TranslationUnit } from '../translation/unit';
import { planWrite, type WritePlan } from '../translation/write';

/** Command (exactly as the unit sends it) -> the device's output. */
export type Transcript = Readonly<Record<string, string>>;

/** A command the unit sent that the transcript does not hold. */
export class TranscriptMissError extends Error {
  constructor(readonly command: string) {
    super(`the transcript has no output for ${JSON.stringify(command)}; record it from a device`);
    this.name = 'TranscriptMissError';
  }
}

/**
 * Reads a recorded terminal session (what `script` or a terminal log captures) into a transcript: each
 * line starting with the prompt holds a command, and the lines up to the next prompt are its output.
 */
export function parseSessionLog(log: string, prompt: RegExp = /^[\w.-]+(?:\([\w-]+\))?[#>] ?/): Transcript {
  const table: Record<string, string> = {};
  let command: string | undefined;
  let output: string[] = [];
  const flush = () => {
    if (command) table[command] = output.join('\n');
  };
  for (const line of log.split(/\r?\n/)) {
    const m = prompt.exec(line);
    if (m) {
      flush();
      command = line.slice(m[0].length).trim() || undefined;
      output = [];
    } else if (command !== undefined) {
      output.push(line);
    }
  }
  flush();
  return table;
}

/** A session answering from a transcript; `executed` lists every command in the order sent. */
export function transcriptSession(transcript: Transcript): CliSession & { readonly executed: string[] } {
  const executed: string[] = [];
  return {
    executed,
    async exec(command: string): Promise<string> {
      executed.push(command);
      const out = Object.hasOwn(transcript, command) ? transcript[command] : undefined;
      if (out === undefined) throw new TranscriptMissError(command);
      return out;
    },
  };
}

export interface UnitHarness {
  /** Reads through the unit: everything ('/') or one instance path, config, state or both. */
  read(path?: string, content?: ContentFilter): Promise<JsonObject | undefined>;
  /** The commands (and undo) that take the device from `before` to `after`. */
  write(before: JsonObject, after: JsonObject): WritePlan;
  /** Commands that reached the transcript (one per distinct show command per read: reads are cached). */
  readonly executed: readonly string[];
}

/** A harness for one unit, or for several that serve one device together. */
export function unitHarness(
  units: TranslationUnit | PluginDefinition | ReadonlyArray<TranslationUnit | PluginDefinition>,
  transcript: Transcript,
): UnitHarness {
  const list = (Array.isArray(units) ? units : [units]).map(toUnit);
  const raw = transcriptSession(transcript);
  return {
    executed: raw.executed,
    read: (path = '/', content: ContentFilter = 'all') => readUnits(list, cachingSession(raw), { path, content }),
    write: (before, after) => planWrite(list, before, after),
  };
}

function toUnit(u: TranslationUnit | PluginDefinition): TranslationUnit {
  if ('rosettaPlugin' in u) {
    if (!u.translationUnit) throw new Error('the plugin defines no translation unit');
    return asTranslationUnit(u.translationUnit);
  }
  return asTranslationUnit(u);
}
