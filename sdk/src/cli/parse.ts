/**
 * Reading CLI output: indented configuration blocks (`show running-config`), sections picked by a header
 * pattern, fields picked by regex, records from repeated lines, and JSON output where a device offers it
 * (`show ... json`). All of them take the raw text a session returned (`\r\n` or `\n`) and never throw on
 * odd text, except `parseJsonOutput`, which says why the output is not JSON.
 */
import type { JsonValue } from '@rosetta/core';

/** One line of indented output with the lines indented under it. */
export interface Block {
  /** The line without its indentation. */
  readonly text: string;
  /** 1-based line number in the output. */
  readonly line: number;
  readonly indent: number;
  readonly children: Block[];
}

export interface BlockOptions {
  /** Lines that only close a block (dropped). Default: `exit`, `exit-*`, `end`. */
  readonly closers?: RegExp;
  /** Lines that only separate (dropped). Default: `!` and blank lines. */
  readonly separators?: RegExp;
}

/** Splits output into lines, whatever the line ends. */
export function lines(text: string): string[] {
  return text.split(/\r?\n|\r/);
}

/** Builds the indentation tree of a configuration listing (`interface lo` / ` description x` / `exit`). */
export function parseBlocks(text: string, options: BlockOptions = {}): Block[] {
  const closers = options.closers ?? /^(?:exit(?:-[\w-]+)?|end)$/;
  const separators = options.separators ?? /^!*$/;
  const roots: Block[] = [];
  const stack: Block[] = [];
  lines(text).forEach((raw, i) => {
    const expanded = raw.replace(/\t/g, '    ');
    const body = expanded.trim();
    if (separators.test(body) || closers.test(body)) return;
    const indent = expanded.length - expanded.trimStart().length;
    const block: Block = { text: body, line: i + 1, indent, children: [] };
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    if (stack.length === 0) roots.push(block);
    else stack[stack.length - 1]!.children.push(block);
    stack.push(block);
  });
  return roots;
}

/** A top-level block whose line matched a header pattern, with the match (for captured names). */
export interface Section {
  readonly match: RegExpExecArray;
  readonly block: Block;
  /** The texts of the block's direct children. */
  readonly lines: string[];
}

/** Top-level blocks whose line matches `header` (e.g. `/^interface (\S+)$/`), in output order. */
export function sections(textOrBlocks: string | readonly Block[], header: RegExp): Section[] {
  const blocks = typeof textOrBlocks === 'string' ? parseBlocks(textOrBlocks) : textOrBlocks;
  const found: Section[] = [];
  for (const block of blocks) {
    const match = new RegExp(header.source, header.flags.replace('g', '')).exec(block.text);
    if (match) found.push({ match, block, lines: block.children.map((c) => c.text) });
  }
  return found;
}

/** The first capture group (or the whole match) of the first line matching `pattern`. */
export function field(textOrLines: string | readonly string[], pattern: RegExp): string | undefined {
  const list = typeof textOrLines === 'string' ? lines(textOrLines) : textOrLines;
  const re = new RegExp(pattern.source, pattern.flags.replace('g', ''));
  for (const line of list) {
    const m = re.exec(line);
    if (m) return m[1] ?? m[0];
  }
  return undefined;
}

/** Several fields at once: name -> pattern, each read with `field`. */
export function fields<K extends string>(
  textOrLines: string | readonly string[],
  patterns: Record<K, RegExp>,
): Record<K, string | undefined> {
  const list = typeof textOrLines === 'string' ? lines(textOrLines) : textOrLines;
  const out = {} as Record<K, string | undefined>;
  for (const name of Object.keys(patterns) as K[]) out[name] = field(list, patterns[name]);
  return out;
}

/** Every line matching a pattern with named groups, as records (`/^ip route (?<prefix>\S+) (?<nh>\S+)$/`). */
export function records(textOrLines: string | readonly string[], pattern: RegExp): Array<Record<string, string>> {
  const list = typeof textOrLines === 'string' ? lines(textOrLines) : textOrLines;
  const re = new RegExp(pattern.source, pattern.flags.replace('g', ''));
  const out: Array<Record<string, string>> = [];
  for (const line of list) {
    const m = re.exec(line);
    if (m) out.push({ ...(m.groups ?? {}) });
  }
  return out;
}

/** A CLI error line (`% Unknown command: ...`) in the output, if any. */
export function cliError(output: string, pattern: RegExp = /^% .*/): string | undefined {
  return field(output, pattern);
}

/** Output that should have been something else, with the reason and the start of what came. */
export class CliOutputError extends Error {
  constructor(
    message: string,
    readonly output: string,
  ) {
    super(`${message}; output began: ${JSON.stringify(output.slice(0, 120))}`);
    this.name = 'CliOutputError';
  }
}

/**
 * Parses the JSON a `show ... json` command prints. Lines before the JSON (a stray echo, a warning) are
 * skipped; a CLI error line or text that is not JSON throws a CliOutputError saying so.
 */
export function parseJsonOutput(output: string): JsonValue {
  const error = cliError(output);
  if (error) throw new CliOutputError(`the device answered with an error: ${error}`, output);
  const start = output.search(/^[ \t]*[[{]/m);
  if (start < 0) throw new CliOutputError('no JSON in the output', output);
  const end = Math.max(output.lastIndexOf('}'), output.lastIndexOf(']'));
  try {
    return JSON.parse(output.slice(start, end + 1)) as JsonValue;
  } catch (err) {
    throw new CliOutputError(`the output is not valid JSON (${(err as Error).message})`, output);
  }
}
