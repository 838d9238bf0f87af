/**
 * The service's one XML escaping, for everything it writes as XML: the data encoder (xml-encode.ts),
 * NETCONF messages and filters (the SDK re-exports these as `escapeText` and `escapeAttr`), YANG Patch
 * status and the NETCONF reader's standalone subtrees. CR is written as a character reference in both
 * forms and TAB and LF in attribute values, because a reader normalises them otherwise (XML 1.0 §2.11,
 * §3.3.3) and the value read back would differ from the value written.
 */

/** Character data for element content: `&`, `<`, `>` and CR escaped. */
export function escapeXmlText(s: string): string {
  return needsTextEscape(s) ? s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;') : s;
}

/** Whether text holds `&`, `<`, `>` or CR; a plain loop: on the short values of a tree it beats RegExp.test. */
function needsTextEscape(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // '&' 38, '<' 60, '>' 62, CR 13; everything above '>' and the rest below need nothing
    if (c <= 62 && (c === 38 || c === 60 || c === 62 || c === 13)) return true;
  }
  return false;
}

/** A double-quoted attribute value: `&`, `<`, `"`, TAB, LF and CR escaped. */
export function escapeXmlAttribute(s: string): string {
  return /[&<"\t\n\r]/.test(s)
    ? s
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/"/g, '&quot;')
        .replace(/\t/g, '&#9;')
        .replace(/\n/g, '&#10;')
        .replace(/\r/g, '&#13;')
    : s;
}
