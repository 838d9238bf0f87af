/**
 * FRR's JSON show output, parsed once per request. Within one request every reader asks the (cached)
 * session for the same text, and a reader runs once per list entry: parsing `show interface json` of a
 * 10,000-interface device once per interface would make a read quadratic. The parse is held in the
 * request's memo, not in this module, so one device's output is never served to another's request. The
 * value returned is shared between readers, so they must only read it.
 */
import { parseJsonOutput, type JsonValue, type RequestMemo } from '@rosetta/sdk';

/**
 * The JSON `command` printed (`output`), parsed; throws what `parseJsonOutput` throws (a CLI error line or
 * text that is not JSON). The same output is parsed once per request.
 */
export function parsedJson(memo: RequestMemo, command: string, output: string): JsonValue {
  return memo.derive(`json of ${command}`, output, parseJsonOutput);
}
