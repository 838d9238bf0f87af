/**
 * The public face of data/: the data tree, its RFC 7951 JSON and XML codecs, instance paths, list
 * lookups, copy-on-write edits and diffs. Validation against the schema lives in validate*.ts.
 */
export * from './tree';
export * from './errors';
export { instancePath, pathOfChain, segmentOf, entryKeyValues, quotePredicate, valueText, type PathSegment } from './path';
export {
  keyString,
  entryKey,
  listIndex,
  findEntry,
  firstRepeatedKey,
  putEntry,
  removeEntry,
  putValue,
  removeValue,
  valueIndex,
  copyList,
  copyLeafList,
  type InsertPosition,
} from './list';
export { childTable, topTable, tableFor, resolveChild, dataSchemaChildren, type ChildTable, type ChildSlot } from './children';
export { checkAttribute, checkAttributes, writtenAttributeName, jsonScalar, type AttributeOptions } from './attributes';
export { decodeJson, parseJsonText, MAX_ANYDATA_DEPTH, type DecodeOptions, type Decoded } from './json-decode';
export { parseJsonBody, JsonBodyError } from './json-syntax';
export { encodeJson, toJsonValue, type EncodeJsonOptions } from './json-encode';
export { decodeXml } from './xml-decode';
export { MAX_XML_DEPTH, XmlSyntaxError, XmlToken, XmlTokenizer } from './xml-tokenizer';
export { parseXmlElement, child, childrenNamed, standaloneText, innerText, type XmlElement } from './xml-element';
export { escapeXmlText, escapeXmlAttribute } from './xml-escape';
export { encodeXml, RESTCONF_NS, type EncodeXmlOptions } from './xml-encode';
export { applyEdit, applyEdits, mergeNodes, mergeChildren, type Edit, type EditOperation, type PathStep } from './edit';
export { diffTrees, type Change, type ChangeType } from './diff';
export { cutContent, type ContentCut } from './content';
