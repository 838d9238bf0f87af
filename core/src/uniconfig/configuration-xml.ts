/**
 * An XML body of a uniconfig node's `configuration` (`<configuration xmlns="...uniconfig-topology">`
 * around the device's top-level elements) without its wrapper, for the data decoder to read as the
 * device's datastore. Namespace declarations the wrapper makes (other than its own namespace) move down
 * onto each top-level element that does not make them itself, so prefixes in the content still resolve.
 * Read by the one XML tokenizer (data/xml-tokenizer.ts); a body that is not this wrapper, or is not
 * well-formed, is handed on as it is, and the decoder reports it.
 */
import { escapeXmlAttribute } from '../data/xml-escape';
import { MAX_XML_DEPTH, XmlSyntaxError, XmlToken, XmlTokenizer } from '../data/xml-tokenizer';
import { TOPOLOGY_NAMESPACE } from './node-store';

export function unwrapXmlConfiguration(text: string): string {
  const tok = new XmlTokenizer(text, MAX_XML_DEPTH);
  try {
    if (tok.next() !== XmlToken.Start || tok.name.slice(tok.name.indexOf(':') + 1) !== 'configuration') return text;
    const declarations: [string, string][] = [];
    for (let i = 0; i < tok.attrCount; i++) {
      const name = tok.attrNames[i]!;
      const value = tok.attrValues[i]!;
      if (name !== 'xmlns' && !name.startsWith('xmlns:')) continue;
      if (name === 'xmlns' && value === TOPOLOGY_NAMESPACE) continue; // the wrapper's own namespace
      declarations.push([name, value]);
    }
    if (tok.rawTag() === undefined) {
      tok.next(); // the end of <configuration/>
      return tok.next() === XmlToken.Eof ? '' : text;
    }
    let out = '';
    let copied = tok.offset;
    for (;;) {
      const token = tok.next();
      if (token === XmlToken.Start && tok.level === 2 && declarations.length > 0) {
        let missing = '';
        for (const [name, value] of declarations) if (!declares(tok, name)) missing += ` ${name}="${escapeXmlAttribute(value)}"`;
        const at = tok.tokenStart + 1 + tok.name.length;
        out += text.slice(copied, at) + missing;
        copied = at;
      } else if (token === XmlToken.End && tok.level === 0) {
        out += text.slice(copied, tok.tokenStart);
        return tok.next() === XmlToken.Eof ? out : text;
      } else if (token === XmlToken.Eof) {
        return text;
      }
    }
  } catch (e) {
    if (e instanceof XmlSyntaxError) return text;
    throw e;
  }
}

/** Whether the current start tag has attribute `name`. */
function declares(tok: XmlTokenizer, name: string): boolean {
  for (let i = 0; i < tok.attrCount; i++) if (tok.attrNames[i] === name) return true;
  return false;
}
