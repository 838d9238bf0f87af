/**
 * Prompt detection, learned from the device instead of hard-coded: the last line a device prints after
 * login (`frr-peer# `, `R1>`) is its base prompt; from its host part we derive every mode's prompt
 * (`frr-peer(config)# `, `frr-peer(config-router-af)# `, `R1>`). A prompt is recognised only as the last,
 * unterminated line of what the device sent, so output lines that merely contain the host name never end
 * a command early.
 */

/** The prompt characters of Cisco-like CLIs: `#` privileged, `>` unprivileged (`$`/`%` for shells). */
const PROMPT_LINE = /^([^\s#>$%()][^\s#>$%()]{0,127}?)(?:\(([^()\s]{0,64})\))?([#>$%])\s?$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC is what an ANSI sequence starts with
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b[=>]/g;

/** Where a prompt was found in received text, and what it says about the session. */
export interface PromptMatch {
  /** Index in the text where the prompt line begins (output ends before it). */
  readonly index: number;
  /** The prompt as printed (`frr-peer(config-if)# `). */
  readonly text: string;
  /** The mode in parentheses (`config`, `config-if`), undefined at the exec level. */
  readonly mode: string | undefined;
  /** `#`: privileged; `>`: user mode. */
  readonly privileged: boolean;
}

export interface LearnedPrompt {
  /** The host part every prompt of the device starts with. */
  readonly host: string;
  /** The base prompt as learned (`frr-peer# `). */
  readonly base: string;
  /** The device's prompt at the end of `received`, if the device is waiting for a command. */
  find(received: string): PromptMatch | undefined;
}

/** Removes terminal escape sequences (colours, cursor moves) some devices print around prompts. */
export function stripEscapes(text: string): string {
  return text.includes('\x1b') ? text.replace(ANSI, '') : text;
}

/** Longest last line looked at: longer than any prompt, and bounded so a huge line costs nothing per chunk. */
const TAIL = 512;

/**
 * The last, unterminated line of received text (without `\r` and escapes), and where it starts. Only the
 * last 512 characters are searched: a longer line comes back truncated, which no prompt pattern matches.
 */
export function lastLine(received: string): { readonly line: string; readonly index: number } {
  const from = Math.max(0, received.length - TAIL);
  const brk = received.slice(from).lastIndexOf('\n');
  const index = brk >= 0 ? from + brk + 1 : from;
  const line = stripEscapes(received.slice(index)).replace(/\r/g, '');
  // a line that began before the window is marked (NUL), so no anchored prompt pattern can match it
  return { line: brk < 0 && from > 0 ? `\0${line}` : line, index };
}

/**
 * A prompt learned from the last line of the text a device printed after login, or undefined when that
 * line does not look like a prompt (the device is still printing its banner, or it is not a CLI).
 */
export function learnPrompt(received: string): LearnedPrompt | undefined {
  const { line } = lastLine(received);
  const m = PROMPT_LINE.exec(line);
  if (!m) return undefined;
  const host = m[1]!;
  const pattern = new RegExp(`^${escapeRegExp(host)}(?:\\(([^()\\s]{0,64})\\))?([#>$%])\\s?$`);
  return {
    host,
    base: line,
    find(text: string): PromptMatch | undefined {
      const last = lastLine(text);
      if (last.line.length > host.length + 70) return undefined;
      const p = pattern.exec(last.line);
      if (!p) return undefined;
      return { index: last.index, text: last.line, mode: p[1], privileged: p[2] === '#' };
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
