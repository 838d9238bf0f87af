/**
 * The characters a YANG string may hold (RFC 7950 §9.4): those XML 1.0 allows, that is tab, LF, CR,
 * U+0020–U+D7FF, U+E000–U+FFFD and U+10000–U+10FFFF. Anything else (NUL and the other C0 controls, a
 * surrogate not part of a pair, U+FFFE, U+FFFF) could not be written back in an XML document, so it is
 * refused wherever a string is stored.
 *
 * Checked once per string value on the decoders' hot paths, so the common case is one regular
 * expression test that finds nothing; a surrogate, which may be half of a valid pair, takes the exact test.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: the pattern names the control characters XML forbids
const SUSPECT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]/;
const FORBIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: as above, with surrogates outside a pair
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Whether `s` holds a character no YANG string (and no XML document) may hold. */
export function holdsNonXmlCharacter(s: string): boolean {
  return SUSPECT.test(s) && FORBIDDEN.test(s);
}

/** `U+XXXX` of the first character of `s` that no YANG string may hold (call after holdsNonXmlCharacter). */
export function firstNonXmlCharacter(s: string): string {
  const at = FORBIDDEN.exec(s);
  const code = at === null ? 0 : at[0].charCodeAt(0);
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Why a string holding a forbidden character is refused, for fault messages. */
export function nonXmlCharacterMessage(s: string): string {
  return `it holds the character ${firstNonXmlCharacter(s)}, which a YANG string cannot hold (RFC 7950 §9.4: only the characters XML 1.0 allows)`;
}

/**
 * `s` with each character no XML document may hold written as the text `\uXXXX`: for messages that
 * quote a refused value, which the XML error envelope must still be able to carry.
 */
export function escapeNonXmlCharacters(s: string): string {
  if (!holdsNonXmlCharacter(s)) return s;
  return s.replace(new RegExp(FORBIDDEN.source, 'g'), (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
