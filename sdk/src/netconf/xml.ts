/**
 * The SDK's names for the core's XML reader (core/src/data/xml-element.ts over xml-tokenizer.ts) and its
 * one escaping (xml-escape.ts): NETCONF messages are read by the tokenizer that reads the service's
 * request bodies, with its well-formedness checks, faults and depth bound. `XmlTokenizer` is there
 * for a reader that needs only the first tags of a long message (the NETCONF plugin's reply.ts).
 */
export {
  parseXmlElement as parseXml,
  child,
  childrenNamed,
  standaloneText,
  innerText,
  escapeXmlText as escapeText,
  escapeXmlAttribute as escapeAttr,
  XmlSyntaxError,
  XmlToken,
  XmlTokenizer,
  MAX_XML_DEPTH,
  type XmlElement,
} from '@rosetta/core';
