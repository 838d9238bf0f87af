/**
 * Strings that keep nothing else alive. V8 makes a substring of 13 or more characters a view into the
 * string it was cut from, so one value kept from a document (in a stored tree or a cache) keeps the
 * whole document in memory: a 20 MB XML body stayed for as long as any of its values did. JSON.parse
 * copies the strings it returns; whatever XML decoding keeps beyond the document's life goes through
 * `detached`.
 */

/** V8's shortest sliced string (`SlicedString::kMinLength`): shorter substrings are copies already. */
const VIEW_LENGTH = 13;

/** `text` as a string of its own: the same characters, sharing no memory with a longer string. */
export function detached(text: string): string {
  // a one-character prefix makes a rope; slicing it flattens the rope into a new string and cuts from that
  return text.length < VIEW_LENGTH ? text : ` ${text}`.slice(1);
}
