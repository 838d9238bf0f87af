/**
 * FRR's JSON show output, parsed once per distinct output. Within one request every reader asks the
 * (cached) session for the same text, and a reader runs once per list entry: parsing `show interface json`
 * of a 10,000-interface device once per interface would make a read quadratic. The value returned is
 * shared between readers, so they must only read it.
 */
import { parseJsonOutput, type JsonValue } from '@rosetta/sdk';

/** At most this many commands' outputs are remembered (one per command; VRF names make the set open). */
const MAX_COMMANDS = 64;

const lastByCommand = new Map<string, { readonly text: string; readonly value: JsonValue }>();

/**
 * The JSON `command` printed (`output`), parsed; throws what `parseJsonOutput` throws (a CLI error line or
 * text that is not JSON). Output seen last time for the same command is not parsed again.
 */
export function parsedJson(command: string, output: string): JsonValue {
  const held = lastByCommand.get(command);
  if (held && held.text === output) return held.value;
  const value = parseJsonOutput(output);
  if (!held && lastByCommand.size >= MAX_COMMANDS) lastByCommand.clear();
  lastByCommand.set(command, { text: output, value });
  return value;
}
